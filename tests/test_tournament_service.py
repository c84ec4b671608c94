"""The tournament service against real servers on 127.0.0.1: whole tournaments played by clients
that know only the protos.

Each test starts table servers and a tournament server given them, and plays tournaments with the
``Bot`` clients of ``support.tournaments``. Nothing waits on a sleep: tests wait on the bots'
streams and the driver's ``idle`` event, with timeouts. Rules cited: TOURN-2 (seats drawn),
TOURN-3/4 (breaking, balancing: players moved), TOURN-6/9 (finishing order and prizes), TOURN-10
(rebuys, add-on, late registration, re-entry), TOURN-11 (chips conserved).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import grpc
import pytest
from support.calls import assert_every_rpc_served, code_of
from support.running import run_async
from support.tournaments import (
    TIMEOUT,
    Bot,
    Servers,
    bots,
    check_finished,
    create,
    fast_structure,
    operator,
    play_to_the_end,
    player,
    standings,
    started,
    tournament_servers,
    until,
)

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.api import tournament_pb2_grpc as trpc

# ----------------------------------------------------------------- chips, counted while it plays


async def chips_in_play(servers: Servers, tournament_id: str) -> int:
    return sum(s.stack for s in await standings(servers, tournament_id))


async def chips_at_tables(servers: Servers, tournament_id: str) -> int:
    """Every chip at the tournament's tables, read from the table servers (GetTable)."""
    total = 0
    for server in servers.tables:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = rpc.TableServiceStub(channel)
            listed = await stub.ListTables(pb.ListTablesRequest(page_size=1000))
            for summary in listed.tables:
                if summary.table_id.startswith(f"{tournament_id}.") and summary.kind == pb.TABLE_KIND_TOURNAMENT:
                    state = await stub.GetTable(pb.GetTableRequest(table_id=summary.table_id))
                    assert not state.hand_running
                    total += sum(seat.stack for seat in state.seats)
    return total


async def quiet_chip_count(servers: Servers, tournament_id: str, expected: int) -> None:
    """Pause, wait until no hand runs and the director is idle, and count the chips at the tables
    (GetTable) and in the standings; then resume. With no hand running nobody is in transit (a
    draw player moved to a dealing table is seated when its hand ends)."""
    request = tpb.TournamentRequest(tournament_id=tournament_id)
    paused = await servers.stub.Pause(request, metadata=operator())
    assert paused.status == tpb.TOURNAMENT_STATUS_PAUSED
    live = servers.lobby.tournament(tournament_id)
    await asyncio.wait_for(live.idle.wait(), TIMEOUT)
    if not live.director.finished:
        assert await chips_at_tables(servers, tournament_id) == await chips_in_play(servers, tournament_id) == expected
        resumed = await servers.stub.Resume(request, metadata=operator())
        assert resumed.status == tpb.TOURNAMENT_STATUS_RUNNING


async def follow_the_chips(servers: Servers, tournament_id: str, watcher: Bot, expected: int) -> None:
    """TOURN-11 throughout: at each elimination the standings hold every chip; after the third,
    a pause, and the chips at the tables (GetTable) too."""
    changed = watcher.changed
    checked = 0
    while not watcher.of("finished"):
        await until(changed, lambda seen=checked: bool(watcher.of("finished")) or len(watcher.of("eliminated")) > seen)
        checked = len(watcher.of("eliminated"))
        assert await chips_in_play(servers, tournament_id) == expected, (tournament_id, checked)
        if checked >= 3 and not watcher.of("paused"):
            await quiet_chip_count(servers, tournament_id, expected)



# ----------------------------------------------------------------- whole tournaments


