"""What a schedule forecasts and a replication draws: how many enter, when they come.

An :class:`EntrantForecast` is the operator's belief about an event's field (a fixed count, a
normal or a lognormal around last weeks' numbers, or the counts of past days to draw from); an
:class:`ArrivalCurve` is when late registrants come in (weights over equal slices of the late
registration period: most rooms see a rush in the first levels); an :class:`HourlyRate` is a
sit-and-go's players per minute by hour of the day. Each draws from a ``random.Random`` handed in,
so a replication seeded once draws the same field every time.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass
from typing import Final

__all__ = ["ENTRANT_KINDS", "ArrivalCurve", "EntrantForecast", "HourlyRate", "field_size"]

ENTRANT_KINDS: Final = ("fixed", "normal", "lognormal", "empirical")
MINIMUM_FIELD: Final = 2
"""A tournament needs two players (the director refuses to start with fewer)."""


def field_size(count: float, maximum: int = 0) -> int:
    """``count`` as a field: rounded, at least :data:`MINIMUM_FIELD`, at most ``maximum`` (0: no limit)."""
    field = max(MINIMUM_FIELD, round(count))
    return min(field, maximum) if maximum else field


@dataclass(frozen=True, slots=True)
class EntrantForecast:
    """Players entering one event (re-entries not counted): drawn, rounded, kept within the field's limits.

    ``fixed``: ``value``; ``normal``: ``mean`` and ``sd``; ``lognormal``: ``median`` and ``sigma``
    (the standard deviation of the count's logarithm: 0.3 puts the p10-p90 range at 0.68x-1.47x the
    median); ``empirical``: one of ``values`` (counts of past days), each equally likely.
    """

    kind: str
    value: float = 0.0
    """fixed: the count; normal: the mean; lognormal: the median."""
    spread: float = 0.0
    """normal: the standard deviation; lognormal: sigma."""
    values: tuple[int, ...] = ()

    def draw_real(self, rng: random.Random) -> float:
        """One draw before rounding and clipping (what a goodness-of-fit test compares)."""
        if self.kind == "normal":
            return rng.normalvariate(self.value, self.spread)
        if self.kind == "lognormal":
            return self.value * math.exp(rng.normalvariate(0.0, self.spread))
        if self.kind == "empirical":
            return float(rng.choice(self.values))
        return self.value

    def draw(self, rng: random.Random, maximum: int = 0) -> int:
        """A field size: the draw rounded, at least 2 and at most ``maximum`` (0: no limit)."""
        return field_size(self.draw_real(rng), maximum)

    @property
    def median(self) -> float:
        """The middle of the forecast: half the draws are smaller (the field a live check plays)."""
        if self.kind == "empirical":
            return float(statistics.median(self.values))
        return self.value  # normal: its mean; lognormal: its median; fixed: the count

    @property
    def mean(self) -> float:
        """The expected draw before clipping (a replication's expected cost, for scheduling tasks)."""
        if self.kind == "lognormal":
            return self.value * math.exp(self.spread**2 / 2)
        if self.kind == "empirical":
            return sum(self.values) / len(self.values)
        return self.value


@dataclass(frozen=True, slots=True)
class ArrivalCurve:
    """Late registrants' arrival density: ``weights[k]`` for the k-th of ``len(weights)`` equal
    slices of the late registration period, uniform within a slice."""

    weights: tuple[float, ...] = (1.0,)

    def times(self, count: int, closes_s: float, rng: random.Random) -> list[float]:
        """``count`` arrival times in seconds from the start, each before ``closes_s``."""
        slices = len(self.weights)
        width = closes_s / slices
        chosen = rng.choices(range(slices), weights=self.weights, k=count)
        return [(k + rng.random()) * width for k in chosen]


@dataclass(frozen=True, slots=True)
class HourlyRate:
    """Players arriving per minute, by hour of the day (``per_minute[h]`` from h:00 to h:59)."""

    per_minute: tuple[float, ...]

    def arrivals(self, rng: random.Random) -> list[float]:
        """A day's arrival times in seconds from midnight: a Poisson process whose rate is constant
        within each hour (exponential gaps, restarted at each hour: memoryless, so exact)."""
        times: list[float] = []
        for hour, rate in enumerate(self.per_minute):
            if rate <= 0:
                continue
            t, end = hour * 3600.0, (hour + 1) * 3600.0
            while True:
                t += rng.expovariate(rate / 60.0)
                if t >= end:
                    break
                times.append(t)
        return times

    @property
    def daily(self) -> float:
        """Expected arrivals over the day."""
        return 60.0 * sum(self.per_minute)

