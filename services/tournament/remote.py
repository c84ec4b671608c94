"""A table server as the live driver sees it: the director's calls on its tournament tables.

:class:`RemoteTables` is the small interface the driver (:mod:`.live`) needs of a table server;
:class:`GrpcTableServer` implements it over the ``TableService`` stub (the wire's
``x-director-token`` metadata, the proto's messages converted at this edge). Failures come in two
kinds the driver treats differently: :class:`TableServerDown` (no answer: the server may be dead,
its tables are rebuilt elsewhere) and :class:`TableRefused` (an answer with an error status: the
director and the table disagree about one table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypeVar

import grpc
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api.table_service_pb2_grpc import TableServiceStub
from tablestorm.services.engine import Stakes, TableOptions
from tablestorm.services.engine.tournament_table import HandResult
from tablestorm.services.table import convert as table_convert
from tablestorm.services.table.auth import DIRECTOR_METADATA_KEY

if TYPE_CHECKING:  # the typed stub of a grpc.aio channel lives in the generated .pyi only
    from tablestorm.services.api.table_service_pb2_grpc import TableServiceAsyncStub
from tablestorm.services.rpc.tls import ClientTls, channel
from tablestorm.services.table.service import SERVICE_NAME

CALL_TIMEOUT = 10.0
"""Seconds a director call other than DealHand may take (DealHand lasts as long as its hand)."""
RECONNECT_BACKOFF_MS = 1000
"""The longest the channel waits between two attempts to reach a table server it lost. gRPC's own
default grows to two minutes, and while it waits every call (the health checks included) fails at
once: a table server back after an outage stayed down to the tournament server for minutes."""
Q = TypeVar("Q", bound=Message)
P = TypeVar("P", bound=Message)
HealthCheck: TypeAlias = (
    "grpc.aio.UnaryUnaryMultiCallable[health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse]"
)
MAX_LIST_PAGE = 1000
"""ListTables' largest page."""
_DOWN = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED})


class TableServerDown(Exception):
    """The table server did not answer: it is unreachable, shutting down, or too slow."""

    def __init__(self, endpoint: str, detail: str) -> None:
        super().__init__(f"table server {endpoint}: {detail}")
        self.endpoint = endpoint


class TableRefused(Exception):
    """The table server answered a call with an error status."""

    def __init__(self, endpoint: str, code: grpc.StatusCode, detail: str) -> None:
        super().__init__(f"table server {endpoint}: {code.name}: {detail}")
        self.endpoint = endpoint
        self.code = code


@dataclass(frozen=True, slots=True)
class SeatTicket:
    """What a player needs to play the seat it was given (SeatAssigned carries it)."""

    seat_token: str
    resume_after_seq: int


@dataclass(frozen=True, slots=True)
class TableCopy:
    """A tournament table as its server holds it: what a restarted tournament server checks
    against its director (:mod:`.recovery`)."""

    wire_id: str
    hand_number: int
    """The last hand it started (0: none)."""
    hand_running: bool
    closing: bool
    seats: tuple[tuple[int, str, int], ...]
    """(seat, player id, stack) of every occupied seat, in seat order; the stacks of a running
    hand leave out what is in the pot."""


class RemoteTables(Protocol):
    """The director's calls on one table server; every call may raise :class:`TableServerDown`
    or :class:`TableRefused`. ``token`` is the tournament's director token."""

    endpoint: str

    async def open_table(
        self, token: str, table_id: str, options: TableOptions, *, hand_number: int, seed: int | None
    ) -> None: ...

    async def seat_player(self, token: str, table_id: str, seat: int, player_id: str, stack: int) -> SeatTicket: ...

    async def remove_player(self, token: str, table_id: str, seat: int) -> int: ...

    async def add_chips(self, token: str, table_id: str, seat: int, chips: int) -> None: ...

    async def set_away(self, token: str, table_id: str, seat: int, away: bool) -> None: ...

    async def deal_hand(self, token: str, table_id: str, hand_number: int, stakes: Stakes) -> HandResult: ...

    async def close_table(self, table_id: str) -> bool:
        """Close the table; whether it is gone already (False: it goes when its running hand ends)."""
        ...

    async def tables(self, prefix: str) -> list[TableCopy]:
        """Every table whose id starts with ``prefix`` (a tournament's: ``<tournament id>.t``)."""
        ...

    async def healthy(self, timeout: float) -> bool:
        """Whether the server's health check says SERVING within ``timeout`` seconds."""
        ...

    async def close(self) -> None:
        """Close the connection."""
        ...


