"""Interrupting a real ``tablestorm`` process the way a user does: a signal once it says it runs,
and maybe the same signal again once it says it heard the first."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable

import pytest

__all__ = ["interrupt_when"]


def _read_until(process: subprocess.Popen[str], seen: Callable[[str], bool], what: str) -> list[str]:
    """Lines of the process's stderr up to the first for which ``seen`` is true (the test fails if
    it ends first)."""
    assert process.stderr is not None
    lines = []
    for line in process.stderr:
        lines.append(line)
        if seen(line):
            return lines
    pytest.fail(f"the process ended before it said {what}:\n" + "".join(lines[-20:]))


def interrupt_when(
    process: subprocess.Popen[str],
    running: Callable[[str], bool],
    timeout: float = 120.0,
    *,
    signum: signal.Signals = signal.SIGINT,
    again: Callable[[str], bool] | None = None,
) -> str:
    """Send ``signum`` to ``process`` at the first line of its stderr for which ``running`` is true;
    with ``again``, send it once more at the first line after that for which ``again`` is true (the
    run's answer to the first: its second comes while the first is being handled). Then wait for the
    process to exit; returns its stderr from the first signal on. The process is killed if it
    outlives ``timeout`` or the test fails."""
    try:
        _read_until(process, running, "it was running")
        process.send_signal(signum)
        heard = [] if again is None else _read_until(process, again, "it heard the first signal")
        if again is not None:
            process.send_signal(signum)
        _, err = process.communicate(timeout=timeout)
        return "".join(heard) + err
    finally:
        if process.poll() is None:
            process.kill()
