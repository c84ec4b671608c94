"""What a running ``tablestorm schedule`` prints on stderr: replications done and the time left.

On a terminal one line is redrawn in place (a carriage return); when stderr is a file or a CI log,
which cannot be redrawn, a plain line is written every ``plain_every_s`` seconds and when a
replication completes, so logs stay short and readable. The time left is the elapsed time scaled
by the work still to do, work being each task's expected size (its forecast players), so a few
large events done early do not make the rest look quick.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from tablestorm.sim.reporting.terminal import redraws

__all__ = ["Progress", "duration"]

BAR = 24


def duration(seconds: float) -> str:
    """``1h 02m``, ``3m 07s``, ``12s``."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


class Progress:
    """The progress of one run of ``replications`` replications in ``tasks`` tasks of ``work`` in all;
    ``tty`` overrides the detection (:func:`~tablestorm.sim.reporting.terminal.redraws`)."""

    def __init__(
        self,
        replications: int,
        tasks: int,
        work: float,
        *,
        stream: TextIO = sys.stderr,
        plain_every_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        tty: bool | None = None,
    ) -> None:
        self.replications, self.tasks, self.work = replications, tasks, work
        self._stream = stream
        self._terminal = redraws(stream) if tty is None else tty
        self._plain_every_s = plain_every_s
        self._clock = clock
        self._started = clock()
        self._last_plain = -float("inf")
        self._last_done = 0

    def line(self, replications_done: int, tasks_done: int, work_done: float) -> str:
        """The line shown for this much done."""
        elapsed = self._clock() - self._started
        share = work_done / self.work if self.work else 1.0
        filled = round(BAR * share)
        left = "estimating" if work_done <= 0 else f"{duration(elapsed * (1 - share) / share)} left"
        return (
            f"schedule [{'#' * filled}{'-' * (BAR - filled)}] {replications_done}/{self.replications} replications,"
            f" {tasks_done}/{self.tasks} tasks, {duration(elapsed)} elapsed, {left}"
        )

    def update(self, replications_done: int, tasks_done: int, work_done: float) -> None:
        text = self.line(replications_done, tasks_done, work_done)
        now = self._clock()
        if self._terminal:
            self._stream.write(f"\r{text}\x1b[K")
        elif replications_done > self._last_done or now - self._last_plain >= self._plain_every_s:
            self._stream.write(text + "\n")
            self._last_plain = now
        self._last_done = replications_done
        self._stream.flush()

    def close(self) -> None:
        if self._terminal:
            self._stream.write("\n")
            self._stream.flush()
