"""The table service's contract as an independent client reads it from the proto, point by point.

Each test is one point an outside client (written from ``table_service.proto`` alone) found the
server and its documentation disagreeing on; a real server on 127.0.0.1 answers every call.
Rules cited: STUD-3 (the bring-in), DRAW-2 and STUD-3 (stakes defaults), TABLE-1 (the buy-in).
"""

from __future__ import annotations

import logging
import re

import grpc
from grpc_reflection.v1alpha import reflection_pb2
from support.calls import code_of
from support.running import run_async
from support.table_server import serving, stud_options
from support.table_streams import Stream, first_to_act, open_streams, seat_players

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.rpc.reflection import V1_SERVICE_NAME

UNDECODABLE = bytes.fromhex("0affffffff0f0102")
"""A CreateTableRequest whose first field claims more bytes than follow."""


@run_async
async def test_a_bring_in_amount_other_than_the_offered_one_is_refused() -> None:  # STUD-3
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=3))
        streams = open_streams(stub, "t", await seat_players(stub, "t", 3))
        actor = await first_to_act(streams)
        assert actor.turn is not None
        offered = {a.kind: a for a in actor.turn.legal}[pb.ACTION_KIND_BRING_IN]
        assert (offered.min, offered.max) == (2, 2)  # stakes from small bet 4: bring-in 2
        for wrong in (1, 3, 4, 10):
            result = await actor.act(pb.ACTION_KIND_BRING_IN, wrong)
            assert result.code == grpc.StatusCode.FAILED_PRECONDITION.value[0], (wrong, result)
            assert "brings in for 2" in result.message and "COMPLETE" in result.message
        state = await stub.GetTable(pb.GetTableRequest(table_id="t"))
        assert sorted(s.stack for s in state.seats if s.player_id) == [800, 800, 800]  # nothing posted (no ante)
        assert (await actor.act(pb.ACTION_KIND_BRING_IN, 2)).code == 0
        for stream in streams.values():
            await stream.close()


@run_async
async def test_omitted_stakes_take_their_defaults_whatever_else_is_set() -> None:  # STUD-3, DRAW-2
    async with serving() as (_, stub):
        cases = {
            "ante-only": (pb.Stakes(small_bet=10, ante=2), (10, 20, 2, 5, 5, 10)),
            "big-bet-only": (pb.Stakes(small_bet=10, big_bet=30), (10, 30, 1, 5, 5, 10)),
            "no-ante": (pb.Stakes(small_bet=10, ante=0), (10, 20, 0, 5, 5, 10)),
            "blinds-only": (pb.Stakes(small_blind=5, big_blind=10), (10, 20, 1, 5, 5, 10)),
        }
        for table_id, (stakes, expected) in cases.items():
            request = pb.CreateTableRequest(table_id=table_id, options=stud_options(stakes=stakes))
            state = await stub.CreateTable(request)
            s = state.options.stakes
            assert (s.small_bet, s.big_bet, s.ante, s.bring_in, s.small_blind, s.big_blind) == expected, table_id
        code, details = await code_of(stub.CreateTable(
            pb.CreateTableRequest(table_id="bad", options=stud_options(stakes=pb.Stakes(small_bet=10, bring_in=11)))
        ))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "bring_in" in details


@run_async
async def test_the_pot_and_no_limit_default_buy_in_is_100_big_blinds() -> None:  # TABLE-1
    async with serving() as (_, stub):
        for structure in (pb.STRUCTURE_POT_LIMIT, pb.STRUCTURE_NO_LIMIT):
            options = pb.TableOptions(game="7a5draw", structure=structure, stakes=pb.Stakes(small_bet=10))
            state = await stub.CreateTable(pb.CreateTableRequest(table_id=f"nl{structure}", options=options))
            assert state.options.stakes.big_blind == 10 and state.posted_buy_in == 1000
        limit = pb.TableOptions(game="7a5draw", stakes=pb.Stakes(small_bet=10))
        state = await stub.CreateTable(pb.CreateTableRequest(table_id="fl", options=limit))
        assert state.posted_buy_in == 2000  # fixed limit: 100 big bets


