"""The append-only record of a hand: what a table service streams, a history keeps, PHH exports.

Events are immutable values (see :mod:`.record`). Visibility is a property of the data, not of
the event class: ``CardsDealt.down`` and ``Drew.drawn``/``Drew.discarded`` belong to their player
only until a ``HandShown`` reveals them; everything else is public. ``tablestorm.services.engine.visibility``
filters a stream for one seat.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from tablestorm.services.engine.actions import ActionKind, TimeoutOutcome
from tablestorm.services.engine.cards import Card
from tablestorm.services.engine.record import Record


@mypyc_attr(acyclic=True)
class HandStarted(Record):
    __match_args__ = ("stacks", "button", "deck_size")

    def __init__(self, stacks: tuple[int, ...], button: int, deck_size: int) -> None:
        self.stacks: Final = stacks
        self.button: Final = button
        """Player index of the dealer button (draw game); -1 in stud, where cards start at seat 1."""
        self.deck_size: Final = deck_size


@mypyc_attr(acyclic=True)
class ForcedBet(Record):
    __match_args__ = ("player", "kind", "amount", "live")

    def __init__(self, player: int, kind: str, amount: int, live: bool) -> None:
        self.player: Final = player
        self.kind: Final = kind
        """``"ante"``, ``"small_blind"``, ``"big_blind"`` or ``"dead_small_blind"``."""
        self.amount: Final = amount
        self.live: Final = live
        """Live money counts as the player's bet on the street; dead money only feeds the pot."""


@mypyc_attr(acyclic=True)
class CardsDealt(Record):
    __match_args__ = ("player", "street", "down", "up")

    def __init__(self, player: int, street: int, down: tuple[Card, ...], up: tuple[Card, ...]) -> None:
        self.player: Final = player
        self.street: Final = street
        self.down: Final = down
        self.up: Final = up


@mypyc_attr(acyclic=True)
class CommunityCard(Record):
    """STUD-7: the stub cannot give every player a last card, so one card serves them all."""

    __match_args__ = ("street", "card")

    def __init__(self, street: int, card: Card) -> None:
        self.street: Final = street
        self.card: Final = card


@mypyc_attr(acyclic=True)
class Reshuffled(Record):
    """Burns (STUD-7) or the earlier players' discards (DRAW-4) shuffled into a new stub."""

    __match_args__ = ("street", "cards")

    def __init__(self, street: int, cards: int) -> None:
        self.street: Final = street
        self.cards: Final = cards


@mypyc_attr(acyclic=True)
class RoundStarted(Record):
    __match_args__ = ("street", "first")

    def __init__(self, street: int, first: int) -> None:
        self.street: Final = street
        self.first: Final = first
        """The first player to act (-1 when nobody can bet and the cards just run out)."""


@mypyc_attr(acyclic=True)
class Acted(Record):
    __match_args__ = ("player", "kind", "to", "added", "all_in")

    def __init__(self, player: int, kind: ActionKind, to: int, added: int, all_in: bool) -> None:
        self.player: Final = player
        self.kind: Final = kind
        self.to: Final = to
        """The player's street total after the action."""
        self.added: Final = added
        self.all_in: Final = all_in


@mypyc_attr(acyclic=True)
class TimedOut(Record):
    __match_args__ = ("player", "outcome")

    def __init__(self, player: int, outcome: TimeoutOutcome) -> None:
        self.player: Final = player
        self.outcome: Final = outcome


@mypyc_attr(acyclic=True)
class Drew(Record):
    __match_args__ = ("player", "discarded", "drawn")

    def __init__(self, player: int, discarded: tuple[Card, ...], drawn: tuple[Card, ...]) -> None:
        self.player: Final = player
        self.discarded: Final = discarded
        self.drawn: Final = drawn


@mypyc_attr(acyclic=True)
class CapReached(Record):
    __match_args__ = ("street",)

    def __init__(self, street: int) -> None:
        self.street: Final = street


@mypyc_attr(acyclic=True)
class BetReturned(Record):
    """BET-6: the part of a bet nobody called goes back to its owner."""

    __match_args__ = ("player", "amount")

    def __init__(self, player: int, amount: int) -> None:
        self.player: Final = player
        self.amount: Final = amount


@mypyc_attr(acyclic=True)
class Pot(Record):
    __match_args__ = ("amount", "eligible")

    def __init__(self, amount: int, eligible: tuple[int, ...]) -> None:
        self.amount: Final = amount
        self.eligible: Final = eligible


@mypyc_attr(acyclic=True)
class PotsFormed(Record):
    __match_args__ = ("street", "pots")

    def __init__(self, street: int, pots: tuple[Pot, ...]) -> None:
        self.street: Final = street
        self.pots: Final = pots


@mypyc_attr(acyclic=True)
class HandShown(Record):
    __match_args__ = ("player", "cards", "high", "low")

    def __init__(self, player: int, cards: tuple[Card, ...], high: int, low: int) -> None:
        self.player: Final = player
        self.cards: Final = cards
        self.high: Final = high
        """Strength under the hand's high ranking (``Hand.deck_rule.high``); higher is better."""
        self.low: Final = low
        """8-or-better low strength, 0 (``NO_LOW``) when none or not a split game."""


@mypyc_attr(acyclic=True)
class HandMucked(Record):
    __match_args__ = ("player",)

    def __init__(self, player: int) -> None:
        self.player: Final = player


@mypyc_attr(acyclic=True)
class PotAwarded(Record):
    __match_args__ = ("pot", "player", "amount", "share")

    def __init__(self, pot: int, player: int, amount: int, share: str) -> None:
        self.pot: Final = pot
        self.player: Final = player
        self.amount: Final = amount
        self.share: Final = share
        """``"whole"``, ``"high"`` or ``"low"`` (STUD-8)."""


@mypyc_attr(acyclic=True)
class HandEnded(Record):
    __match_args__ = ("stacks", "showdown")

    def __init__(self, stacks: tuple[int, ...], showdown: bool) -> None:
        self.stacks: Final = stacks
        self.showdown: Final = showdown


Event = (
    HandStarted | ForcedBet | CardsDealt | CommunityCard | Reshuffled | RoundStarted | Acted | TimedOut
    | Drew | CapReached | BetReturned | PotsFormed | HandShown | HandMucked | PotAwarded | HandEnded
)
