"""A tournament table across hands: the director's seats, a level's stakes per hand, away players.

:class:`TournamentTable` is a :class:`~.seated.SeatedTable` (seats, the dead button, histories)
that takes its orders from a tournament director: players are seated with the stack they carry
(never a buy-in), removed only between their hands, and topped up by rebuys and add-ons; every
hand is dealt with the stakes of the level the director names (TOURN-1). It never decides when
to deal: the director does, which is how balancing, hand-for-hand, breaks and pauses hold a table.

Tournament rules on top of the shared table:

* TOURN-7: nobody sits out. A player marked away, or timed out (CLOCK-2 acts as at a cash
  table, then the player is marked away), is dealt in, posts antes, blinds and bring-ins, and on
  their turn :meth:`TournamentTable.away_action` checks when checking is free, else folds (a stud
  bring-in is posted, a draw stands pat).
* No missed blinds: a player new to the table (a move, a late entry, a re-entry) is dealt in at
  once wherever they sit, posting the big blind if the seat is its position (TDA 11A), except in a
  seat strictly between the button and the small blind, where they wait until the button passes
  them (TDA; DRAW-6's "must wait for the button to pass"). [decision] When waiting would leave
  fewer than two players to deal, nobody waits.
* TOURN-8 heads-up is the shared table's rule: the button posts the small blind and the big blind
  keeps moving on, so nobody posts the big blind twice in a row when heads-up begins and no dead
  button or dead small blind starts it.

After each hand :meth:`TournamentTable.result` gives the director a :class:`HandResult`: each
dealt seat's stacks, and for balancing in the draw game the seats in the order they will post the
big blind from the next hand and the seats where a newcomer would wait.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

from tablestorm.services.engine.actions import Action, ActionKind
from tablestorm.services.engine.events import HandEnded, HandStarted
from tablestorm.services.engine.hand import BlindPost, Hand
from tablestorm.services.engine.seated import HandRecord, Seat, SeatedTable, TableError
from tablestorm.services.engine.variants import Stakes, TableOptions

__all__ = ["HandResult", "SeatResult", "TableError", "TournamentSeat", "TournamentTable"]

_AWAY_ORDER = (ActionKind.CHECK, ActionKind.FOLD, ActionKind.BRING_IN, ActionKind.DRAW)
"""TOURN-7's choice for an away player, first legal wins: check if free, else fold; the stud
bring-in (which may not fold, STUD-3) is posted; a draw stands pat."""


@dataclass(slots=True)
class TournamentSeat(Seat):
    """A tournament player at this table."""

    away: bool = False
    """TOURN-7: dealt in and posting, but folded (or checked) on every turn until back."""


class SeatResult(NamedTuple):
    seat: int
    player_id: str
    start: int
    """The stack the player was dealt in with."""
    end: int
    """The stack after the hand (``start`` again when it was voided)."""
    away: bool
    """TOURN-7: marked away when the hand ended (a timeout marks a player away)."""


class HandResult(NamedTuple):
    """One hand's outcome as a tournament director needs it."""

    table_id: str
    hand_number: int
    seats: tuple[SeatResult, ...]
    """Every dealt seat, in seat order."""
    voided: bool
    big_blind_order: tuple[int, ...]
    """Draw game: every seat number, empty ones included, in the order a player sitting there
    would post the big blind from the next hand; the last is the small blind's seat. Empty in stud."""
    waiting_seats: tuple[int, ...]
    """Draw game: the seats strictly between the next hand's button and small blind, where a
    player new to the table waits for the button to pass. Empty in stud."""


