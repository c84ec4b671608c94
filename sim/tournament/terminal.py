"""What a live tournament prints while it runs: one status line, redrawn on a terminal.

The driver hands it the tournament server's state about once a second (:meth:`TournamentView.update`);
on a terminal the line is redrawn in place, elsewhere (a file, a CI log) one line is written every
``plain_every_s`` seconds and at every change of level, so logs stay short. Notes (a chaos event,
the time limit) are printed on lines of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

from tablestorm.sim.reporting.terminal import redraws

__all__ = ["TournamentView", "hms", "status_line"]


def hms(seconds: float) -> str:
    """``h:mm:ss`` of a tournament's time (the live line's and the report's one spelling)."""
    minutes, secs = divmod(max(0, round(seconds)), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{secs:02d}"


def status_line(status: Mapping[str, Any]) -> str:
    """``0:03:10 level 4 (1:20 left) · 612/1000 players · 78 tables · 2,104 hands · 388 out``."""
    level = "break" if status["on_break"] else f"level {status['level']}"
    parts = [
        f"{hms(status['elapsed_s'])} {status['status']}",
        f"{level} ({hms(status['time_left_s'])} left)" if status["time_left_s"] != float("inf") else level,
        f"{status['players_left']}/{status['entries']} players",
        f"{status['tables']} tables",
        f"{status['hands']:,} hands",
        f"{status['eliminations']} out",
    ]
    if status["hand_for_hand"]:
        parts.append("HAND-FOR-HAND")
    if status["halted"]:
        parts.append(f"halted: {status['halted']}")
    return " · ".join(parts)


class TournamentView:
    """The status line on ``stream``: redrawn on a terminal, periodic lines elsewhere; ``tty``
    overrides the detection (:func:`~tablestorm.sim.reporting.terminal.redraws`)."""

    def __init__(self, stream: TextIO, *, plain_every_s: float = 10.0, tty: bool | None = None) -> None:
        self._stream = stream
        self._tty = redraws(stream) if tty is None else tty
        self._plain_every_s = plain_every_s
        self._last_at: float | None = None
        self._last_level: tuple[int, bool] | None = None
        self._drawn = False

    def update(self, status: Mapping[str, Any]) -> None:
        line = status_line(status)
        if self._tty:
            self._stream.write(f"\r\x1b[K{line}")
            self._drawn = True
        else:
            level = (status["level"], status["on_break"])
            due = self._last_at is None or status["elapsed_s"] - self._last_at >= self._plain_every_s
            if due or level != self._last_level or status["status"] == "finished":
                self._stream.write(line + "\n")
                self._last_at, self._last_level = status["elapsed_s"], level
        self._stream.flush()

    def note(self, text: str) -> None:
        """A line of its own (the status line is redrawn below it)."""
        self._stream.write(("\n" if self._drawn else "") + text + "\n")
        self._drawn = False
        self._stream.flush()

    def finish(self) -> None:
        if self._drawn:
            self._stream.write("\n")
            self._drawn = False
        self._stream.flush()
