"""All the tables of one server: creation limits, seat authorization, and the shutdown drain.

The RPC layer asks the host for a table and an authorized seat; the host owns the seat tokens
(a token names a table, so it is checked here) and the ``accepting`` switch that shutdown turns off
before it lets running hands finish.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import secrets
from dataclasses import dataclass

import grpc

from services.engine import variant_named

from . import convert
from . import validation as check
from .auth import SeatKey, SeatTokens
from .errors import ServiceError, invalid
from .hub import SPECTATOR, Outbox
from .ledger import LedgerEntry, TableLedger
from .live_table import LiveTable
from .metrics import Metrics
from .proto_gen import table_service_pb2 as pb

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class HostLimits:
    max_tables: int = 1000
    hand_pause_seconds: float = 0.0
    """Pause between the end of a hand and the deal of the next (0: the next loop iteration)."""
    outbox_limit_bytes: int = 1 << 20
    """How far a Play stream may fall behind before it is disconnected (RESOURCE_EXHAUSTED)."""
    max_spectators: int = 64
    """Spectator streams per table."""


DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
"""ListTables: tables per page by default and at most (a page of summaries stays far below 1 MiB)."""


@dataclass(frozen=True, slots=True)
class DrainReport:
    finished: int
    """Hands that ended by themselves before the deadline."""
    voided: int
    """Hands cancelled at the deadline with an exact refund."""


class TableHost:
    def __init__(
        self,
        limits: HostLimits,
        metrics: Metrics,
        loop: asyncio.AbstractEventLoop,
        ledger: TableLedger | None = None,
    ) -> None:
        self.limits = limits
        self.ledger = ledger
        self.metrics = metrics
        self.tables: dict[str, LiveTable] = {}
        self.tokens = SeatTokens()
        self.accepting = True
        self._loop = loop

    def _require_accepting(self) -> None:
        if not self.accepting:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")

    def create_table(self, request: pb.CreateTableRequest) -> LiveTable:
        self._require_accepting()
        table_id = check.table_id(request.table_id) if request.table_id else f"t-{secrets.token_hex(6)}"
        if table_id in self.tables:
            raise ServiceError(grpc.StatusCode.ALREADY_EXISTS, f"table {table_id!r} exists")
        if len(self.tables) >= self.limits.max_tables:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"this server hosts its maximum of {self.limits.max_tables} tables",
            )
        try:
            options = convert.options_from_proto(request.options)
        except ValueError as exc:
            raise invalid(str(exc)) from None
        live = LiveTable(
            table_id,
            options,
            seed=request.seed if request.HasField("seed") else None,
            loop=self._loop,
            metrics=self.metrics,
            tokens=self.tokens,
            hand_pause=self.limits.hand_pause_seconds,
            outbox_limit=self.limits.outbox_limit_bytes,
            max_spectators=self.limits.max_spectators,
            ledger=self.ledger,
        )
        self.tables[table_id] = live
        self.metrics.game(options.variant.code).tables_live.inc()
        log.info("table created", extra={"table_id": table_id, "game": options.variant.code})
        return live

    async def open_table(self, request: pb.CreateTableRequest) -> LiveTable:
        """Create a table and, with a ledger, record it there before anyone can sit."""
        live = self.create_table(request)
        if self.ledger is not None:
            options = convert.options_to_proto(live.options).SerializeToString()
            seed = request.seed if request.HasField("seed") else None
            await self.ledger.record(LedgerEntry(live.table_id, "created", 0, (), options, seed))
        return live

    async def restore_table(
        self,
        options: pb.TableOptions,
        seed: int | None,
        last: LedgerEntry,
        incarnation: int,
    ) -> LiveTable:
        """Rebuild a table another (dead) server held, from its last ledger entry (see
        :meth:`LiveTable.restore` for ``incarnation``)."""
        request = pb.CreateTableRequest(table_id=last.table_id, options=options)
        if seed is not None:
            request.seed = seed
        live = await self.open_table(request)
        live.restore(last, incarnation)
        await live.persist_seats()
        return live

    def table(self, table_id: str) -> LiveTable:
        live = self.tables.get(check.table_id(table_id))
        if live is None:
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no table {table_id!r}")
        return live

    def list_tables(self, request: pb.ListTablesRequest) -> pb.ListTablesResponse:
        """A page of table summaries in table id order, optionally of one game.

        The page token is the last table id of the previous page, so a page never repeats or
        skips a table that stays open, whatever opens or closes in between.
        """
        game = request.game
        if game:
            try:
                variant_named(game if len(game) <= convert.MAX_GAME_LENGTH else "?")
            except ValueError as exc:
                raise invalid(f"game: {exc}") from None
        if request.page_size > MAX_PAGE_SIZE:
            raise invalid(f"page_size: at most {MAX_PAGE_SIZE}, got {request.page_size}")
        size = request.page_size or DEFAULT_PAGE_SIZE
        after = check.table_id(request.page_token, "page_token") if request.page_token else ""
        ids = sorted(self.tables)
        page: list[pb.TableSummary] = []
        more = False
        for table_id in ids[bisect.bisect_right(ids, after) :]:
            live = self.tables[table_id]
            if game and live.options.variant.code != game:
                continue
            if len(page) == size:
                more = True
                break
            page.append(live.summary())
        return pb.ListTablesResponse(tables=page, next_page_token=page[-1].table_id if more else "")

    async def close_table(self, table_id: str) -> pb.CloseTableResponse:
        """Close a table as a room breaks one: no new seats or hands, the running hand plays out,
        and the table leaves the server when its last player stands up (now, if nobody sits)."""
        live = self.table(table_id)
        if not live.closing:
            live.closing = True
            log.info("table closing", extra={"table_id": live.table_id, "seats_taken": live.seats_taken})
        closed = await self.close_if_empty(live)
        return pb.CloseTableResponse(
            closed=closed, seats_taken=live.seats_taken, hand_running=live.table.hand is not None
        )

    async def close_if_empty(self, live: LiveTable) -> bool:
        """Remove a closing table once nobody sits at it; with a ledger, record it closed."""
        if not live.closing or live.seats_taken or live.table.hand is not None:
            return False
        if self.tables.get(live.table_id) is not live:
            return True  # another call removed it first
        del self.tables[live.table_id]
        self.metrics.game(live.options.variant.code).tables_live.dec()
        live.close_streams(None, f"table {live.table_id!r} closed")
        log.info("table closed", extra={"table_id": live.table_id, "hands": live.table.hand_number})
        if self.ledger is not None:
            await self.ledger.record(live.ledger_entry("closed", live.table.hand_number))
        return True

    def sit_down(self, request: pb.SitDownRequest) -> pb.SitDownResponse:
        self._require_accepting()
        live = self.table(request.table_id)
        post = request.post_to_play if request.HasField("post_to_play") else True
        token, state = live.sit_down(request.seat, check.player_id(request.player_id), request.buy_in, post)
        return pb.SitDownResponse(seat_token=token, seat=state)

    def seat(self, token: str | None, table_id: str, seat: int) -> tuple[LiveTable, SeatKey]:
        """The table and seat key ``token`` authorizes for ``seat`` at ``table_id``."""
        live = self.table(table_id)
        check.seat(seat, live.options.seats)
        return live, self.tokens.authorize(token, table_id, seat)

    def subscribe(self, hello: pb.Hello, token: str | None) -> tuple[LiveTable, SeatKey | None, Outbox]:
        live = self.table(hello.table_id)
        resume = hello.resume_after_seq if hello.HasField("resume_after_seq") else None
        if hello.seat == SPECTATOR:
            return live, None, live.subscribe(SPECTATOR, SPECTATOR, resume)
        live, key = self.seat(token, hello.table_id, hello.seat)
        owner = live.session(key).occupancy
        return live, key, live.subscribe(hello.seat, owner, resume)

    async def drain(self, deadline: float) -> DrainReport:
        """Shut down the tables: no new tables, seats or hands; running hands get until ``deadline``
        seconds to finish, then are voided (exact refund); every stream then ends UNAVAILABLE."""
        self.accepting = False
        for live in self.tables.values():
            live.draining = True
        running = [live for live in self.tables.values() if not live.idle.is_set()]
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
        for live in self.tables.values():
            live.close_streams(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
        report = DrainReport(finished=len(running) - voided, voided=voided)
        log.info("tables drained", extra={"finished": report.finished, "voided": report.voided})
        return report
