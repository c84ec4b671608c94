"""A table server for the bots' Play transport (``sim/bots/client/play.py``): one Seven Card Stud
table with its players seated, and readers of what a ``PlayStream`` delivers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import grpc

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api.table_service_pb2_grpc import TableServiceStub
from tablestorm.services.table.server import ServerConfig, TableServer
from tablestorm.sim.bots.client.play import Deliver, PlayConnection, PlayStream
from tablestorm.sim.bots.client.transport import token_metadata

if TYPE_CHECKING:
    from tablestorm.services.api.table_service_pb2_grpc import TableServiceAsyncStub

WAIT = 10.0


@asynccontextmanager
async def table(seats: int = 2, **config: Any) -> AsyncIterator[tuple[TableServer, str, list[str]]]:
    """A server with one Seven Card Stud table "t" (a 0.2 s clock) and ``seats`` players seated;
    yields the server, its address and the seat tokens."""
    server = TableServer(ServerConfig(port=0, drain_seconds=0, **config))
    await server.start()
    endpoint = f"127.0.0.1:{server.port}"
    try:
        async with grpc.aio.insecure_channel(endpoint) as channel:
            stub: TableServiceAsyncStub = TableServiceStub(channel)
            options = pb.TableOptions(game="7stud", stakes=pb.Stakes(small_bet=10), clock_seconds=0.2)
            await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=options, seed=1))
            tokens = [
                (await stub.SitDown(pb.SitDownRequest(table_id="t", seat=seat, player_id=f"p{seat}"))).seat_token
                for seat in range(1, seats + 1)
            ]
        yield server, endpoint, tokens
    finally:
        await server.stop(drain_seconds=0)


class Reader:
    """A deliver callback recording messages; ``until(test)`` waits for a message that passes."""

    def __init__(self) -> None:
        self.messages: list[pb.ServerMessage] = []
        self._waiting: list[tuple[Callable[[pb.ServerMessage], bool], asyncio.Future[pb.ServerMessage]]] = []

    def __call__(self, message: pb.ServerMessage) -> None:
        self.messages.append(message)
        for test, future in list(self._waiting):
            if not future.done() and test(message):
                future.set_result(message)

    async def until(self, test: Callable[[pb.ServerMessage], bool]) -> pb.ServerMessage:
        for message in self.messages:
            if test(message):
                return message
        future: asyncio.Future[pb.ServerMessage] = asyncio.get_running_loop().create_future()
        self._waiting.append((test, future))
        return await asyncio.wait_for(future, WAIT)



def welcomed(message: pb.ServerMessage) -> bool:
    return message.HasField("welcome")


def play(connection: PlayConnection, seat: int, token: str, reader: Deliver, **hello: Any) -> PlayStream:
    stream = connection.open(token_metadata(token), reader)
    stream.write(pb.ClientMessage(hello=pb.Hello(table_id="t", seat=seat, **hello)))
    return stream


def act(stream: PlayStream, action_id: str, **request: Any) -> None:
    stream.write(pb.ClientMessage(act=pb.ActRequest(action_id=action_id, **request)))

