"""Random durations a run draws: think times, session lengths.

A scenario (and a tournament's player profile) names a distribution per quantity; bots and drivers
draw from it with their own seeded ``random.Random``, so a run is reproducible from its seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Distribution:
    """Seconds drawn per use: ``fixed``, ``uniform`` (min..max) or ``exponential`` (mean)."""

    kind: str = "fixed"
    value: float = 0.0
    low: float = 0.0
    high: float = 0.0

    def sample(self, rng: random.Random) -> float:
        if self.kind == "uniform":
            return rng.uniform(self.low, self.high)
        if self.kind == "exponential":
            return rng.expovariate(1.0 / self.value) if self.value > 0 else 0.0
        return self.value

    @property
    def mean(self) -> float:
        return (self.low + self.high) / 2 if self.kind == "uniform" else self.value