class GrpcTableServer:
    """:class:`RemoteTables` over the TableService stub on one channel to ``endpoint`` (``host:port``):
    plaintext, or TLS with ``tls`` (mutual TLS when it holds a client certificate)."""

    def __init__(self, endpoint: str, tls: ClientTls | None = None) -> None:
        self.endpoint = endpoint
        self._channel = channel(
            endpoint, tls, options=[("grpc.initial_reconnect_backoff_ms", RECONNECT_BACKOFF_MS),
                                    ("grpc.max_reconnect_backoff_ms", RECONNECT_BACKOFF_MS)]
        )
        self._stub: TableServiceAsyncStub = TableServiceStub(self._channel)
        self._health: HealthCheck = self._channel.unary_unary(  # the health stub is not typed for grpc.aio
            "/grpc.health.v1.Health/Check",
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )

    async def _call(
        self, method: grpc.aio.UnaryUnaryMultiCallable[Q, P], request: Q, token: str | None, timeout: float | None
    ) -> P:
        """Make one call; a failure becomes :class:`TableServerDown` or :class:`TableRefused`."""
        metadata = ((DIRECTOR_METADATA_KEY, token),) if token is not None else None
        try:
            return await method(request, metadata=metadata, timeout=timeout)
        except grpc.aio.AioRpcError as exc:
            code, detail = exc.code(), exc.details() or ""
            if code in _DOWN:
                raise TableServerDown(self.endpoint, f"{code.name}: {detail}") from None
            raise TableRefused(self.endpoint, code, detail) from None

    async def open_table(
        self, token: str, table_id: str, options: TableOptions, *, hand_number: int, seed: int | None
    ) -> None:
        request = pb.CreateTableRequest(
            table_id=table_id,
            options=table_convert.options_to_proto(options),
            kind=pb.TABLE_KIND_TOURNAMENT,
            director_token=token,
            hand_number=hand_number,
        )
        if seed is not None:
            request.seed = seed
        await self._call(self._stub.CreateTable, request, None, CALL_TIMEOUT)

    async def seat_player(self, token: str, table_id: str, seat: int, player_id: str, stack: int) -> SeatTicket:
        request = pb.SeatPlayerRequest(table_id=table_id, seat=seat, player_id=player_id, stack=stack)
        reply = await self._call(self._stub.SeatPlayer, request, token, CALL_TIMEOUT)
        return SeatTicket(reply.seat_token, reply.resume_after_seq)

    async def remove_player(self, token: str, table_id: str, seat: int) -> int:
        request = pb.SeatRequest(table_id=table_id, seat=seat)
        chips: int = (await self._call(self._stub.RemovePlayer, request, token, CALL_TIMEOUT)).chips
        return chips

    async def add_chips(self, token: str, table_id: str, seat: int, chips: int) -> None:
        request = pb.AddChipsRequest(table_id=table_id, seat=seat, chips=chips)
        await self._call(self._stub.AddChips, request, token, CALL_TIMEOUT)

    async def set_away(self, token: str, table_id: str, seat: int, away: bool) -> None:
        request = pb.SetAwayRequest(table_id=table_id, seat=seat, away=away)
        await self._call(self._stub.SetAway, request, token, CALL_TIMEOUT)

    async def deal_hand(self, token: str, table_id: str, hand_number: int, stakes: Stakes) -> HandResult:
        request = pb.DealHandRequest(
            table_id=table_id, hand_number=hand_number, stakes=table_convert.stakes_to_proto(stakes)
        )
        reply = await self._call(self._stub.DealHand, request, token, None)  # as long as the hand lasts
        return table_convert.hand_result_from_proto(reply)

    async def close_table(self, table_id: str) -> bool:
        request = pb.CloseTableRequest(table_id=table_id)
        return (await self._call(self._stub.CloseTable, request, None, CALL_TIMEOUT)).closed

    async def tables(self, prefix: str) -> list[TableCopy]:
        found, after = [], prefix  # ids ascend: the page after the bare prefix starts with its tables
        while True:
            request = pb.ListTablesRequest(page_size=MAX_LIST_PAGE, page_token=after)
            page = await self._call(self._stub.ListTables, request, None, CALL_TIMEOUT)
            ours = [t.table_id for t in page.tables if t.table_id.startswith(prefix)]
            for wire_id in ours:
                try:
                    request_one = pb.GetTableRequest(table_id=wire_id)
                    state = await self._call(self._stub.GetTable, request_one, None, CALL_TIMEOUT)
                except TableRefused as exc:
                    if exc.code != grpc.StatusCode.NOT_FOUND:  # closed since it was listed: not there
                        raise
                    continue
                seats = tuple((s.seat, s.player_id, s.stack) for s in state.seats if s.player_id)
                found.append(TableCopy(wire_id, state.hand_number, state.hand_running, state.closing, seats))
            if len(ours) < len(page.tables) or not page.next_page_token:
                return found
            after = page.next_page_token

    async def healthy(self, timeout: float) -> bool:
        request = health_pb2.HealthCheckRequest(service=SERVICE_NAME)
        try:
            reply = await self._health(request, timeout=timeout)
        except grpc.aio.AioRpcError:
            return False
        return reply.status == health_pb2.HealthCheckResponse.SERVING

    async def close(self) -> None:
        await self._channel.close()
