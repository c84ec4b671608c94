"""Who plays a scheduled event: the accelerated driver's player profiles, from a schedule's words.

A schedule describes an event's field as its bot kinds in proportion (a room's regulars play
like the hand-strength bots, its recreational players call and gamble more: a field of one kind
plays endgames no room sees), a think time per decision and a sitting-out rate;
:meth:`Players.profiles` turns that and the event's re-entry rate into the
:class:`~tablestorm.sim.tournament.profiles.PlayerProfile` rows of
:class:`~tablestorm.sim.tournament.accelerated.AcceleratedTournament`, split as ``tablestorm
tournament`` splits its field (:class:`~tablestorm.sim.tournament.field.FieldRates`).

Sitting out is time, not a separate mechanism: a player away from the keyboard lets the action
clock run out (CLOCK-2), and the table marks them away for the rest of the hand (TOURN-7), exactly
what the driver does with a think time that reaches the clock. So a :class:`ThinkTime` is the
decision's think time, or, at ``sitting_out`` of the decisions, the whole clock.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from tablestorm.sim.distributions import Distribution
from tablestorm.sim.tournament.field import ADDON_RATE, REBUY_RATE, FieldRates
from tablestorm.sim.tournament.profiles import ONLINE_THINK, PlayerProfile

__all__ = ["Players", "ThinkTime"]


@dataclass(frozen=True, slots=True)
class ThinkTime(Distribution):
    """Seconds a decision takes; with probability ``sitting_out`` the player is away (no answer)."""

    sitting_out: float = 0.0

    def sample(self, rng: random.Random) -> float:
        if self.sitting_out and rng.random() < self.sitting_out:
            return math.inf  # beyond any clock: CLOCK-2 acts, TOURN-7 marks the player away
        return Distribution.sample(self, rng)


@dataclass(frozen=True, slots=True)
class Players:
    """An event's field: how each player decides, how long they take, how often they are away."""

    bots: Mapping[str, float] = field(default_factory=lambda: {"regular": 3.0, "recreational": 1.0})
    """Bot kinds of ``tablestorm.sim.bots.strategies`` with their shares of the field."""
    think: Distribution = ONLINE_THINK
    sitting_out: float = 0.0
    """The share of decisions at which the player is away and the clock runs out."""

    def profiles(self, reentry_rate: float) -> tuple[PlayerProfile, ...]:
        """The driver's profiles: a ``reentry_rate`` share of the field re-enters when busted
        during late registration (TOURN-10), the rest do not; everyone rebuys and takes add-ons
        where the structure offers them (the split of :meth:`FieldRates.profiles`)."""
        think = ThinkTime(self.think.kind, self.think.value, self.think.low, self.think.high, self.sitting_out)
        kinds = [PlayerProfile(kind, think, weight=weight) for kind, weight in self.bots.items()]
        return FieldRates(reentry_rate=reentry_rate, rebuy_rate=REBUY_RATE, addon_rate=ADDON_RATE).profiles(kinds)
