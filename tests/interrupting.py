"""Interrupting a real ``tablestorm`` process the way a user does: SIGINT once it says it runs."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable

import pytest

__all__ = ["interrupt_when"]


def interrupt_when(process: subprocess.Popen[str], running: Callable[[str], bool], timeout: float = 120.0) -> str:
    """Send SIGINT to ``process`` at the first line of its stderr for which ``running`` is true (the
    test fails if it ends first) and wait for it to exit; returns the rest of its stderr. The
    process is killed if it outlives ``timeout`` or the test fails."""
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if running(line):
                break
        else:
            pytest.fail("the process ended before it said it was running")
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=timeout)
        return err
    finally:
        if process.poll() is None:
            process.kill()
