"""The append-only record of a hand: what a table service streams, a history keeps, PHH exports.

Events are immutable tuples. Visibility is a property of the data, not of the event class:
``CardsDealt.down`` and ``Drew.drawn``/``Drew.discarded`` belong to their player only until a
``HandShown`` reveals them; everything else is public. ``services.engine.visibility`` filters a
stream for one seat.
"""

from __future__ import annotations

from typing import NamedTuple

from .actions import ActionKind, TimeoutOutcome
from .cards import Card


class HandStarted(NamedTuple):
    stacks: tuple[int, ...]
    button: int
    """Player index of the dealer button (draw game); -1 in stud, where cards start at seat 1."""
    deck_size: int


class ForcedBet(NamedTuple):
    player: int
    kind: str
    """``"ante"``, ``"small_blind"``, ``"big_blind"`` or ``"dead_small_blind"``."""
    amount: int
    live: bool
    """Live money counts as the player's bet on the street; dead money only feeds the pot."""


class CardsDealt(NamedTuple):
    player: int
    street: int
    down: tuple[Card, ...]
    up: tuple[Card, ...]


class CommunityCard(NamedTuple):
    """STUD-7: the stub cannot give every player a last card, so one card serves them all."""

    street: int
    card: Card


class Reshuffled(NamedTuple):
    """Burns (STUD-7) or the earlier players' discards (DRAW-4) shuffled into a new stub."""

    street: int
    cards: int


class RoundStarted(NamedTuple):
    street: int
    first: int
    """The first player to act (-1 when nobody can bet and the cards just run out)."""


class Acted(NamedTuple):
    player: int
    kind: ActionKind
    to: int
    """The player's street total after the action."""
    added: int
    all_in: bool


class TimedOut(NamedTuple):
    player: int
    outcome: TimeoutOutcome


class Drew(NamedTuple):
    player: int
    discarded: tuple[Card, ...]
    drawn: tuple[Card, ...]


class CapReached(NamedTuple):
    street: int


class BetReturned(NamedTuple):
    """BET-6: the part of a bet nobody called goes back to its owner."""

    player: int
    amount: int


class Pot(NamedTuple):
    amount: int
    eligible: tuple[int, ...]


class PotsFormed(NamedTuple):
    street: int
    pots: tuple[Pot, ...]


class HandShown(NamedTuple):
    player: int
    cards: tuple[Card, ...]
    high: int
    """Strength under the hand's high ranking (``Hand.deck_rule.high``); higher is better."""
    low: int
    """8-or-better low strength, 0 (``NO_LOW``) when none or not a split game."""


class HandMucked(NamedTuple):
    player: int


class PotAwarded(NamedTuple):
    pot: int
    player: int
    amount: int
    share: str
    """``"whole"``, ``"high"`` or ``"low"`` (STUD-8)."""


class HandEnded(NamedTuple):
    stacks: tuple[int, ...]
    showdown: bool


Event = (
    HandStarted | ForcedBet | CardsDealt | CommunityCard | Reshuffled | RoundStarted | Acted | TimedOut
    | Drew | CapReached | BetReturned | PotsFormed | HandShown | HandMucked | PotAwarded | HandEnded
)
