"""The gRPC table service against a real server on 127.0.0.1 (grpc.aio, in-process, port 0).

Each test drives its own event loop (``run_async``) so the suite needs no asyncio plugin, and
waits for what it expects on the stream with a timeout, never with a sleep. Rules cited: CLOCK-1..3,
SHOW-4, TABLE-1, TABLE-2.
"""

from __future__ import annotations

import asyncio
import time
import typing
import urllib.request

import grpc
import pytest
from support.calls import assert_every_rpc_served, code_of
from support.running import run_async
from support.table_invariants import HIDDEN
from support.table_replay import hand_events
from support.table_server import GateLedger, exported, narrow_channel, serving, stud_options, token
from support.table_streams import (
    TIMEOUT,
    Stream,
    first_to_act,
    open_streams,
    play_hand,
    play_to_a_fold,
    seat_players,
    seated_table,
)

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.engine import SEVEN_CARD_STUD, ActionKind, Stakes, TableOptions
from tablestorm.services.engine import events as ev
from tablestorm.services.engine.table import CashTable
from tablestorm.services.table import convert
from tablestorm.services.table.hub import EVENTS, RESULTS, EventLog, LogEntry, Outbox, frame
from tablestorm.services.table.live_table import RESULT_CACHE


def test_concatenated_frames_parse_as_one_message() -> None:
    """The fan-out's premise: pending frames joined are one valid ServerMessage, in order."""
    first = pb.Event(seq=1, hand_number=1, acted=pb.Acted(seat=2, kind=pb.ACTION_KIND_CALL, to=4, added=4))
    second = pb.Event(seq=2, hand_number=1, hand_mucked=pb.HandMucked(seat=3))
    result = pb.ActResult(action_id="a", code=9, message="no")
    joined = frame(EVENTS, first) + frame(RESULTS, result) + frame(EVENTS, second)
    message = pb.ServerMessage.FromString(joined)
    assert list(message.events) == [first, second]
    assert list(message.results) == [result]
    assert frame(EVENTS, first) == pb.ServerMessage(events=[first]).SerializeToString()


def test_every_engine_event_has_a_wire_form() -> None:
    """A new engine event kind must get a proto message before the service can stream it."""
    assert set(convert._EVENT_FIELDS) == set(typing.get_args(ev.Event))
    assert set(convert.KIND_TO_PB) == set(ActionKind)


def test_event_log_keeps_current_and_previous_hand() -> None:
    log = EventLog()
    seq = 0
    for _hand in range(3):
        for k in range(4):
            seq += 1
            log.append(LogEntry(seq, b"", 0, b""), hand_start=k == 0)
    # Hands 2 (seq 5-8) and 3 (seq 9-12) are kept; hand 1 is gone.
    entries, gap = log.after(4)
    assert [e.seq for e in entries] == list(range(5, 13)) and not gap
    entries, gap = log.after(2)
    assert entries[0].seq == 5 and gap
    assert [e.seq for e in log.current_hand()] == [9, 10, 11, 12]


@run_async
async def test_outbox_bounds_a_subscriber_that_falls_behind() -> None:
    outbox = Outbox(seat=1, owner=1, limit=100)
    closed = []
    outbox.on_close = lambda: closed.append(True)
    outbox.push(b"x" * 60)
    outbox.push(b"y" * 30)
    assert not outbox.closed
    outbox.push(b"z" * 20)  # 90 pending + 20 > 100
    assert outbox.closed and outbox.close_code == grpc.StatusCode.RESOURCE_EXHAUSTED and closed
    assert await outbox.next_message() is None
    big = Outbox(seat=1, owner=1, limit=100)
    big.push(b"x" * 150)  # an empty outbox always takes a chunk: the bound is on falling behind
    assert not big.closed


@run_async
async def test_outbox_coalesces_pending_output_into_one_message() -> None:
    outbox = Outbox(seat=0, owner=0, limit=1 << 20)
    outbox.push(b"a")
    outbox.push(b"b")
    assert await outbox.next_message() == b"ab"
    outbox.push(b"c")
    outbox.close(None, "bye", flush=True)
    assert await outbox.next_message() == b"c"
    assert await outbox.next_message() is None


