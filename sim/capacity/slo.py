"""The service level objective of a capacity sweep, judged second by second, and goodput.

An SLO is one or more threshold expressions (:mod:`tablestorm.sim.load.thresholds`' syntax, e.g. ``p99_ms<100``)
over what one second of a run can say on its own: the percentiles, maximum and mean of the action
round trip, and the errors. Every expression must hold.

**Goodput** over a window of whole seconds is the actions (and hands) of the seconds that met the
SLO, divided by the window's length: a second whose p99 was 140 ms against ``p99_ms<100``
contributes nothing, however many actions it answered, and a second without a single answered
action never meets a latency objective. So goodput <= throughput, with equality exactly when every
second of the window met the SLO. A **step** meets the SLO when the expressions hold over its
whole measured window (its p99 over every action of the window, its errors), as `tablestorm load`'s
thresholds would judge a run of that window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from tablestorm.sim.load.stats import RunStats, SecondStats
from tablestorm.sim.load.summary import latency_ms
from tablestorm.sim.load.thresholds import Threshold, ThresholdResult, all_ok, parse

__all__ = ["DEFAULT_SLO", "METRICS", "SLO", "Goodput"]

METRICS: Final = ("p50_ms", "p90_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms", "mean_ms", "errors", "errors_total")
"""The threshold metrics one second can be judged by."""
DEFAULT_SLO: Final = ("p99_ms<100",)


@dataclass(frozen=True, slots=True)
class Goodput:
    """What of a window met the SLO: its actions and hands, and how many of its seconds."""

    actions: int
    hands: int
    seconds_met: int
    seconds: int

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0


@dataclass(frozen=True, slots=True)
class SLO:
    """Parsed SLO expressions; build it with :meth:`parse`."""

    thresholds: tuple[Threshold, ...]

    @classmethod
    def parse(cls, expressions: Sequence[str]) -> SLO:
        """Raises ValueError naming the expression that is malformed or judges something a
        second cannot say (hands, chips, the bot count)."""
        if not expressions:
            raise ValueError("an SLO needs at least one expression, e.g. p99_ms<100")
        parsed = []
        for expression in expressions:
            threshold = parse(expression)
            if threshold.metric not in METRICS:
                raise ValueError(
                    f"{threshold.metric!r} in {expression!r} cannot be judged per second; an SLO uses"
                    f" {', '.join(METRICS)}"
                )
            parsed.append(threshold)
        return cls(tuple(parsed))

    @property
    def expressions(self) -> list[str]:
        return [t.expression for t in self.thresholds]

    def check(self, window: SecondStats) -> list[ThresholdResult]:
        """Each expression judged on ``window`` (one second, or several merged)."""
        facts = {"latency_ms": latency_ms(window.corrected()), "errors_total": window.errors_total}
        return [threshold.check(facts) for threshold in self.thresholds]

    def met(self, window: SecondStats) -> bool:
        return all_ok(self.check(window))

    def goodput(self, stats: RunStats, start: int, stop: int) -> Goodput:
        """Goodput of the run's seconds ``start <= s < stop`` (see the module docstring)."""
        actions = hands = met = 0
        for second in range(start, stop):
            window = stats.window(second, second + 1)
            if self.met(window):
                actions += window.actions
                hands += window.hands
                met += 1
        return Goodput(actions, hands, met, stop - start)
