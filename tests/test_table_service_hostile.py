"""Malformed and hostile requests against a real server on 127.0.0.1: each gets its status code
(INVALID_ARGUMENT naming the field, NOT_FOUND, UNAUTHENTICATED, PERMISSION_DENIED,
FAILED_PRECONDITION, RESOURCE_EXHAUSTED, OUT_OF_RANGE), none changes any table, thousands of rapid
duplicate actions are applied at most once, and afterwards the server still serves with every
table's chips conserved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from support.calls import code_of
from support.running import run_async
from support.table_server import exported, serving, stud_options, token
from support.table_streams import Stream, first_to_act, open_streams, play_hand, seat_players

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.table.service import SERVICE_NAME

OK = 0
INVALID = grpc.StatusCode.INVALID_ARGUMENT
NOT_FOUND = grpc.StatusCode.NOT_FOUND
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
DENIED = grpc.StatusCode.PERMISSION_DENIED
PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
FAILED = PRECONDITION.value[0]
BIG = 2**62
INT64_MAX = 2**63 - 1
HUGE_TEXT = "x" * 10_000
"""Far over every field's limit, well under the 64 KiB request bound."""

Case = tuple[str, Callable[[], Awaitable[Any]], grpc.StatusCode, str]
"""A label, the call, the status it must end with, and a word its details must contain."""


async def _play_error(stream: Stream) -> grpc.StatusCode | None:
    await stream.until_end()
    return None if stream.error is None else stream.error.code()


