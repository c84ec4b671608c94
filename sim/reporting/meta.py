"""What every report and summary says about its run: the tool, the command, the machine, the time.

A figure means little without the machine it ran on (machines differ by 2-3x), so every output of
every command carries this block.
"""

from __future__ import annotations

import os
import platform
import shlex
import socket
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from tablestorm import version


def run_metadata(command: Sequence[str], started: float) -> dict[str, Any]:
    """The block for a run started at ``started`` (Unix seconds) by ``command`` (argv)."""
    try:
        ray_version = metadata.version("ray")
    except metadata.PackageNotFoundError:
        ray_version = None
    return {
        "tablestorm_version": version(),
        "command_line": shlex.join(command),
        "started_at": datetime.fromtimestamp(started, UTC).isoformat(timespec="seconds"),
        "machine": {
            "hostname": socket.gethostname(),
            "cores": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "ray": ray_version,
        },
    }
