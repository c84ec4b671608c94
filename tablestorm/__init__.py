"""tablestorm: distributed poker load and tournament simulation (README.md).

The repository's top-level folders install as this one import package: ``tablestorm.services``
(the engine, the director and the gRPC services) and ``tablestorm.sim`` (the commands, bots and
reports). In a checkout, ``tablestorm/services`` and ``tablestorm/sim`` are links to those folders.
"""

from __future__ import annotations

from importlib import metadata


def version() -> str:
    """The installed distribution's version (its metadata, not a copy of the number), or
    "unknown (not installed)" in a checkout that was never installed."""
    try:
        return metadata.version("tablestorm")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"
