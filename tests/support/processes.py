"""``tablestorm serve`` as a process the test starts on 127.0.0.1 and stops, by its PID."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

TABLESTORM = Path(sys.executable).parent / "tablestorm"


@dataclass(frozen=True)
class Served:
    process: subprocess.Popen[str]
    endpoint: str
    """127.0.0.1:PORT, the port it picked (it prints it on stdout once listening)."""


@contextmanager
def serve(*flags: str | Path) -> Iterator[Served]:
    """A table server with ``flags`` (TLS files, say) on a free port of 127.0.0.1; at the end it is
    asked to stop (SIGTERM) and killed if it has not within 30 s (a test may have killed it)."""
    process = subprocess.Popen(
        [TABLESTORM, "serve", "--port", "0", "--drain-seconds", "0.2", "--log-level", "warning", *flags],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, "tablestorm serve exited before it listened"
        yield Served(process, f"127.0.0.1:{json.loads(line)['grpc_port']}")
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
