"""The ``tablestorm.v1`` room: table servers spoken to over gRPC (``tablestorm serve``), the adapter
registered as ``grpc`` in the ``tablestorm.rooms`` entry point group.

Unary calls go through the stub generated from the proto; each seat's stream is a Play call on the
bots' own HTTP/2 client (:mod:`tablestorm.sim.bots.client.play`), whose connections the seats to
one server share (:class:`~tablestorm.sim.bots.client.transport.ChannelPool`), and whose messages
are read as neutral traffic by one :class:`~.grpc_traffic.Reader` per room: the seats of a table
receive its public events as equal bytes, so each event is read once for all of them.

Options (a scenario's ``room:`` section; ``tablestorm load`` fills in ``tls_ca`` from ``--tls-ca``):

* ``streams_per_channel``: Play streams per connection (default 500; a server caps them at 1,000);
* ``tls_ca``: the CA certificates (PEM text) the servers' certificates must be signed by: every
  connection is TLS. Absent: cleartext.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Iterator, Mapping
from typing import Any, Final

import grpc

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import TableOptions
from tablestorm.services.fields import FieldError, number
from tablestorm.services.table.convert import options_to_proto
from tablestorm.sim.bots.client.play import PlayStream
from tablestorm.sim.bots.client.protocol import KIND_NUMBERS
from tablestorm.sim.bots.client.transport import ChannelPool, TableClient, Tls, token_metadata
from tablestorm.sim.bots.strategies import Action
from tablestorm.sim.rooms.base import Deliver, RoomError, Seated, TableInfo, known_options
from tablestorm.sim.rooms.grpc_traffic import Reader
from tablestorm.sim.rooms.traffic import Traffic

__all__ = ["GrpcLine", "GrpcRoom", "GrpcStream", "act_message"]

OPTIONS: Final = ("streams_per_channel", "tls_ca")
LOBBY_TIMEOUT: Final = 10.0
"""Seconds a lobby call (ListTables, CreateTable) may take."""


def act_message(action_id: str, action: Action, prompt_seq: int) -> pb.ClientMessage:
    """The Play stream's message for an action of the bot's."""
    request = pb.ActRequest(
        action_id=action_id,
        kind=KIND_NUMBERS[action.kind],
        amount=action.amount,
        discard=action.discard,
        turn_seq=prompt_seq,
    )
    return pb.ClientMessage(act=request)


@contextlib.contextmanager
def _refusals() -> Iterator[None]:
    """A failed call as the room interface reports it: :class:`RoomError` with its status."""
    try:
        yield
    except grpc.aio.AioRpcError as exc:
        raise RoomError(exc.code(), exc.details() or "") from None


class GrpcStream:
    """A seat's Play stream (see :class:`~tablestorm.sim.rooms.base.PlayStream`)."""

    __slots__ = ("_stream", "ended")

    def __init__(self, stream: PlayStream[Traffic]) -> None:
        self._stream = stream
        self.ended = stream.ended

    def act(self, action_id: str, action: Action, prompt_seq: int) -> Awaitable[None] | None:
        self._stream.write(act_message(action_id, action, prompt_seq))
        return None

    def cancel(self) -> bool:
        return self._stream.cancel()


