"""A suggested structure played to its target (``tablestorm structure``).

The advisor's rule of thumb (:mod:`tablestorm.services.director.advisor`) says when a freezeout
usually ends; how fast a field plays down depends on the game, the seats, the betting and the
players. So the command plays the suggestion: the default field
(:data:`~.profiles.DEFAULT_PROFILES`, with the field's default rates where the structure offers
them, :func:`.field.offered`) on the accelerated driver, a few seeds; and while the median
duration is more than :data:`TOLERANCE` off the target it asks the advisor again with another
growth a level. The first level and the level length (the operator's choices) stay; how fast the
stakes rise changes.

[decision] **The next growth.** A tournament lasts about as many levels as the stakes take to
climb from the starting depth to the end, so its duration goes as 1 / log(growth): after one
round, log g' = log g x duration / target. Once two rounds lie either side of the target, the
next is interpolated between the nearest two (log log g against log duration, where that law is
a straight line). Every round plays the same seeds, so rounds differ by the structure alone.
Growth stays at or above :data:`MIN_GROWTH` (below it the denominations repeat a level's stakes
for many levels). The fit stops when the median is within the tolerance, after ``rounds``
rounds, or when the next growth makes the levels of a round already played (the rounding to
denominations has no finer step there); the nearest round is the answer.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tablestorm.services.director.advisor import Plan, StructureRequest, fitted_growth, plan, suggest
from tablestorm.services.director.structure import structure_from_mapping
from tablestorm.sim.tournament.accelerated import AcceleratedTournament
from tablestorm.sim.tournament.field import FieldRates, offered
from tablestorm.sim.tournament.profiles import DEFAULT_PROFILES

__all__ = ["MIN_GROWTH", "ROUNDS", "SEEDS", "TOLERANCE", "Fit", "Round", "fit", "next_growth"]

TOLERANCE: Final = 0.10
"""The median duration must be within this share of the target."""
SEEDS: Final = 5
"""Seeds a round plays, by default."""
ROUNDS: Final = 8
"""Rounds at most, by default."""
MIN_GROWTH: Final = 1.05
"""The slowest growth a level tried."""


@dataclass(frozen=True, slots=True)
class Round:
    """One suggestion and how it played: a duration, sanity flags and entries per seed."""

    plan: Plan
    structure: dict[str, Any]
    """The structure mapping (the file's keys)."""
    durations_s: tuple[float, ...]
    flags: dict[str, int]
    """Sanity flag codes (``tablestorm.sim.tournament.sanity``) by the runs that raised them."""
    entries: tuple[int, ...]

    @property
    def median_s(self) -> float:
        return statistics.median(self.durations_s)

    def off(self, target_s: float) -> float:
        """The median's distance from ``target_s``, as a share of it (negative: shorter)."""
        return self.median_s / target_s - 1


@dataclass(frozen=True, slots=True)
class Fit:
    """The rounds played for a request, in order."""

    request: StructureRequest
    seeds: tuple[int, ...]
    rates: FieldRates
    rounds: tuple[Round, ...]

    @property
    def target_s(self) -> float:
        return self.request.target_hours * 3600

    @property
    def best(self) -> Round:
        """The round whose median came nearest the target (the first of equals)."""
        return min(self.rounds, key=lambda r: abs(r.off(self.target_s)))

    @property
    def reached(self) -> bool:
        return abs(self.best.off(self.target_s)) <= TOLERANCE


def fit(
    request: StructureRequest,
    *,
    seeds: Sequence[int],
    rounds: int = ROUNDS,
    played: Callable[[Round], None] | None = None,
) -> Fit:
    """Play suggestions for ``request`` (each on every seed of ``seeds``) until one's median
    duration is within :data:`TOLERANCE` of the target, for ``rounds`` rounds at most; ``played``
    hears each round as it ends. :class:`~tablestorm.services.fields.FieldError` naming the
    request's field that cannot work, before anything is played."""
    growth = fitted_growth(request)
    rates = offered(structure_from_mapping(suggest(request, growth)))
    done: list[Round] = []
    target_s = request.target_hours * 3600
    while True:
        levels = plan(request, growth)
        structure = suggest(request, growth)
        if any(r.structure["levels"] == structure["levels"] for r in done):
            break  # the denominations' step: no other levels between the rounds played
        done.append(_play(levels, structure, request.entrants, rates, seeds))
        if played is not None:
            played(done[-1])
        if abs(done[-1].off(target_s)) <= TOLERANCE or len(done) == rounds:
            break
        growth = max(MIN_GROWTH, next_growth(done, target_s))
    return Fit(request, tuple(seeds), rates, tuple(done))


def _play(levels: Plan, structure: dict[str, Any], entrants: int, rates: FieldRates, seeds: Sequence[int]) -> Round:
    built = structure_from_mapping(structure)
    late = rates.late(entrants)
    profiles = rates.profiles(DEFAULT_PROFILES)
    durations, entries, flags = [], [], Counter[str]()
    for seed in seeds:
        result = AcceleratedTournament(built, entrants=entrants - late, late_entrants=late, seed=seed,
                                       profiles=profiles).run()
        durations.append(result.duration_s)
        entries.append(result.entries)
        flags.update({flag["code"] for flag in result.sanity})
    return Round(levels, structure, tuple(durations), dict(flags), tuple(entries))


def next_growth(done: Sequence[Round], target_s: float) -> float:
    """The growth the rounds so far point at (the module's note)."""
    points = sorted((math.log(math.log(r.plan.growth)), math.log(r.median_s / target_s)) for r in done)
    longer = [p for p in points if p[1] > 0]
    shorter = [p for p in points if p[1] < 0]
    if longer and shorter:
        (x0, y0), (x1, y1) = min(longer, key=lambda p: p[1]), max(shorter, key=lambda p: p[1])
        x = x0 - y0 * (x1 - x0) / (y1 - y0)
    else:
        x, y = min(points, key=lambda p: abs(p[1]))
        x += y
    return math.exp(math.exp(x))
