"""Who plays an accelerated tournament and how long everything takes: players and the dealer.

A :class:`PlayerProfile` is a bot kind (``tablestorm.sim.bots.strategies``) with a think time per action and
its tournament habits (rebuys, add-ons, re-entries); a :class:`DealingModel` is how long the table
takes between decisions: the pause between hands and every card dealt. Together they turn a
count of actions into a duration, so the accelerated run's length is a forecast of the live one.

[decision] Defaults from real online play: players take 1 to 5 s on most decisions (uniform,
mean 3 s; the 30 s clock is reached only by a player who is away), a card takes about 0.15 s of
animation, and everything else between two hands (the showdown shown, the pot pushed, the shuffle,
the forced bets, players' time banks) about 15 s: the time that makes this model play hold'em at
the published 68-77 hands an hour six-handed and 55-62 nine-handed (docs/calibration.md, H1, T6).

Every player decides and thinks from a ``random.Random`` of their own, seeded by
:func:`player_seed` from the run's root seed and the player's id, exactly as a live bot's
``Assignment.seed``: decisions do not depend on which other players exist or in what order they act.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from tablestorm.services.engine.events import CardsDealt, CommunityCard, Drew, Event
from tablestorm.sim.bots.kinds import BOT_KINDS
from tablestorm.sim.distributions import Distribution
from tablestorm.sim.inputs import apportion

__all__ = [
    "DEFAULT_PROFILES",
    "ONLINE_DEALING",
    "ONLINE_THINK",
    "DealingModel",
    "PlayerProfile",
    "assign_profiles",
    "driver_rng",
    "player_seed",
]


ONLINE_THINK = Distribution("uniform", 3.0, 1.0, 5.0)
"""Seconds per decision of a typical online player (see the module's note)."""


@dataclass(frozen=True, slots=True)
class PlayerProfile:
    """A kind of player: how they decide, how long they take, what they buy."""

    kind: str = "regular"
    """A bot kind of ``tablestorm.sim.bots.strategies`` (deciding on a View)."""
    think: Distribution = ONLINE_THINK
    """Seconds per decision, drawn after the decision, as a live bot does."""
    weight: float = 1.0
    """Share of the field with this profile."""
    rebuys: bool = True
    """Rebuys whenever busted during the rebuy period (the standing preference, TOURN-10)."""
    add_on: bool = True
    """Takes the add-on when its window opens."""
    reenter: bool = True
    """Re-enters when eliminated while late registration is open, up to the structure's limit."""

    def __post_init__(self) -> None:
        if self.kind not in BOT_KINDS:
            raise ValueError(f"kind: unknown bot kind {self.kind!r}; known: {', '.join(BOT_KINDS)}")
        if not self.weight >= 0:
            raise ValueError(f"weight: must not be negative, got {self.weight}")


DEFAULT_PROFILES = (PlayerProfile("regular", weight=3.0), PlayerProfile("recreational", weight=1.0))
"""An online field: three regulars to one recreational player (:mod:`tablestorm.sim.bots.regular`),
whose tournaments fall in the published bands (docs/calibration.md)."""


@dataclass(frozen=True, slots=True)
class DealingModel:
    """Seconds the table itself takes: between hands, per card dealt (face up or down), and per
    player's action on top of its think time (the service's turnaround: the move to the table, the
    table's events to the next player; 0 by default, small beside online think times)."""

    between_hands_s: float = 15.0
    card_s: float = 0.15
    action_s: float = 0.0

    def __post_init__(self) -> None:
        if not (self.between_hands_s >= 0 and self.card_s >= 0 and self.action_s >= 0):
            raise ValueError("between_hands_s, card_s and action_s must not be negative")

    def cards_time(self, events: Sequence[Event]) -> float:
        """The dealing time of the cards among ``events`` (a street, a draw, a community card)."""
        cards = 0
        for event in events:
            if type(event) is CardsDealt:
                cards += len(event.down) + len(event.up)
            elif type(event) is Drew:
                cards += len(event.drawn)
            elif type(event) is CommunityCard:
                cards += 1
        return cards * self.card_s


ONLINE_DEALING = DealingModel()
"""The online table of the module's note."""


def driver_rng(root: int) -> random.Random:
    """The driver's own stream: first the profile of every player (:func:`assign_profiles`), then
    the accelerated driver's draws (late arrival times, which table a fault hits). A live run
    assigns the profiles from it the same way, so player ``pk`` is the same player in both."""
    return random.Random(f"tablestorm/driver|{root}")


def player_seed(root: int, player_id: str) -> int:
    """The seed of one player's decisions and think times, from the run's root seed."""
    digest = hashlib.sha256(f"tablestorm/player|{root}|{player_id}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def assign_profiles(players: int, profiles: Sequence[PlayerProfile], rng: random.Random) -> list[PlayerProfile]:
    """``players`` profiles in the weights' proportions (largest remainders), shuffled by ``rng``."""
    if sum(p.weight for p in profiles) <= 0:
        raise ValueError("profiles: at least one profile needs a positive weight")
    return [profiles[k] for k in apportion({k: p.weight for k, p in enumerate(profiles)}, players, rng)]