@run_async
async def test_undecodable_bytes_are_invalid_argument_and_logged_throttled() -> None:
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("tablestorm.services").addHandler(handler)
    try:
        async with serving() as (server, _):
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
            raw = channel.unary_unary(
                "/tablestorm.v1.TableService/CreateTable",
                request_serializer=lambda data: data,
                response_deserializer=lambda data: data,
            )
            for _ in range(50):
                code, details = await code_of(raw(UNDECODABLE))
                assert code == grpc.StatusCode.INVALID_ARGUMENT
                assert details == "request: the bytes are not a valid tablestorm.v1.CreateTableRequest message"
            play = channel.stream_stream(
                "/tablestorm.v1.TableService/Play",
                request_serializer=lambda data: data,
                response_deserializer=lambda data: data,
            )
            call = play()
            await call.write(UNDECODABLE)
            assert (await call.code()) == grpc.StatusCode.INVALID_ARGUMENT
            assert "tablestorm.v1.ClientMessage" in (await call.details())
            await channel.close()
            assert server.host is not None and not server.host.tables  # nothing was created
    finally:
        logging.getLogger("tablestorm.services").removeHandler(handler)
    warnings = [r for r in records if r.getMessage() == "undecodable request"]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert not [r for r in records if r.levelno >= logging.ERROR]


@run_async
async def test_an_empty_table_id_gets_a_generated_one() -> None:
    async with serving() as (_, stub):
        state = await stub.CreateTable(pb.CreateTableRequest(table_id="", options=stud_options()))
        assert re.fullmatch(r"t-[0-9a-f]{12}", state.table_id), state.table_id
        assert (await stub.GetTable(pb.GetTableRequest(table_id=state.table_id))).table_id == state.table_id


@run_async
async def test_a_turn_seq_from_the_future_is_refused_as_not_come() -> None:
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=3))
        streams = open_streams(stub, "t", await seat_players(stub, "t", 2))
        actor = await first_to_act(streams)
        assert actor.turn is not None
        now = actor.turn.seq
        result = await actor.act(pb.ACTION_KIND_BRING_IN, 2, turn_seq=now + 5)
        assert result.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
        assert f"the turn at seq {now + 5} has not come" in result.message and f"at seq {now}" in result.message
        result = await actor.act(pb.ACTION_KIND_BRING_IN, 2, turn_seq=now - 1)
        assert "has passed" in result.message
        assert (await actor.act(pb.ACTION_KIND_BRING_IN, 2, turn_seq=now)).code == 0
        for stream in streams.values():
            await stream.close()


@run_async
async def test_a_late_sit_down_resumes_after_its_seq_and_misses_nothing() -> None:
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=3))
        streams = open_streams(stub, "t", await seat_players(stub, "t", 2))
        await streams[1].until(lambda: any(s.turn is not None for s in streams.values()))
        late = await stub.SitDown(pb.SitDownRequest(table_id="t", seat=5, player_id="late"))
        actor = next(s for s in streams.values() if s.turn is not None)
        await actor.play_turn()  # events happen between the SitDown and the late player's Hello
        watcher = streams[1]
        await watcher.until(lambda: watcher.events[-1].seq > late.resume_after_seq + 1)
        last = watcher.events[-1].seq
        joined = Stream(stub, "t", 5, late.seat_token, resume_after=late.resume_after_seq)
        await joined.until(lambda: bool(joined.events) and joined.events[-1].seq >= last)
        seqs = [e.seq for e in joined.events]
        assert seqs[: last - late.resume_after_seq] == list(range(late.resume_after_seq + 1, last + 1))
        first = joined.events[0]
        assert first.HasField("seat_changed") and first.seat_changed.seat.seat == 5  # its own sit-down
        for stream in [joined, *streams.values()]:
            await stream.close()


@run_async
async def test_reflection_answers_under_v1_and_v1alpha() -> None:
    async with serving() as (server, _):
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
        for service in (V1_SERVICE_NAME, "grpc.reflection.v1alpha.ServerReflection"):
            info = channel.stream_stream(
                f"/{service}/ServerReflectionInfo",
                request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
            )
            call = info()
            await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
            reply = await call.read()
            names = {s.name for s in reply.list_services_response.service}
            assert {"tablestorm.v1.TableService", "grpc.health.v1.Health", V1_SERVICE_NAME} <= names, service
            await call.done_writing()
        await channel.close()