def test_table_deals_on_after_a_hand_over_as_dealt() -> None:
    """Two players all-in on their antes: the hand ends while dealing and the table moves on."""
    table = CashTable(
        "t", TableOptions(SEVEN_CARD_STUD, Stakes(small_bet=4, big_bet=8, ante=1, bring_in=2)), seed=1
    )
    table.sit_down(1, "a", 800)
    table.sit_down(2, "b", 800)
    for seat in table.seats[:2]:
        assert seat is not None
        seat.stack = 1
    hand = table.start_hand()
    assert hand.is_over and table.hand is None
    assert table.last_record is not None and table.last_record.seats == (1, 2)
    assert table.total_chips() == 2


# ----------------------------------------------------------------- tables and seats


@run_async
async def test_create_table_fills_defaults_and_names_bad_fields() -> None:
    async with serving(max_tables=2) as (_, stub):
        state = await stub.CreateTable(pb.CreateTableRequest(table_id="t1", options=stud_options()))
        assert state.options.clock_seconds == 10.0 and state.options.cap == 4  # CLOCK-1, BET-2
        assert state.options.stakes.big_bet == 8 and state.options.stakes.bring_in == 2
        assert state.posted_buy_in == 800 and len(state.seats) == 8
        assert all(s.status == pb.SEAT_STATUS_EMPTY for s in state.seats)

        cases = [
            (pb.CreateTableRequest(table_id="t2", options=stud_options(game="holdem")), "options.game"),
            (
                pb.CreateTableRequest(table_id="t2", options=stud_options(stakes=pb.Stakes(small_bet=-4))),
                "stakes.small_bet",
            ),
            (pb.CreateTableRequest(table_id="t2", options=stud_options(max_seats=9)), "max_seats"),
            (pb.CreateTableRequest(table_id="no spaces", options=stud_options()), "table_id"),
            (pb.CreateTableRequest(table_id="x" * 65, options=stud_options()), "table_id"),
        ]
        for request, field in cases:
            code, details = await code_of(stub.CreateTable(request))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and field in details, (field, details)

        code, _ = await code_of(
            stub.CreateTable(pb.CreateTableRequest(table_id="t1", options=stud_options()))
        )
        assert code == grpc.StatusCode.ALREADY_EXISTS
        await stub.CreateTable(pb.CreateTableRequest(table_id="t2", options=stud_options()))
        code, _ = await code_of(
            stub.CreateTable(pb.CreateTableRequest(table_id="t3", options=stud_options()))
        )
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        code, _ = await code_of(stub.GetTable(pb.GetTableRequest(table_id="nope")))
        assert code == grpc.StatusCode.NOT_FOUND


@run_async
async def test_seat_tokens_authorize_exactly_their_seat() -> None:
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=7))
        code, details = await code_of(
            stub.SitDown(pb.SitDownRequest(table_id="t", seat=1, player_id="a", buy_in=5))
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "buy_in" in details  # TABLE-1: no short buys
        code, details = await code_of(stub.SitDown(pb.SitDownRequest(table_id="t", seat=9, player_id="a")))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "seat" in details
        code, details = await code_of(stub.SitDown(pb.SitDownRequest(table_id="t", seat=1, player_id="")))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "player_id" in details

        first = await stub.SitDown(pb.SitDownRequest(table_id="t", seat=1, player_id="a"))
        assert first.seat.stack == 800 and len(first.seat_token) >= 32
        code, _ = await code_of(stub.SitDown(pb.SitDownRequest(table_id="t", seat=1, player_id="b")))
        assert code == grpc.StatusCode.ALREADY_EXISTS
        code, _ = await code_of(stub.SitDown(pb.SitDownRequest(table_id="t", seat=2, player_id="a")))
        assert code == grpc.StatusCode.ALREADY_EXISTS

        seat1 = pb.SeatRequest(table_id="t", seat=1)
        code, _ = await code_of(stub.SitOut(seat1))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        code, _ = await code_of(stub.SitOut(seat1, metadata=token("forged")))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        second = await stub.SitDown(pb.SitDownRequest(table_id="t", seat=2, player_id="b"))
        code, _ = await code_of(stub.SitOut(seat1, metadata=token(second.seat_token)))
        assert code == grpc.StatusCode.PERMISSION_DENIED

        # A hand starts by itself with two players; seat 1 cannot leave while live in it.
        assert (await stub.GetTable(pb.GetTableRequest(table_id="t"))).hand_running
        code, details = await code_of(stub.StandUp(seat1, metadata=token(first.seat_token)))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "live" in details


@run_async
async def test_stand_up_revokes_the_token() -> None:
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options()))
        reply = await stub.SitDown(pb.SitDownRequest(table_id="t", seat=3, player_id="a"))
        request = pb.SeatRequest(table_id="t", seat=3)
        assert (await stub.StandUp(request, metadata=token(reply.seat_token))).chips == 800
        code, _ = await code_of(stub.SitOut(request, metadata=token(reply.seat_token)))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        again = await stub.SitDown(pb.SitDownRequest(table_id="t", seat=3, player_id="a"))
        assert again.seat_token != reply.seat_token