@run_async
async def test_hostile_requests_get_their_status_and_change_nothing() -> None:
    async with serving() as (server, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="h", options=stud_options(clock_seconds=60), seed=4))
        await stub.CreateTable(pb.CreateTableRequest(table_id="b", options=stud_options(clock_seconds=60), seed=5))
        tokens = await seat_players(stub, "h", 2)
        bystander_tokens = await seat_players(stub, "b", 2)
        streams = open_streams(stub, "h", tokens)
        actor = await first_to_act(streams)
        other = streams[3 - actor.seat]
        assert actor.turn is not None
        turn = actor.turn
        bystander = await stub.GetTable(pb.GetTableRequest(table_id="b"))
        table_before = await stub.GetTable(pb.GetTableRequest(table_id="h"))
        ids = iter(range(10**6))

        def act(
            seat: int = actor.seat,
            seat_token: str | None = tokens[actor.seat],
            table_id: str = "h",
            **fields: Any,
        ) -> Callable[[], Awaitable[Any]]:
            # A distinct action id per case: answers are remembered per id (even refusals).
            fields.setdefault("action_id", f"hostile-{next(ids)}")
            fields.setdefault("kind", pb.ACTION_KIND_BRING_IN)
            fields.setdefault("amount", 2)
            request = pb.ActRequest(table_id=table_id, seat=seat, **fields)
            return lambda: stub.Act(request, metadata=token(seat_token) if seat_token else None)

        def create(table_id: str = "new", **options: Any) -> Callable[[], Awaitable[Any]]:
            request = pb.CreateTableRequest(table_id=table_id, options=stud_options(**options))
            return lambda: stub.CreateTable(request)

        def sit(**fields: Any) -> Callable[[], Awaitable[Any]]:
            defaults: dict[str, Any] = {"table_id": "h", "seat": 5, "player_id": "z"}
            request = pb.SitDownRequest(**(defaults | fields))
            return lambda: stub.SitDown(request)

        def listing(**fields: Any) -> Callable[[], Awaitable[Any]]:
            return lambda: stub.ListTables(pb.ListTablesRequest(**fields))

        def seat_call(method: Any, seat: int, seat_token: str | None) -> Callable[[], Awaitable[Any]]:
            request = pb.SeatRequest(table_id="h", seat=seat)
            return lambda: method(request, metadata=token(seat_token) if seat_token else None)

        me, them = actor.seat, other.seat
        draw, complete = pb.ACTION_KIND_DRAW, pb.ACTION_KIND_COMPLETE
        cases: list[Case] = [
            # CreateTable: every field checked, nothing created.
            ("negative small bet", create(stakes=pb.Stakes(small_bet=-4)), INVALID, "small_bet"),
            ("huge small bet", create(stakes=pb.Stakes(small_bet=BIG)), INVALID, "small_bet"),
            ("huge ante", create(stakes=pb.Stakes(small_bet=4, big_bet=8, ante=INT64_MAX)), INVALID, "ante"),
            ("huge buy-in", create(buy_in=INT64_MAX), INVALID, "buy_in"),
            ("negative buy-in", create(buy_in=-1), INVALID, "buy_in"),
            ("unknown structure", create(structure=99), INVALID, "structure"),
            ("no limit stud", create(structure=pb.STRUCTURE_NO_LIMIT), INVALID, "structure"),
            ("unknown game", create(game="holdem"), INVALID, "game"),
            ("oversize game", create(game=HUGE_TEXT), INVALID, "game"),
            ("NaN clock", create(clock_seconds=float("nan")), INVALID, "clock_seconds"),
            ("negative clock", create(clock_seconds=-1), INVALID, "clock_seconds"),
            ("instant clock", create(clock_seconds=1e-9), INVALID, "clock_seconds"),
            ("endless clock", create(clock_seconds=float("inf")), INVALID, "clock_seconds"),
            ("99 seats", create(max_seats=99), INVALID, "max_seats"),
            ("cap of 1", create(cap=1), INVALID, "cap"),
            ("oversize table id", create(HUGE_TEXT), INVALID, "table_id"),
            ("table id with a slash", create("../etc"), INVALID, "table_id"),
            ("non-ASCII table id", create("tablé"), INVALID, "table_id"),
            ("request over 64 KiB", create("x" * 100_000), grpc.StatusCode.RESOURCE_EXHAUSTED, ""),
            ("taken table id", create("h"), grpc.StatusCode.ALREADY_EXISTS, "h"),
            # Tables by id, and the lobby.
            ("empty table id", lambda: stub.GetTable(pb.GetTableRequest()), INVALID, "table_id"),
            ("wrong table id", lambda: stub.GetTable(pb.GetTableRequest(table_id="nope")), NOT_FOUND, "nope"),
            ("oversize id (get)", lambda: stub.GetTable(pb.GetTableRequest(table_id=HUGE_TEXT)), INVALID, "table_id"),
            ("close a wrong table", lambda: stub.CloseTable(pb.CloseTableRequest(table_id="nope")), NOT_FOUND, "nope"),
            ("close an empty id", lambda: stub.CloseTable(pb.CloseTableRequest()), INVALID, "table_id"),
            ("page of 5000", listing(page_size=5000), INVALID, "page_size"),
            ("list an unknown game", listing(game="holdem"), INVALID, "game"),
            ("list an oversize game", listing(game=HUGE_TEXT), INVALID, "game"),
            ("bad page token", listing(page_token="no such token!"), INVALID, "page_token"),
            # SitDown.
            ("seat 0", sit(seat=0), INVALID, "seat"),
            ("seat 99", sit(seat=99), INVALID, "seat"),
            ("seat 2**32-1", sit(seat=2**32 - 1), INVALID, "seat"),
            ("no player id", sit(player_id=""), INVALID, "player_id"),
            ("oversize player id", sit(player_id=HUGE_TEXT), INVALID, "player_id"),
            ("control characters", sit(player_id="a\x00\x1b[2J"), INVALID, "player_id"),
            ("negative buy-in (sit)", sit(buy_in=-800), INVALID, "buy_in"),
            ("huge buy-in (sit)", sit(buy_in=INT64_MAX), INVALID, "buy_in"),
            ("short buy-in", sit(buy_in=799), INVALID, "buy_in"),
            ("sit at a wrong table", sit(table_id="nope"), NOT_FOUND, "nope"),
            ("taken seat", sit(seat=me), grpc.StatusCode.ALREADY_EXISTS, "seat"),
            ("seated player again", sit(player_id="p1"), grpc.StatusCode.ALREADY_EXISTS, "p1"),
            # Seat calls: authentication and authorization.
            ("no token", act(seat_token=None), UNAUTHENTICATED, "x-seat-token"),
            ("forged token", act(seat_token="forged"), UNAUTHENTICATED, "token"),
            ("oversize token", act(seat_token="t" * 4000), UNAUTHENTICATED, "token"),
            ("another seat's token", act(seat_token=tokens[them]), DENIED, "seat"),
            ("another table's token", act(seat_token=bystander_tokens[me]), DENIED, "table"),
            ("stand up with another's token", seat_call(stub.StandUp, me, tokens[them]), DENIED, "seat"),
            ("history without a token", seat_call(stub.GetHistory, me, None), UNAUTHENTICATED, "x-seat-token"),
            ("sit out seat 0", seat_call(stub.SitOut, 0, tokens[1]), INVALID, "seat"),
            ("stand up while live", seat_call(stub.StandUp, me, tokens[me]), PRECONDITION, "live"),
            ("rebuy with chips", seat_call(stub.Rebuy, me, tokens[me]), PRECONDITION, "rebuy"),
            # Act: malformed fields.
            ("act for seat 0", act(seat=0), INVALID, "seat"),
            ("act for seat 99", act(seat=99), INVALID, "seat"),
            ("act at a wrong table", act(table_id="nope"), NOT_FOUND, "nope"),
            ("act at a malformed table", act(table_id="../etc"), INVALID, "table_id"),
            ("unset kind", act(kind=pb.ACTION_KIND_UNSPECIFIED), INVALID, "kind"),
            ("unknown kind", act(kind=42), INVALID, "kind"),
            ("timeout from a client", act(kind=pb.ACTION_KIND_TIMEOUT), INVALID, "kind"),
            ("negative amount", act(kind=complete, amount=-4), INVALID, "amount"),
            ("huge amount", act(kind=complete, amount=BIG), INVALID, "amount"),
            ("int64 max amount", act(amount=INT64_MAX), INVALID, "amount"),
            ("no action id", act(action_id=""), INVALID, "action_id"),
            ("oversize action id", act(action_id=HUGE_TEXT), INVALID, "action_id"),
            ("discard no card", act(kind=draw, discard=[99]), INVALID, "discard"),
            ("discard a negative card", act(kind=draw, discard=[-5]), INVALID, "discard"),
            ("discard six cards", act(kind=draw, discard=list(range(6))), INVALID, "discard"),
            ("discard on a bring-in", act(discard=[1]), INVALID, "discard"),
            # Act: well-formed but refused by the table.
            ("out of turn", act(seat=them, seat_token=tokens[them], kind=pb.ACTION_KIND_CALL), PRECONDITION, "turn"),
            ("check facing the bring-in", act(kind=pb.ACTION_KIND_CHECK), PRECONDITION, "bring in"),
            ("complete to 7", act(kind=complete, amount=7), PRECONDITION, "complete"),
            ("draw in stud", act(kind=draw), PRECONDITION, "draw"),
            ("a turn that passed", act(turn_seq=1), PRECONDITION, "turn_seq"),
        ]
        for label, call, code, word in cases:
            got, details = await code_of(call())
            assert got == code, (label, got, details)
            assert word in details, (label, details)
            assert len(details) < 300, (label, "a hostile string came back in the error")

        # Play streams: a bad Hello ends the stream with its status.
        hellos = [
            ("hello for seat 99", Stream(stub, "h", 99, tokens[1]), INVALID),
            ("hello for a wrong table", Stream(stub, "nope"), NOT_FOUND),
            ("hello for an empty table id", Stream(stub, ""), INVALID),
            ("hello with a forged token", Stream(stub, "h", 1, "forged"), UNAUTHENTICATED),
            ("resume after the future", Stream(stub, "h", 0, resume_after=2**64 - 1), grpc.StatusCode.OUT_OF_RANGE),
        ]
        for label, stream, code in hellos:
            assert await _play_error(stream) == code, label
        for first in (pb.ClientMessage(), pb.ClientMessage(act=pb.ActRequest(action_id="a"))):
            call = stub.Play()
            await call.write(first)
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await call.read()
            assert info.value.code() == INVALID and "hello" in (info.value.details() or "")
        spectator = Stream(stub, "h")
        await spectator.until(lambda: spectator.welcome is not None)
        await spectator.call.write(pb.ClientMessage(hello=pb.Hello(table_id="h")))  # a second hello
        assert await _play_error(spectator) == INVALID

        assert await stub.GetTable(pb.GetTableRequest(table_id="h")) == table_before, "nothing changed"

        # Thousands of rapid duplicates. The same action id a thousand times on the stream, without
        # waiting: one bring-in, a thousand equal answers.
        bring_in = next(a for a in turn.legal if a.kind == pb.ACTION_KIND_BRING_IN)
        request = pb.ActRequest(action_id="dup", kind=pb.ACTION_KIND_BRING_IN, amount=bring_in.min, turn_seq=turn.seq)
        for _ in range(1000):
            await actor.call.write(pb.ClientMessage(act=request))
        await actor.until(lambda: sum(r.action_id == "dup" for r in actor.result_log) == 1000)
        answers = [r for r in actor.result_log if r.action_id == "dup"]
        assert all(r == answers[0] for r in answers) and answers[0].code == OK
        acted = [e.acted for e in actor.events if e.HasField("acted")]
        assert [(a.seat, a.kind) for a in acted] == [(actor.seat, pb.ACTION_KIND_BRING_IN)], "applied once"
        # A thousand distinct ids from the seat whose turn it no longer is: all refused.
        for k in range(1000):
            await actor.call.write(pb.ClientMessage(act=pb.ActRequest(action_id=f"late-{k}", kind=pb.ACTION_KIND_CALL)))
        await actor.until(lambda: sum(r.action_id.startswith("late-") for r in actor.result_log) == 1000)
        assert {r.code for r in actor.result_log if r.action_id.startswith("late-")} == {FAILED}
        # The other seat: 300 concurrent unary calls with one id, then 300 with their own ids
        # answering the turn that has passed.
        await other.until(lambda: other.turn is not None)
        assert other.turn is not None
        other_turn = other.turn.seq
        call_request = pb.ActRequest(
            table_id="h", seat=other.seat, action_id="u", kind=pb.ACTION_KIND_CALL, turn_seq=other_turn
        )
        metadata = token(tokens[other.seat])
        same = await asyncio.gather(*(stub.Act(call_request, metadata=metadata) for _ in range(300)))
        assert all(r == same[0] for r in same) and same[0].code == OK
        stale = []
        for k in range(300):
            late = pb.ActRequest()
            late.CopyFrom(call_request)
            late.action_id = f"u{k}"
            stale.append(stub.Act(late, metadata=metadata))
        stale_codes = [code for code, _ in await asyncio.gather(*(code_of(c) for c in stale))]
        assert set(stale_codes) == {PRECONDITION}
        await other.until(lambda: len(other.of("acted")) == 2)
        assert [(a.seat, a.kind) for a in (e.acted for e in other.events if e.HasField("acted"))] == [
            (actor.seat, pb.ACTION_KIND_BRING_IN),
            (other.seat, pb.ACTION_KIND_CALL),
        ]

        # Acts after the hand ended. Both sit out (no next hand), the hand is played out.
        for seat in (1, 2):
            await stub.SitOut(pb.SeatRequest(table_id="h", seat=seat), metadata=token(tokens[seat]))
        for stream, answered in ((actor, turn.seq), (other, other_turn)):  # answered outside Stream.act
            if stream.turn is not None and stream.turn.seq == answered:
                stream.turn = None
        await play_hand(streams, 1)
        state = await stub.GetTable(pb.GetTableRequest(table_id="h"))
        assert not state.hand_running and state.hand_number == 1
        for seat, stream in streams.items():
            result = await stream.act(pb.ACTION_KIND_CHECK, turn_seq=turn.seq)
            assert result.code == FAILED, result
            code, details = await code_of(act(seat=seat, seat_token=tokens[seat], kind=pb.ACTION_KIND_CHECK)())
            assert code == PRECONDITION and "no hand" in details
        assert await stub.GetTable(pb.GetTableRequest(table_id="h")) == state

        # The server still serves; no other table moved; every table's chips are conserved.
        assert await stub.GetTable(pb.GetTableRequest(table_id="b")) == bystander
        assert sum(s.stack for s in state.seats) == 2 * state.posted_buy_in
        assert bystander.hand_running and sum(s.stack for s in bystander.seats) == 2 * bystander.posted_buy_in
        assert exported(server, "tablestorm_chip_conservation_violations_total") == 0
        await stub.CreateTable(pb.CreateTableRequest(table_id="after", options=stud_options()))
        listed = await stub.ListTables(pb.ListTablesRequest())
        assert [t.table_id for t in listed.tables] == ["after", "b", "h"], "no hostile request made a table"
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            check = health_pb2.HealthCheckRequest(service=SERVICE_NAME)
            health = await health_pb2_grpc.HealthStub(channel).Check(check)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        for stream in streams.values():
            await stream.close()
