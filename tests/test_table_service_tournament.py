"""Tournament tables on the table service, against a real server on 127.0.0.1.

A tournament table (CreateTable kind TABLE_KIND_TOURNAMENT) belongs to the client holding its
director token: only it seats players (with their chips), removes them, adds chips, marks them
away and deals each hand (DealHand, answered with the hand's HandResult). Rules cited: TOURN-1
(the stakes a hand is dealt with), TOURN-7 (away players dealt in, posting, folded or checked at
once), TOURN-10 (chips added between hands), CLOCK-2 (a timed-out player becomes away), TABLE-2.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from typing import Any

import grpc
from support.calls import code_of
from support.running import run_async
from support.table_replay import Replay, hand_events
from support.table_server import GateLedger, exported, serving, token
from support.table_streams import TIMEOUT, Stream, drive, open_streams, random_policy

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.engine.tournament_table import TournamentTable
from tablestorm.services.table import convert

DIRECTOR = secrets.token_urlsafe(32)
STUD_STAKES = pb.Stakes(ante=1, bring_in=2, small_bet=4, big_bet=8)
DRAW_STAKES = pb.Stakes(ante=1, small_blind=1, big_blind=2, small_bet=2, big_bet=4)
CLOCK = 60.0
"""Long enough that the clock never acts unless a test wants it to."""


def director(secret: str = DIRECTOR) -> tuple[tuple[str, str]]:
    return (("x-director-token", secret),)


def options(game: str = "7stud", clock: float = CLOCK, **fields: Any) -> pb.TableOptions:
    stakes = STUD_STAKES if game != "7a5draw" else DRAW_STAKES
    return pb.TableOptions(game=game, stakes=stakes, clock_seconds=clock, **fields)


async def tournament_table(
    stub: rpc.TableServiceStub, table_id: str, table_options: pb.TableOptions, seed: int | None = None, **fields: Any
) -> pb.TableState:
    request = pb.CreateTableRequest(
        table_id=table_id, options=table_options, kind=pb.TABLE_KIND_TOURNAMENT, director_token=DIRECTOR, **fields
    )
    if seed is not None:
        request.seed = seed
    return await stub.CreateTable(request)


async def seat(
    stub: rpc.TableServiceStub, table_id: str, seat_no: int, player_id: str, stack: int
) -> pb.SitDownResponse:
    request = pb.SeatPlayerRequest(table_id=table_id, seat=seat_no, player_id=player_id, stack=stack)
    return await stub.SeatPlayer(request, metadata=director())


async def seated(stub: rpc.TableServiceStub, table_id: str, stacks: dict[int, int]) -> dict[int, str]:
    """Seat ``p<seat>`` at each seat with its stack; returns the seat tokens."""
    return {s: (await seat(stub, table_id, s, f"p{s}", stack)).seat_token for s, stack in stacks.items()}


def deal(stub: rpc.TableServiceStub, table_id: str, number: int, stakes: pb.Stakes) -> Any:
    return stub.DealHand(pb.DealHandRequest(table_id=table_id, hand_number=number, stakes=stakes), metadata=director())


async def stacks_of(stub: rpc.TableServiceStub, table_id: str) -> dict[int, int]:
    state = await stub.GetTable(pb.GetTableRequest(table_id=table_id))
    return {s.seat: s.stack for s in state.seats if s.player_id}


# ----------------------------------------------------------------- creating, finding, refusing


@run_async
async def test_create_table_names_the_tournament_fields_and_lists_the_kind() -> None:
    async with serving() as (_, stub):
        cases = [
            (pb.CreateTableRequest(table_id="a", options=options(), kind=pb.TABLE_KIND_TOURNAMENT), "director_token"),
            (
                pb.CreateTableRequest(
                    table_id="a", options=options(), kind=pb.TABLE_KIND_TOURNAMENT, director_token="short"
                ),
                "director_token",
            ),
            (pb.CreateTableRequest(table_id="a", options=options(), director_token=DIRECTOR), "director_token"),
            (pb.CreateTableRequest(table_id="a", options=options(), hand_number=4), "hand_number"),
            (pb.CreateTableRequest(table_id="a", options=options(), kind=7), "kind"),  # type: ignore[arg-type]
        ]
        for request, field in cases:
            code, details = await code_of(stub.CreateTable(request))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith(field), (field, details)
        listed = await stub.ListTables(pb.ListTablesRequest())
        assert not listed.tables  # nothing was created

        state = await tournament_table(stub, "t", options(), hand_number=12)
        assert state.kind == pb.TABLE_KIND_TOURNAMENT and state.hand_number == 12 and state.posted_buy_in == 0
        await stub.CreateTable(pb.CreateTableRequest(table_id="c", options=options()))
        kinds = {t.table_id: t.kind for t in (await stub.ListTables(pb.ListTablesRequest())).tables}
        assert kinds == {"c": pb.TABLE_KIND_CASH, "t": pb.TABLE_KIND_TOURNAMENT}
        assert (await stub.GetTable(pb.GetTableRequest(table_id="t"))).kind == pb.TABLE_KIND_TOURNAMENT


@run_async
async def test_director_calls_need_the_tables_director_token() -> None:
    async with serving() as (_, stub):
        await tournament_table(stub, "t", options())
        await stub.CreateTable(pb.CreateTableRequest(table_id="c", options=options()))
        calls = {
            "SeatPlayer": lambda table_id, md: stub.SeatPlayer(
                pb.SeatPlayerRequest(table_id=table_id, seat=1, player_id="a", stack=100), metadata=md
            ),
            "RemovePlayer": lambda table_id, md: stub.RemovePlayer(
                pb.SeatRequest(table_id=table_id, seat=1), metadata=md
            ),
            "AddChips": lambda table_id, md: stub.AddChips(
                pb.AddChipsRequest(table_id=table_id, seat=1, chips=5), metadata=md
            ),
            "SetAway": lambda table_id, md: stub.SetAway(
                pb.SetAwayRequest(table_id=table_id, seat=1, away=True), metadata=md
            ),
            "DealHand": lambda table_id, md: stub.DealHand(
                pb.DealHandRequest(table_id=table_id, hand_number=1, stakes=STUD_STAKES), metadata=md
            ),
        }
        for name, call in calls.items():
            code, details = await code_of(call("t", None))
            assert code == grpc.StatusCode.UNAUTHENTICATED and "x-director-token" in details, name
            code, _ = await code_of(call("t", director(secrets.token_urlsafe(32))))
            assert code == grpc.StatusCode.PERMISSION_DENIED, name
            code, details = await code_of(call("c", director()))
            assert code == grpc.StatusCode.FAILED_PRECONDITION and "cash table" in details, name
            code, _ = await code_of(call("nope", director()))
            assert code == grpc.StatusCode.NOT_FOUND, name
        state = await stub.GetTable(pb.GetTableRequest(table_id="t"))
        assert not any(s.player_id for s in state.seats) and state.hand_number == 0  # nothing happened


@run_async
async def test_seat_player_seats_with_the_chips_given_and_refuses_with_the_field() -> None:
    async with serving() as (_, stub):
        await tournament_table(stub, "t", options())
        first = await seat(stub, "t", 3, "p1#1", 1234)
        assert first.seat.stack == 1234 and first.seat.status == pb.SEAT_STATUS_PLAYING and len(first.seat_token) >= 32
        spectator = Stream(stub, "t", resume_after=first.resume_after_seq)
        await spectator.until(lambda: bool(spectator.of("seat_changed")))
        assert spectator.of("seat_changed")[0].seat == first.seat  # the next event is its SeatChanged
        cases = [
            ((0, "x", 10), grpc.StatusCode.INVALID_ARGUMENT, "seat"),
            ((9, "x", 10), grpc.StatusCode.INVALID_ARGUMENT, "seat"),
            ((1, "", 10), grpc.StatusCode.INVALID_ARGUMENT, "player_id"),
            ((1, "x", 0), grpc.StatusCode.INVALID_ARGUMENT, "stack"),
            ((1, "x", -5), grpc.StatusCode.INVALID_ARGUMENT, "stack"),
            ((1, "x", 1 << 50), grpc.StatusCode.INVALID_ARGUMENT, "stack"),
            ((3, "x", 10), grpc.StatusCode.ALREADY_EXISTS, "seat 3"),
            ((1, "p1#1", 10), grpc.StatusCode.ALREADY_EXISTS, "p1#1"),
        ]
        for (seat_no, player_id, stack), want, field in cases:
            code, details = await code_of(seat(stub, "t", seat_no, player_id, stack))
            assert code == want and field in details, (seat_no, player_id, stack, details)
        assert await stacks_of(stub, "t") == {3: 1234}
        await spectator.close()


@run_async
async def test_the_cash_calls_are_refused_at_a_tournament_table() -> None:
    async with serving() as (_, stub):
        await tournament_table(stub, "t", options())
        reply = await seat(stub, "t", 1, "a", 500)
        code, details = await code_of(stub.SitDown(pb.SitDownRequest(table_id="t", seat=2, player_id="b")))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "tournament table" in details
        for call in (stub.StandUp, stub.Rebuy):
            code, details = await code_of(call(pb.SeatRequest(table_id="t", seat=1), metadata=token(reply.seat_token)))
            assert code == grpc.StatusCode.FAILED_PRECONDITION and "tournament table" in details
        assert await stacks_of(stub, "t") == {1: 500}


# ----------------------------------------------------------------- dealing


@run_async
async def test_a_tournament_table_deals_only_when_told_and_answers_retries() -> None:
    async with serving() as (_, stub):
        await tournament_table(stub, "t", options(), seed=5)
        tokens = await seated(stub, "t", {1: 300, 2: 300})
        for s in tokens:
            await stub.SetAway(pb.SetAwayRequest(table_id="t", seat=s, away=True), metadata=director())
        state = await stub.GetTable(pb.GetTableRequest(table_id="t"))
        assert state.hand_number == 0 and not state.hand_running  # two players, and no deal by itself

        code, details = await code_of(deal(stub, "t", 2, STUD_STAKES))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and details.startswith("hand_number")
        bad = pb.Stakes(ante=1, bring_in=2, small_bet=0, big_bet=8)
        code, details = await code_of(deal(stub, "t", 1, bad))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "stakes.small_bet" in details
        code, details = await code_of(deal(stub, "t", 1, pb.Stakes(small_bet=1 << 50)))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "stakes.small_bet" in details

        first = await deal(stub, "t", 1, STUD_STAKES)  # everyone away: played out at once (TOURN-7)
        assert first.hand_number == 1 and [s.seat for s in first.seats] == [1, 2] and not first.voided
        assert sum(s.end for s in first.seats) == 600 and all(s.away for s in first.seats)
        assert await deal(stub, "t", 1, STUD_STAKES) == first  # a retry after a lost answer
        await stub.AddChips(pb.AddChipsRequest(table_id="t", seat=1, chips=50), metadata=director())
        assert await deal(stub, "t", 1, STUD_STAKES) == first  # the result as it was, not as seats are now
        for number in (0, 3):
            code, details = await code_of(deal(stub, "t", number, STUD_STAKES))
            assert code == grpc.StatusCode.FAILED_PRECONDITION and "hand_number" in details and "next is 2" in details
        higher = pb.Stakes(ante=2, bring_in=3, small_bet=6, big_bet=12)  # TOURN-1: the next level
        second = await deal(stub, "t", 2, higher)
        assert second.hand_number == 2
        in_force = (await stub.GetTable(pb.GetTableRequest(table_id="t"))).options.stakes
        assert in_force == convert.stakes_to_proto(convert.stakes_as_given(higher))

        removed = await stub.RemovePlayer(pb.SeatRequest(table_id="t", seat=2), metadata=director())
        code, details = await code_of(deal(stub, "t", 3, higher))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "two players" in details
        assert sum((await stacks_of(stub, "t")).values()) + removed.chips == 650


@run_async
async def test_away_players_post_and_are_folded_at_once_exact_chips() -> None:  # TOURN-7
    """Draw, three players, seats 2 and 3 away: the button (seat 1) acts first; the small blind
    (seat 2) and the big blind (seat 3) post with their antes at once, and when seat 1 folds the
    away small blind folds on its turn without the clock, so the big blind takes the pot."""
    async with serving() as (_, stub):
        await tournament_table(stub, "t", options("7a5draw"), seed=9)
        tokens = await seated(stub, "t", {1: 100, 2: 100, 3: 100})
        for s in (2, 3):
            await stub.SetAway(pb.SetAwayRequest(table_id="t", seat=s, away=True), metadata=director())
        active = Stream(stub, "t", 1, tokens[1])
        await active.until(lambda: active.welcome is not None)
        result = deal(stub, "t", 1, DRAW_STAKES)
        await active.until(lambda: active.turn is not None)
        forced = [(f.seat, f.kind, f.amount) for f in active.of("forced_bet")]
        assert forced == [
            (1, pb.FORCED_BET_KIND_ANTE, 1),
            (2, pb.FORCED_BET_KIND_ANTE, 1),
            (3, pb.FORCED_BET_KIND_ANTE, 1),
            (2, pb.FORCED_BET_KIND_SMALL_BLIND, 1),
            (3, pb.FORCED_BET_KIND_BIG_BLIND, 2),
        ]
        assert (await active.act(pb.ACTION_KIND_FOLD)).code == 0
        outcome = await result
        assert [(s.seat, s.start, s.end, s.away) for s in outcome.seats] == [
            (1, 100, 99, False),
            (2, 100, 98, True),
            (3, 100, 103, True),
        ]
        events = hand_events(active.events, 1)
        acted = [(e.acted.seat, e.acted.kind) for e in events if e.HasField("acted")]
        assert acted == [(1, pb.ACTION_KIND_FOLD), (2, pb.ACTION_KIND_FOLD)]
        assert not any(e.HasField("timed_out") for e in events)  # nobody waited for a clock
        assert list(outcome.big_blind_order) == [4, 5, 1, 2, 3] and list(outcome.waiting_seats) == []  # TOURN-4
        assert await stacks_of(stub, "t") == {1: 99, 2: 98, 3: 103}
        await active.close()


@run_async
async def test_deal_hand_results_equal_the_engine_replay_of_the_seeded_hands() -> None:  # TABLE-2
    async with serving() as (_, stub):
        stacks = {1: 120, 2: 200, 3: 90, 4: 150}
        table_options = options()
        await tournament_table(stub, "g", table_options, seed=77)
        tokens = await seated(stub, "g", stacks)
        changed = asyncio.Condition()
        spectator = Stream(stub, "g", changed=changed)
        streams = {s: Stream(stub, "g", s, tokens[s], changed=changed) for s in tokens}
        await spectator.until(lambda: all(s.welcome is not None for s in [spectator, *streams.values()]))
        stakes = [STUD_STAKES, pb.Stakes(ante=1, bring_in=3, small_bet=6, big_bet=12)]
        results: list[pb.HandResult] = []

        async def dealer() -> None:
            for number, level in enumerate(stakes, 1):
                results.append(await deal(stub, "g", number, level))

        dealing = asyncio.ensure_future(dealer())
        await drive(streams, spectator, len(stakes), random_policy(random.Random(77)))
        await asyncio.wait_for(dealing, TIMEOUT)

        engine = TournamentTable("g", convert.options_from_proto(table_options), seed=77)
        for s, stack in stacks.items():
            engine.seat_player(s, f"p{s}", stack)
        replay = Replay(engine, engine.start_hand)
        for number, level in enumerate(stakes, 1):
            replay.deal = lambda level=level: engine.start_hand(convert.stakes_as_given(level))
            replay.hand(number, spectator.events, streams)
            assert results[number - 1] == convert.hand_result_to_proto(engine.result()), number
        assert sum(s.end for s in results[-1].seats) == sum(stacks.values())
        for stream in [spectator, *streams.values()]:
            await stream.close()


@run_async
async def test_a_timed_out_player_becomes_away_and_sit_in_brings_it_back() -> None:  # CLOCK-2, TOURN-7
    async with serving() as (_, stub):
        await tournament_table(stub, "t", options("7a5draw", clock=0.2), seed=3)
        tokens = await seated(stub, "t", {1: 100, 2: 100, 3: 100})
        for s in (2, 3):
            await stub.SetAway(pb.SetAwayRequest(table_id="t", seat=s, away=True), metadata=director())
        silent = Stream(stub, "t", 1, tokens[1])
        await silent.until(lambda: silent.welcome is not None)
        first = await deal(stub, "t", 1, DRAW_STAKES)  # seat 1, the button, acts first and lets the clock run
        assert [(s.seat, s.away) for s in first.seats] == [(1, True), (2, True), (3, True)]
        kinds = silent.kinds()
        timed_out, ended = kinds.index("timed_out"), kinds.index("hand_ended")
        announced = kinds.index("seat_changed", timed_out)
        assert announced < ended  # away at once, not after the hand (as CLOCK-3 sits a cash player out)
        assert silent.events[announced].seat_changed.seat.seat == 1
        assert silent.events[announced].seat_changed.seat.status == pb.SEAT_STATUS_SITTING_OUT
        assert [e.timed_out.seat for e in hand_events(silent.events, 1) if e.HasField("timed_out")] == [1]

        second = await deal(stub, "t", 2, DRAW_STAKES)  # all away: folded or checked at once, no clock
        assert not any(e.HasField("timed_out") for e in hand_events(silent.events, 2))
        assert sum(s.end for s in second.seats) == 300

        back = await stub.SitIn(pb.SitInRequest(table_id="t", seat=1), metadata=token(tokens[1]))
        assert back.status == pb.SEAT_STATUS_PLAYING
        assert (await stub.GetTable(pb.GetTableRequest(table_id="t"))).seats[0].status == pb.SEAT_STATUS_PLAYING
        away = await stub.SitOut(pb.SeatRequest(table_id="t", seat=1), metadata=token(tokens[1]))
        assert away.status == pb.SEAT_STATUS_SITTING_OUT
        await silent.close()


# ----------------------------------------------------------------- seats between hands


@run_async
async def test_remove_player_ends_the_stream_ok_and_revokes_the_token() -> None:
    async with serving() as (_, stub):
        await tournament_table(stub, "t", options(), seed=4)
        tokens = await seated(stub, "t", {1: 100, 2: 100, 3: 100})
        streams = open_streams(stub, "t", tokens)
        await streams[1].until(lambda: all(s.welcome is not None for s in streams.values()))
        running = deal(stub, "t", 1, STUD_STAKES)
        await streams[1].until(lambda: any(s.turn is not None for s in streams.values()))
        for s in (1, 2):
            code, details = await code_of(stub.RemovePlayer(pb.SeatRequest(table_id="t", seat=s), metadata=director()))
            assert code == grpc.StatusCode.FAILED_PRECONDITION and "dealt into hand 1" in details
            code, details = await code_of(
                stub.AddChips(pb.AddChipsRequest(table_id="t", seat=s, chips=10), metadata=director())
            )
            assert code == grpc.StatusCode.FAILED_PRECONDITION and "dealt into hand 1" in details
        for s in tokens:
            await stub.SetAway(pb.SetAwayRequest(table_id="t", seat=s, away=True), metadata=director())
        result = await running
        ends = {r.seat: r.end for r in result.seats}

        removed = await stub.RemovePlayer(pb.SeatRequest(table_id="t", seat=2), metadata=director())
        assert removed.chips == ends[2]
        await streams[2].until_end()
        assert streams[2].error is None  # ended OK: moved or out, not failed
        code, _ = await code_of(stub.SitOut(pb.SeatRequest(table_id="t", seat=2), metadata=token(tokens[2])))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        code, details = await code_of(stub.RemovePlayer(pb.SeatRequest(table_id="t", seat=2), metadata=director()))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "empty" in details

        nothing = pb.AddChipsRequest(table_id="t", seat=1, chips=0)
        code, details = await code_of(stub.AddChips(nothing, metadata=director()))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("chips")
        added = await stub.AddChips(pb.AddChipsRequest(table_id="t", seat=1, chips=250), metadata=director())
        assert added.stack == ends[1] + 250  # TOURN-10
        again = await seat(stub, "t", 2, "p9#1", 40)  # the seat is free for another player
        assert again.seat_token != tokens[2]
        assert await stacks_of(stub, "t") == {1: ends[1] + 250, 2: 40, 3: ends[3]}
        for stream in streams.values():
            await stream.close()


@run_async
async def test_close_table_ends_a_tournament_table_with_its_players_after_the_running_hand() -> None:
    async with serving() as (server, stub):
        await tournament_table(stub, "t", options(), seed=2)
        tokens = await seated(stub, "t", {1: 100, 2: 100})
        stream = Stream(stub, "t", 1, tokens[1])
        await stream.until(lambda: stream.welcome is not None)
        running = deal(stub, "t", 1, STUD_STAKES)
        await stream.until(lambda: "hand_started" in stream.kinds())
        closing = await stub.CloseTable(pb.CloseTableRequest(table_id="t"))
        assert not closing.closed and closing.hand_running
        code, _ = await code_of(deal(stub, "t", 2, STUD_STAKES))
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        for s in tokens:
            await stub.SetAway(pb.SetAwayRequest(table_id="t", seat=s, away=True), metadata=director())
        await running  # the hand plays out, then the table goes with its players seated
        await stream.until_end()
        assert stream.error is None
        code, _ = await code_of(stub.GetTable(pb.GetTableRequest(table_id="t")))
        assert code == grpc.StatusCode.NOT_FOUND
        assert exported(server, "tablestorm_seats_live") == 0
        assert exported(server, "tablestorm_tables_by_kind", kind="tournament") == 0

        await tournament_table(stub, "u", options())
        await seated(stub, "u", {1: 100})
        closed = await stub.CloseTable(pb.CloseTableRequest(table_id="u"))
        assert closed.closed and closed.seats_taken == 1  # no hand running: gone at once


@run_async
async def test_shutdown_during_deal_hand_voids_it_with_an_exact_refund() -> None:
    async with serving() as (server, stub):
        await tournament_table(stub, "t", options(), seed=6)
        tokens = await seated(stub, "t", {1: 150, 2: 250, 3: 100})
        changed = asyncio.Condition()
        streams = {s: Stream(stub, "t", s, tokens[s], changed=changed) for s in tokens}
        spectator = Stream(stub, "t", changed=changed)
        await spectator.until(lambda: all(s.welcome is not None for s in [spectator, *streams.values()]))
        running = deal(stub, "t", 1, STUD_STAKES)

        def turn() -> Stream | None:
            return next((s for s in streams.values() if s.turn is not None), None)

        for _ in range(3):  # a few actions in, chips in the pot
            await spectator.until(lambda: turn() is not None)
            actor = turn()
            assert actor is not None
            assert (await actor.play_turn()).code == 0
        await spectator.until(lambda: turn() is not None)
        report = await server.stop(drain_seconds=0.05)
        assert (report.finished, report.voided) == (0, 1)
        code, details = await code_of(running)
        assert code == grpc.StatusCode.UNAVAILABLE and "voided" in details
        await spectator.until_end()
        voided = spectator.of("hand_voided")
        assert len(voided) == 1
        assert list(voided[0].seats) == [1, 2, 3] and list(voided[0].stacks) == [150, 250, 100]
        assert server.host is not None
        assert server.host.tables["t"].table.total_chips() == 500


@run_async
async def test_tournament_tables_write_nothing_to_the_ledger_and_count_by_kind() -> None:
    ledger = GateLedger()
    async with serving(ledger=ledger) as (server, stub):
        await tournament_table(stub, "t", options(), seed=8)
        tokens = await seated(stub, "t", {1: 100, 2: 100})
        for s in tokens:
            await stub.SetAway(pb.SetAwayRequest(table_id="t", seat=s, away=True), metadata=director())
        await deal(stub, "t", 1, STUD_STAKES)
        await stub.RemovePlayer(pb.SeatRequest(table_id="t", seat=1), metadata=director())
        await stub.CloseTable(pb.CloseTableRequest(table_id="t"))
        assert [e for e in ledger.entries if e.table_id == "t"] == []
        await stub.CreateTable(pb.CreateTableRequest(table_id="c", options=options()))
        assert [e.kind for e in ledger.entries if e.table_id == "c"] == ["created"]
        assert exported(server, "tablestorm_hands_by_kind_total", kind="tournament") == 1
        assert exported(server, "tablestorm_tables_by_kind", kind="cash") == 1
        assert exported(server, "tablestorm_tables_by_kind", kind="tournament") == 0
