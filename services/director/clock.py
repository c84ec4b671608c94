"""The tournament clock: levels advance on it (TOURN-1), a pause stops it. Time is an argument.

The clock holds no time of its own: :meth:`LevelClock.advance` is told ``now`` and returns the
levels entered since the last call, in order. The last level lasts until the tournament ends
[decision: a structure that runs out of levels stays at its last one, as rooms do].
"""

from __future__ import annotations

import math

from tablestorm.services.director.structure import Level


class LevelClock:
    """Which level is in force, and when the next one begins."""

    __slots__ = ("_ends", "_left", "index", "levels", "started")

    def __init__(self, levels: tuple[Level, ...]) -> None:
        self.levels = levels
        self.index = 0
        self._ends = math.inf
        """When the current level ends, on the running clock (inf before the start and at the end)."""
        self._left: float | None = None
        """Seconds left in the current level while paused."""
        self.started = False

    @property
    def level(self) -> Level:
        return self.levels[self.index]

    @property
    def paused(self) -> bool:
        return self._left is not None

    def start(self, now: float) -> None:
        self.started = True
        self._ends = self._end_of(self.index, now)

    def _end_of(self, index: int, start: float) -> float:
        return start + self.levels[index].duration_s if index < len(self.levels) - 1 else math.inf

    def advance(self, now: float) -> list[int]:
        """Enter every level whose start ``now`` has reached; returns their indexes in order."""
        entered = []
        while self._left is None and now >= self._ends:
            start = self._ends
            self.index += 1
            self._ends = self._end_of(self.index, start)
            entered.append(self.index)
        return entered

    def index_at(self, now: float) -> int:
        """The level that :meth:`advance` would reach at ``now``, without moving the clock."""
        index, ends = self.index, self._ends
        while self._left is None and now >= ends:
            index += 1
            ends = self._end_of(index, ends)
        return index

    def time_left(self, now: float) -> float:
        """Seconds left in the current level (inf for the last one; all of it before the start)."""
        if self._left is not None:
            return self._left
        if not self.started:
            return self._end_of(self.index, 0.0)
        return max(0.0, self._ends - now)

    def next_change(self) -> float | None:
        """When the next level begins on the running clock; None while paused or at the last level."""
        return None if self._left is not None or math.isinf(self._ends) else self._ends

    def pause(self, now: float) -> None:
        self._left = self.time_left(now)

    def resume(self, now: float) -> None:
        left, self._left = self._left, None
        if left is not None:
            self._ends = now + left if not math.isinf(left) else math.inf

    def stop(self) -> None:
        """The tournament is over: no level change is due any more."""
        self._ends = math.inf
        self._left = None
