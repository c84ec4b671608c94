"""``tablestorm load --target``: load against table servers the test runs itself (``tablestorm serve``
processes on 127.0.0.1), no table host of the run's own.

The flags are checked before Ray starts. On given servers the run creates its tables round robin,
or plays the tables it finds there (``--tables existing``, here over TLS); there is no ledger, so a
server killed mid-run (by its PID) is lost with its tables: its bots report UNAVAILABLE, the other
server's go on, the summary says what was lost, and the chips are conserved on the survivor from
its own tables. Nothing waits on a sleep: the runs are fixed timelines of one-second ticks, and what
a test does during one it does at a tick (``on_second``).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import signal
import socket
from pathlib import Path
from typing import Any

import grpc
import pytest
from support.certificates import make_tls_files
from support.processes import Served, serve

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api.table_service_pb2_grpc import TableServiceStub
from tablestorm.sim.cli import main as cli_main
from tablestorm.sim.cluster import connection
from tablestorm.sim.cluster.deployment import DeploymentError
from tablestorm.sim.distributions import Distribution
from tablestorm.sim.load.driver import LoadTest
from tablestorm.sim.load.given_servers import EXISTING, GivenServers, Target
from tablestorm.sim.load.scenario import from_mapping
from tablestorm.sim.load.seat_pool import SeatPool

FAST_THINK = Distribution("uniform", 0.015, 0.0, 0.03)
LOST_KINDS = {"UNAVAILABLE", "DEADLINE_EXCEEDED"}


def _free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _tables(channel: grpc.Channel) -> dict[str, pb.TableSummary]:
    listed = TableServiceStub(channel).ListTables(pb.ListTablesRequest(page_size=1000), timeout=10)
    return {table.table_id: table for table in listed.tables}


# ----------------------------------------------------------------------------- flags, before Ray


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--tls-ca", "ca.pem"], "--tls-ca: only with --target"),
        (["--tables", "existing"], "--tables: only with --target"),
        (["--target", "127.0.0.1:50051", "--hosts", "2"], "--hosts: not with --target"),
        (["--target", "127.0.0.1:50051", "--chaos", "kill-host@2s"], "--chaos: not with --target"),
        (["--target", "nowhere"], "--target: expected HOST:PORT with a port of 1 to 65535, got 'nowhere'"),
        (["--target", "127.0.0.1:70000"], "--target: expected HOST:PORT with a port of 1 to 65535"),
        (["--target", "127.0.0.1:1,127.0.0.1:1"], "--target: 127.0.0.1:1 given more than once"),
        (["--target", "127.0.0.1:1", "--tls-ca", "missing.pem"], "--tls-ca: cannot read missing.pem"),
        (["--target", "127.0.0.1:1", "--tls-ca", "not.pem"], "--tls-ca: not.pem holds no PEM certificate"),
    ],
)
def test_target_flags_are_checked_before_ray_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    flags: list[str], message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "not.pem").write_text("hello\n")
    assert cli_main(["load", "--out", "out", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tablestorm load: {message}") and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()
    assert not connection._ray().is_initialized()


def test_a_target_that_does_not_answer_stops_the_run_before_ray(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    status = cli_main(["load", "--target", f"127.0.0.1:{port}", "--connect-timeout", "2",
                       "--out", str(tmp_path / "out")])
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tablestorm load: --target 127.0.0.1:{port}: no TableService answered within 2 s"), err
    assert "UNAVAILABLE" in err and not (tmp_path / "out").exists()
    assert not connection._ray().is_initialized()


# ----------------------------------------------------------------------------- finding and creating tables


def _existing(server: Served, channel: grpc.Channel) -> None:
    """Two empty Five Card Stud tables of 4 seats, a Seven Card Stud table of 3 seats where a
    player (the test's) sits in seat 1, and a full heads-up table: 10 free seats in all."""
    stub = TableServiceStub(channel)
    for table_id, game, seats in (("ex-5stud-a", "5stud", 4), ("ex-5stud-b", "5stud", 4), ("ex-7stud", "7stud", 3),
                                  ("ex-full", "7stud", 2)):
        options = pb.TableOptions(game=game, stakes=pb.Stakes(small_bet=10), clock_seconds=0.5, max_seats=seats)
        stub.CreateTable(pb.CreateTableRequest(table_id=table_id, options=options, seed=3), timeout=10)
    stub.SitDown(pb.SitDownRequest(table_id="ex-7stud", seat=1, player_id="human"), timeout=10)
    for seat in (1, 2):
        stub.SitDown(pb.SitDownRequest(table_id="ex-full", seat=seat, player_id=f"h{seat}"), timeout=10)


def test_existing_tables_are_found_by_game_with_their_free_seats() -> None:
    scenario = from_mapping({"name": "found"})
    with serve() as server, grpc.insecure_channel(server.endpoint) as channel:
        _existing(server, channel)
        pool = SeatPool()
        with GivenServers(Target((server.endpoint,), tables=EXISTING)) as sites:
            sites.open(scenario, pool)
        assert pool.games == {"ex-5stud-a": "5stud", "ex-5stud-b": "5stud", "ex-7stud": "7stud"}
        assert [(s.table_id, s.seat) for s in pool.free][:3] == [("ex-5stud-a", 1), ("ex-5stud-a", 2),
                                                                 ("ex-5stud-a", 3)]
        assert sorted((s.table_id, s.seat) for s in pool.free if s.table_id == "ex-7stud") == [
            ("ex-7stud", 2), ("ex-7stud", 3)]
        pool = SeatPool()
        with GivenServers(Target((server.endpoint,), tables=EXISTING, game="5stud")) as sites:
            sites.open(scenario, pool)
        assert set(pool.games) == {"ex-5stud-a", "ex-5stud-b"} and len(pool.free) == 8
        with GivenServers(Target((server.endpoint,), tables=EXISTING, game="7a5draw")) as sites, pytest.raises(
            DeploymentError, match="--tables existing: no cash table of 7a5draw on the --target servers has a free seat"
        ):
            sites.open(scenario, SeatPool())


def test_the_same_table_id_on_two_servers_is_refused() -> None:
    with serve() as one, serve() as two:
        for server in (one, two):
            with grpc.insecure_channel(server.endpoint) as channel:
                options = pb.TableOptions(game="5stud", stakes=pb.Stakes(small_bet=10))
                TableServiceStub(channel).CreateTable(pb.CreateTableRequest(table_id="t1", options=options), timeout=10)
        with GivenServers(Target((one.endpoint, two.endpoint), tables=EXISTING)) as sites, pytest.raises(
            DeploymentError, match=f"table 't1' is on both {one.endpoint} and {two.endpoint}"
        ):
            sites.open(from_mapping({}), SeatPool())


def test_creating_tables_that_a_server_refuses_names_it_and_takes_back_the_others() -> None:
    """A server full after one table: the run does not start, and the table it did create is closed."""
    scenario = from_mapping({"name": "full", "bots": 40, "games": [{"game": "5stud"}]})
    with serve("--max-tables", "1") as server, grpc.insecure_channel(server.endpoint) as channel:
        with GivenServers(Target((server.endpoint,))) as sites, pytest.raises(
            DeploymentError, match=rf"--target: {server.endpoint} CreateTable: RESOURCE_EXHAUSTED: .*maximum of 1"
        ):
            sites.open(scenario, SeatPool())
        assert _tables(channel) == {}


# ----------------------------------------------------------------------------- runs on Ray


def test_two_servers_one_killed_mid_run(ray_local: connection.ClusterInfo, tmp_path: Path) -> None:
    """Tables created round robin on two servers; at 4 s one is killed by its PID. Its bots report
    UNAVAILABLE and are stopped where they sit once it has not answered for 3 s; the other server's
    bots play on; the summary names the server, its tables, the chips last seen there and the bots'
    seats, and the chips are conserved on the survivor by its own tables (which the run closed)."""
    scenario = dataclasses.replace(from_mapping({
        "name": "target", "bots": 48, "fleets": 2, "duration_s": 12, "clock_seconds": 0.5, "seed": 5,
        "games": [{"game": "7stud"}, {"game": "5stud"}],
    }), think=FAST_THINK)
    with serve() as kept, serve() as killed:
        seen: dict[str, Any] = {}

        def on_second(second: int, state: Any) -> None:
            if second == 4:
                seen["seats"] = {(t, n) for (t, n) in state.seated if state.sites.where(t) == killed.endpoint}
                os.kill(killed.process.pid, signal.SIGKILL)
            seen["online"] = state.bots_online

        result = LoadTest(scenario, tmp_path, servers=Target((kept.endpoint, killed.endpoint)), stream=io.StringIO(),
                          on_second=on_second).run()
        summary = result.summary
        print(f"\ntarget: {json.dumps({k: summary[k] for k in ('hands', 'errors', 'chips_start', 'chips_end')})}")
        with grpc.insecure_channel(kept.endpoint) as channel:
            left_open = _tables(channel)
    assert summary["target"] == {"servers": [kept.endpoint, killed.endpoint], "tables": "create", "tls": False}
    assert summary["hosts"] == 0 and summary["registry_node"] is None and summary["nodes"] == 0
    assert set(summary["placements"]) == {"fleet-0", "fleet-1"}, "no table host was started"
    by_server = {s["server"]: s for s in summary["table_servers"]}
    assert by_server[kept.endpoint]["tables"] == by_server[killed.endpoint]["tables"] == 3
    # What was lost: the server, when it stopped answering, its tables, the chips, the bots' seats.
    (lost,) = summary["servers_lost"]
    assert lost["server"] == killed.endpoint and 4.0 <= lost["at_s"] < 7.0
    assert by_server[killed.endpoint]["lost_at_s"] == lost["at_s"] and by_server[kept.endpoint]["lost_at_s"] is None
    assert len(lost["tables"]) == 3 and {seat.split("#")[0] for seat in lost["seats"]} == set(lost["tables"])
    assert {tuple(seat.split("#")) for seat in lost["seats"]} == {(t, str(n)) for t, n in seen["seats"]}
    assert lost["chips_last_seen"] >= len(lost["seats"]) * 2000  # each bot's buy-in: 100 big bets of 20
    # Its bots saw it go (unexpected: nobody planned it), the others went on.
    assert summary["errors"] and set(summary["errors"]) <= LOST_KINDS, summary["errors"]
    assert summary["chaos_errors"] == {} and summary["unexpected_errors"] == summary["errors"]
    assert seen["online"] == 48 - len(lost["seats"]) > 0
    history = list(csv.DictReader((tmp_path / "history.csv").open()))
    assert sum(int(row["hands"]) for row in history if int(row["second"]) > lost["at_s"] + 3) > 0
    # Chips, by the survivor's own tables: all it was paid, all it paid out, nothing left on them
    # (the run closed its tables, and they left the server once their bots stood up).
    survivor = by_server[kept.endpoint]
    assert survivor["chips_conserved"] is True and summary["chips_conserved"] is True
    assert summary["chips_start"] == survivor["chips_start"] == survivor["chips_end"] == summary["chips_end"] > 0
    assert summary["wind_down"]["chips_left_at_tables"] == 0 and left_open == {}
    assert by_server[killed.endpoint]["chips_conserved"] is None
    page = (tmp_path / "report.html").read_text()
    assert f"against {kept.endpoint}, {killed.endpoint}" in page and f">{killed.endpoint} lost</text>" in page


def test_existing_tables_over_tls(ray_local: connection.ClusterInfo, tmp_path: Path) -> None:
    """``--target --tls-ca --tables existing`` from the command line against a TLS ``tablestorm
    serve``: the bots take the free seats of the tables they find (not the full one), play every
    game found, leave the tables open as they were, and the chips (the test's player's among them)
    are conserved by GetTable."""
    files = make_tls_files(tmp_path)
    with serve("--tls-cert", files.cert, "--tls-key", files.key) as server:
        credentials = grpc.ssl_channel_credentials(files.ca.read_bytes())
        with grpc.secure_channel(server.endpoint, credentials) as channel:
            _existing(server, channel)
            status = cli_main([
                "load", "--target", server.endpoint, "--tls-ca", str(files.ca), "--tables", "existing",
                "--bots", "10", "--fleets", "1", "--duration", "6", "--think", "0.01", "--out", str(tmp_path / "out"),
                "--threshold", "chips_conserved==true", "--threshold", "unexpected_errors==0",
                "--threshold", "hands>0",
            ])
            after = _tables(channel)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert status == 0, summary["thresholds"]
    assert summary["target"] == {"servers": [server.endpoint], "tables": "existing", "tls": True}
    assert summary["bots"] == 10 and summary["table_servers"][0]["tables"] == 3
    assert set(summary["by_game"]) == {"5stud", "7stud"} and all(g["hands"] > 0 for g in summary["by_game"].values())
    assert summary["chips_conserved"] is True and summary["chips_start"] == summary["chips_end"]
    assert summary["chips_start"] == 2000 + summary["chips_bought_by_bots"], "the test's player's buy-in, and the bots'"
    assert summary["errors"] == {} and summary["servers_lost"] == []
    assert {t: (s.seats_taken, s.closing) for t, s in after.items()} == {
        "ex-5stud-a": (0, False), "ex-5stud-b": (0, False), "ex-7stud": (1, False), "ex-full": (2, False),
    }
