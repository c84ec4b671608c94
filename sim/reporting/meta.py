"""What every report and summary says about its run: the tool, the command, the machine, the time.

A figure means little without the machine it ran on (machines differ by 2-3x), so every output of
every command carries this block: its CPU model, cores, Python and Ray among it.
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


def cpu_model() -> str | None:
    """The processor's name as the kernel gives it (``/proc/cpuinfo``: x86's ``model name``, Arm's
    ``Model``), else as Python's platform module does; None when neither says."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or None


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
            "cpu_model": cpu_model(),
            "cores": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "ray": ray_version,
        },
    }
