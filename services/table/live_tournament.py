"""One hosted tournament table: the engine's :class:`TournamentTable`, run by its director.

Only the director (whoever holds the token given at CreateTable) seats players, with the chips
they carry, removes them, adds chips (rebuys, add-ons), marks them away, and deals: each
:meth:`LiveTournamentTable.deal_hand` deals one hand with the stakes it names and resolves with
the :class:`~tablestorm.services.engine.tournament_table.HandResult` once the hand is over. The table never
deals by itself, which is how the director's holds (balancing, hand-for-hand, breaks, pauses) work.

TOURN-7: an away player is acted for at once on its turn (:meth:`TournamentTable.away_action`),
without waiting for the clock; a player the clock acts for becomes away (the engine marks it) and
the table says so at once (a SeatChanged to SITTING_OUT). The player's own SitOut and SitIn set
and clear away. Nothing is written to a load run's ledger: the director holds every stack and
rebuilds a lost table itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

import grpc

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import Action, Stakes, TableOptions
from tablestorm.services.engine.tournament_table import TournamentTable
from tablestorm.services.rpc.errors import ServiceError, failed, invalid
from tablestorm.services.table import convert
from tablestorm.services.table import validation as check
from tablestorm.services.table.auth import DIRECTOR_METADATA_KEY, SeatKey, SeatTokens, secret_matches
from tablestorm.services.table.clock import Timers
from tablestorm.services.table.live_table import LiveTable, TableKind
from tablestorm.services.table.metrics import Metrics


class LiveTournamentTable(LiveTable[TournamentTable]):
    """A tournament table being served: seated, topped up and dealt only by its director."""

    kind = TableKind.TOURNAMENT

    def __init__(
        self,
        table_id: str,
        options: TableOptions,
        *,
        seed: int | None,
        hand_number: int,
        director_token: str,
        loop: asyncio.AbstractEventLoop,
        timers: Timers,
        metrics: Metrics,
        tokens: SeatTokens,
        outbox_limit: int,
        max_spectators: int,
        on_closable: Callable[[LiveTournamentTable], None],
    ) -> None:
        """``hand_number``: the hands this table id already dealt (a table rebuilt after a fault
        deals on from there). ``on_closable`` is called when a closing table's last hand ends."""
        super().__init__(
            TournamentTable(table_id, options, seed=seed, hand_number=hand_number),
            loop=loop,
            timers=timers,
            metrics=metrics,
            tokens=tokens,
            outbox_limit=outbox_limit,
            max_spectators=max_spectators,
        )
        self._director_token = director_token.encode()
        self._on_closable = on_closable
        self._dealing: asyncio.Future[pb.HandResult] | None = None
        """Resolves with the running hand's result (voided ones included)."""
        self._result: pb.HandResult | None = None
        """The last hand played to its end, for a DealHand retried after a lost answer."""

    def authorize(self, token: str | None) -> None:
        """Director calls carry the table's director token (compared in constant time)."""
        if not token:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, f"missing {DIRECTOR_METADATA_KEY} metadata")
        if not secret_matches(token, self._director_token):
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED, f"not the director token of table {self.table_id!r}"
            )

    # ----------------------------------------------------------------- hooks

    def _sitting_out(self, seat_no: int) -> bool:
        seat = self.table.seats[seat_no - 1]
        return seat is not None and seat.away

    def _auto_action(self, seat_no: int) -> Action | None:
        seat = self.table.seats[seat_no - 1]
        return self.table.away_action() if seat is not None and seat.away else None  # TOURN-7

    def _after_timeout(self, seat_no: int) -> None:
        self._seat_changed(seat_no)  # TOURN-7: the engine marked the player away

    def _after_hand(self) -> None:
        result = convert.hand_result_to_proto(self.table.result())
        self._result = None if result.voided else result
        future, self._dealing = self._dealing, None
        if future is not None and not future.done():
            future.set_result(result)
        if self.closing:
            self._on_closable(self)

    # ----------------------------------------------------------------- the director's calls

    def seat_player(self, seat_no: int, player_id: str, stack: int) -> tuple[str, pb.SeatState, int]:
        """Seat a player with the chips it carries; returns its seat token, the seat, and the seq
        to resume a stream after (its SeatChanged is the next event)."""
        check.seat(seat_no, self.options.seats)
        check.player_id(player_id)
        check.chips(stack, "stack")
        if self.closing:
            raise failed(f"table {self.table_id!r} is closing: it takes no new players")
        self._check_free(seat_no, player_id)
        try:
            self.table.seat_player(seat_no, player_id, stack)
        except ValueError as exc:
            raise failed(str(exc)) from None
        token = self._open_session(seat_no)
        self._chips += stack
        resume_after = self.log.last_seq
        self._seat_changed(seat_no)
        return token, self.seat_state(seat_no), resume_after

    def remove_player(self, seat_no: int) -> int:
        """Take the player off the table (between its hands); returns its stack. Its token dies
        and its stream ends OK, so its client knows it was moved or is out, not failed."""
        check.seat(seat_no, self.options.seats)
        try:
            stack = self.table.remove_player(seat_no)
        except ValueError as exc:
            raise failed(str(exc)) from None
        self._end_session(seat_no, "removed from the table by the tournament director")
        self._chips -= stack
        self._seat_changed(seat_no)
        return stack

    def add_chips(self, seat_no: int, chips: int) -> pb.SeatState:
        """A rebuy or an add-on (TOURN-10), between the player's hands."""
        check.seat(seat_no, self.options.seats)
        check.chips(chips, "chips")
        try:
            self.table.add_chips(seat_no, chips)
        except ValueError as exc:
            raise failed(str(exc)) from None
        self._chips += chips
        self._seat_changed(seat_no)
        return self.seat_state(seat_no)

    def set_away(self, seat_no: int, away: bool) -> pb.SeatState:
        """TOURN-7: away or back; an away player whose turn it is now is acted for at once."""
        check.seat(seat_no, self.options.seats)
        try:
            changed = self.table.is_away(seat_no) != away
            self.table.set_away(seat_no, away)
        except ValueError as exc:
            raise failed(str(exc)) from None
        if changed:
            self._seat_changed(seat_no)
        if away:
            self._act_now_if_turn(seat_no)
        return self.seat_state(seat_no)

    def deal_hand(self, hand_number: int, stakes: Stakes) -> asyncio.Future[pb.HandResult]:
        """Deal hand ``hand_number`` (the last + 1) with ``stakes``; the future resolves with its
        result once it is over. The hand just played (or still playing) answers its own result."""
        table = self.table
        if self.draining:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
        if hand_number == table.hand_number:
            if self._dealing is not None:
                return self._dealing
            if self._result is not None and self._result.hand_number == hand_number:
                done: asyncio.Future[pb.HandResult] = self._loop.create_future()
                done.set_result(self._result)
                return done
        if self.closing:
            raise failed(f"table {self.table_id!r} is closing: it deals no more hands")
        if hand_number != table.hand_number + 1:
            raise failed(
                f"hand_number: table {self.table_id!r} dealt hand {table.hand_number} last; the next is"
                f" {table.hand_number + 1} (or {table.hand_number} again for its result), not {hand_number}"
            )
        try:
            stakes.validate(self.options.variant, self.options.structure)
        except ValueError as exc:
            raise invalid(str(exc)) from None
        if not table.ready():
            raise failed(f"hand_number: table {self.table_id!r} has fewer than two players with chips")
        if stakes != self.options.stakes:
            self.options = replace(self.options, stakes=stakes)  # TableState shows the stakes in force
        future: asyncio.Future[pb.HandResult] = self._loop.create_future()
        self._dealing = future
        table.start_hand(stakes)
        self._begin_hand()
        return future

    # ----------------------------------------------------------------- the player's calls

    def sit_out(self, key: SeatKey) -> pb.SeatState:
        self.session(key)
        return self.set_away(key.seat, True)

    def sit_in(self, key: SeatKey, post_to_play: bool) -> pb.SeatState:
        self.session(key)
        return self.set_away(key.seat, False)
