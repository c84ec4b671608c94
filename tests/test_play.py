"""The bots' Play transport (``sim/bots/client/play.py``) against a real table server on 127.0.0.1.

The gRPC server is grpc.aio's own (the one ``tablestorm serve`` runs), so every frame the transport
reads or writes is checked by a real HTTP/2 and gRPC implementation: statuses from trailers, resets
and GOAWAY, stream slots freed after each end, flow control both ways, messages split over frames.
Each test waits for what it expects on events with timeouts, never with a sleep.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import grpc
import pytest
from support.play_transport import WAIT, Reader, act, play, table, welcomed
from support.running import run_async

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api.table_service_pb2_grpc import TableServiceStub
from tablestorm.sim.bots.client.play import PlayConnection, PlayStream
from tablestorm.sim.bots.client.transport import token_metadata

if TYPE_CHECKING:
    from tablestorm.services.api.table_service_pb2_grpc import TableServiceAsyncStub


class Player(Reader):
    """A reader that answers each of its turns with the first legal option (so that hands go on)."""

    stream: PlayStream | None = None

    def __call__(self, message: pb.ServerMessage) -> None:
        super().__call__(message)
        if message.HasField("your_turn") and self.stream is not None:
            turn = message.your_turn
            option = turn.legal[0]
            act(self.stream, str(len(self.messages)), kind=option.kind, amount=option.min, turn_seq=turn.seq)


def seat_players(connection: PlayConnection, tokens: list[str], first_seat: int = 1) -> list[Player]:
    players = []
    for seat, token in enumerate(tokens, start=first_seat):
        player = Player()
        player.stream = play(connection, seat, token, player)
        players.append(player)
    return players


def hands_ended(reader: Reader) -> int:
    return sum(e.HasField("hand_ended") for m in reader.messages for e in m.events)



@run_async
async def test_streams_are_welcomed_and_play_and_share_what_they_read_alike() -> None:
    """Two seats of one table on one connection: both welcomed, turns answered, and a public event
    both received as the same bytes is the same decoded message (the connection decodes it once)."""
    async with table() as (_, endpoint, tokens):
        connection = await PlayConnection.connect(endpoint)
        readers = [Reader(), Reader()]
        streams = [
            play(connection, seat, token, reader) for seat, token, reader in zip((1, 2), tokens, readers, strict=True)
        ]
        for reader in readers:
            assert (await reader.until(welcomed)).welcome.seat in (1, 2)
        turn = await readers[0].until(lambda m: m.HasField("your_turn"))
        option = turn.your_turn.legal[0]
        act(streams[0], "a1", kind=option.kind, amount=option.min, turn_seq=turn.your_turn.seq)
        answered = await readers[0].until(lambda m: any(r.action_id == "a1" for r in m.results))
        assert [r.code for r in answered.results if r.action_id == "a1"] == [0]
        ended = await readers[1].until(lambda m: any(e.HasField("hand_ended") for e in m.events))
        assert any(message is ended for message in readers[0].messages), "the same bytes, decoded once"
        connection.close()


@run_async
async def test_a_refused_stream_ends_with_the_servers_status_and_details() -> None:
    async with table() as (_, endpoint, _tokens):
        connection = await PlayConnection.connect(endpoint)
        stream = play(connection, 1, "not-a-token", Reader())
        assert await asyncio.wait_for(stream.ended, WAIT) is grpc.StatusCode.UNAUTHENTICATED
        assert stream.details == "unknown or expired seat token"
        connection.close()


@run_async
async def test_every_way_a_stream_ends_frees_its_slot() -> None:
    """A server taking 2 streams per connection: a cancelled stream (CANCELLED), one the server
    ends (ABORTED, replaced by a newer stream for its seat) and one ended OK (its seat stood up) each
    give their slot back, or the next stream would be refused."""
    async with table(seats=2, max_concurrent_streams=2) as (_, endpoint, tokens):
        connection = await PlayConnection.connect(endpoint)
        first = play(connection, 1, tokens[0], first_reader := Reader())
        await first_reader.until(welcomed)
        assert first.cancel() and await first.ended is grpc.StatusCode.CANCELLED
        replaced = play(connection, 1, tokens[0], replaced_reader := Reader())
        await replaced_reader.until(welcomed)
        newer = play(connection, 1, tokens[0], newer_reader := Reader())
        await newer_reader.until(welcomed)
        assert await asyncio.wait_for(replaced.ended, WAIT) is grpc.StatusCode.ABORTED
        second = play(connection, 2, tokens[1], second_reader := Reader())
        await second_reader.until(welcomed)
        assert connection.streams == 2
        newer.cancel()
        async with grpc.aio.insecure_channel(endpoint) as channel:
            stub: TableServiceAsyncStub = TableServiceStub(channel)
            await stub.SitOut(pb.SeatRequest(table_id="t", seat=2), metadata=token_metadata(tokens[1]))
            hand_over = await second_reader.until(lambda m: not any(e.HasField("hand_started") for e in m.events))
            assert hand_over is not None
            while True:  # between hands only: a seat dealt into the running hand may not stand up
                try:
                    await stub.StandUp(pb.SeatRequest(table_id="t", seat=2), metadata=token_metadata(tokens[1]))
                    break
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() is grpc.StatusCode.FAILED_PRECONDITION, exc
                    await second_reader.until(lambda m: any(e.HasField("hand_ended") for e in m.events))
        assert await asyncio.wait_for(second.ended, WAIT) is grpc.StatusCode.OK
        last = play(connection, 1, tokens[0], last_reader := Reader())
        await last_reader.until(welcomed)
        assert not last.ended.done()
        connection.close()


@run_async
async def test_writes_beyond_the_servers_window_wait_for_it_and_all_arrive() -> None:
    """300 requests of about 900 bytes (about 270 KB, four times the server's 64 KiB window) written
    at once, and one of 20 KB (more than a 16 KiB frame): every one is answered, by its id."""
    async with table() as (_, endpoint, tokens):
        connection = await PlayConnection.connect(endpoint)
        reader = Reader()
        stream = play(connection, 1, tokens[0], reader)
        await reader.until(welcomed)
        for k in range(300):
            act(stream, f"w{k}", kind=pb.ACTION_KIND_CHECK, discard=[51] * 400, turn_seq=1)
        act(stream, "big", kind=pb.ACTION_KIND_CHECK, discard=[51] * 10_000, turn_seq=1)

        def answered() -> set[str]:
            return {r.action_id for m in reader.messages for r in m.results}

        await reader.until(lambda m: len(answered()) == 301)
        assert answered() == {f"w{k}" for k in range(300)} | {"big"}
        connection.close()


@run_async
async def test_a_small_receive_window_is_topped_up_as_it_is_read() -> None:
    """With a 4 KiB stream window the server could send a few messages only, unless the window is
    topped up as they are read: a spectator reads four windows' worth and more all the same."""
    async with table() as (_, endpoint, tokens):
        connection = await PlayConnection.connect(endpoint, receive_window=4096)
        players = seat_players(connection, tokens)
        watcher = Reader()
        spectator = connection.open((), watcher)
        spectator.write(pb.ClientMessage(hello=pb.Hello(table_id="t", seat=0)))
        read = 0

        def counted(message: pb.ServerMessage) -> bool:
            nonlocal read
            read += message.ByteSize()
            return read > 4 * 4096

        await watcher.until(counted)
        assert hands_ended(watcher) > 0
        for player in players:
            assert player.stream is not None and not player.stream.ended.done()
        assert not spectator.ended.done()
        connection.close()
    with pytest.raises(ValueError, match="receive_window"):
        await PlayConnection.connect(endpoint, receive_window=0)


@run_async
async def test_a_server_going_away_ends_its_streams_unavailable() -> None:
    async with table() as (server, endpoint, tokens):
        connection = await PlayConnection.connect(endpoint)
        reader = Reader()
        stream = play(connection, 1, tokens[0], reader)
        await reader.until(welcomed)
        await server.stop(drain_seconds=0)
        assert await asyncio.wait_for(stream.ended, WAIT) is grpc.StatusCode.UNAVAILABLE
    assert connection.closed
    with pytest.raises(ConnectionError):
        connection.open(token_metadata(tokens[0]), Reader())
    with pytest.raises(OSError):
        await PlayConnection.connect(endpoint)  # nobody listens there now


@run_async
async def test_a_deliver_callback_that_raises_ends_its_own_stream_only() -> None:
    """Seat 1's callback fails on its first message; seats 2 and 3 play on, hand after hand."""
    async with table(seats=3) as (_, endpoint, tokens):
        connection = await PlayConnection.connect(endpoint)

        def broken(message: pb.ServerMessage) -> None:
            raise RuntimeError("a bug in the bot")

        doomed = play(connection, 1, tokens[0], broken)
        with pytest.raises(RuntimeError, match="a bug in the bot"):
            await asyncio.wait_for(doomed.ended, WAIT)
        players = seat_players(connection, tokens[1:], first_seat=2)
        await players[0].until(lambda m: hands_ended(players[0]) >= 3)
        assert all(player.stream is not None and not player.stream.ended.done() for player in players)
        connection.close()
