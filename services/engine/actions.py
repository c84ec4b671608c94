"""What a player may do, and what they did.

Every money amount is a *street total*: ``BET 8`` / ``RAISE 16`` / ``COMPLETE 4`` / ``BRING_IN 1``
mean "my bet on this street becomes that many chips" (PHH's ``cbr`` convention). ``CALL``,
``CHECK`` and ``FOLD`` need no amount; a ``DRAW`` names the cards discarded (none = stand pat).
"""

from __future__ import annotations

import enum
from typing import Final, NamedTuple

from mypy_extensions import mypyc_attr

from tablestorm.services.engine.cards import Card, cards_str
from tablestorm.services.engine.record import Record


class ActionKind(enum.Enum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BRING_IN = "bring_in"
    COMPLETE = "complete"
    BET = "bet"
    RAISE = "raise"
    DRAW = "draw"
    TIMEOUT = "timeout"
    """The action clock ran out (CLOCK-2): sent by the service, never offered as a legal action."""


AGGRESSIVE = frozenset({ActionKind.COMPLETE, ActionKind.BET, ActionKind.RAISE})


class Action(NamedTuple):
    kind: ActionKind
    amount: int = 0
    discard: tuple[Card, ...] = ()

    def __str__(self) -> str:
        if self.kind is ActionKind.DRAW:
            return f"draw {cards_str(self.discard) or 'none (stand pat)'}"
        if self.kind in AGGRESSIVE or self.kind is ActionKind.BRING_IN:
            return f"{self.kind.value} to {self.amount}"
        return str(self.kind.value)


@mypyc_attr(acyclic=True)
class LegalAction(Record):
    """One legal kind with its bounds.

    For money actions ``min``/``max`` are street totals: in fixed limit only the two ends are
    legal (they differ only with the open-pair choice of STUD-5 or an all-in for less); in pot
    and no limit any whole amount between them is. For ``DRAW`` they bound the discard count.
    For ``CALL`` both are the street total after calling (all-in for less when the stack is short).
    """

    __match_args__ = ("kind", "min", "max")

    def __init__(self, kind: ActionKind, min: int = 0, max: int = 0) -> None:
        self.kind: Final = kind
        self.min: Final = min
        self.max: Final = max


@mypyc_attr(native_class=False)  # an exception class stays a Python class in the compiled build
class IllegalAction(ValueError):
    """Raised by ``Hand.apply`` for an action the rules forbid; the hand is left untouched."""


class TimeoutOutcome(enum.Enum):
    """What CLOCK-2 did with a player whose clock ran out."""

    CHECK = "check"
    ALL_IN = "all_in"
    FOLD = "fold"
    BRING_IN = "bring_in"
    STAND_PAT = "stand_pat"