# ----------------------------------------------------------------- the lobby: ListTables, CloseTable



@run_async
async def test_every_rpc_of_the_proto_is_served() -> None:
    """The handlers are registered by hand (service.handlers): none of the proto's may be missing."""
    async with serving() as (server, _):
        await assert_every_rpc_served(server.port, pb.DESCRIPTOR.services_by_name["TableService"])


@run_async
async def test_list_tables_pages_in_id_order_and_filters_by_game() -> None:
    async with serving() as (_, stub):
        games = {"a1": "7stud", "a2": "7a5draw", "b1": "5stud", "b2": "7stud", "c": "7stud8", "d": "7stud"}
        for table_id, game in games.items():
            await stub.CreateTable(pb.CreateTableRequest(table_id=table_id, options=stud_options(game=game)))
        await seat_players(stub, "b2", 2)  # a hand starts by itself

        seen: list[pb.TableSummary] = []
        page = await stub.ListTables(pb.ListTablesRequest(page_size=4))
        seen += page.tables
        assert len(page.tables) == 4 and page.next_page_token
        page = await stub.ListTables(pb.ListTablesRequest(page_size=4, page_token=page.next_page_token))
        seen += page.tables
        assert len(page.tables) == 2 and page.next_page_token == ""
        assert [t.table_id for t in seen] == sorted(games)
        b2 = next(t for t in seen if t.table_id == "b2")
        assert (b2.game, b2.seats_taken, b2.max_seats, b2.hand_running, b2.hand_number) == ("7stud", 2, 8, True, 1)
        assert (b2.stakes.small_bet, b2.stakes.big_bet, b2.posted_buy_in, b2.clock_seconds) == (4, 8, 800, 10.0)
        assert b2.structure == pb.STRUCTURE_FIXED_LIMIT and not b2.closing
        assert next(t for t in seen if t.table_id == "a2").max_seats == 5

        studs = await stub.ListTables(pb.ListTablesRequest(game="7stud", page_size=2))
        assert [t.table_id for t in studs.tables] == ["a1", "b2"] and studs.next_page_token == "b2"
        # A table closed between two pages does not shift the next page.
        await stub.CloseTable(pb.CloseTableRequest(table_id="a1"))
        rest = await stub.ListTables(pb.ListTablesRequest(game="7stud", page_token=studs.next_page_token))
        assert [t.table_id for t in rest.tables] == ["d"] and rest.next_page_token == ""
        everything = await stub.ListTables(pb.ListTablesRequest())
        assert [t.table_id for t in everything.tables] == ["a2", "b1", "b2", "c", "d"]

        cases = [
            (pb.ListTablesRequest(page_size=1001), "page_size"),
            (pb.ListTablesRequest(game="holdem"), "game"),
            (pb.ListTablesRequest(page_token="not a table id"), "page_token"),
        ]
        for request, field in cases:
            code, details = await code_of(stub.ListTables(request))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith(field), (field, details)


@run_async
async def test_close_table_closes_an_empty_table_at_once() -> None:
    ledger = GateLedger()
    async with serving(ledger=ledger) as (server, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options()))
        spectator = Stream(stub, "t")
        await spectator.until(lambda: spectator.welcome is not None)
        assert exported(server, "tablestorm_tables_live") == 1
        reply = await stub.CloseTable(pb.CloseTableRequest(table_id="t"))
        assert (reply.closed, reply.seats_taken, reply.hand_running) == (True, 0, False)
        await spectator.until_end()
        assert spectator.error is None  # the spectator's stream ends OK
        code, _ = await code_of(stub.GetTable(pb.GetTableRequest(table_id="t")))
        assert code == grpc.StatusCode.NOT_FOUND
        code, _ = await code_of(stub.CloseTable(pb.CloseTableRequest(table_id="t")))
        assert code == grpc.StatusCode.NOT_FOUND
        assert exported(server, "tablestorm_tables_live") == 0
        assert [e.kind for e in ledger.entries] == ["created", "closed"]
        assert ledger.entries[-1].table_id == "t" and ledger.entries[-1].seats == ()
        # The id is free again.
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options()))