@run_async
async def test_a_stud_and_a_draw_mtt_play_to_a_winner_with_every_chip_conserved() -> None:  # TOURN-11
    """Two tournaments at once on two table servers: 30 entrants of stud (8-max: four tables) and
    24 of the draw game (5-max: five tables), played down to one winner each."""
    async with tournament_servers(tables=2) as servers:
        fields = {"7stud": (30, 8), "7a5draw": (24, 5)}
        runs = {}
        for game, (entrants, _) in fields.items():
            await create(servers, game, fast_structure(game), seed=len(game))
            players, channels = bots(servers, entrants, seed=entrants, prefix=f"{game}-")
            for bot in players:
                await bot.register(game)
            runs[game] = (players, channels)
        for game in fields:
            started = await servers.stub.Start(tpb.TournamentRequest(tournament_id=game), metadata=operator())
            assert started.status == tpb.TOURNAMENT_STATUS_RUNNING
        watching = {game: await play_to_the_end(servers, game, players) for game, (players, _) in runs.items()}

        for game, (entrants, seats) in fields.items():
            players, channels = runs[game]
            expected = entrants * 200
            await follow_the_chips(servers, game, players[0], expected)
            await asyncio.wait_for(asyncio.gather(*watching[game]), TIMEOUT)
            await check_finished(servers, game, players, expected)
            started = players[0].of("started")[0]
            assert started.entries == entrants and started.tables == -(-entrants // seats)  # TOURN-2
            assert players[0].of("moved"), game  # TOURN-3/4: tables broke and balanced
            for bot in players:  # a bot learned every seat it had from its own stream
                seated = [e for e in bot.of("seated") if e.entry_id == bot.entry_id]
                moved = [e for e in bot.of("moved") if e.entry_id == bot.entry_id]
                assert [(s.table_id, s.seat) for s in bot.seats] == [
                    (e.table_id, e.seat) for e in seated
                ] + [(e.to_table, e.to_seat) for e in moved]
                assert all(code == grpc.StatusCode.OK for _, code in bot.seat_ends), bot.seat_ends
            await channels.close()
        for server in servers.tables:
            assert server.host is not None and not server.host.tables  # every table closed at the end


@run_async
async def test_every_rpc_of_the_tournament_proto_is_served() -> None:
    async with tournament_servers(tables=1) as servers:
        await assert_every_rpc_served(servers.tournaments.port, tpb.DESCRIPTOR.services_by_name["TournamentService"])


@run_async
async def test_a_sit_and_go_starts_when_full_and_plays_to_a_winner() -> None:
    async with tournament_servers(tables=1) as servers:
        await create(servers, "sng", fast_structure("5stud", max_entrants=6), seed=3)
        players, channels = bots(servers, 7, seed=6)
        for bot in players[:5]:
            reply = await bot.register("sng")
            assert reply.tournament.status == tpb.TOURNAMENT_STATUS_REGISTERING
        sixth = await players[5].register("sng")
        assert sixth.tournament.status == tpb.TOURNAMENT_STATUS_RUNNING and sixth.tournament.tables == 1
        code, details = await code_of(players[6].register("sng"))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "full" in details
        sng = tpb.TournamentRequest(tournament_id="sng")
        code, details = await code_of(servers.stub.Start(sng, metadata=operator()))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "already started" in details
        watching = await play_to_the_end(servers, "sng", players[:6])
        await asyncio.wait_for(asyncio.gather(*watching), TIMEOUT)
        await check_finished(servers, "sng", players[:6], 6 * 200)
        await channels.close()
        await check_watch_replays("sng", players[0], players[1], servers.stub)


def _concerns(event: tpb.TournamentEvent, player_id: str) -> bool:
    """What a player watching only its own events sees: the tournament's events and its entries'."""
    kind = event.WhichOneof("kind")
    assert kind is not None
    payload = getattr(event, kind)
    fields = payload.DESCRIPTOR.fields_by_name
    if "player_id" in fields:
        return bool(payload.player_id == player_id)
    if "entry_id" in fields:
        return bool(payload.entry_id.rpartition("#")[0] == player_id)
    return True


async def check_watch_replays(tournament_id: str, bot: Bot, other: Bot, stub: trpc.TournamentServiceStub) -> None:
    """Watch after the end replays the record: public events numbered 1..N without a gap, and with
    the player's token, resumed after any seq, exactly what its live stream had from there (its
    SeatAssigned events included, each after the public event it followed); it then ends OK."""
    public = [e async for e in stub.Watch(tpb.WatchRequest(tournament_id=tournament_id))]
    assert [e.seq for e in public] == list(range(1, len(public) + 1))
    assert [e for e in bot.events if not e.HasField("seat_assigned")] == public
    assert bot.of("seat_assigned") and not any(e.HasField("seat_assigned") for e in public)
    for after in (0, public[len(public) // 2].seq, public[-1].seq):
        request = tpb.WatchRequest(tournament_id=tournament_id, player_id=bot.player_id, resume_after_seq=after)
        resumed = [e async for e in stub.Watch(request, metadata=player(bot.token))]
        cut = next((i + 1 for i, e in enumerate(bot.events) if not e.HasField("seat_assigned") and e.seq == after), 0)
        assert resumed == bot.events[cut:], after
    own = tpb.WatchRequest(tournament_id=tournament_id, player_id=bot.player_id, own_only=True)
    mine = [e async for e in stub.Watch(own, metadata=player(bot.token))]
    assert mine == [e for e in bot.events if _concerns(e, bot.player_id)]
    assert len(mine) < len(bot.events) and all(e.HasField("seat_assigned") or e in public for e in mine)
    theirs = tpb.WatchRequest(tournament_id=tournament_id, player_id=bot.player_id)

    async def read() -> None:
        async for _ in stub.Watch(theirs, metadata=player(other.token)):
            pass

    code, _ = await code_of(read())
    assert code == grpc.StatusCode.PERMISSION_DENIED  # another player's SeatAssigned stay its own


def late_structure() -> tpb.TournamentStructure:
    """24 chips against bets of 2/4 from the first level (busts come at once), two-second levels,
    late registration and one re-entry to the end of play level 3."""
    structure = fast_structure("7stud", level_s=2.0, starting_stack=24, seats=6)
    structure.late_registration.until_level = 3
    structure.reentry.max_entries = 2
    return structure


@run_async
async def test_late_registration_and_re_entry_through_the_rpcs() -> None:  # TOURN-10
    async with tournament_servers(tables=2) as servers:
        players, channels, watching = await started(servers, "late", late_structure(), entrants=8, seed=11, spare=1)
        watcher, late = players[0], players[8]
        changed = watcher.changed

        entered = await late.register("late")  # a full stack and a drawn seat (TOURN-2)
        assert entered.tournament.late_registration_open and entered.entry_id == f"{late.player_id}#1"
        watching.append(asyncio.ensure_future(late.watch("late")))
        def seated_late() -> bool:
            return any(e.entry_id == late.entry_id and e.reason == "late" for e in watcher.of("seated"))

        await until(changed, seated_late)
        await until(changed, lambda: bool(late.seats))  # its own stream told it where

        # The first player out comes back, with its own token, while registration is open.
        await until(changed, lambda: bool(watcher.of("eliminated")))
        out = watcher.of("eliminated")[0]
        assert out.place == 0  # not final while late registration is open (TOURN-6)
        comeback = next(bot for bot in players if bot.player_id == out.player_id)
        stranger = tpb.RegisterRequest(tournament_id="late", player_id=out.player_id)
        code, _ = await code_of(servers.stub.Register(stranger))
        assert code == grpc.StatusCode.UNAUTHENTICATED  # only the player itself re-enters
        again = await comeback.register("late")
        assert again.entry_id == f"{comeback.player_id}#2" and again.player_token == comeback.token
        await until(changed, lambda: any(
            r.entry_id == again.entry_id and r.reentry for r in watcher.of("registered")
        ) and any(s.entry_id == again.entry_id and s.reason == "reentry" for s in watcher.of("seated")))

        await asyncio.wait_for(asyncio.gather(*watching), TIMEOUT)
        assert watcher.of("late_registration_closed")[0].entries == len(watcher.of("registered"))
        await check_finished(servers, "late", players, 24 * len(watcher.of("registered")))  # TOURN-11
        payouts = await servers.stub.GetPayouts(tpb.TournamentRequest(tournament_id="late"))
        first_out = next(p for p in payouts.finishing_order if p.entry_id == out.entry_id)
        assert first_out.place >= 2  # the old entry's place stands
        await channels.close()


def rebuy_structure() -> tpb.TournamentStructure:
    """200 chips, a two-second first level with late registration and rebuys (at any stack, up
    to two), then the add-on of 300 chips in a three-second break (no hand is dealt in it)."""
    structure = fast_structure("7stud", level_s=2.0, seats=6)
    structure.levels.insert(1, tpb.Level(break_s=3.0))
    structure.late_registration.until_level = 1
    structure.rebuys.CopyFrom(tpb.Rebuys(until_level=1, threshold=1 << 40, max_per_player=2))  # stack, cost: defaults
    structure.add_on.CopyFrom(tpb.AddOn(after_level=1, stack=300))
    return structure


@run_async
async def test_rebuys_and_the_add_on_through_the_rpcs() -> None:  # TOURN-10
    async with tournament_servers(tables=2) as servers:
        players, channels, watching = await started(servers, "r", rebuy_structure(), entrants=8, seed=12, spare=1)
        watcher, spare = players[0], players[8]
        changed = watcher.changed

        request = tpb.PlayerRequest(tournament_id="r", player_id=watcher.player_id)
        state = await servers.stub.Rebuy(request, metadata=player(watcher.token))
        assert state.prize_pool == 10 * 8 + 10  # paid now; the chips come between its hands (TDA 27)
        await until(changed, lambda: any(r.entry_id == watcher.entry_id for r in watcher.of("rebuy")))
        rebuy = next(r for r in watcher.of("rebuy") if r.entry_id == watcher.entry_id)
        assert (rebuy.chips, rebuy.cost) == (200, 10)

        await until(changed, lambda: any(w.open for w in watcher.of("add_on_window")))
        code, details = await code_of(spare.register("r"))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "registration is closed" in details
        alive = next(s for s in await standings(servers, "r") if s.stack > 0)
        taker = next(bot for bot in players if bot.player_id == alive.player_id)
        request = tpb.PlayerRequest(tournament_id="r", player_id=taker.player_id)
        await servers.stub.AddOn(request, metadata=player(taker.token))
        code, details = await code_of(servers.stub.AddOn(request, metadata=player(taker.token)))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "has taken the add-on" in details
        code, details = await code_of(servers.stub.Rebuy(request, metadata=player(taker.token)))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "rebuy period is over" in details
        await until(changed, lambda: any(a.entry_id == alive.entry_id for a in watcher.of("add_on")))
        add_on = next(a for a in watcher.of("add_on") if a.entry_id == alive.entry_id)
        assert (add_on.chips, add_on.cost) == (300, 10)

        await asyncio.wait_for(asyncio.gather(*watching), TIMEOUT)
        rebuys, add_ons = watcher.of("rebuy"), watcher.of("add_on")
        expected = 200 * 8 + sum(r.chips for r in rebuys) + sum(a.chips for a in add_ons)  # TOURN-11
        await check_finished(servers, "r", players[:8], expected)
        payouts = await servers.stub.GetPayouts(tpb.TournamentRequest(tournament_id="r"))
        assert payouts.prize_pool == 10 * (8 + len(rebuys) + len(add_ons))
        await channels.close()


@pytest.mark.slow
@functools.partial(run_async, timeout=600)
async def test_a_120_entrant_stud_mtt_on_three_table_servers() -> None:  # TOURN-2..6, TOURN-11
    """Fifteen 8-max tables spread over three servers, broken and balanced down to one winner."""
    async with tournament_servers(tables=3) as servers:
        players, channels, watching = await started(
            servers, "big", fast_structure("7stud", level_s=3.0), entrants=120, seed=120
        )
        placed = [len(s.host.tables) for s in servers.tables if s.host is not None]
        assert sorted(placed) == [5, 5, 5]  # least loaded first
        await follow_the_chips(servers, "big", players[0], 120 * 200)
        await asyncio.wait_for(asyncio.gather(*watching), 600)
        await check_finished(servers, "big", players, 120 * 200)
        assert players[0].of("hand_for_hand")  # TOURN-5 on the bubble, with tables to wait for
        await channels.close()


# ----------------------------------------------------------------- refusals


def _without(structure: tpb.TournamentStructure, **changes: Any) -> tpb.TournamentStructure:
    copy = tpb.TournamentStructure()
    copy.CopyFrom(structure)
    for name, value in changes.items():
        if isinstance(value, list):
            del getattr(copy, name)[:]
            getattr(copy, name).extend(value)
        elif hasattr(value, "DESCRIPTOR"):
            getattr(copy, name).CopyFrom(value)
        else:
            setattr(copy, name, value)
    return copy


STRUCTURE_CASES = {
    "structure.game": {"game": "holdem"},
    "structure.betting": {"betting": 2},  # pot limit is the draw game's only
    "structure.seats": {"seats": 9},
    "structure.starting_stack": {"starting_stack": 0},
    "structure.clock_seconds": {"clock_seconds": 7200.0},
    "structure.max_entrants": {"max_entrants": 1},
    "structure.levels": {"levels": []},
    "structure.levels[0].stakes.small_bet": {"levels": [tpb.Level(duration_s=5, stakes=pb.Stakes(bring_in=1))]},
    "structure.levels[0].stakes": {"levels": [tpb.Level(duration_s=5)]},
    "structure.levels[0].duration_s": {
        "levels": [tpb.Level(duration_s=-1, stakes=pb.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4))]
    },
    "structure.levels[1]": {"levels": [
        tpb.Level(duration_s=5, stakes=pb.Stakes(ante=1, bring_in=1, small_bet=2, big_bet=4)),
        tpb.Level(duration_s=5, break_s=5),
    ]},
    "structure.late_registration.until_level": {"late_registration": tpb.LateRegistration(until_level=99)},
    "structure.reentry.max_entries": {"reentry": tpb.Reentry(max_entries=2)},  # without late registration
    "structure.rebuys.until_level": {"rebuys": tpb.Rebuys(until_level=0)},
    "structure.add_on.after_level": {"add_on": tpb.AddOn(after_level=30)},
    "structure.payouts.table": {"payouts": tpb.Payouts(table=[60, 50])},
    "structure.payouts.percent_paid": {"payouts": tpb.Payouts(percent_paid=120)},
}


@run_async
async def test_every_rpc_refuses_with_the_code_and_the_field_and_changes_nothing() -> None:
    async with tournament_servers(tables=1) as servers:
        stub, structure = servers.stub, fast_structure()
        create_request = tpb.CreateTournamentRequest(tournament_id="t", structure=structure)
        code, details = await code_of(stub.CreateTournament(create_request))
        assert code == grpc.StatusCode.UNAUTHENTICATED and "x-operator-token" in details
        code, _ = await code_of(stub.CreateTournament(create_request, metadata=(("x-operator-token", "nope"),)))
        assert code == grpc.StatusCode.PERMISSION_DENIED
        for field_path, changes in STRUCTURE_CASES.items():
            request = tpb.CreateTournamentRequest(tournament_id="t", structure=_without(structure, **changes))
            code, details = await code_of(stub.CreateTournament(request, metadata=operator()))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith(field_path), (field_path, details)
        for bad in ("has space", "x" * 49, "a/b"):
            request = tpb.CreateTournamentRequest(tournament_id=bad, structure=structure)
            code, details = await code_of(stub.CreateTournament(request, metadata=operator()))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("tournament_id"), bad
        code, details = await code_of(stub.CreateTournament(tpb.CreateTournamentRequest(), metadata=operator()))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("structure")
        assert (await stub.ListTournaments(tpb.ListTournamentsRequest())).tournaments == []  # nothing was made

        created = await stub.CreateTournament(tpb.CreateTournamentRequest(structure=structure), metadata=operator())
        assert created.tournament_id.startswith("tn-") and created.status == tpb.TOURNAMENT_STATUS_REGISTERING
        await create(servers, "t", structure)
        code, _ = await code_of(stub.CreateTournament(create_request, metadata=operator()))
        assert code == grpc.StatusCode.ALREADY_EXISTS
        t = tpb.TournamentRequest(tournament_id="t")
        for call in (stub.GetTournament, stub.GetPayouts):
            code, _ = await code_of(call(tpb.TournamentRequest(tournament_id="none")))
            assert code == grpc.StatusCode.NOT_FOUND
            code, details = await code_of(call(tpb.TournamentRequest(tournament_id="")))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("tournament_id")

        for bad in ("", "x" * 57, "tab\there"):
            code, details = await code_of(stub.Register(tpb.RegisterRequest(tournament_id="t", player_id=bad)))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("player_id"), bad
        code, _ = await code_of(stub.Register(tpb.RegisterRequest(tournament_id="none", player_id="a")))
        assert code == grpc.StatusCode.NOT_FOUND
        enter_a = tpb.RegisterRequest(tournament_id="t", player_id="a")
        a = (await stub.Register(enter_a)).player_token
        assert len(a) >= 32  # 192 bits from secrets
        code, _ = await code_of(stub.Register(enter_a))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        code, _ = await code_of(stub.Register(enter_a, metadata=player("x" * 32)))
        assert code == grpc.StatusCode.PERMISSION_DENIED
        code, details = await code_of(stub.Register(enter_a, metadata=player(a)))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and details.startswith("player_id")
        assert "already registered" in details

        code, details = await code_of(stub.Start(t, metadata=operator()))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "at least 2 entries" in details
        for call in (stub.Pause, stub.Resume):
            code, details = await code_of(call(t, metadata=operator()))
            assert code == grpc.StatusCode.FAILED_PRECONDITION and "not" in details
            code, _ = await code_of(call(t))
            assert code == grpc.StatusCode.UNAUTHENTICATED

        mine = tpb.PlayerRequest(tournament_id="t", player_id="a")
        for call, message in ((stub.Rebuy, "no rebuys"), (stub.AddOn, "no add-on")):
            code, _ = await code_of(call(mine))
            assert code == grpc.StatusCode.UNAUTHENTICATED
            code, _ = await code_of(call(tpb.PlayerRequest(tournament_id="t", player_id="b"), metadata=player(a)))
            assert code == grpc.StatusCode.NOT_FOUND  # b never registered
            code, details = await code_of(call(mine, metadata=player(a)))
            assert code == grpc.StatusCode.FAILED_PRECONDITION and ("not running" in details or message in details)
        away = tpb.PlayerAwayRequest(tournament_id="t", player_id="a", away=True)
        code, details = await code_of(stub.SetAway(away, metadata=player(a)))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "not running" in details

        code, details = await code_of(stub.GetStandings(tpb.StandingsRequest(tournament_id="t", page_size=1001)))
        assert code == grpc.StatusCode.INVALID_ARGUMENT and details.startswith("page_size")
        page = await stub.GetStandings(tpb.StandingsRequest(tournament_id="t", offset=5))
        assert page.total == 1 and not page.standings

        async def watch(request: tpb.WatchRequest, metadata: Any = None) -> None:
            async for _ in stub.Watch(request, metadata=metadata):
                pass

        code, _ = await code_of(watch(tpb.WatchRequest(tournament_id="none")))
        assert code == grpc.StatusCode.NOT_FOUND
        code, _ = await code_of(watch(tpb.WatchRequest(tournament_id="t", player_id="a")))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        code, _ = await code_of(watch(tpb.WatchRequest(tournament_id="t", player_id="zz"), player(a)))
        assert code == grpc.StatusCode.NOT_FOUND
        code, details = await code_of(watch(tpb.WatchRequest(tournament_id="t", resume_after_seq=99)))
        assert code == grpc.StatusCode.OUT_OF_RANGE and details.startswith("resume_after_seq")

        code, _ = await code_of(stub.Unregister(mine))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        state = await stub.GetTournament(t)
        assert (state.entries, state.players_left, state.last_seq, state.prize_pool) == (1, 1, 1, 10)
        after = await stub.Unregister(mine, metadata=player(a))
        assert after.entries == 0 and after.last_seq == 2  # Registered, Unregistered
        again = await stub.Register(tpb.RegisterRequest(tournament_id="t", player_id="a"))
        assert again.player_token != a  # a new registration, a new token
        await stub.Register(tpb.RegisterRequest(tournament_id="t", player_id="b"))
        await stub.Start(t, metadata=operator())
        code, details = await code_of(stub.Start(t, metadata=operator()))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "already started" in details
        code, details = await code_of(stub.Unregister(mine, metadata=player(again.player_token)))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "only before the start" in details
        code, details = await code_of(stub.Register(tpb.RegisterRequest(tournament_id="t", player_id="c")))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "registration is closed" in details
