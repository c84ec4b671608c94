"""The per-connection and per-table limits of the table service, each against a real server on
127.0.0.1: what one client (or one connection) can take of a server, and that going over a limit
is refused with its status and changes nothing.

* Streams per connection (``grpc.max_concurrent_streams``): the bots' own HTTP/2 client
  (``sim/bots/client/play.py``) does not queue streams over the server's limit, so the server's
  refusal shows: the stream over it is reset (REFUSED_STREAM: UNAVAILABLE), the others play on.
* Request size (``grpc.max_receive_message_length``, 64 KiB): an oversize unary call and an
  oversize message on a Play stream are RESOURCE_EXHAUSTED, and the table is as it was.
* The Hello timeout: a stream that says nothing is closed DEADLINE_EXCEEDED and gives its slot back.
* Spectators per table: the one over the limit is RESOURCE_EXHAUSTED; players still join.
"""

from __future__ import annotations

import asyncio

import grpc
from support.calls import code_of
from support.play_transport import WAIT, Reader, play, table, welcomed
from support.running import run_async
from support.table_server import exported, serving, stud_options, token
from support.table_streams import Stream, seat_players

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.table.server import TableServer
from tablestorm.sim.bots.client.play import PlayConnection

OVERSIZE = "x" * (100 * 1024)
"""More than the 64 KiB a request may have."""


async def streams_live(server: TableServer, stub: rpc.TableServiceStub, expected: int) -> None:
    """Wait (by answered calls, not sleeps) until the server counts ``expected`` Play streams."""
    for _ in range(10_000):
        if exported(server, "tablestorm_streams_live") == expected:
            return
        await stub.ListTables(pb.ListTablesRequest())
    raise AssertionError(f"the server never had {expected} streams live")


@run_async
async def test_a_stream_over_the_connections_limit_is_refused_and_the_others_play_on() -> None:
    async with table(seats=2, max_concurrent_streams=2) as (server, endpoint, tokens):
        connection = await PlayConnection.connect(endpoint)
        readers = [Reader(), Reader()]
        first = play(connection, 1, tokens[0], readers[0])
        await readers[0].until(welcomed)  # the server's SETTINGS are in and acknowledged
        second = play(connection, 2, tokens[1], readers[1])
        await readers[1].until(welcomed)
        over = play(connection, 0, "", Reader())  # a spectator: no token needed, but no slot either
        assert await asyncio.wait_for(over.ended, WAIT) is grpc.StatusCode.UNAVAILABLE
        assert "reset by the server (7)" in over.details  # REFUSED_STREAM
        assert not first.ended.done() and not second.ended.done()
        assert exported(server, "tablestorm_streams_live") == 2
        first.write(pb.ClientMessage(ping=pb.Ping(nonce=7)))  # the streams within the limit are served
        await readers[0].until(lambda m: any(p.nonce == 7 for p in m.pongs))
        connection.close()


@run_async
async def test_an_oversize_request_is_resource_exhausted_and_changes_nothing() -> None:
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(clock_seconds=600), seed=4))
        tokens = await seat_players(stub, "t", 2)
        before = await stub.GetTable(pb.GetTableRequest(table_id="t"))
        assert before.hand_running
        code, _ = await code_of(stub.SitDown(pb.SitDownRequest(table_id="t", seat=3, player_id=OVERSIZE)))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        act = pb.ActRequest(table_id="t", seat=1, action_id="a", kind=pb.ACTION_KIND_FOLD, discard=[0] * 70_000)
        code, _ = await code_of(stub.Act(act, metadata=token(tokens[1])))
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        stream = Stream(stub, "t", 1, tokens[1])
        await stream.until(lambda: stream.welcome is not None)
        await stream.call.write(pb.ClientMessage(act=pb.ActRequest(action_id=OVERSIZE, kind=pb.ACTION_KIND_FOLD)))
        await stream.until_end()
        assert stream.error is not None and stream.error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        after = await stub.GetTable(pb.GetTableRequest(table_id="t"))
        assert after == before  # no seat, no action, no event: the same table
        assert (await stub.ListTables(pb.ListTablesRequest())).tables[0].seats_taken == 2


@run_async
async def test_a_stream_that_never_says_hello_is_closed_and_frees_its_slot() -> None:
    limits = {"seats": 1, "max_concurrent_streams": 1, "hello_timeout": 0.3}
    async with table(**limits) as (server, endpoint, tokens), grpc.aio.insecure_channel(endpoint) as channel:
        stub = rpc.TableServiceStub(channel)
        silent = stub.Play(metadata=token(tokens[0]))
        code, details = await code_of(silent.read())
        assert code == grpc.StatusCode.DEADLINE_EXCEEDED and details == "hello: none within 0.3 s"
        await streams_live(server, stub, 0)
        stream = Stream(stub, "t", 1, tokens[0])  # the connection's one slot is free again
        await stream.until(lambda: stream.welcome is not None)
        await stream.close()


@run_async
async def test_spectators_over_the_tables_limit_are_refused_and_players_still_join() -> None:
    async with serving(max_spectators=2) as (server, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options()))
        watchers = [Stream(stub, "t"), Stream(stub, "t")]
        for watcher in watchers:
            await watcher.until(lambda watcher=watcher: watcher.welcome is not None)
        third = Stream(stub, "t")
        await third.until_end()
        assert third.error is not None and third.error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "maximum of spectators" in (third.error.details() or "")
        tokens = await seat_players(stub, "t", 1)
        player = Stream(stub, "t", 1, tokens[1])
        await player.until(lambda: player.welcome is not None)
        await watchers[0].close()
        await streams_live(server, stub, 2)
        again = Stream(stub, "t")
        await again.until(lambda: again.welcome is not None)
        for stream in (watchers[1], player, again):
            await stream.close()
