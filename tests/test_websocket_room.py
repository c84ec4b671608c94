"""The WebSocket room adapter (sim/rooms/websocket.py) against a real table server with its front
door open on 127.0.0.1: bots sit, play hands and stand up with every chip through it, a dropped
connection resumes by seq, and every refusal reaches the bot as the gRPC status the gRPC room would
give it (docs/rooms.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc
import pytest
from support.running import run_async
from support.websocket_client import door_serving

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import Stakes, TableOptions, variant_named
from tablestorm.services.fields import FieldError
from tablestorm.services.table import convert
from tablestorm.sim.bots import Assignment, BotConfig, Fleet
from tablestorm.sim.bots.strategies import Action
from tablestorm.sim.load.scenario import from_mapping
from tablestorm.sim.rooms.base import RoomError
from tablestorm.sim.rooms.registry import RoomChoice, room_class
from tablestorm.sim.rooms.traffic import Result, Traffic
from tablestorm.sim.rooms.websocket import WebSocketRoom

OPTIONS = TableOptions(variant_named("7stud"), Stakes.default(10), clock_seconds=5.0, max_seats=4)
BUY_IN = 2000
"""The posted buy-in of :data:`OPTIONS`: 100 big bets of 20 (TABLE-1)."""


async def _tables(stub: object, count: int) -> list[str]:
    """``count`` tables created over gRPC (the front door opens none)."""
    for k in range(count):
        request = pb.CreateTableRequest(table_id=f"w{k}", options=convert.options_to_proto(OPTIONS), seed=k)
        await stub.CreateTable(request)  # type: ignore[attr-defined]
    return [f"w{k}" for k in range(count)]


def test_the_websocket_room_is_registered_and_checks_its_options() -> None:
    assert room_class("websocket") is WebSocketRoom
    assert from_mapping({"room": {"name": "websocket"}}).room == RoomChoice("websocket", {})
    assert WebSocketRoom({"path": "/play"}).url("10.0.0.5:8080") == "ws://10.0.0.5:8080/play"
    assert WebSocketRoom().url("ws://h:1/x") == "ws://h:1/x"
    for options, field in (({"url": "x"}, "s.room.options.url"), ({"path": "ws"}, "s.room.options.path")):
        with pytest.raises(FieldError) as refused:
            from_mapping({"room": {"name": "websocket", "options": options}}, "s")
        assert refused.value.field == field


@run_async
async def test_a_fleet_plays_hands_through_the_websocket_room_with_every_chip() -> None:
    """Eight bots at two tables, each on a connection of its own: hands played with no error and
    no violation, the lobby read through the room, and every chip bought cashed out."""
    room = WebSocketRoom()
    async with door_serving() as (_, door, stub):
        endpoint = f"127.0.0.1:{door.port}"
        tables = await _tables(stub, 2)
        assert [(t.table_id, t.game, t.seats, t.seated) for t in await room.tables(endpoint, "7stud")] == [
            ("w0", "7stud", 4, 0), ("w1", "7stud", 4, 0)
        ]
        fleet = Fleet(room=room, config=BotConfig(stop_timeout=10.0))
        assignments = [
            Assignment(endpoint, table, seat, f"{table}-{seat}", "calling_station", seed=seat)
            for table in tables for seat in range(1, 5)
        ]
        assert len(await fleet.add(assignments)) == 8
        assert room.connections == 8, "a connection per seat"
        assert await fleet.until(lambda: fleet.stats.hands >= 6, 30)
        chips = await fleet.stop_all()
        summaries = {t.table_id: t.seated for t in await room.tables(endpoint)}
        await room.close()
    stats = fleet.stats
    assert stats.errors == {} and fleet.tally.violations == []
    assert stats.actions > 0 and stats.hands >= 6
    assert chips == fleet.chips_bought == fleet.chips_cashed_out == 8 * BUY_IN
    assert summaries == {"w0": 0, "w1": 0} and room.connections == 0


@run_async
async def test_dropped_connections_resume_by_seq_and_lose_nothing() -> None:
    """Flaky bots close their connection every fraction of a second; each comes back on a new one
    and resumes after its last seq: the hands go on with no gap, no error, no violation."""
    room = WebSocketRoom()
    config = BotConfig(stop_timeout=10.0, strategies={"flaky": {"interval": (0.2, 0.4)}})
    async with door_serving() as (_, door, stub):
        endpoint = f"127.0.0.1:{door.port}"
        (table,) = await _tables(stub, 1)
        fleet = Fleet(room=room, config=config)
        await fleet.add([Assignment(endpoint, table, s, f"p{s}", "flaky", seed=s) for s in range(1, 5)])
        assert await fleet.until(lambda: fleet.tally.resumes >= 8 and fleet.stats.hands >= 4, 30)
        chips = await fleet.stop_all()
    assert fleet.stats.errors == {} and fleet.tally.violations == []
    assert fleet.tally.resume_gaps == 0
    assert chips == fleet.chips_bought == fleet.chips_cashed_out


@run_async
async def test_refusals_reach_the_bot_as_the_grpc_room_gives_them() -> None:
    room = WebSocketRoom()
    async with door_serving() as (_, door, stub):
        endpoint = f"127.0.0.1:{door.port}"
        (table,) = await _tables(stub, 1)

        async def refused(call: object) -> grpc.StatusCode:
            with pytest.raises(RoomError) as caught:
                await call  # type: ignore[misc]
            return caught.value.code

        first, second = room.line(endpoint, table, 1, "p1"), room.line(endpoint, table, 1, "p2")
        seated = await first.sit(None, 5.0)
        assert first.token == seated.token != "" and seated.stack == BUY_IN
        assert await refused(second.sit(None, 5.0)) is grpc.StatusCode.ALREADY_EXISTS and second.token == ""
        assert await refused(room.line(endpoint, "nope", 1, "p3").sit(None, 5.0)) is grpc.StatusCode.NOT_FOUND
        assert await refused(first.rebuy(5.0)) is grpc.StatusCode.FAILED_PRECONDITION  # not broke
        assert await refused(room.open_table(endpoint, "x", OPTIONS)) is grpc.StatusCode.UNIMPLEMENTED
        assert await first.closing(5.0) is False

        # A stream: its welcome first; an action out of turn comes back FAILED_PRECONDITION.
        got = Received()
        stream = await first.play(got.deliver, None)
        await got.until(lambda got: any(t.welcome is not None for t in got))
        assert got[0].welcome is not None and got[0].welcome.seat == 1 and got[0].welcome.stack == BUY_IN
        sending = stream.act("a1", Action("check"), 0)
        assert sending is not None
        await sending
        await got.until(lambda got: any(t.results for t in got))
        (result,) = next(t.results for t in got if t.results)
        assert result == Result("a1", grpc.StatusCode.FAILED_PRECONDITION.value[0], result.message)

        # Another seat's token, and a token that never was: the stream ends with the status.
        thief = room.line(endpoint, table, 2, "p2", token=seated.token)
        assert await (await thief.play(got.deliver, None)).ended is grpc.StatusCode.PERMISSION_DENIED
        forger = room.line(endpoint, table, 1, "p1", token="x" * 45)
        assert await (await forger.play(got.deliver, None)).ended is grpc.StatusCode.UNAUTHENTICATED

        # Standing up ends the stream OK; the seat is then no one's.
        assert await first.stand_up(5.0) == BUY_IN
        assert await stream.ended is grpc.StatusCode.OK
        assert await refused(first.stand_up(5.0)) is grpc.StatusCode.UNAUTHENTICATED
        for line in (first, second, thief, forger):
            line.release()
        await room.close()

    # Nobody there: a call is UNAVAILABLE, a stream an OSError (the bot retries it as UNAVAILABLE).
    gone = room.line(endpoint, table, 1, "p1", token=seated.token)
    assert await refused(gone.sit_out(5.0)) is grpc.StatusCode.UNAVAILABLE
    with pytest.raises(OSError):
        await gone.play(got.deliver, None)
    gone.release()
    await room.close()


class Received(list[Traffic]):
    """What a stream delivered, in order; :meth:`until` waits for more."""

    def __init__(self) -> None:
        super().__init__()
        self._more = asyncio.Event()

    def deliver(self, read: Traffic) -> None:
        self.append(read)
        self._more.set()

    async def until(self, done: Callable[[Received], bool], timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not done(self):
                self._more.clear()
                await self._more.wait()