@run_async
async def test_close_table_lets_the_hand_finish_and_closes_when_the_last_player_leaves() -> None:
    """A room breaking a table: no new players or hands, the running hand plays out, players cash
    out as usual, and the table goes with the last of them."""
    ledger = GateLedger()
    async with serving(ledger=ledger) as (server, stub):
        tokens, streams, spectator = await seated_table(stub, ledger, "t", stud_options(), 12, 2)
        await spectator.until(lambda: any(s.turn is not None for s in streams.values()))
        reply = await stub.CloseTable(pb.CloseTableRequest(table_id="t"))
        assert (reply.closed, reply.seats_taken, reply.hand_running) == (False, 2, True)
        again = await stub.CloseTable(pb.CloseTableRequest(table_id="t"))
        assert again == reply  # closing is idempotent
        state = await stub.GetTable(pb.GetTableRequest(table_id="t"))
        assert state.closing and state.hand_running
        assert (await stub.ListTables(pb.ListTablesRequest())).tables[0].closing
        code, details = await code_of(stub.SitDown(pb.SitDownRequest(table_id="t", seat=3, player_id="late")))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "closing" in details

        await play_hand(streams, 1)
        # No next hand: seat 1 is not live in one, so it can stand up at once.
        first = await stub.StandUp(pb.SeatRequest(table_id="t", seat=1), metadata=token(tokens[1]))
        state = await stub.GetTable(pb.GetTableRequest(table_id="t"))
        assert state.hand_number == 1 and not state.hand_running and state.closing
        if state.seats[1].stack == 0:  # broke after hand 1: rebuying is refused while closing
            code, details = await code_of(
                stub.Rebuy(pb.SeatRequest(table_id="t", seat=2), metadata=token(tokens[2]))
            )
            assert code == grpc.StatusCode.FAILED_PRECONDITION and "closing" in details
        assert exported(server, "tablestorm_tables_live") == 1
        second = await stub.StandUp(pb.SeatRequest(table_id="t", seat=2), metadata=token(tokens[2]))
        assert first.chips + second.chips == 2 * state.posted_buy_in  # every chip paid out
        code, _ = await code_of(stub.GetTable(pb.GetTableRequest(table_id="t")))
        assert code == grpc.StatusCode.NOT_FOUND
        for stream in [spectator, *streams.values()]:
            await stream.until_end()
            assert stream.error is None, stream.error
        assert exported(server, "tablestorm_tables_live") == 0
        assert exported(server, "tablestorm_seats_live") == 0
        entries = [e for e in ledger.entries if e.table_id == "t"]
        assert [e.kind for e in entries[-3:]] == ["seats", "seats", "closed"]
        assert entries[-1].seats == () and entries[-1].hand_number == 1
        assert exported(server, "tablestorm_chip_conservation_violations_total") == 0


@run_async
async def test_close_table_before_the_first_deal_deals_nothing() -> None:
    """CloseTable while the first hand's start is being written to the ledger: no hand is dealt,
    and the ledger's last word for the table is its seats, not a hand start that never happened."""
    ledger = GateLedger()
    async with serving(ledger=ledger) as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options()))
        tokens = await seat_players(stub, "t", 2)
        await asyncio.wait_for(ledger.held("t").wait(), TIMEOUT)  # the deal of hand 1 waits on the ledger
        assert [e.kind for e in ledger.entries] == ["created", "seats", "seats", "hand_started"]
        reply = await stub.CloseTable(pb.CloseTableRequest(table_id="t"))
        assert (reply.closed, reply.seats_taken, reply.hand_running) == (False, 2, False)
        spectator = Stream(stub, "t")
        await spectator.until(lambda: spectator.welcome is not None)
        ledger.gate("t").set()
        # The stand-up only succeeds if seat 1 was dealt into no hand; the last one closes the table.
        for seat in (1, 2):
            await stub.StandUp(pb.SeatRequest(table_id="t", seat=seat), metadata=token(tokens[seat]))
        await spectator.until_end()
        assert spectator.error is None and spectator.of("hand_started") == []
        kinds = [e.kind for e in ledger.entries]
        assert kinds == ["created", "seats", "seats", "hand_started", "seats", "seats", "seats", "closed"]
        # The abandoned deal superseded by both players' seats; then each stand-up; then closed.
        assert [len(e.seats) for e in ledger.entries[4:7]] == [2, 1, 0]
        assert all(e.hand_number == 0 for e in ledger.entries[4:])


# ----------------------------------------------------------------- playing


