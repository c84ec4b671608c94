"""One hosted cash table: the engine's :class:`CashTable` with buy-ins, cash-outs, automatic deals
and the ledger hooks of a load run.

Players sit down with the posted buy-in and stand up with their stack (TABLE-1); a hand starts by
itself whenever two can play (after the host's pause); a timed-out player sits out after the hand
(CLOCK-3). With a :class:`~.ledger.TableLedger`, seat changes and hand starts are recorded before
they take effect, so a table lost with its server is rebuilt elsewhere with every chip (see
:mod:`.ledger`).
"""

from __future__ import annotations

import asyncio
import logging

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import TableOptions
from tablestorm.services.engine.table import CashTable, TableError
from tablestorm.services.rpc.errors import failed, invalid
from tablestorm.services.table import validation as check
from tablestorm.services.table.auth import SeatKey, SeatTokens, split_token
from tablestorm.services.table.clock import Timers
from tablestorm.services.table.ledger import LedgerEntry, SeatRecord, TableLedger
from tablestorm.services.table.live_table import LiveTable, TableKind
from tablestorm.services.table.metrics import Metrics

log = logging.getLogger(__name__)

SEQ_EPOCH_BITS = 40
"""A rebuilt table's events start at ``incarnation << 40``: past any number its earlier lives used."""


