"""``tablestorm serve-tournaments`` as a process, over ``tablestorm serve`` processes: a table
server killed mid-tournament, and every flag refused before anything starts.

The fault test is the one a room fears: SIGKILL a table server while a hand is running on it. The
tournament goes on: the lost tables are rebuilt on the surviving server with the stacks the
director holds (TOURN-11: the hand is voided, every stack back to its start, a
TournamentHandVoided event), their players reseated (SeatAssigned to the other endpoint), and it
plays to its winner with every chip. Clients are the ``Bot`` of ``support.tournaments``, which
knows only the protos.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import socket
import subprocess
from pathlib import Path

import grpc
import pytest
from support.metrics import scraped
from support.processes import assert_refused, process, stop, tablestorm
from support.running import run_async
from support.tournaments import OPERATOR, TIMEOUT, Bot, Channels, fast_structure, operator, until

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.api import tournament_pb2_grpc as trpc
from tablestorm.services.api.table_service_pb2_grpc import TableServiceStub

THAWED_S = 20.0
"""A thawed server's abandoned tables close within a health check and their hands played out
(about a second): a bound well inside the test's own (run_async's 60 s), so a failure says why."""


@pytest.mark.parametrize(
    "fault", ["kill", "freeze"], ids=["killed-calls-fail-unavailable", "frozen-health-checks-fail"]
)
@run_async
async def test_a_table_server_lost_mid_hand_the_tournament_rebuilds_and_finishes(fault: str, tmp_path: Path) -> None:
    """``kill``: SIGKILL, the running DealHand fails UNAVAILABLE at once. ``freeze``: SIGSTOP, the
    calls hang and the health checks time out; once it is thawed, the tables abandoned there are
    closed (their players' old streams end OK) and the server takes new tables again."""
    token_file = tmp_path / "operator"
    token_file.write_text(OPERATOR + "\n")
    with process("serve", "--port", "0", "--drain-seconds", "0") as (a, a_ports), \
            process("serve", "--port", "0", "--drain-seconds", "0") as (b, b_ports):
        endpoint_a, endpoint_b = f"127.0.0.1:{a_ports['grpc_port']}", f"127.0.0.1:{b_ports['grpc_port']}"
        with process("serve-tournaments", "--tables", f"{endpoint_a},{endpoint_b}", "--port", "0",
                     "--metrics-port", "0", "--operator-token-file", str(token_file), "--drain-seconds", "1") as (
            tournaments, ports
        ):
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{ports['grpc_port']}")
            stub = trpc.TournamentServiceStub(channel)
            structure = fast_structure("7stud", seats=6, clock_seconds=3.0)
            request = tpb.CreateTournamentRequest(tournament_id="f", structure=structure, seed=5)
            await stub.CreateTournament(request, metadata=operator())
            channels, changed = Channels(), asyncio.Condition()
            players = [Bot(f"p{k}", stub, channels, random.Random(k), changed=changed) for k in range(1, 25)]
            for bot in players:
                await bot.register("f")
            await stub.Start(tpb.TournamentRequest(tournament_id="f"), metadata=operator())
            watching = [asyncio.ensure_future(bot.watch("f")) for bot in players]
            await until(changed, lambda: all(bot.seats for bot in players))
            assert {bot.seats[0].endpoint for bot in players} == {endpoint_a, endpoint_b}  # least loaded: both

            # Hold every bot's next turn, wait until a hand at B waits on one, and kill B mid-hand.
            for bot in players:
                bot.acting.clear()
            await until(changed, lambda: any(bot.held_at == endpoint_b for bot in players))
            at_b = {bot.player_id: len(bot.seats) for bot in players if bot.seats[-1].endpoint == endpoint_b}
            if fault == "kill":
                b.kill()
                b.wait()
            else:
                b.send_signal(signal.SIGSTOP)
            for bot in players:
                bot.acting.set()

            watcher = players[0]
            await until(changed, lambda: bool(watcher.of("hand_voided")))
            voided = watcher.of("hand_voided")[0]
            assert voided.table_id.startswith("f.t")
            if fault == "freeze":
                at_b_bots = [bot for bot in players if bot.player_id in at_b]
                await thawed(b, endpoint_b, "f", at_b_bots, changed, tournaments)
            await asyncio.wait_for(asyncio.gather(*watching), TIMEOUT)  # every stream ended: every table closed
            if fault == "freeze":
                assert await tables_at(endpoint_a, "f") == [] and await tables_at(endpoint_b, "f") == []

            standings = await stub.GetStandings(tpb.StandingsRequest(tournament_id="f", page_size=100))
            assert standings.standings[0].stack == 24 * 200  # TOURN-11: the winner holds every chip
            payouts = await stub.GetPayouts(tpb.TournamentRequest(tournament_id="f"))
            assert len(payouts.finishing_order) == 24 and sum(p.prize for p in payouts.finishing_order) == 240
            assert watcher.of("finished")
            moved = [
                bot for bot in players
                if bot.player_id in at_b and any(s.endpoint == endpoint_a for s in bot.seats[at_b[bot.player_id]:])
            ]
            assert moved, "the players of the lost server are reseated on the other one (SeatAssigned)"
            if fault == "kill":
                assert any(code != grpc.StatusCode.OK for bot in moved for _, code in bot.seat_ends)  # it failed

            metrics = scraped(ports["metrics_port"])
            assert metrics[("tablestorm_tournament_tables_lost_total", ())] >= 1
            assert metrics[("tablestorm_tournament_hands_voided_total", (("game", "7stud"),))] >= 1
            down = 1 if fault == "kill" else 0  # a thawed server is up again
            assert metrics[("tablestorm_tournament_table_servers", (("state", "down"),))] == down
            assert metrics[("tablestorm_tournament_eliminations_total", (("game", "7stud"),))] == 23
            assert metrics[("tablestorm_tournament_tournaments", (("status", "finished"),))] == 1
            await channel.close()
            await channels.close()
            logs = [json.loads(line) for line in stop(tournaments).splitlines() if line.strip()]
            assert {"serving", "table server down", "table lost: rebuilding it", "stopped"} <= {e["msg"] for e in logs}
        stop(a)
        if fault == "freeze":
            stop(b)


@run_async
async def test_the_only_table_server_frozen_and_thawed_takes_its_tables_back(tmp_path: Path) -> None:
    """With one table server, a lost table has nowhere to go until the server is back; thawed, the
    tournament plays on there to its winner (TOURN-11). The live driver closes the stale copies
    before it rebuilds (a rebuild meeting its own stale copy, ALREADY_EXISTS, stayed unplaced for
    good: seen once at a 0.25 s clock by the TournamentStalled test); this run does not force that
    race, it holds the scenario around it."""
    token_file = tmp_path / "operator"
    token_file.write_text(OPERATOR + "\n")
    with process("serve", "--port", "0", "--drain-seconds", "0") as (a, a_ports):
        endpoint = f"127.0.0.1:{a_ports['grpc_port']}"
        with process("serve-tournaments", "--tables", endpoint, "--port", "0", "--metrics-port", "0",
                     "--operator-token-file", str(token_file), "--drain-seconds", "1") as (tournaments, ports):
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{ports['grpc_port']}")
            stub = trpc.TournamentServiceStub(channel)
            structure = fast_structure("7stud", seats=6, clock_seconds=3.0)
            await stub.CreateTournament(tpb.CreateTournamentRequest(tournament_id="g", structure=structure, seed=3),
                                        metadata=operator())
            channels, changed = Channels(), asyncio.Condition()
            players = [Bot(f"p{k}", stub, channels, random.Random(k), changed=changed) for k in range(1, 13)]
            for bot in players:
                await bot.register("g")
            await stub.Start(tpb.TournamentRequest(tournament_id="g"), metadata=operator())
            watching = [asyncio.ensure_future(bot.watch("g")) for bot in players]
            await until(changed, lambda: all(bot.seats for bot in players))
            for bot in players:
                bot.acting.clear()
            await until(changed, lambda: any(bot.held_at == endpoint for bot in players))
            a.send_signal(signal.SIGSTOP)
            for bot in players:
                bot.acting.set()
            watcher = players[0]
            await until(changed, lambda: bool(watcher.of("hand_voided")))  # lost, and no server takes it
            await thawed(a, endpoint, "g", players, changed, tournaments)
            await asyncio.wait_for(asyncio.gather(*watching), TIMEOUT)
            assert await tables_at(endpoint, "g") == []
            standings = await stub.GetStandings(tpb.StandingsRequest(tournament_id="g", page_size=100))
            assert standings.standings[0].stack == 12 * 200  # TOURN-11: the winner holds every chip
            assert watcher.of("finished")
            await channel.close()
            await channels.close()
            stop(tournaments)
        stop(a)


async def thawed(
    b: subprocess.Popen[str], endpoint: str, tournament_id: str, at_b: list[Bot], changed: asyncio.Condition,
    tournaments: subprocess.Popen[str],
) -> None:
    """SIGCONT: the tournament server sees it healthy again and closes the tables it abandoned
    there (their hands play out first), so the streams the bots still had there end OK, however far
    the tournament got meanwhile: it may have finished before the server was seen up (CI's flake:
    its copies stayed there for good). Failing, it says which bots still wait, the tables left
    there and what the tournament server logged."""
    b.send_signal(signal.SIGCONT)
    ok = grpc.StatusCode.OK

    def waiting() -> list[Bot]:
        return [bot for bot in at_b if not any(where == endpoint and code == ok for where, code in bot.seat_ends)]

    try:
        await until(changed, lambda: not waiting(), THAWED_S)
    except TimeoutError:
        seen = {bot.player_id: ([(s.endpoint, s.table_id, s.seat) for s in bot.seats], bot.seat_ends)
                for bot in waiting()}
        tables = await tables_at(endpoint, tournament_id)
        tournaments.kill()
        logged = [line for line in tournaments.communicate()[1].splitlines() if '"level": "info"' not in line]
        raise AssertionError(f"streams at {endpoint} not ended OK: {seen}; tables left there: {tables}; "
                             f"the tournament server logged: {logged}") from None


async def tables_at(endpoint: str, tournament_id: str) -> list[str]:
    """The tables of ``tournament_id`` open on the table server at ``endpoint``."""
    async with grpc.aio.insecure_channel(endpoint) as channel:
        listed = await TableServiceStub(channel).ListTables(pb.ListTablesRequest())
    return [t.table_id for t in listed.tables if t.table_id.startswith(f"{tournament_id}.")]


# ----------------------------------------------------------------- flags


def _busy_port() -> socket.socket:
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    return holder


CASES = {
    "tables-missing": ([], "the following arguments are required: --tables"),
    "tables-not-host-port": (["--tables", "nowhere"], "--tables: 'nowhere' is not HOST:PORT with a port 1-65535"),
    "tables-twice": (["--tables", "h:5,h:0005"], "--tables: h:5 is given twice"),
    "metrics-port-is-the-grpc-port": (
        ["--tables", "h:5", "--port", "50998", "--metrics-port", "50998"], "--metrics-port: 50998 is the gRPC port"
    ),
    "token-file-missing": (
        ["--tables", "h:5", "--operator-token-file", "nosuch"],
        "--operator-token-file: cannot read nosuch: No such file or directory",
    ),
}
"""The flags only serve-tournaments has (the shared ones, --port's range and --log-level, are
argparse's with the rows of sim/inputs.py, tested for serve)."""


@pytest.mark.parametrize(("argv", "message"), CASES.values(), ids=CASES.keys())
def test_serve_tournaments_refuses(argv: list[str], message: str, tmp_path: Path) -> None:
    assert_refused(tablestorm("serve-tournaments", "--port", "0", *argv, tmp=tmp_path, timeout=30), message)


def test_serve_tournaments_refuses_a_short_token_and_a_port_in_use(tmp_path: Path) -> None:
    (tmp_path / "short").write_text("abc\n")
    done = tablestorm("serve-tournaments", "--tables", "h:5", "--port", "0", "--operator-token-file", "short",
                      tmp=tmp_path, timeout=30)
    assert_refused(done, "--operator-token-file: short must hold 16 to 128 printable ASCII characters")
    with _busy_port() as holder:
        busy = holder.getsockname()[1]
        done = tablestorm("serve-tournaments", "--tables", "h:5", "--port", str(busy), tmp=tmp_path, timeout=30)
    assert_refused(done, f"tablestorm serve-tournaments: --port: 127.0.0.1:{busy} is in use")