@run_async
async def test_hand_over_play_streams_hides_other_players_down_cards() -> None:
    async with serving() as (server, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=3))
        spectator = Stream(stub, "t")
        await spectator.until(lambda: spectator.welcome is not None)
        tokens = await seat_players(stub, "t", 2)
        streams = open_streams(stub, "t", tokens)
        await play_hand(streams, 1)
        await spectator.until(lambda: "hand_ended" in spectator.kinds())

        for seat, stream in streams.items():
            hand = [e for e in stream.events if e.hand_number == 1 and not e.HasField("seat_changed")]
            assert hand[0].HasField("hand_started") and hand[-1].HasField("hand_ended")
            seqs = [e.seq for e in stream.events]
            assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "gap-free, increasing"
            own = [d for d in stream.of("cards_dealt") if d.seat == seat]
            assert own[0].down and all(HIDDEN not in d.down for d in own)
            for dealt in stream.of("cards_dealt"):
                if dealt.seat != seat:
                    assert all(card == HIDDEN for card in dealt.down)
        for dealt in spectator.of("cards_dealt"):
            assert all(card == HIDDEN for card in dealt.down)
        ended = spectator.of("hand_ended")[0]
        assert sum(ended.stacks) == 1600  # BET-7: every chip accounted for
        for stream in [*streams.values(), spectator]:
            await stream.close()
        assert exported(server, "tablestorm_hands_completed_total", game="7stud") >= 1
        assert exported(server, "tablestorm_chip_conservation_violations_total") == 0


@run_async
async def test_act_answers_with_engine_status_and_is_idempotent() -> None:
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=11))
        tokens = await seat_players(stub, "t", 2)
        streams = open_streams(stub, "t", tokens)
        actor = await first_to_act(streams)
        other = streams[3 - actor.seat]

        result = await other.act(pb.ACTION_KIND_CALL)
        assert result.code == grpc.StatusCode.FAILED_PRECONDITION.value[0] and "turn" in result.message
        result = await actor.act(pb.ACTION_KIND_CHECK, action_id="x")  # STUD-3: must bring in
        assert result.code == grpc.StatusCode.FAILED_PRECONDITION.value[0] and "bring in" in result.message
        result = await actor.act(pb.ACTION_KIND_TIMEOUT)
        assert result.code == grpc.StatusCode.INVALID_ARGUMENT.value[0] and "kind" in result.message

        before = len(actor.of("acted"))
        ok = await actor.act(pb.ACTION_KIND_BRING_IN, 2, action_id="bring")
        assert ok.code == 0
        await actor.until(lambda: len(actor.of("acted")) == before + 1)
        del actor.results["bring"]
        again = await actor.act(pb.ACTION_KIND_BRING_IN, 2, action_id="bring")  # a retry
        assert again == ok
        request = pb.ActRequest(
            table_id="t", seat=actor.seat, action_id="bring", kind=pb.ACTION_KIND_BRING_IN, amount=2
        )
        assert await stub.Act(request, metadata=token(tokens[actor.seat])) == ok  # same answer, unary
        assert len(actor.of("acted")) == before + 1, "applied once"

        # Unary Act: errors are call statuses.
        late = pb.ActRequest(table_id="t", seat=actor.seat, action_id="late", kind=pb.ACTION_KIND_CALL)
        code, _ = await code_of(stub.Act(late, metadata=token(tokens[actor.seat])))
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        code, _ = await code_of(stub.Act(late, metadata=token(tokens[other.seat])))
        assert code == grpc.StatusCode.PERMISSION_DENIED
        for stream in streams.values():
            await stream.close()


@run_async
async def test_a_retry_gets_its_first_answer_while_among_the_seats_last_ids() -> None:
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=11))
        streams = open_streams(stub, "t", await seat_players(stub, "t", 2))
        actor = await first_to_act(streams)
        refused = grpc.StatusCode.FAILED_PRECONDITION.value[0]
        ok = await actor.act(pb.ACTION_KIND_BRING_IN, 2, action_id="bring")
        assert ok.code == 0
        acted = len(actor.of("acted"))
        for k in range(RESULT_CACHE - 1):  # the other player's turn now: each refused, and remembered
            assert (await actor.act(pb.ACTION_KIND_CALL, action_id=f"late-{k}")).code == refused
        del actor.results["bring"]
        assert await actor.act(pb.ACTION_KIND_BRING_IN, 2, action_id="bring") == ok  # among the last 16
        assert (await actor.act(pb.ACTION_KIND_CALL, action_id="one-more")).code == refused
        del actor.results["bring"]
        anew = await actor.act(pb.ACTION_KIND_BRING_IN, 2, action_id="bring")  # forgotten: a new action
        assert anew.code == refused and "turn" in anew.message, anew
        await actor.ping(1)
        assert len(actor.of("acted")) == acted, "the bring-in was applied once"
        for stream in streams.values():
            await stream.close()