class GrpcLine:
    """One seat's calls and streams (see :class:`~tablestorm.sim.rooms.base.SeatLine`)."""

    __slots__ = ("_client", "_pool", "player_id", "seat", "table_id", "token")

    def __init__(
        self, pool: ChannelPool[Traffic], endpoint: str, table_id: str, seat: int, player_id: str, token: str
    ) -> None:
        self._pool = pool
        self._client: TableClient[Traffic] = pool.acquire(endpoint)
        self.table_id = table_id
        self.seat = seat
        self.player_id = player_id
        self.token = token

    @property
    def endpoint(self) -> str:
        return self._client.endpoint

    def _seat(self) -> pb.SeatRequest:
        return pb.SeatRequest(table_id=self.table_id, seat=self.seat)

    async def sit(self, buy_in: int | None, timeout: float) -> Seated:
        request = pb.SitDownRequest(
            table_id=self.table_id, seat=self.seat, player_id=self.player_id, buy_in=buy_in or 0
        )
        with _refusals():
            reply = await self._client.stub.SitDown(request, timeout=timeout)
        self.token = reply.seat_token
        return Seated(reply.seat_token, reply.seat.stack)

    async def stand_up(self, timeout: float) -> int:
        with _refusals():
            reply = await self._client.stub.StandUp(self._seat(), timeout=timeout, metadata=token_metadata(self.token))
        return reply.chips

    async def sit_out(self, timeout: float) -> None:
        with _refusals():
            await self._client.stub.SitOut(self._seat(), timeout=timeout, metadata=token_metadata(self.token))

    async def sit_in(self, timeout: float) -> None:
        request = pb.SitInRequest(table_id=self.table_id, seat=self.seat)
        with _refusals():
            await self._client.stub.SitIn(request, timeout=timeout, metadata=token_metadata(self.token))

    async def rebuy(self, timeout: float) -> int:
        with _refusals():
            state = await self._client.stub.Rebuy(self._seat(), timeout=timeout, metadata=token_metadata(self.token))
        return state.stack

    async def closing(self, timeout: float) -> bool:
        with _refusals():
            state = await self._client.stub.GetTable(pb.GetTableRequest(table_id=self.table_id), timeout=timeout)
        return state.closing

    async def play(self, deliver: Deliver, resume_after: int | None) -> GrpcStream:
        stream = await self._client.play(self.token, deliver)
        hello = pb.Hello(table_id=self.table_id, seat=self.seat)
        if resume_after is not None:
            hello.resume_after_seq = resume_after
        stream.write(pb.ClientMessage(hello=hello))
        return GrpcStream(stream)

    def move(self, endpoint: str) -> None:
        if endpoint != self._client.endpoint:
            self._pool.release(self._client)
            self._client = self._pool.acquire(endpoint)

    def release(self) -> None:
        self._pool.release(self._client)


class GrpcRoom:
    """Table servers that speak ``tablestorm.v1`` (see the module docstring for the options)."""

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        given = known_options(options or {}, OPTIONS)
        streams = number(given.get("streams_per_channel", 500), "streams_per_channel", integer=True)
        if streams < 1:
            raise FieldError("streams_per_channel", f"must be at least 1, got {streams}")
        ca = given.get("tls_ca")
        if ca is not None and not isinstance(ca, str | bytes):
            raise FieldError("tls_ca", f"expected PEM text, got {type(ca).__name__}")
        tls = None if ca is None else Tls(ca.encode("ascii") if isinstance(ca, str) else ca)
        self.pool: ChannelPool[Traffic] = ChannelPool(int(streams), tls, Reader())

    def line(self, endpoint: str, table_id: str, seat: int, player_id: str, token: str = "") -> GrpcLine:
        return GrpcLine(self.pool, endpoint, table_id, seat, player_id, token)

    async def tables(self, endpoint: str, game: str = "") -> list[TableInfo]:
        client = self.pool.acquire(endpoint)
        found: list[TableInfo] = []
        try:
            page = ""
            while True:
                request = pb.ListTablesRequest(game=game, page_token=page)
                with _refusals():
                    reply = await client.stub.ListTables(request, timeout=LOBBY_TIMEOUT)
                found += (TableInfo(t.table_id, t.game, t.max_seats, t.seats_taken) for t in reply.tables)
                page = reply.next_page_token
                if not page:
                    return found
        finally:
            self.pool.release(client)

    async def open_table(self, endpoint: str, table_id: str, options: TableOptions, seed: int | None = None) -> str:
        client = self.pool.acquire(endpoint)
        request = pb.CreateTableRequest(table_id=table_id, options=options_to_proto(options))
        if seed is not None:
            request.seed = seed
        try:
            with _refusals():
                state = await client.stub.CreateTable(request, timeout=LOBBY_TIMEOUT)
        finally:
            self.pool.release(client)
        return state.table_id

    @property
    def connections(self) -> int:
        return self.pool.channels

    async def close(self) -> None:
        await self.pool.close()
