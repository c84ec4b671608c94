"""How the table service ends a Play stream: with its status, even while the stream's first write is
still going out, and counted by that status when the client has left at once.

The fuzzers found both; each test is named after what was found and fails on the code before its
fix (a real server on 127.0.0.1; no sleeps: the test drives the server with calls until the state
it waits for shows in the server's metrics).
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from prometheus_client import generate_latest
from support.running import run_async
from support.table_invariants import call_endings, errors
from support.table_server import exported, narrow_channel, serving, stud_options, token
from support.table_streams import open_streams, play_hand, seat_players

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.table.server import TableServer


@run_async
async def test_a_stream_refused_while_its_first_write_is_in_flight_still_ends_with_its_status() -> None:
    """Found by the Play fuzzer: Hello, then a message without a kind, while the Welcome (the
    stream's first write) was still going out. The error close cancelled that write, which still
    held the call's initial metadata, so grpc refused the status (TOO_MANY_OPERATIONS, logged at
    ERROR) and the client waited forever. A client with a 1 KiB window makes the first write
    block every time."""
    with errors() as logged:
        async with serving() as (server, stub):
            await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=1))
            tokens = await seat_players(stub, "t", 7)
            streams = open_streams(stub, "t", tokens)
            for hand in (1, 2):  # the log now holds two hands: a Welcome replaying them is far over 1 KiB
                await play_hand(streams, hand)
            for stream in streams.values():
                await stream.close()
            slow = narrow_channel(server.port)
            call = rpc.TableServiceStub(slow).Play(metadata=token(tokens[1]))
            await call.write(pb.ClientMessage(hello=pb.Hello(table_id="t", seat=1, resume_after_seq=0)))
            await call.write(pb.ClientMessage())  # no kind: the stream ends INVALID_ARGUMENT
            calls = 0
            while exported(server, "tablestorm_streams_live") > 0:  # the server is done with the stream
                await stub.GetTable(pb.GetTableRequest(table_id="t"))
                calls += 1
                assert calls < 10_000, "the stream never ended"

            async def read_to_the_end() -> None:
                while await call.read() is not grpc.aio.EOF:
                    pass

            with pytest.raises(grpc.aio.AioRpcError) as info:
                await asyncio.wait_for(read_to_the_end(), 10)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert info.value.details() == "a message must set a kind"
            await slow.close()
    assert not logged.lines(), logged.lines()


def play_endings(server: TableServer) -> dict[str, float]:
    """How the server ended its Play calls so far, by status name (its own count)."""
    endings = call_endings(generate_latest(server.metrics.registry).decode())
    return {code: count for (method, code), count in endings.items() if method == "Play"}


@run_async
async def test_a_client_that_leaves_right_after_its_hello_is_counted_cancelled_not_unknown() -> None:
    """Found by the fuzzer of a ``tablestorm serve`` process, after the fix above: a client that
    cancels its stream right after the Hello made sending the initial metadata fail inside grpc,
    and the call was counted as an UNKNOWN status, a status no RPC of the proto has. Most of the
    300 leave before the server reads their Hello (OK: the stream ended before it), some dozen each
    run left while it sent (CANCELLED now)."""
    with errors() as logged:
        async with serving() as (server, stub):
            await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options()))
            tokens = await seat_players(stub, "t", 2)
            hello = pb.ClientMessage(hello=pb.Hello(table_id="t", seat=2))
            for _ in range(300):
                call = stub.Play(metadata=token(tokens[2]))
                await call.write(hello)
                call.cancel()
            calls = 0
            while sum(play_endings(server).values()) < 300:  # until the server has ended every one
                await stub.GetTable(pb.GetTableRequest(table_id="t"))
                calls += 1
                assert calls < 10_000, play_endings(server)
            assert set(play_endings(server)) <= {"CANCELLED", "OK"}, play_endings(server)
    assert not logged.lines(), logged.lines()