@run_async
async def test_play_stream_hello_errors() -> None:
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options()))
        tokens = await seat_players(stub, "t", 2)
        cases = [
            (Stream(stub, "t", 1), grpc.StatusCode.UNAUTHENTICATED),
            (Stream(stub, "t", 2, tokens[1]), grpc.StatusCode.PERMISSION_DENIED),
            (Stream(stub, "nope"), grpc.StatusCode.NOT_FOUND),
            (Stream(stub, "t", 1, tokens[1], resume_after=10**6), grpc.StatusCode.OUT_OF_RANGE),
        ]
        for stream, code in cases:
            await stream.until_end()
            assert stream.error is not None and stream.error.code() == code, (code, stream.error)

        call = stub.Play()
        await call.write(pb.ClientMessage(ping=pb.Ping(nonce=1)))
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call.read()
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "hello" in (
            info.value.details() or ""
        )

        spectator = Stream(stub, "t")
        result = await spectator.act(pb.ACTION_KIND_FOLD)
        assert result.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
        await spectator.close()


@run_async
async def test_a_newer_stream_replaces_the_seats_old_one() -> None:
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options()))
        tokens = await seat_players(stub, "t", 1)
        old = Stream(stub, "t", 1, tokens[1])
        await old.until(lambda: old.welcome is not None)
        new = Stream(stub, "t", 1, tokens[1])
        await old.until_end()
        assert old.error is not None and old.error.code() == grpc.StatusCode.ABORTED
        await new.until(lambda: new.welcome is not None)
        await new.close()


@run_async
async def test_resume_from_seq_replays_without_gaps() -> None:
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=5))
        tokens = await seat_players(stub, "t", 2)
        streams = open_streams(stub, "t", tokens)
        actor = await first_to_act(streams)
        other = streams[3 - actor.seat]
        await other.until(lambda: bool(other.events) and other.events[-1].seq == actor.events[-1].seq)
        seen = other.events[-1].seq
        before_deal = min(e.seq for e in other.events if e.HasField("cards_dealt")) - 1
        await other.close()  # disconnect; the hand goes on without this stream
        await actor.play_turn()
        last = actor.events[-1].seq
        assert last > seen
        back = Stream(stub, "t", other.seat, tokens[other.seat], resume_after=seen)
        await back.until(lambda: bool(back.events) and back.events[-1].seq >= last)
        assert back.welcome is not None and not back.welcome.gap
        assert [e.seq for e in back.events][: last - seen] == list(range(seen + 1, last + 1))
        await back.close()
        # Resumed from before the deal, its own down cards come back visible.
        again = Stream(stub, "t", other.seat, tokens[other.seat], resume_after=before_deal)
        await again.until(lambda: bool(again.events) and again.events[-1].seq >= last)
        own = [d for d in again.of("cards_dealt") if d.seat == other.seat]
        assert own and all(HIDDEN not in d.down for d in own)
        await again.close()
        await actor.close()


@run_async
async def test_action_clock_times_out_and_sits_the_player_out() -> None:
    """CLOCK-1/2/3: nobody acts; the clock acts for them and they sit out after the hand. Every
    event, the engine's and the table's (SeatChanged) alike, carries when the server published it."""
    began_us = time.time_ns() // 1000
    async with serving() as (server, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(clock_seconds=0.05)))
        spectator = Stream(stub, "t")
        await seat_players(stub, "t", 2)

        def sat_out() -> bool:
            return any(c.seat.status == pb.SEAT_STATUS_SITTING_OUT for c in spectator.of("seat_changed"))

        await spectator.until(sat_out)
        outcomes = {t.outcome for t in spectator.of("timed_out")}
        assert pb.TIMEOUT_OUTCOME_BRING_IN in outcomes  # the bring-in is posted for a player who times out
        assert "hand_ended" in spectator.kinds()
        assert exported(server, "tablestorm_timeouts_total", outcome="bring_in") >= 1
        stamps = [e.server_time_us for e in spectator.events]
        assert began_us <= stamps[0] and stamps == sorted(stamps) and stamps[-1] <= time.time_ns() // 1000
        assert spectator.of("seat_changed") and all(e.server_time_us for e in spectator.events)
        await spectator.close()


