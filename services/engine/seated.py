"""A table across hands, as every table of the engine runs it: seats, the dead button, histories.

:class:`SeatedTable` owns the seats and starts each :class:`Hand` with the players who may be
dealt in, the forced bets they owe and a shuffler reproducible from ``(seed, table, hand)``
(TABLE-2). It keeps the last hands of every player (SHOW-4) and runs DRAW-6's dead button: the
big blind moves one able player a hand, the small blind is the last big blind's seat, and the
button is the last small blind's seat. Heads-up (two dealt in) the button posts the small blind
and the big blind keeps moving on (DRAW-2), so nobody posts the big blind twice in a row and no
dead button or dead small blind starts heads-up play (TOURN-8).

What differs between a cash table (:mod:`.table`) and a tournament table
(:mod:`.tournament_table`) is a handful of hooks: who can play (a cash table leaves out players
sitting out; a tournament deals everyone with chips, TOURN-7), which able players are dealt in
and what they owe (DRAW-6's missed blinds at a cash table; none in a tournament), and what a
timeout marks (CLOCK-3's sitting out; TOURN-7's away).
"""

from __future__ import annotations

import pickle
import zlib
from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass, field
from typing import Generic, NamedTuple, TypeVar

from tablestorm.services.engine.actions import Action, ActionKind
from tablestorm.services.engine.events import Event
from tablestorm.services.engine.hand import BlindPost, Hand
from tablestorm.services.engine.shuffle import shuffler_for
from tablestorm.services.engine.variants import Stakes, TableOptions
from tablestorm.services.engine.visibility import views

HISTORY_LENGTH = 50  # SHOW-4
_TIMEOUT = ActionKind.TIMEOUT


class TableError(ValueError):
    """A seat operation the table's rules refuse; nothing was changed."""


class HandRecord(NamedTuple):
    """One finished (or voided) hand as the room keeps it: every event, unfiltered."""

    hand_number: int
    seats: tuple[int, ...]
    """Seat number (1-based) of each player index."""
    player_ids: tuple[str, ...]
    events: tuple[Event, ...]
    voided: bool

    def view_for(self, player_id: str) -> list[Event]:
        """SHOW-4: the hand as ``player_id`` was allowed to see it (own cards, and showdowns)."""
        index = self.player_ids.index(player_id) if player_id in self.player_ids else None
        return views(self.events, index)

    def packed(self) -> bytes:
        """The hand as the players' histories keep it (SHOW-4): pickled and compressed, one object.

        A host keeps some fifty hands of every table for as long as its players stay. As event
        objects a hand holds 6-8 KiB; packed, about 0.5 KiB (medians of 300 random hands of each
        game: 511-558 bytes), for about 0.07 ms of CPU once per hand (a host spends milliseconds on
        a hand's RPCs), and only ``GetHistory`` unpacks. One object a hand, not several: a
        long-lived small object pins the allocator's page it sits in, and the soak's host grew by
        more than its histories held. The bytes are the engine's own, made here and never read
        from outside, so unpickling them trusts no client.
        """
        return zlib.compress(pickle.dumps(self, pickle.HIGHEST_PROTOCOL), 1)

    @staticmethod
    def unpacked(kept: bytes) -> HandRecord:
        """The hand :meth:`packed` kept."""
        record: HandRecord = pickle.loads(zlib.decompress(kept))
        return record


@dataclass(slots=True)
class Seat:
    """A seated player: what every table keeps of them."""

    player_id: str
    stack: int
    waiting: bool = True
    """A new player not dealt in at this table yet (what they wait for is the table's rule)."""
    history: deque[bytes] = field(default_factory=lambda: deque(maxlen=HISTORY_LENGTH))
    """SHOW-4: the player's last hands here, each :meth:`HandRecord.packed` (shared by the table's seats)."""


S = TypeVar("S", bound=Seat)