class LiveCashTable(LiveTable[CashTable]):
    """A cash table being served: players come and go with their chips; hands deal themselves."""

    kind = TableKind.CASH

    def __init__(
        self,
        table_id: str,
        options: TableOptions,
        *,
        seed: int | None,
        loop: asyncio.AbstractEventLoop,
        timers: Timers,
        metrics: Metrics,
        tokens: SeatTokens,
        hand_pause: float,
        outbox_limit: int,
        max_spectators: int,
        ledger: TableLedger | None = None,
    ) -> None:
        super().__init__(
            CashTable(table_id, options, seed=seed),
            loop=loop,
            timers=timers,
            metrics=metrics,
            tokens=tokens,
            outbox_limit=outbox_limit,
            max_spectators=max_spectators,
        )
        self._hand_pause = hand_pause
        self.bought = 0
        self.cashed_out = 0
        """Chips that came onto and left this table, for the ledger (``_chips`` is their difference)."""
        self._start_pending = False
        self._ledger = ledger

    def _sitting_out(self, seat_no: int) -> bool:
        seat = self.table.seats[seat_no - 1]
        return seat is not None and seat.sitting_out

    @property
    def posted_buy_in(self) -> int:
        return self.options.posted_buy_in

    # ----------------------------------------------------------------- seats

    def sit_down(
        self, seat_no: int, player_id: str, buy_in: int, post_to_play: bool
    ) -> tuple[str, pb.SeatState, int]:
        """Seat a player with the posted buy-in (TABLE-1); returns the seat token, the seat, and
        the seq to resume a stream after so that no event from the sit-down on is missed."""
        check.seat(seat_no, self.options.seats)
        if self.closing:
            raise failed(f"table {self.table_id!r} is closing: it takes no new players")
        posted = self.options.posted_buy_in
        if buy_in and buy_in != posted:
            raise invalid(f"buy_in: must be the posted {posted} chips (TABLE-1), got {buy_in}")
        self._check_free(seat_no, player_id)
        try:
            self.table.sit_down(seat_no, player_id, posted, post_to_play=post_to_play)
        except TableError as exc:
            raise failed(str(exc)) from None
        token = self._open_session(seat_no)
        self._chips += posted
        self.bought += posted
        resume_after = self.log.last_seq
        self._seat_changed(seat_no)
        self._maybe_start()
        return token, self.seat_state(seat_no), resume_after

    def stand_up(self, key: SeatKey) -> int:
        self.session(key)
        table = self.table
        if table.hand is not None and key.seat - 1 in table.hand_seats:
            # Even folded: cashing out now would pay the stack without the chips already in the
            # pot, and a hand voided later (shutdown) could no longer refund those to anyone.
            raise failed(
                f"seat {key.seat} is dealt into hand {table.hand_number}, live or folded:"
                " stand up once the hand ends"
            )
        try:
            chips = self.table.stand_up(key.seat)
        except TableError as exc:
            raise failed(str(exc)) from None
        self._end_session(key.seat, "stood up")
        self._chips -= chips
        self.cashed_out += chips
        self._seat_changed(key.seat)
        return chips

    def seat_keys(self) -> list[SeatKey]:
        """The key of every seat taken now (what the host stands up at the very end of a run)."""
        return [SeatKey(self.table_id, seat, session.occupancy) for seat, session in self._sessions.items()]

    def sit_out(self, key: SeatKey) -> pb.SeatState:
        self.session(key)
        self.table.sit_out(key.seat)
        self._seat_changed(key.seat)
        return self.seat_state(key.seat)

    def sit_in(self, key: SeatKey, post_to_play: bool) -> pb.SeatState:
        self.session(key)
        self.table.sit_in(key.seat, post_to_play=post_to_play)
        self._seat_changed(key.seat)
        self._maybe_start()
        return self.seat_state(key.seat)

    def rebuy(self, key: SeatKey) -> pb.SeatState:
        self.session(key)
        if self.closing:
            raise failed(f"table {self.table_id!r} is closing: no rebuys")
        try:
            chips = self.table.rebuy(key.seat)
            self._chips += chips
            self.bought += chips
        except TableError as exc:
            raise failed(str(exc)) from None
        self._seat_changed(key.seat)
        self._maybe_start()
        return self.seat_state(key.seat)

    # ----------------------------------------------------------------- hands

    def _maybe_start(self) -> None:
        """Deal the next hand on a later loop iteration (after the pause) if one can start."""
        if self._start_pending or self.draining or self.closing or not self.table.ready():
            return
        self._start_pending = True
        if self._hand_pause > 0:
            self._loop.call_later(self._hand_pause, self._start)
        else:
            self._loop.call_soon(self._start)

    def _start(self) -> None:
        if self.draining or self.closing:  # CloseTable or shutdown came during the pause
            self._start_pending = False
            return
        if self._ledger is None:
            self._deal()
        else:
            self._loop.create_task(self._record_then_deal(self._ledger))

    async def _record_then_deal(self, ledger: TableLedger) -> None:
        """Put the stacks everyone starts the hand with outside this server before dealing."""
        number = self.table.hand_number + 1
        try:
            await ledger.record(self.ledger_entry("hand_started", number))
        except Exception:
            self._start_pending = False
            log.exception("ledger unreachable: hand not dealt", extra={"table_id": self.table_id})
            return
        self._deal()
        if self.table.hand_number < number and self._ledger is not None:
            # Not dealt after all (CloseTable, shutdown, or players left during the write): the
            # ledger's last word must not be a hand start that never happened. (Abandoned: the
            # table writes nothing more.)
            ledger.note(self.ledger_entry("seats", self.table.hand_number))

    def _deal(self) -> None:
        self._start_pending = False
        if self.draining or self.closing or not self.table.ready():
            return
        self.table.start_hand()
        self._begin_hand()

    def _after_hand(self) -> None:
        if self._ledger is not None:
            self._ledger.note(self.ledger_entry("hand_ended", self.table.hand_number))
        for seat_no in self._seats:
            seat = self.table.seats[seat_no - 1]
            if seat is not None and self._status.get(seat_no) == pb.SEAT_STATUS_PLAYING and seat.sitting_out:
                self._seat_changed(seat_no)  # CLOCK-3: timed out, sits out from now on
        self._maybe_start()

    def _refunded_off_table(self, chips: int) -> None:
        self.cashed_out += chips

    def abandon(self) -> None:
        """As a crash leaves it; and no ledger write either (the ledger's last entry is what a
        rebuild uses)."""
        super().abandon()
        self._ledger = None

    # ----------------------------------------------------------------- the ledger

    def ledger_entry(self, kind: str, hand_number: int) -> LedgerEntry:
        """Every seat with its stack outside any running hand (the stack it started the hand with)."""
        seats = []
        for k, seat in enumerate(self.table.seats):
            if seat is not None and k + 1 in self._sessions:
                token = self._sessions[k + 1].token
                seats.append(SeatRecord(k + 1, seat.player_id, seat.stack, token, seat.sitting_out))
        return LedgerEntry(
            self.table_id, kind, hand_number, tuple(seats), bought=self.bought, cashed_out=self.cashed_out
        )

    async def persist_seats(self) -> None:
        """Seat changes move chips on or off the table: answer only once the ledger holds them."""
        if self._ledger is not None:
            await self._ledger.record(self.ledger_entry("seats", self.table.hand_number))

    def restore(self, entry: LedgerEntry, incarnation: int) -> None:
        """Rebuild this (new) table's seats from a ledger entry, keeping every seat token valid;
        it deals nothing until :meth:`deal_when_ready`.

        Event numbers belong to one incarnation of a table: this one numbers its events from
        ``incarnation << SEQ_EPOCH_BITS`` on, so a client resuming after an event of a dead
        incarnation is told of a gap instead of being served other events under those numbers.
        """
        malformed = [record.seat for record in entry.seats if split_token(record.token) is None]
        if malformed:
            raise failed(f"seats {malformed}: the ledger's tokens are not seat tokens (<handle>.<secret>)")
        self.incarnation = incarnation
        self.log.last_seq = incarnation << SEQ_EPOCH_BITS
        self.table.hand_number = entry.hand_number
        self.bought, self.cashed_out = entry.bought, entry.cashed_out
        for record in entry.seats:
            try:
                self.table.restore_seat(
                    record.seat, record.player_id, record.stack, sitting_out=record.sitting_out
                )
            except TableError as exc:
                raise failed(str(exc)) from None
            self._restore_session(record.seat, record.token)
            self._chips += record.stack
            self._seat_changed(record.seat)

    def deal_when_ready(self) -> None:
        """Deal the next hand once two can play: a rebuilt table, once the ledger holds its seats."""
        self._maybe_start()
