"""All the tables of one server, as a typed domain API: open, find, page, close, drain, count.

The RPC layer (:mod:`tablestorm.services.table.service`) converts wire messages at the edge and calls the
host with engine values; an embedding process (a load run's Ray actor, a benchmark) calls the same
methods directly. The host owns the seat tokens (a token names a table, so it is checked here), the
creation limits, and the ``accepting`` switch that shutdown turns off before it lets running hands
finish. Tables are of two kinds (:class:`~.live_cash.LiveCashTable`,
:class:`~.live_tournament.LiveTournamentTable`); the typed accessors (:meth:`TableHost.cash_table`,
:meth:`TableHost.directed_table`) refuse a call the other kind does not take.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import secrets
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

import grpc

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import TableOptions, variant_named
from tablestorm.services.rpc import jsonlog
from tablestorm.services.rpc.errors import ServiceError, failed, invalid
from tablestorm.services.table import convert
from tablestorm.services.table import validation as check
from tablestorm.services.table.auth import SeatKey, SeatTokens, handle_of
from tablestorm.services.table.clock import Timers
from tablestorm.services.table.hub import SPECTATOR, Outbox, Wire
from tablestorm.services.table.ledger import LedgerEntry, RecoveryPlan, TableLedger
from tablestorm.services.table.live_cash import LiveCashTable
from tablestorm.services.table.live_table import LiveTable
from tablestorm.services.table.live_tournament import LiveTournamentTable
from tablestorm.services.table.metrics import Metrics

log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
"""A lobby page (ListTables): tables by default and at most (a page of summaries stays far below 1 MiB)."""

AnyLiveTable: TypeAlias = LiveCashTable | LiveTournamentTable
"""A hosted table of either kind."""
L = TypeVar("L", bound=LiveTable[Any])


@dataclass(frozen=True, slots=True)
class HostLimits:
    max_tables: int = 1000
    hand_pause_seconds: float = 0.0
    """Pause between the end of a hand and the deal of the next (0: the next loop iteration)."""
    outbox_limit_bytes: int = 1 << 20
    """How far a Play stream may fall behind before it is disconnected (RESOURCE_EXHAUSTED)."""
    max_spectators: int = 64
    """Spectator streams per table."""


@dataclass(frozen=True, slots=True)
class Directed:
    """What makes a table a tournament table: its director's credential, and the hands its id
    already dealt (a table rebuilt after a fault deals on from there, so reshuffles the same)."""

    director_token: str
    hand_number: int = 0


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A table to open: its id (empty: the host picks one), options, and deal seed (TABLE-2);
    with ``directed`` a tournament table, else a cash table."""

    table_id: str
    options: TableOptions
    seed: int | None = None
    directed: Directed | None = None


@dataclass(frozen=True, slots=True)
class Closing:
    """What CloseTable found: the table is gone, or closes once ``seats_taken`` players stand up."""

    closed: bool
    seats_taken: int
    hand_running: bool


@dataclass(frozen=True, slots=True)
class DrainReport:
    finished: int
    """Hands that ended by themselves before the deadline."""
    voided: int
    """Hands cancelled at the deadline with an exact refund."""