class SeatedTable(ABC, Generic[S]):
    """Seats and hands of one table; subclasses say who plays and what a timeout means."""

    def __init__(
        self, table_id: str, options: TableOptions, *, seed: int | None = None, keep_history: bool = True
    ) -> None:
        """``keep_history=False`` keeps no per-player histories (SHOW-4): a simulation of thousands
        of tables has no player to show them to, and they would hold every hand's events."""
        self.table_id = table_id
        self.options = options
        self.seed = seed
        self.keep_history = keep_history
        self.seats: list[S | None] = [None] * options.seats
        self.hand_number = 0
        self.hand: Hand | None = None
        self.hand_seats: tuple[int, ...] = ()
        """Seat indices (0-based) of the current hand's players, by player index."""
        self._left: set[int] = set()
        """Seat indices whose player stood up after folding in the current hand."""
        self.last_record: HandRecord | None = None
        """The last hand finished or voided (its ``seats`` map the hand's player indexes)."""
        self.button = -1
        self._small_seat = -1
        self._big_seat = -1

    # ----------------------------------------------------------------- hooks

    @abstractmethod
    def _can_play(self, seat: S | None) -> bool:
        """Whether the seat's player is dealt in when the blinds allow (draw) or always (stud)."""

    @abstractmethod
    def _dealt_in(self, able: list[int], button: int, small: int, big: int) -> list[int]:
        """The draw game: which able seats (the blinds always among them) are dealt this hand."""

    @abstractmethod
    def _settle_blinds(
        self, dealt: list[int], index: dict[int, int], button: int, small: int, big: int,
        previous_big: int, previous_button: int, stakes: Stakes,
    ) -> list[BlindPost]:
        """The draw game, once the hand's blinds are known: update what each seat owes and return
        the posts owed beyond the small and big blind, in seat order."""

    def _antes(self, players: int, stakes: Stakes) -> list[BlindPost]:
        """The draw game: antes posted before the blinds (none at a cash table)."""
        return []

    def _acting(self, seat: S, action: Action) -> None:
        """The seat's player is about to act (the clock acting for them included)."""

    def _timed_out(self, seat: S) -> None:
        """The clock acted for the seat's player (CLOCK-2)."""

    def _hand_over(self, seat: S) -> None:
        """The hand the seat's player was dealt into ended or was voided."""

    # ----------------------------------------------------------------- seats

    def _check_seat_number(self, seat_no: int) -> None:
        if not 1 <= seat_no <= len(self.seats):
            raise TableError(f"seat must be between 1 and {len(self.seats)}, got {seat_no}")

    def _check_newcomer(self, seat_no: int, player_id: str) -> None:
        """A player may take ``seat_no``: it is free, and they are not seated here already."""
        self._check_seat_number(seat_no)
        if self.seats[seat_no - 1] is not None or (seat_no - 1) in self._left:
            raise TableError(f"seat {seat_no} is taken")
        if not player_id:
            raise TableError("player_id must not be empty")
        if self.seat_of(player_id) is not None:
            raise TableError(f"player {player_id!r} is already seated at this table")

    def _seat(self, seat_no: int) -> S:
        self._check_seat_number(seat_no)
        seat = self.seats[seat_no - 1]
        if seat is None:
            raise TableError(f"seat {seat_no} is empty")
        return seat

    def seat_of(self, player_id: str) -> int | None:
        """The seat number of ``player_id``, if seated."""
        for k, seat in enumerate(self.seats):
            if seat is not None and seat.player_id == player_id:
                return k + 1
        return None

    def _player_index(self, seat_index: int) -> int | None:
        if self.hand is None or self.hand.is_over or seat_index not in self.hand_seats:
            return None
        return self.hand_seats.index(seat_index)

    def total_chips(self) -> int:
        """Chips on the table: stacks of seated players, plus the hand in progress."""
        hand = self.hand
        idle = sum(s.stack for k, s in enumerate(self.seats) if s is not None and k not in self.hand_seats)
        if hand is None:
            return idle
        playing = sum(hand.stacks[i] for i, k in enumerate(self.hand_seats) if k not in self._left)
        return idle + playing + hand.pot_total()

    # ----------------------------------------------------------------- hands

    def ready(self) -> bool:
        """Whether a hand can start: no hand running and two or more players able to play."""
        return self.hand is None and len(self._planned_seats()) >= 2

    def _planned_seats(self) -> list[int]:
        if self.options.variant.is_stud:
            return [k for k, s in enumerate(self.seats) if self._can_play(s)]
        return self._blind_plan()[0]

    def _start_hand(self, options: TableOptions) -> Hand:
        """Deal the next hand under ``options`` (the table's own, or a tournament level's stakes)."""
        if self.hand is not None:
            raise TableError(f"hand {self.hand_number} is still running")
        if self.options.variant.is_stud:
            dealt = self._planned_seats()
            if len(dealt) < 2:
                raise TableError("two players able to play are needed to deal")
            button_index, posts = 0, None
        else:
            dealt, button_index, posts = self._deal_draw(options.stakes)
        self.hand_number += 1
        self.hand_seats = tuple(dealt)
        stacks = []
        for k in dealt:
            seat = self.seats[k]
            assert seat is not None
            stacks.append(seat.stack)
        shuffler = shuffler_for(self.seed, self.table_id, self.hand_number)
        hand = self.hand = Hand(options, stacks, shuffler, button=button_index, blinds=posts)
        if hand.is_over:
            # Nobody could bet (everyone all-in on the forced bets): the cards ran out while dealing.
            # Only ``apply`` finishes hands, and nobody can apply, so finish it here or the table
            # would hold a finished hand forever.
            self._finish_hand(voided=False)
        return hand

    def apply(self, seat_no: int, action: Action) -> list[Event]:
        """Apply ``action`` for the seat whose turn it is; returns the events it produced."""
        hand = self.hand
        if hand is None or hand.actor < 0:
            raise TableError("no hand is running")
        actor_seat = self.hand_seats[hand.actor] + 1
        if seat_no != actor_seat:
            raise TableError(f"it is seat {actor_seat}'s turn, not seat {seat_no}'s")
        seat = self.seats[seat_no - 1]
        if seat is not None:
            self._acting(seat, action)
        start = len(hand.events)
        hand.apply(action)
        new = hand.events[start:]
        if seat is not None and action.kind is _TIMEOUT:
            self._timed_out(seat)  # only the TIMEOUT action makes a TimedOut event, and it always does
        if hand.is_over:
            self._finish_hand(voided=False)
        return new

    def timeout(self) -> list[Event]:
        """The clock ran out for the player to act (CLOCK-2)."""
        hand = self.hand
        if hand is None or hand.is_over:
            raise TableError("no hand is running")
        return self.apply(self.hand_seats[hand.actor] + 1, Action(ActionKind.TIMEOUT))

    def void_hand(self) -> HandRecord:
        """Cancel the running hand: every player gets back the stack they started it with."""
        hand = self.hand
        if hand is None:
            raise TableError("no hand is running")
        for i, k in enumerate(self.hand_seats):
            seat = self.seats[k]
            if seat is not None:
                seat.stack = hand.starting_stacks[i]
        return self._finish_hand(voided=True)

    def _finish_hand(self, *, voided: bool) -> HandRecord:
        hand = self.hand
        assert hand is not None
        ids = []
        for i, k in enumerate(self.hand_seats):
            seat = self.seats[k]
            ids.append(seat.player_id if seat is not None else "")
            if seat is None:
                continue
            if not voided:
                seat.stack = hand.stacks[i]
            self._hand_over(seat)
        record = HandRecord(
            self.hand_number, tuple(k + 1 for k in self.hand_seats), tuple(ids), tuple(hand.events), voided
        )
        if self.keep_history:
            kept = record.packed()
            for k in self.hand_seats:
                seat = self.seats[k]
                if seat is not None:
                    seat.history.append(kept)
        self.last_record = record
        self.hand = None
        self.hand_seats = ()
        self._left.clear()
        return record

    def history(self, seat_no: int) -> list[tuple[HandRecord, list[Event]]]:
        """SHOW-4: the seat's player's last 50 hands, each with the events that player was allowed to see."""
        seat = self._seat(seat_no)
        records = map(HandRecord.unpacked, seat.history)
        return [(record, record.view_for(seat.player_id)) for record in records]

    # ----------------------------------------------------------------- DRAW-6: blinds and button

    def _next(self, start: int) -> int:
        """The first seat index after ``start``, clockwise, whose player can play (-1 if none)."""
        n = len(self.seats)
        for step in range(1, n + 1):
            k = (start + step) % n
            if self._can_play(self.seats[k]):
                return k
        return -1

    def _between(self, low: int, high: int, k: int) -> bool:
        """Whether seat ``k`` lies strictly after ``low`` and up to ``high``, clockwise."""
        n = len(self.seats)
        return 0 < (k - low) % n <= (high - low) % n

    def _blind_plan(self) -> tuple[list[int], int, int, int]:
        """The seats dealt in, the button seat, the small-blind seat (-1: none) and the big-blind seat."""
        able = [k for k, s in enumerate(self.seats) if self._can_play(s)]
        if len(able) < 2:
            return [], -1, -1, -1
        if self._big_seat < 0:
            # First hand: the button is the first able seat; everyone seated now plays.
            button = able[0]
            small = self._next(button) if len(able) > 2 else button
            big = self._next(small)
            return able, button, small, big
        big = self._next(self._big_seat)
        small = self._big_seat if self._can_play(self.seats[self._big_seat]) else -1
        button = self._small_seat
        dealt = self._dealt_in(able, button, small, big)
        if len(dealt) == 2:
            # Heads-up (DRAW-2, TOURN-8): the button posts the small blind; the big blind keeps moving on.
            small = button = next(k for k in dealt if k != big)
        return dealt, button, small, big

    def _deal_draw(self, stakes: Stakes) -> tuple[list[int], int, list[BlindPost]]:
        dealt, button, small, big = self._blind_plan()
        if len(dealt) < 2:
            raise TableError("two players able to play are needed to deal")
        previous_big, previous_button = self._big_seat, self.button
        index = {k: i for i, k in enumerate(dealt)}
        posts = self._antes(len(dealt), stakes)
        if small >= 0 and small in index:
            posts.append(BlindPost(index[small], "small_blind", stakes.small_blind, True))
        posts.append(BlindPost(index[big], "big_blind", stakes.big_blind, True))
        posts += self._settle_blinds(dealt, index, button, small, big, previous_big, previous_button, stakes)
        self.button, self._small_seat, self._big_seat = button, (small if small >= 0 else previous_big), big
        # The hand's button is the last dealt player at or before the (possibly dead) button seat.
        n = len(self.seats)
        button_index = min(range(len(dealt)), key=lambda i: (button - dealt[i]) % n)
        return dealt, button_index, posts