class TournamentTable(SeatedTable[TournamentSeat]):
    """One tournament table, driven seat by seat and hand by hand by the director's commands."""

    def __init__(
        self,
        table_id: str,
        options: TableOptions,
        *,
        seed: int | None = None,
        hand_number: int = 0,
        keep_history: bool = True,
    ) -> None:
        """``hand_number`` is the number of hands this table id has already dealt: a table rebuilt
        after a fault goes on numbering (and so shuffling, TABLE-2) after the voided hand."""
        super().__init__(table_id, options, seed=seed, keep_history=keep_history)
        if hand_number < 0:
            raise TableError(f"hand_number must not be negative, got {hand_number}")
        self.hand_number = hand_number
        self._options_by_stakes: dict[Stakes, TableOptions] = {options.stakes: options}

    # ----------------------------------------------------------------- seats

    def seat_player(self, seat_no: int, player_id: str, stack: int) -> None:
        """Seat ``player_id`` with the chips they carry: between hands, or during a hand into an
        empty seat (they are dealt in from the next hand)."""
        self._check_newcomer(seat_no, player_id)
        if type(stack) is not int or stack <= 0:
            raise TableError(f"stack must be a positive whole number of chips, got {stack!r}")
        self.seats[seat_no - 1] = TournamentSeat(player_id, stack, waiting=not self.options.variant.is_stud)

    def _idle_seat(self, seat_no: int, what: str) -> TournamentSeat:
        seat = self._seat(seat_no)
        if self.hand is not None and seat_no - 1 in self.hand_seats:
            raise TableError(f"seat {seat_no} is dealt into hand {self.hand_number}: {what} once it ends")
        return seat

    def remove_player(self, seat_no: int) -> int:
        """Take the player away from the table (a move, a break, an elimination); returns the stack.
        Refused while they are dealt into the running hand, live or folded."""
        seat = self._idle_seat(seat_no, "remove them")
        self.seats[seat_no - 1] = None
        return seat.stack

    def add_chips(self, seat_no: int, chips: int) -> int:
        """A rebuy or an add-on (TOURN-10), between the player's hands; returns the new stack."""
        if type(chips) is not int or chips <= 0:
            raise TableError(f"chips must be a positive whole number, got {chips!r}")
        seat = self._idle_seat(seat_no, "add chips")
        seat.stack += chips
        return seat.stack

    def set_away(self, seat_no: int, away: bool) -> None:
        """TOURN-7: mark the player away (dealt in and folded) or back."""
        self._seat(seat_no).away = away

    def is_away(self, seat_no: int) -> bool:
        return self._seat(seat_no).away

    # ----------------------------------------------------------------- hands

    def start_hand(self, stakes: Stakes) -> Hand:
        """Deal the next hand with ``stakes`` (the level the director names, TOURN-1) to every
        seated player with chips, away players included (TOURN-7)."""
        options = self._options_by_stakes.get(stakes)
        if options is None:
            try:
                options = replace(self.options, stakes=stakes)
            except ValueError as exc:
                raise TableError(str(exc)) from None
            self._options_by_stakes[stakes] = options
        return self._start_hand(options)

    def away_action(self) -> Action:
        """TOURN-7: what the player whose turn it is does while away."""
        hand = self.hand
        if hand is None or hand.actor < 0:
            raise TableError("no hand is running")
        legal = {option.kind: option for option in hand.legal_actions()}
        for kind in _AWAY_ORDER:
            option = legal.get(kind)
            if option is not None:
                return Action(kind, option.min if kind is ActionKind.BRING_IN else 0)
        raise AssertionError(f"no TOURN-7 action among {tuple(legal)}")  # every turn offers one of them

    def result(self) -> HandResult:
        """The last hand finished or voided, as the director takes it."""
        record = self.last_record
        if record is None:
            raise TableError("no hand has finished at this table")
        return _result(self, record)

    def big_blind_order(self) -> tuple[int, ...]:
        """Draw game: every seat number in the order a player sitting there would post the big
        blind from the next hand (the small blind's seat last); empty in stud."""
        if self.options.variant.is_stud:
            return ()
        last = self._big_seat if self._big_seat >= 0 else self._blind_plan()[2]
        n = len(self.seats)
        return tuple((last + step) % n + 1 for step in range(1, n + 1))

    def waiting_seats(self) -> tuple[int, ...]:
        """Draw game: the seats strictly between the next hand's button and small blind, where a
        player new to the table waits for the button to pass; empty in stud and before any hand."""
        if self.options.variant.is_stud or self._big_seat < 0:
            return ()
        return tuple(k + 1 for k in range(len(self.seats)) if self._before_small_blind(k))

    def _before_small_blind(self, k: int) -> bool:
        """Whether seat index ``k`` lies strictly between the next hand's button (the last small
        blind's seat) and its small blind (the last big blind's seat, live or dead)."""
        n = len(self.seats)
        return 0 < (k - self._small_seat) % n < (self._big_seat - self._small_seat) % n

    def _can_play(self, seat: TournamentSeat | None) -> bool:
        return seat is not None and seat.stack > 0

    def _timed_out(self, seat: TournamentSeat) -> None:
        seat.away = True  # TOURN-7: not sat out; dealt in and folded until back

    def _dealt_in(self, able: list[int], button: int, small: int, big: int) -> list[int]:
        dealt = []
        for k in able:
            seat = self.seats[k]
            assert seat is not None
            if not (seat.waiting and self._before_small_blind(k)):
                dealt.append(k)
        return dealt if len(dealt) >= 2 else able

    def _antes(self, players: int, stakes: Stakes) -> list[BlindPost]:
        """TOURN-1: a draw level may have an ante; everyone dealt in posts it, before the blinds."""
        return [BlindPost(i, "ante", stakes.ante, False) for i in range(players)] if stakes.ante else []

    def _settle_blinds(
        self, dealt: list[int], index: dict[int, int], button: int, small: int, big: int,
        previous_big: int, previous_button: int, stakes: Stakes,
    ) -> list[BlindPost]:
        for k in dealt:
            seat = self.seats[k]
            assert seat is not None
            seat.waiting = False
        return []  # a tournament has no missed blinds: nobody owes a post beyond the two blinds


def _result(table: TournamentTable, record: HandRecord) -> HandResult:
    started = record.events[0]
    assert type(started) is HandStarted
    ended = record.events[-1]
    ends = started.stacks if record.voided or type(ended) is not HandEnded else ended.stacks
    seats = table.seats
    results = []
    for seat, player, start, end in zip(record.seats, record.player_ids, started.stacks, ends, strict=True):
        occupant = seats[seat - 1]
        results.append(SeatResult(seat, player, start, end, occupant is not None and occupant.away))
    return HandResult(
        table.table_id, record.hand_number, tuple(results), record.voided, table.big_blind_order(),
        table.waiting_seats(),
    )