class TableHost:
    """The tables one server process hosts: the service's domain, below the wire.

    Every method runs on the server's event loop; the only awaits are ledger writes, which happen
    before the change they record takes effect (see :mod:`tablestorm.services.table.ledger`).
    """

    def __init__(
        self,
        limits: HostLimits,
        metrics: Metrics,
        loop: asyncio.AbstractEventLoop,
        ledger: TableLedger | None = None,
        timers: Timers | None = None,
    ) -> None:
        """``timers`` run the tables' action clocks: the loop's ``call_later`` unless given."""
        self.limits = limits
        self.ledger = ledger
        self.metrics = metrics
        self._tables: dict[str, AnyLiveTable] = {}
        self.tokens = SeatTokens()
        self._refused = jsonlog.Throttled(log, "seat token refused")
        """A refused seat call, logged at most every 10 s: the handle of the token it carried (never
        its secret), the seat that handle belongs to here, and what the table holds for the seat
        it named."""
        self.accepting = True
        self._loop = loop
        self._timers: Timers = timers or loop.call_later
        self._closed_hands: Counter[str] = Counter()
        """Hands completed by tables that have since closed, by game."""
        self._closing: set[asyncio.Task[bool]] = set()
        """Removals of closing tournament tables under way (held so they are not collected)."""

    @property
    def tables(self) -> Mapping[str, AnyLiveTable]:
        """The open tables by id (read-only: tables come and go through this class)."""
        return self._tables

    def _require_accepting(self) -> None:
        if not self.accepting:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")

    # ----------------------------------------------------------------- opening tables

    def create_table(self, spec: TableSpec) -> AnyLiveTable:
        self._require_accepting()
        table_id = check.table_id(spec.table_id) if spec.table_id else f"t-{secrets.token_hex(6)}"
        if table_id in self._tables:
            raise ServiceError(grpc.StatusCode.ALREADY_EXISTS, f"table {table_id!r} exists")
        if len(self._tables) >= self.limits.max_tables:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"this server hosts its maximum of {self.limits.max_tables} tables",
            )
        live: AnyLiveTable
        if spec.directed is None:
            live = LiveCashTable(
                table_id,
                spec.options,
                seed=spec.seed,
                loop=self._loop,
                timers=self._timers,
                metrics=self.metrics,
                tokens=self.tokens,
                hand_pause=self.limits.hand_pause_seconds,
                outbox_limit=self.limits.outbox_limit_bytes,
                max_spectators=self.limits.max_spectators,
                ledger=self.ledger,
            )
        else:
            live = LiveTournamentTable(
                table_id,
                spec.options,
                seed=spec.seed,
                hand_number=spec.directed.hand_number,
                director_token=spec.directed.director_token,
                loop=self._loop,
                timers=self._timers,
                metrics=self.metrics,
                tokens=self.tokens,
                outbox_limit=self.limits.outbox_limit_bytes,
                max_spectators=self.limits.max_spectators,
                on_closable=self._close_later,
            )
        self._tables[table_id] = live
        self._count(live, 1)
        log.info(
            "table created", extra={"table_id": table_id, "game": spec.options.variant.code, "kind": live.kind.value}
        )
        return live

    def _count(self, live: AnyLiveTable, change: int) -> None:
        """``live`` opened (1) or closed (-1): the tables by game and by kind."""
        self.metrics.game(live.options.variant.code).tables_live.inc(change)
        self.metrics.tables_by_kind.labels(live.kind.value).inc(change)

    async def open_table(self, spec: TableSpec) -> AnyLiveTable:
        """Create a table and, with a ledger, record a cash table there before anyone can sit
        (a tournament table's director holds its record)."""
        live = self.create_table(spec)
        if isinstance(live, LiveCashTable):
            await self._record_created(live, spec.seed)
        return live

    async def _record_created(self, live: LiveCashTable, seed: int | None) -> None:
        if self.ledger is not None:
            options = convert.options_to_proto(live.options).SerializeToString()
            await self.ledger.record(LedgerEntry(live.table_id, "created", 0, (), options, seed))

    async def restore_table(self, plan: RecoveryPlan) -> LiveCashTable:
        """Rebuild a cash table another (dead) server held, from its last ledger entry (see
        :meth:`LiveCashTable.restore` for the incarnation).

        The table appears on this server with its seats and their tokens in one step: a player
        who reaches it while the ledger is being written is served, never told its token is
        unknown (UNAUTHENTICATED, which a client takes as final). It deals once the ledger holds
        the restored seats, so the table's entries come in order: created, seats, hand_started.
        """
        options = convert.options_from_proto(pb.TableOptions.FromString(plan.options))
        live = self.create_table(TableSpec(plan.last.table_id, options, plan.seed))
        assert isinstance(live, LiveCashTable)
        try:
            live.restore(plan.last, plan.incarnation)
        except ServiceError:
            self._remove(live)
            live.release(f"table {live.table_id!r} could not be rebuilt")
            raise
        await self._record_created(live, plan.seed)
        await live.persist_seats()
        live.deal_when_ready()
        return live

    # ----------------------------------------------------------------- finding tables

    def table(self, table_id: str) -> AnyLiveTable:
        live = self._tables.get(check.table_id(table_id))
        if live is None:
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no table {table_id!r}")
        return live

    def cash_table(self, table_id: str) -> LiveCashTable:
        """The cash table ``table_id``; a tournament table refuses the cash calls."""
        live = self.table(table_id)
        if not isinstance(live, LiveCashTable):
            raise failed(
                f"table {table_id!r} is a tournament table: its director seats players and deals"
                " (SitDown, StandUp and Rebuy are for cash tables)"
            )
        return live

    def directed_table(self, table_id: str, director_token: str | None) -> LiveTournamentTable:
        """The tournament table ``table_id``, if ``director_token`` is its director's."""
        live = self.table(table_id)
        if not isinstance(live, LiveTournamentTable):
            raise failed(f"table {table_id!r} is a cash table: it has no director")
        live.authorize(director_token)
        return live

    def page(self, game: str, size: int, after: str) -> tuple[list[AnyLiveTable], bool]:
        """Up to ``size`` tables in table id order after ``after`` (optionally of one game), and
        whether more follow.

        Paging by the last id seen means a page never repeats or skips a table that stays open,
        whatever opens or closes in between.
        """
        ids = sorted(self._tables)
        page: list[AnyLiveTable] = []
        for table_id in ids[bisect.bisect_right(ids, after) :]:
            live = self._tables[table_id]
            if game and live.options.variant.code != game:
                continue
            if len(page) == size:
                return page, True
            page.append(live)
        return page, False

    def lobby(self, game: str, page_size: int, page_token: str) -> tuple[list[AnyLiveTable], str]:
        """A lobby page (ListTables): up to ``page_size`` tables (0: the default) after
        ``page_token``, optionally of one ``game``, and the token of the next page ("" on the last)."""
        if game:
            try:
                variant_named(game if len(game) <= convert.MAX_GAME_LENGTH else "?")
            except ValueError as exc:
                raise invalid(f"game: {exc}") from None
        if page_size > MAX_PAGE_SIZE:
            raise invalid(f"page_size: at most {MAX_PAGE_SIZE}, got {page_size}")
        after = check.table_id(page_token, "page_token") if page_token else ""
        page, more = self.page(game, page_size or DEFAULT_PAGE_SIZE, after)
        return page, page[-1].table_id if more else ""

    def seat(self, token: str | None, table_id: str, seat: int) -> tuple[AnyLiveTable, SeatKey]:
        """The table and seat key ``token`` authorizes for ``seat`` at ``table_id``."""
        return self._authorized(self.table(table_id), token, seat)

    def cash_seat(self, token: str | None, table_id: str, seat: int) -> tuple[LiveCashTable, SeatKey]:
        """As :meth:`seat`, for the calls only a cash table takes (StandUp, Rebuy)."""
        return self._authorized(self.cash_table(table_id), token, seat)

    def _authorized(self, live: L, token: str | None, seat: int) -> tuple[L, SeatKey]:
        check.seat(seat, live.options.seats)
        try:
            return live, self.tokens.authorize(token, live.table_id, seat)
        except ServiceError as exc:
            named = self.tokens.named(token)
            self._refused.warn(
                code=exc.code.name,
                token_handle=handle_of(token),
                token_names=f"{named.table_id}#{named.seat}/{named.occupancy}" if named is not None else None,
                **live.holder(seat),
            )
            raise

    # ----------------------------------------------------------------- seats and streams

    def sit_down(
        self, table_id: str, seat: int, player_id: str, buy_in: int, post_to_play: bool
    ) -> tuple[LiveCashTable, pb.SitDownResponse]:
        """Seat a player with the posted buy-in; returns the table and the seat's token, state and
        the seq to resume a stream after (see :meth:`LiveCashTable.sit_down`)."""
        self._require_accepting()
        live = self.cash_table(table_id)
        token, state, resume_after = live.sit_down(seat, check.player_id(player_id), buy_in, post_to_play)
        return live, pb.SitDownResponse(seat_token=token, seat=state, resume_after_seq=resume_after)

    async def take_seat(
        self, table_id: str, seat: int, player_id: str, buy_in: int, post_to_play: bool
    ) -> tuple[LiveCashTable, pb.SitDownResponse]:
        """SitDown, answered once the ledger holds the buy-in (:meth:`sit_down`)."""
        live, response = self.sit_down(table_id, seat, player_id, buy_in, post_to_play)
        await live.persist_seats()
        return live, response

    async def leave_seat(self, token: str | None, table_id: str, seat: int) -> int:
        """StandUp: the chips cashed out, answered once the ledger holds the cash-out; the last
        player leaving a closing table closes it."""
        live, key = self.cash_seat(token, table_id, seat)
        chips = live.stand_up(key)
        await live.persist_seats()
        await self.close_if_empty(live)
        return chips

    async def rebuy_seat(self, token: str | None, table_id: str, seat: int) -> pb.SeatState:
        """Rebuy, answered once the ledger holds the chips bought."""
        live, key = self.cash_seat(token, table_id, seat)
        state = live.rebuy(key)
        await live.persist_seats()
        return state

    def seat_player(
        self, table_id: str, director_token: str | None, seat: int, player_id: str, stack: int
    ) -> pb.SitDownResponse:
        """The director seats a player with its chips; returns the seat's token, state and the seq
        to resume a stream after (see :meth:`LiveTournamentTable.seat_player`)."""
        self._require_accepting()
        live = self.directed_table(table_id, director_token)
        token, state, resume_after = live.seat_player(seat, player_id, stack)
        return pb.SitDownResponse(seat_token=token, seat=state, resume_after_seq=resume_after)

    def subscribe(
        self, table_id: str, seat: int, resume_after: int | None, token: str | None, wire: Wire | None = None
    ) -> tuple[AnyLiveTable, SeatKey | None, Outbox]:
        """A Play stream for ``seat`` (SPECTATOR: public events only, no token); with ``wire``, a
        subscriber reading that encoding (the WebSocket front door's)."""
        live = self.table(table_id)
        if seat == SPECTATOR:
            return live, None, live.subscribe(SPECTATOR, SPECTATOR, resume_after, wire)
        live, key = self.seat(token, table_id, seat)
        owner = live.session(key).occupancy
        return live, key, live.subscribe(seat, owner, resume_after, wire)

    # ----------------------------------------------------------------- closing

    async def close_table(self, table_id: str) -> Closing:
        """Close a table as a room breaks one: no new seats or hands, the running hand plays out,
        and the table leaves the server when its last player stands up (now, if nobody sits)."""
        live = self.table(table_id)
        if not live.closing:
            live.closing = True
            log.info("table closing", extra={"table_id": live.table_id, "seats_taken": live.seats_taken})
        closed = await self.close_if_empty(live)
        return Closing(closed, live.seats_taken, live.table.hand is not None)

    async def close_all(self) -> None:
        """CloseTable every table (the end of a load run)."""
        await asyncio.gather(*(self.close_table(table_id) for table_id in list(self._tables)))

    async def close_if_empty(self, live: AnyLiveTable) -> bool:
        """Remove a closing table once it may go: a cash table when nobody sits at it (with a
        ledger, recorded closed), a tournament table when no hand is running (its players' chips
        are the director's to account for)."""
        if not live.closing or live.table.hand is not None:
            return False
        if isinstance(live, LiveCashTable) and live.seats_taken:
            return False
        if self._tables.get(live.table_id) is not live:
            return True  # another call removed it first
        self._remove(live)
        live.release(f"table {live.table_id!r} closed")
        log.info("table closed", extra={"table_id": live.table_id, "hands": live.table.hand_number})
        if self.ledger is not None and isinstance(live, LiveCashTable):
            await self.ledger.record(live.ledger_entry("closed", live.table.hand_number))
        return True

    def _remove(self, live: AnyLiveTable) -> None:
        del self._tables[live.table_id]
        self._closed_hands[live.options.variant.code] += live.hands_completed
        self._count(live, -1)

    def _close_later(self, live: AnyLiveTable) -> None:
        """A closing tournament table finished its last hand: remove it on the next loop turn."""
        task = self._loop.create_task(self.close_if_empty(live))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def drain(self, deadline: float) -> DrainReport:
        """Shut down the tables: no new tables, seats or hands; running hands get until ``deadline``
        seconds to finish, then are voided (exact refund); every stream then ends UNAVAILABLE."""
        self.accepting = False
        for live in self._tables.values():
            live.draining = True
        running = [live for live in self._tables.values() if not live.idle.is_set()]
        if running:
            waiters = [asyncio.ensure_future(live.idle.wait()) for live in running]
            _, pending = await asyncio.wait(waiters, timeout=deadline)
            for waiter in pending:
                waiter.cancel()
        voided = 0
        for live in running:
            if not live.idle.is_set():
                live.void_hand("server shutting down")
                voided += 1
        for live in self._tables.values():
            live.close_streams(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
        report = DrainReport(finished=len(running) - voided, voided=voided)
        log.info("tables drained", extra={"finished": report.finished, "voided": report.voided})
        return report

    async def cash_out_all(self) -> tuple[int, int]:
        """Stand up every player still seated at a cash table, paying out their stacks: the end of
        a load run past its wind-down budget, after :meth:`drain` (so no hand runs). Returns (seats,
        chips); with a ledger every table's cash-outs are recorded before this returns. Tournament
        tables are left as they are: their stacks are their director's."""
        seats = chips = 0
        for live in list(self._tables.values()):
            if not isinstance(live, LiveCashTable):
                continue
            for key in live.seat_keys():
                chips += live.stand_up(key)
                seats += 1
            await live.persist_seats()
        return seats, chips

    def abandon(self) -> None:
        """Stop every table where it stands (what a crash leaves): no new tables, seats or deals,
        no clock and no ledger write; running hands are not voided, the ledger refunds them."""
        self.accepting = False
        self.ledger = None
        for live in self._tables.values():
            live.abandon()

    # ----------------------------------------------------------------- counts

    def chips_by_table(self) -> dict[str, int]:
        """Chips at each open table: stacks, and any hand in progress."""
        return {table_id: live.table.total_chips() for table_id, live in self._tables.items()}

    def hands_running(self) -> int:
        """Tables in the middle of a hand (what losing this server now would void)."""
        return sum(1 for live in self._tables.values() if live.table.hand is not None)

    def hands_by_game(self) -> dict[str, int]:
        """Hands played to the end on this server since it started, by game (closed tables too)."""
        counts = Counter(self._closed_hands)
        for live in self._tables.values():
            counts[live.options.variant.code] += live.hands_completed
        return dict(counts)
