"""Saturation: the point past which more load buys no more throughput, only latency.

An SRE ramps bots until the server gives out; a tool that keeps reporting rates past that point
without saying so invites misreading them. The run is cut into windows of ``window_s`` seconds; the
best window so far is the one of highest throughput (actions/s). A later window is **saturated**
when at least as many bots were online (within 5%), throughput did not grow past the best by more
than 5%, and the p99 round trip is at least twice the best window's and at least ``floor_ms``: the
offered load stayed or rose, the server did no more, and queues grew (Little's law: in a closed
model rising latency at flat concurrency means falling throughput). The first saturated window is
reported; the live view flags it while it lasts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tablestorm.sim.load.stats import RunStats

WINDOW_S = 10
LOAD_TOLERANCE = 0.95
THROUGHPUT_TOLERANCE = 1.05
LATENCY_FACTOR = 2.0
FLOOR_MS = 25.0
"""A p99 below this is not called saturation, however it moved (noise at small latencies)."""


@dataclass(frozen=True, slots=True)
class Window:
    start_s: int
    actions_per_s: float
    bots: float
    p99_ms: float | None


@dataclass(frozen=True, slots=True)
class Saturation:
    """The first saturated window and the best one it is measured against."""

    at_s: int
    best: Window
    window: Window

    def describe(self) -> str:
        best, now = self.best, self.window
        return (
            f"saturated from {self.at_s} s: {now.bots:,.0f} bots (best window {best.bots:,.0f}) got "
            f"{now.actions_per_s:,.0f} actions/s (best {best.actions_per_s:,.0f}) at p99 "
            f"{now.p99_ms:,.0f} ms (then {best.p99_ms:,.0f} ms)"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "at_s": self.at_s,
            "bots": round(self.window.bots, 1),
            "actions_per_s": round(self.window.actions_per_s, 2),
            "p99_ms": self.window.p99_ms,
            "best_window_s": self.best.start_s,
            "best_actions_per_s": round(self.best.actions_per_s, 2),
            "best_p99_ms": self.best.p99_ms,
            "description": self.describe(),
        }


class SaturationWatch:
    """Windows of a run as they complete, and the saturation verdict over them."""

    def __init__(self, window_s: int = WINDOW_S, floor_ms: float = FLOOR_MS) -> None:
        self.window_s = window_s
        self.floor_ms = floor_ms
        self.windows: list[Window] = []
        self.first: Saturation | None = None
        self.now: bool = False
        """Whether the latest complete window is saturated."""
        self._best: Window | None = None

    def update(self, stats: RunStats, bots_online: Mapping[int, int], elapsed: float) -> None:
        """Take in every window complete by ``elapsed`` seconds into the run."""
        while (len(self.windows) + 1) * self.window_s <= elapsed:
            start = len(self.windows) * self.window_s
            part = stats.window(start, start + self.window_s)
            counts = [bots_online[s] for s in range(start, start + self.window_s) if s in bots_online]
            p99 = part.corrected().percentile(99)
            window = Window(
                start,
                part.actions / self.window_s,
                sum(counts) / len(counts) if counts else 0.0,
                None if p99 is None else round(p99 * 1000.0, 3),
            )
            self.windows.append(window)
            self._judge(window)

    def _judge(self, window: Window) -> None:
        best = self._best
        self.now = best is not None and self._saturated(best, window)
        if self.now and self.first is None:
            assert best is not None
            self.first = Saturation(window.start_s, best, window)
        if best is None or window.actions_per_s > best.actions_per_s:
            self._best = window

    def _saturated(self, best: Window, window: Window) -> bool:
        if window.p99_ms is None or best.p99_ms is None or window.p99_ms < self.floor_ms:
            return False
        return (
            window.bots >= LOAD_TOLERANCE * best.bots
            and window.actions_per_s <= THROUGHPUT_TOLERANCE * best.actions_per_s
            and window.p99_ms >= LATENCY_FACTOR * best.p99_ms
        )