@run_async
async def test_history_shows_own_cards_only() -> None:
    """SHOW-4: the seat's hands as it saw them."""
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=9))
        tokens = await seat_players(stub, "t", 2)
        streams = open_streams(stub, "t", tokens)
        await play_to_a_fold(streams, aggressor=1)  # seat 2 folds: its cards are never shown
        history = await stub.GetHistory(pb.SeatRequest(table_id="t", seat=1), metadata=token(tokens[1]))
        assert [h.hand_number for h in history.hands] == [1]
        assert {e.server_time_us for e in history.hands[0].events} == {0}, "a history's events are not stamped"
        dealt = [e.cards_dealt for e in history.hands[0].events if e.HasField("cards_dealt")]
        assert all(HIDDEN not in d.down for d in dealt if d.seat == 1)
        shown = {e.hand_shown.seat for e in history.hands[0].events if e.HasField("hand_shown")}
        others = [d for d in dealt if d.seat != 1 and d.seat not in shown]
        assert others and all(all(c == HIDDEN for c in d.down) for d in others)
        for stream in streams.values():
            await stream.close()


@run_async
async def test_reproducible_deals_from_a_seed() -> None:
    """TABLE-2: the same seed and table id deal the same cards."""

    async def first_up_cards() -> list[tuple[int, ...]]:
        async with serving() as (_, stub):
            await stub.CreateTable(pb.CreateTableRequest(table_id="same", options=stud_options(), seed=42))
            spectator = Stream(stub, "same")
            await seat_players(stub, "same", 2)
            await spectator.until(lambda: len(spectator.of("cards_dealt")) >= 2)
            await spectator.close()
            return [tuple(d.up) for d in spectator.of("cards_dealt")[:2]]

    assert await first_up_cards() == await first_up_cards()


# ----------------------------------------------------------------- limits, shutdown, metrics


@run_async
async def test_a_subscriber_that_stops_reading_is_disconnected() -> None:
    async with serving(outbox_limit_bytes=4096, hand_pause_seconds=0) as (server, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=1))
        slow = narrow_channel(server.port)  # a spectator who never reads
        stalled = rpc.TableServiceStub(slow).Play()
        await stalled.write(pb.ClientMessage(hello=pb.Hello(table_id="t")))
        tokens = await seat_players(stub, "t", 2)
        streams = open_streams(stub, "t", tokens)
        hand = 1
        while exported(server, "tablestorm_stream_overflows_total") == 0:
            assert hand < 400, "the stalled stream was never disconnected"
            await play_hand(streams, hand)
            hand += 1
        with pytest.raises(grpc.aio.AioRpcError) as info:
            while await stalled.read() is not grpc.aio.EOF:
                pass
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        for stream in streams.values():
            await stream.close()
        await slow.close()


@run_async
async def test_shutdown_voids_unfinished_hands_with_exact_refund() -> None:
    async with serving() as (server, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options()))
        tokens = await seat_players(stub, "t", 3)
        streams = open_streams(stub, "t", tokens)
        watcher = streams[1]
        actor = await first_to_act(streams)
        await actor.play_turn()  # chips go in: the bring-in
        started = watcher.of("hand_started")[0]

        report = await server.stop(drain_seconds=0.05)
        assert report.voided == 1
        await watcher.until_end()
        voided = watcher.of("hand_voided")
        assert voided and list(voided[0].stacks) == list(started.stacks)  # exact refund
        assert watcher.error is not None and watcher.error.code() == grpc.StatusCode.UNAVAILABLE
        assert exported(server, "tablestorm_chip_conservation_violations_total") == 0
        for stream in streams.values():
            await stream.close()


