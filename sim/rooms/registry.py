"""Room adapters by name: the ``tablestorm.rooms`` entry point group, or ``module:Class``.

A package ships an adapter by declaring it in its own ``pyproject.toml``::

    [project.entry-points."tablestorm.rooms"]
    myroom = "myroom.adapter:MyRoom"

and ``tablestorm load --room myroom`` (or a scenario's ``room: {name: myroom}``) finds it once the
package is installed. ``module:Class`` names one that is importable but not registered (a test's).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Final, cast

from tablestorm.services.fields import FieldError, mapping
from tablestorm.sim.rooms.base import Room

__all__ = ["DEFAULT_ROOM", "GROUP", "ROOM_KEYS", "RoomChoice", "room_class", "room_names"]

GROUP: Final = "tablestorm.rooms"
DEFAULT_ROOM: Final = "grpc"
ROOM_KEYS: Final = ("name", "options")
"""The keys of a scenario's ``room:`` section (docs/scenarios.md)."""


def room_names() -> tuple[str, ...]:
    """The registered adapters' names, sorted."""
    return tuple(sorted(point.name for point in entry_points(group=GROUP)))


def room_class(name: str, where: str = "room.name") -> type[Room]:
    """The adapter class ``name`` stands for; :class:`FieldError` naming ``where`` if none."""
    if ":" in name:
        module_name, _, attribute = name.partition(":")
        try:
            found: object = getattr(importlib.import_module(module_name), attribute)
        except ImportError as exc:
            raise FieldError(where, f"cannot import {module_name!r}: {exc}") from None
        except AttributeError:
            raise FieldError(where, f"module {module_name!r} has no {attribute!r}") from None
    else:
        points = [point for point in entry_points(group=GROUP) if point.name == name]
        if not points:
            raise FieldError(where, f"unknown room {name!r} (known: {', '.join(room_names())}; or module:Class)")
        found = points[0].load()
    if not isinstance(found, type):
        raise FieldError(where, f"{name!r} is not a class")
    return cast("type[Room]", found)


@dataclass(frozen=True, slots=True)
class RoomChoice:
    """The room a run's bots play in: an adapter's name and its options, checked (see :meth:`parse`).
    Plain data, so that it travels to the fleets, which each make their own room of it."""

    name: str = DEFAULT_ROOM
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, value: Any, path: str, name_flag: str | None = None) -> RoomChoice:
        """A scenario's ``room:`` section at ``path`` (absent: the gRPC room); ``name_flag``: the
        flag that set the name (``--room``), named if the name is refused. The adapter checks its
        options by being made once (an adapter's constructor opens nothing)."""
        spec = mapping(value, path, ROOM_KEYS, optional=True)
        name = spec.get("name", DEFAULT_ROOM)
        where = name_flag or f"{path}.name"
        if not isinstance(name, str) or not name:
            raise FieldError(where, f"expected an adapter's name or module:Class, got {name!r}")
        adapter = room_class(name, where)
        options = spec.get("options") or {}
        if not isinstance(options, dict):
            raise FieldError(f"{path}.options", f"expected a mapping, got {type(options).__name__}")
        try:
            adapter(options)
        except FieldError as exc:
            raise exc.within(f"{path}.options.") from None
        return cls(name, dict(options))

    def make(self) -> Room:
        """A room of this choice (in the process that uses it: a fleet's)."""
        return room_class(self.name)(self.options)
