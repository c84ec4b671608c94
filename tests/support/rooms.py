"""A room adapter of the tests' own, chosen as ``module:Class`` (``support.rooms:TappedRoom``).

It is the gRPC room with a tap on every seat's line: what the bots received and sent through it,
counted, so that a test can tell that a fleet played through the adapter it was given and nothing
else. It is written as docs/rooms.md says an adapter is: one class, its options checked by its
constructor, everything the bots do on a line it makes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any

from tablestorm.services.engine import TableOptions
from tablestorm.sim.bots.strategies import Action
from tablestorm.sim.rooms.base import Deliver, PlayStream, Seated, SeatLine, TableInfo, known_options
from tablestorm.sim.rooms.grpc import GrpcRoom
from tablestorm.sim.rooms.traffic import Traffic


class TappedRoom:
    """The gRPC room (option ``streams_per_channel``), counting lines, messages and actions."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self._room = GrpcRoom(known_options(options, ("streams_per_channel",)))
        self.lines = self.messages = self.actions = 0

    def line(self, endpoint: str, table_id: str, seat: int, player_id: str, token: str = "") -> SeatLine:
        self.lines += 1
        return _TappedLine(self, self._room.line(endpoint, table_id, seat, player_id, token))

    async def tables(self, endpoint: str, game: str = "") -> list[TableInfo]:
        return await self._room.tables(endpoint, game)

    async def open_table(self, endpoint: str, table_id: str, options: TableOptions, seed: int | None = None) -> str:
        return await self._room.open_table(endpoint, table_id, options, seed)

    @property
    def connections(self) -> int:
        return self._room.connections

    async def close(self) -> None:
        await self._room.close()


class _TappedStream:
    def __init__(self, room: TappedRoom, stream: PlayStream) -> None:
        self._room = room
        self._stream = stream
        self.ended = stream.ended

    def act(self, action_id: str, action: Action, prompt_seq: int) -> Awaitable[None] | None:
        self._room.actions += 1
        return self._stream.act(action_id, action, prompt_seq)

    def cancel(self) -> bool:
        return self._stream.cancel()


class _TappedLine:
    def __init__(self, room: TappedRoom, line: SeatLine) -> None:
        self._room = room
        self._line = line

    @property
    def token(self) -> str:
        return self._line.token

    @token.setter
    def token(self, value: str) -> None:
        self._line.token = value

    @property
    def endpoint(self) -> str:
        return self._line.endpoint

    async def sit(self, buy_in: int | None, timeout: float) -> Seated:
        return await self._line.sit(buy_in, timeout)

    async def stand_up(self, timeout: float) -> int:
        return await self._line.stand_up(timeout)

    async def sit_out(self, timeout: float) -> None:
        await self._line.sit_out(timeout)

    async def sit_in(self, timeout: float) -> None:
        await self._line.sit_in(timeout)

    async def rebuy(self, timeout: float) -> int:
        return await self._line.rebuy(timeout)

    async def closing(self, timeout: float) -> bool:
        return await self._line.closing(timeout)

    async def play(self, deliver: Deliver, resume_after: int | None) -> PlayStream:
        room = self._room

        def tap(message: Traffic) -> None:
            room.messages += 1
            deliver(message)

        return _TappedStream(room, await self._line.play(tap, resume_after))

    def move(self, endpoint: str) -> None:
        self._line.move(endpoint)

    def release(self) -> None:
        self._line.release()
