"""The hand tracker: a seat's events folded into what its strategy reads (a :class:`View`).

One :class:`HandTracker` per bot keeps what the seat may know of the hand in progress (its cards,
the pot, the street, its own bet and stack, what others show), the seat's standing between hands
(broke, sitting out: what the bot must do about it, in :attr:`HandTracker.wants`) and the hands that
ended, with what a load test counts of them. It judges nothing: the referee does.

Cost: one ``if`` chain per event over a few slotted objects, a new :class:`_Hand` per hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from tablestorm.services.engine.actions import AGGRESSIVE, ActionKind
from tablestorm.services.engine.events import (
    Acted,
    BetReturned,
    CapReached,
    CardsDealt,
    CommunityCard,
    Drew,
    ForcedBet,
    HandEnded,
    HandStarted,
    PotsFormed,
    RoundStarted,
)
from tablestorm.services.engine.variants import Structure
from tablestorm.sim.bots.strategies import Legal, View
from tablestorm.sim.rooms.traffic import HandVoided, SeatChanged, TableEvent, Welcome

__all__ = ["REBUY", "SIT_IN", "Finished", "HandTracker"]

SIT_IN: Final = 1
"""In :attr:`HandTracker.wants`: the seat sits out (CLOCK-3 after a timeout, or it found itself so)."""
REBUY: Final = 2
"""In :attr:`HandTracker.wants`: the seat is broke and not in a hand (TABLE-1)."""


class Finished(NamedTuple):
    """A hand that ended (or was voided), as a load test counts it."""

    voided: bool
    counted: bool
    """Whether this seat counts it for its table: the lowest seat still seated when it ends does
    (every bot sees the same events, so the bots of a table agree without talking)."""
    side_pots: int
    raise_caps: int


class _Hand:
    """What the seat knows of the hand in progress (a new one per hand)."""

    __slots__ = (
        "bet",
        "bet_street",
        "big_blind",
        "caps",
        "community",
        "deck_size",
        "departed",
        "down",
        "folded",
        "in_hand",
        "number",
        "others_up",
        "pot",
        "pots",
        "raises",
        "seated",
        "stack",
        "street",
        "up",
    )

    def __init__(self, number: int, deck_size: int) -> None:
        self.number = number
        self.deck_size = deck_size
        self.in_hand = False
        self.stack = 0
        self.street = 0
        self.pot = 0
        self.bet = 0
        """Own street total, valid while ``bet_street == street``."""
        self.bet_street = 0
        self.caps = 0
        self.pots = 0
        self.big_blind = 0
        self.raises = 0
        """Bets, raises and completions of the betting round in progress."""
        self.seated = 0
        """How many seats were dealt in."""
        self.down: list[int] = []
        self.up: list[int] = []
        self.community: list[int] = []
        self.others_up: dict[int, list[int]] = {}
        self.folded: set[int] = set()
        self.departed: set[int] = set()
        """Seats of this hand whose player stood up before it ended (they cannot count it)."""


class HandTracker:
    """What one seat knows, from the events it received. ``needs_board``: track others' up cards
    (only strategies that read :attr:`View.others_up` pay for it)."""

    __slots__ = ("broke", "finished", "game", "hand", "needs_board", "seat", "structure", "wants")

    def __init__(self, seat: int, *, needs_board: bool) -> None:
        self.seat = seat
        self.needs_board = needs_board
        self.game = ""
        self.structure = Structure.FIXED_LIMIT.value
        self.hand: _Hand | None = None
        """The hand in progress, None between hands or after a gap (its cards are then unknown)."""
        self.broke = False
        """The seat's stack was seen at 0 and no rebuy went through yet."""
        self.wants = 0
        """SIT_IN and REBUY bits raised by the events; the bot clears what it took care of."""
        self.finished: list[Finished] = []
        """Hands that ended since the bot last took them."""

    @property
    def dealt_in(self) -> bool:
        """Whether the seat is dealt into the hand in progress, as far as its events tell."""
        return self.hand is not None and self.hand.in_hand

    def welcome(self, welcome: Welcome, continues: bool) -> None:
        """A stream began; ``continues``: it resumed where the last one stopped, without a gap."""
        self.game = welcome.game
        self.structure = welcome.structure
        if not continues:
            self.hand = None  # a running hand is replayed from its HandStarted
        if welcome.stack is not None:
            if welcome.sitting_out:
                self.wants |= SIT_IN
            # During a hand the seat shows the hand's stack (0 when all-in): if the seat is not
            # dealt in, the replayed HandStarted says so and the rebuy is wanted then.
            self.broke = welcome.stack == 0
            if self.broke and not welcome.hand_running:
                self.wants |= REBUY

    def fold(self, event: TableEvent) -> None:
        """Fold one event into what the seat knows."""
        hand, body = self.hand, event.event
        if isinstance(body, Acted):
            if hand is None:
                return
            hand.pot += body.added
            if body.kind in AGGRESSIVE:
                hand.raises += 1
            if body.player == self.seat:
                hand.stack -= body.added
                hand.bet, hand.bet_street = body.to, hand.street
            elif body.kind is ActionKind.FOLD:
                hand.folded.add(body.player)
        elif isinstance(body, CardsDealt):
            if hand is None:
                return
            hand.street = body.street
            if body.player == self.seat:
                hand.down.extend(body.down)
                hand.up.extend(body.up)
            elif self.needs_board and body.up:
                hand.others_up.setdefault(body.player, []).extend(body.up)
        elif isinstance(body, RoundStarted):
            if hand is not None:
                hand.street = body.street
                hand.raises = 0
        elif isinstance(body, ForcedBet):
            if hand is None:
                return
            hand.pot += body.amount
            if body.player == self.seat:
                hand.stack -= body.amount
                if body.live:
                    hand.bet, hand.bet_street = body.amount, hand.street
            if body.kind == "big_blind" and body.amount > hand.big_blind:
                hand.big_blind = body.amount
        elif isinstance(body, PotsFormed):
            if hand is not None:
                hand.pots = len(body.pots)
        elif isinstance(body, HandStarted):
            self._started(event, body)
        elif isinstance(body, HandEnded):
            self._ended(event, body)
        elif isinstance(body, Drew):
            if body.player == self.seat and hand is not None:
                thrown = set(body.discarded)
                hand.down = [card for card in hand.down if card not in thrown] + list(body.drawn)
        elif isinstance(body, CapReached):
            if hand is not None:
                hand.caps += 1
        elif isinstance(body, BetReturned):
            if hand is None:
                return
            hand.pot -= body.amount
            if body.player == self.seat:
                hand.stack += body.amount
        elif isinstance(body, CommunityCard):
            if hand is not None:
                hand.community.append(body.card)
        elif isinstance(body, SeatChanged):
            if body.seat == self.seat:
                if body.status == "sitting_out":  # CLOCK-3 after a timeout
                    self.wants |= SIT_IN
            elif body.status == "empty" and hand is not None:
                hand.departed.add(body.seat)
        elif isinstance(body, HandVoided):
            self.finished.append(Finished(True, self._counts(body.seats), 0, 0))
            self.hand = None
        # timed_out, reshuffled, hand_shown, hand_mucked and pot_awarded change nothing a seat tracks.

    def _started(self, event: TableEvent, started: HandStarted) -> None:
        seats = event.seats
        hand = self.hand = _Hand(event.hand_number, started.deck_size)
        hand.seated = len(seats)
        if self.seat in seats:
            hand.in_hand = True
            hand.stack = started.stacks[seats.index(self.seat)]
        elif self.broke:
            self.wants |= REBUY

    def _ended(self, event: TableEvent, ended: HandEnded) -> None:
        hand = self.hand
        if hand is not None and hand.number == event.hand_number:
            self.finished.append(Finished(False, self._counts(event.seats), max(0, hand.pots - 1), hand.caps))
        self.hand = None
        seats = event.seats
        if self.seat in seats and ended.stacks[seats.index(self.seat)] == 0:
            self.broke = True
            self.wants |= REBUY

    def _counts(self, seats: Sequence[int]) -> bool:
        """Whether this seat counts the hand for its table: the lowest seat still seated counts."""
        departed = self.hand.departed if self.hand is not None else ()
        return next((seat for seat in seats if seat not in departed), 0) == self.seat

    def view(self, legal: tuple[Legal, ...], number: int) -> View:
        """What the strategy reads on a turn with ``legal`` options in hand ``number``."""
        hand = self.hand
        if hand is None:  # after a gap: the cards of the hand are unknown
            return View(self.game, self.structure, legal, hand_number=number)
        call = next((option for option in legal if option.kind == "call"), None)
        bet = hand.bet if hand.bet_street == hand.street else 0
        others: tuple[tuple[int, ...], ...] = ()
        if self.needs_board:
            folded = hand.folded
            others = tuple(tuple(up) for seat, up in hand.others_up.items() if seat not in folded)
        return View(
            game=self.game,
            structure=self.structure,
            legal=legal,
            down=tuple(hand.down),
            up=tuple(hand.up),
            others_up=others,
            community=tuple(hand.community),
            street=hand.street,
            pot=hand.pot,
            bet=bet,
            to_call=call.max - bet if call is not None else 0,
            stack=hand.stack,
            hand_number=number,
            deck_size=hand.deck_size,
            big_blind=hand.big_blind,
            opponents=hand.seated - 1 - len(hand.folded),
            raises=hand.raises,
        )
