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

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine.variants import Structure
from tablestorm.sim.bots.client.protocol import STRUCTURE_NAMES
from tablestorm.sim.bots.strategies import Legal, View

__all__ = ["REBUY", "SIT_IN", "Finished", "HandTracker"]

_AGGRESSIVE: Final = frozenset({pb.ACTION_KIND_BET, pb.ACTION_KIND_RAISE, pb.ACTION_KIND_COMPLETE})

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

    def welcome(self, welcome: pb.Welcome, continues: bool) -> None:
        """A stream began; ``continues``: it resumed where the last one stopped, without a gap."""
        table = welcome.table
        self.game = table.options.game
        self.structure = STRUCTURE_NAMES.get(table.options.structure, Structure.FIXED_LIMIT.value)
        if not continues:
            self.hand = None  # a running hand is replayed from its HandStarted
        if 1 <= self.seat <= len(table.seats):
            state = table.seats[self.seat - 1]
            if state.status == pb.SEAT_STATUS_SITTING_OUT:
                self.wants |= SIT_IN
            # During a hand the seat shows the hand's stack (0 when all-in): if the seat is not
            # dealt in, the replayed HandStarted says so and the rebuy is wanted then.
            self.broke = state.stack == 0
            if self.broke and not table.hand_running:
                self.wants |= REBUY

    def fold(self, event: pb.Event, kind: str | None) -> None:
        """Fold one event (of kind ``kind``, its oneof) into what the seat knows."""
        hand = self.hand
        if kind == "cards_dealt":
            if hand is None:
                return
            dealt = event.cards_dealt
            hand.street = dealt.street
            if dealt.seat == self.seat:
                hand.down.extend(dealt.down)
                hand.up.extend(dealt.up)
            elif self.needs_board and dealt.up:
                hand.others_up.setdefault(dealt.seat, []).extend(dealt.up)
        elif kind == "acted":
            if hand is None:
                return
            acted = event.acted
            hand.pot += acted.added
            if acted.kind in _AGGRESSIVE:
                hand.raises += 1
            if acted.seat == self.seat:
                hand.stack -= acted.added
                hand.bet, hand.bet_street = acted.to, hand.street
            elif acted.kind == pb.ACTION_KIND_FOLD:
                hand.folded.add(acted.seat)
        elif kind == "round_started":
            if hand is not None:
                hand.street = event.round_started.street
                hand.raises = 0
        elif kind == "forced_bet":
            if hand is None:
                return
            forced = event.forced_bet
            hand.pot += forced.amount
            if forced.seat == self.seat:
                hand.stack -= forced.amount
                if forced.live:
                    hand.bet, hand.bet_street = forced.amount, hand.street
            if forced.kind == pb.FORCED_BET_KIND_BIG_BLIND and forced.amount > hand.big_blind:
                hand.big_blind = forced.amount
        elif kind == "pots_formed":
            if hand is not None:
                hand.pots = len(event.pots_formed.pots)
        elif kind == "hand_started":
            self._started(event)
        elif kind == "hand_ended":
            self._ended(event)
        elif kind == "drew":
            drew = event.drew
            if drew.seat == self.seat and hand is not None:
                thrown = set(drew.discarded)
                hand.down = [card for card in hand.down if card not in thrown] + list(drew.drawn)
        elif kind == "cap_reached":
            if hand is not None:
                hand.caps += 1
        elif kind == "bet_returned":
            if hand is None:
                return
            returned = event.bet_returned
            hand.pot -= returned.amount
            if returned.seat == self.seat:
                hand.stack += returned.amount
        elif kind == "community_card":
            if hand is not None:
                hand.community.append(event.community_card.card)
        elif kind == "seat_changed":
            state = event.seat_changed.seat
            if state.seat == self.seat:
                if state.status == pb.SEAT_STATUS_SITTING_OUT:  # CLOCK-3 after a timeout
                    self.wants |= SIT_IN
            elif state.status == pb.SEAT_STATUS_EMPTY and hand is not None:
                hand.departed.add(state.seat)
        elif kind == "hand_voided":
            self.finished.append(Finished(True, self._counts(event.hand_voided.seats), 0, 0))
            self.hand = None
        # timed_out, reshuffled, hand_shown, hand_mucked and pot_awarded change nothing a seat tracks.

    def _started(self, event: pb.Event) -> None:
        started = event.hand_started
        seats = started.seats
        hand = self.hand = _Hand(event.hand_number, started.deck_size)
        hand.seated = len(seats)
        if self.seat in seats:
            hand.in_hand = True
            hand.stack = started.stacks[list(seats).index(self.seat)]
        elif self.broke:
            self.wants |= REBUY

    def _ended(self, event: pb.Event) -> None:
        ended = event.hand_ended
        hand = self.hand
        if hand is not None and hand.number == event.hand_number:
            self.finished.append(Finished(False, self._counts(ended.seats), max(0, hand.pots - 1), hand.caps))
        self.hand = None
        seats = list(ended.seats)
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