@run_async
async def test_shutdown_refunds_a_hand_deep_in_play_exactly() -> None:
    """The second hand (stacks no longer the buy-ins) stopped on fifth street with chips in on
    two streets and a folded player's chips in the pot: voided, every player gets back exactly
    the stack it started that hand with, which is also what the ledger recorded before the deal."""
    ledger = GateLedger()
    async with serving(ledger=ledger) as (server, stub):
        tokens, streams, spectator = await seated_table(stub, ledger, "v", stud_options(clock_seconds=60), 6, 3)
        await play_hand(streams, 1)
        script = [
            (pb.ACTION_KIND_BRING_IN,),
            (pb.ACTION_KIND_COMPLETE,),
            (pb.ACTION_KIND_CALL,),
            (pb.ACTION_KIND_FOLD,),  # the bring-in folds to the completion: its chips stay in the pot
            (pb.ACTION_KIND_BET,),  # fourth street
            (pb.ACTION_KIND_CALL,),
        ]

        def to_act() -> Stream | None:
            return next((s for s in streams.values() if s.turn is not None and s.turn.hand_number == 2), None)

        for kinds in script:
            await spectator.until(lambda: to_act() is not None)
            stream = to_act()
            assert stream is not None and stream.turn is not None
            legal = {a.kind: a for a in stream.turn.legal}
            kind = next((k for k in kinds if k in legal), None)
            assert kind is not None, (kinds, stream.turn)
            assert (await stream.act(kind, legal[kind].min)).code == 0
            if kind == pb.ACTION_KIND_FOLD:
                # Folded, but its bring-in is in the pot: it may leave only once the hand is over,
                # or a void could not give that back.
                leave = pb.SeatRequest(table_id="v", seat=stream.seat)
                code, details = await code_of(stub.StandUp(leave, metadata=token(tokens[stream.seat])))
                assert code == grpc.StatusCode.FAILED_PRECONDITION and "folded" in details
        await spectator.until(lambda: to_act() is not None)  # fifth street: a turn is pending
        started = spectator.of("hand_started")[1]
        ended = spectator.of("hand_ended")[0]
        assert list(started.stacks) == list(ended.stacks) != [800, 800, 800]
        assert sum(e.acted.added for e in hand_events(spectator.events, 2) if e.HasField("acted")) > 0

        report = await server.stop(drain_seconds=0.05)
        assert (report.finished, report.voided) == (0, 1)
        await spectator.until_end()
        voided = spectator.of("hand_voided")
        assert len(voided) == 1 and voided[0].reason
        assert list(voided[0].seats) == list(started.seats) and list(voided[0].stacks) == list(started.stacks)
        assert server.host is not None
        table = server.host.tables["v"].table
        refunded = [table.seats[s - 1] for s in started.seats]
        assert [seat.stack if seat else None for seat in refunded] == list(started.stacks)
        assert table.total_chips() == 3 * 800
        hand_started = ledger.of("v", "hand_started")[-1]
        assert hand_started.hand_number == 2
        assert [s.stack for s in hand_started.seats] == list(started.stacks)
        last = [e for e in ledger.entries if e.table_id == "v"][-1]
        assert last.kind == "hand_ended" and [s.stack for s in last.seats] == list(started.stacks)
        assert exported(server, "tablestorm_hands_voided_total") == 1
        assert exported(server, "tablestorm_chip_conservation_violations_total") == 0
        for stream in [spectator, *streams.values()]:
            await stream.until_end()
            assert stream.error is not None and stream.error.code() == grpc.StatusCode.UNAVAILABLE


@run_async
async def test_shutdown_lets_a_running_hand_finish_before_the_deadline() -> None:
    async with serving() as (server, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=2))
        tokens = await seat_players(stub, "t", 2)
        streams = open_streams(stub, "t", tokens)
        await streams[1].until(lambda: any(s.turn is not None for s in streams.values()))
        stopping = asyncio.ensure_future(server.stop(drain_seconds=30))
        code, _ = await code_of(stub.SitDown(pb.SitDownRequest(table_id="t", seat=5, player_id="late")))
        assert code == grpc.StatusCode.UNAVAILABLE
        await play_hand(streams, 1)
        report = await stopping
        assert (report.finished, report.voided) == (1, 0)
        assert not any(s.of("hand_started")[-1] != s.of("hand_started")[0] for s in streams.values())
        for stream in streams.values():
            await stream.close()


@run_async
async def test_metrics_endpoint_exports_the_service_metrics() -> None:
    async with serving(metrics_http=True) as (server, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options()))
        await code_of(stub.GetTable(pb.GetTableRequest(table_id="missing")))
        url = f"http://127.0.0.1:{server.metrics_port}/metrics"
        text = (await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read())).decode()
        for name in (
            "tablestorm_hands_completed_total",
            "tablestorm_actions_total",
            "tablestorm_action_processing_seconds",
            "tablestorm_timeouts_total",
            "tablestorm_side_pots_total",
            "tablestorm_raise_caps_total",
            'tablestorm_tables_live{game="7stud"} 1.0',
            "tablestorm_seats_live",
            "tablestorm_stream_messages_total",
            "tablestorm_chip_conservation_violations_total",
            'tablestorm_grpc_requests_total{code="OK",method="CreateTable"} 1.0',
            'tablestorm_grpc_requests_total{code="NOT_FOUND",method="GetTable"} 1.0',
        ):
            assert name in text, name
