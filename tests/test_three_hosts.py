"""A cluster of three hosts that are not all 127.0.0.1 (``support.addressed_hosts``): a Ray head
started by ``ray start --head`` on 127.0.0.2, workers on 127.0.0.3 and 127.0.0.4 joining by that
address, and a load run and a live tournament played across them at once, each joining with
``--address``. Every table server, fleet metrics endpoint and the tournament server listens on its
own host's address and nowhere else. Then host 127.0.0.4 is lost whole (every process it ran
killed at once: raylet, workers, the table servers and fleets on it): the load run rebuilds its
tables on the other hosts, the tournament server its own, both finish with every chip, and the
load report names the lost node.

TLS across the same three addresses, without Ray: table servers on 127.0.0.3 and 127.0.0.4 and
the tournament server on 127.0.0.2, each with a certificate naming its own address only (no
127.0.0.1, no localhost), mutual TLS between them; a sit-and-go on both table servers played to
its winner over TLS, reached by address; a server whose certificate names 127.0.0.1 refused at
127.0.0.3 by the services' gRPC clients and the bots' own HTTP/2 Play client alike.

Slow (``-m slow``, minutes): three Ray nodes, two runs and a tournament to its winner.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import ssl
import subprocess
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from support.addressed_hosts import HEAD_IP, WORKER_IPS, Cluster, running, three_hosts
from support.certificates import issue_client_cert, issue_server_cert, make_tls_files
from support.processes import TABLESTORM, process, stop
from support.running import run_async
from support.tournament_document import assert_complete
from support.tournaments import OPERATOR, TIMEOUT, Channels, fast_structure, seated_sit_and_go

from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.api import tournament_pb2_grpc as trpc
from tablestorm.services.rpc.tls import ClientTls, channel
from tablestorm.sim.bots.client import Tls
from tablestorm.sim.bots.client.play import PlayConnection

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

ROOT = Path(__file__).resolve().parent.parent
MTT = str(ROOT / "sim/tournaments/stud-mtt-fast.yaml")
LOST_IP = WORKER_IPS[-1]
RUN_TIMEOUT_S = 900.0
"""Either run, to its end, bounded (a loaded 2-core machine)."""
LOAD_S = 120
"""The load run's length: the tournament registers and starts inside it, the host is lost then,
and the run goes on long enough after it to see its bots back."""
DIRECTOR = "tournaments"
"""The common name of the tournament server's client certificate (``--director-name``)."""
OUR_ACTORS = ("ray::TableHostActor", "ray::FleetActor", "ray::TournamentActor", "ray::PlayerFleetActor")
"""The processes whose listening sockets are the product's (Ray's own processes are not)."""


@dataclass
class Run:
    """A ``tablestorm`` command run as a process joined to the cluster, its stderr read as it comes."""

    process: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    @classmethod
    def start(cls, cluster: Cluster, cwd: Path, *argv: str) -> Run:
        process = subprocess.Popen([str(TABLESTORM), *argv, "--address", cluster.address], cwd=cwd, env=cluster.env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        run = cls(process)
        threading.Thread(target=run._read, daemon=True).start()
        return run

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()
        with self.changed:
            self.lines.append("")  # the end
            self.changed.notify_all()

    def until(self, seen: Callable[[str], bool], timeout: float) -> None:
        """Wait for a line of stderr ``seen`` accepts (AssertionError when the run ends first)."""
        with self.changed:
            found = self.changed.wait_for(lambda: any(seen(x) for x in self.lines) or "" in self.lines, timeout)
            assert found and any(seen(x) for x in self.lines), "".join(self.lines[-20:])

    def wait(self) -> int:
        return self.process.wait(timeout=RUN_TIMEOUT_S)


def _count(pattern: str) -> Callable[[str], bool]:
    """A live view's line whose ``pattern`` count is above zero."""
    expression = re.compile(pattern)

    def seen(line: str) -> bool:
        match = expression.search(line)
        return match is not None and int(match[1]) > 0

    return seen


def _listeners() -> list[tuple[str, int, int]]:
    """Every listening TCP socket of the machine: (address, port, pid), IPv4-mapped as IPv4."""
    listing = subprocess.run(["ss", "-tlnpH"], capture_output=True, text=True, check=True).stdout
    found = []
    for line in listing.splitlines():
        local = line.split()[3]
        host, port = local.rsplit(":", 1)
        host = host.strip("[]").removeprefix("::ffff:")
        found += [(host, int(port), int(pid)) for pid in re.findall(r"pid=(\d+)", line)]
    return found


def _title(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
    except OSError:
        return ""


def _our_listeners(cluster: Cluster) -> dict[str, dict[str, list[str]]]:
    """By host: the product's actor processes on it (by title) and the addresses they listen on
    beside Ray's own worker port (the one socket every Ray worker binds to all addresses)."""
    listening = _listeners()
    found: dict[str, dict[str, list[str]]] = {}
    for ip, host in cluster.hosts.items():
        for pid in host.pids():
            title = _title(pid)
            if not title.startswith(OUR_ACTORS):
                continue
            sockets = [(h, p) for h, p, owner in listening if owner == pid]
            wildcard = [s for s in sockets if s[0] in ("*", "0.0.0.0", "::")]
            assert len(wildcard) <= 1, (title, sockets)  # Ray's worker port; none of ours
            kind = title.split(".")[0].removeprefix("ray::")
            ours = [f"{h}:{p}" for h, p in sockets if (h, p) not in wildcard]
            found.setdefault(ip, {}).setdefault(kind, []).extend(ours)
    return found


def test_a_load_run_and_a_live_tournament_across_three_addresses_lose_one_host_whole(tmp_path: Path) -> None:
    began = time.monotonic()
    with three_hosts() as cluster:
        load = Run.start(cluster, tmp_path, "load", "--bots", "48", "--hosts", "3", "--fleets", "3",
                         "--duration", str(LOAD_S), "--threshold", "chips_conserved==true",
                         "--threshold", "protocol_violations==0", "--out", "load")
        tournament = Run.start(cluster, tmp_path, "tournament", MTT, "--entrants", "40", "--seed", "3",
                               "--think", "0.2", "--hand-pause", "0", "--hosts", "3", "--fleets", "3",
                               "--time-limit", "600", "--out", "tournament")
        # Both dealing: the load's hands counted, the tournament's tables past their first hands.
        load.until(_count(r" hands=(\d+)"), RUN_TIMEOUT_S)
        tournament.until(_count(r"running .* (\d+) hands"), RUN_TIMEOUT_S)

        listening = _our_listeners(cluster)
        for ip, kinds in listening.items():  # every server of the product on its own host's address only
            assert all(a.rsplit(":", 1)[0] == ip for addresses in kinds.values() for a in addresses), listening
        for ip in (HEAD_IP, *WORKER_IPS):  # a table host of each run on each host, serving
            assert len(listening[ip]["TableHostActor"]) == 2 * 2, listening  # gRPC and /metrics, two runs
        assert len(listening[HEAD_IP]["TournamentActor"]) == 1, listening

        lost = cluster.hosts[LOST_IP]
        killed_at = time.time()
        killed = lost.kill()
        assert not any(h == LOST_IP for h, _, _ in _listeners()), "a process of the lost host still listens"
        assert not [pid for pid in killed if running(pid)]
        load.until(lambda line: line.startswith("rebuilt: "), RUN_TIMEOUT_S)  # the load's tables are back
        tables_back_s = time.time() - killed_at

        load_status, tournament_status = load.wait(), tournament.wait()
    total_s = time.monotonic() - began

    summary = json.loads((tmp_path / "load/summary.json").read_text())
    doc = json.loads((tmp_path / "tournament/tournament.json").read_text())
    report = (tmp_path / "load/report.html").read_text()
    recoveries = summary["recoveries"]
    print(f"\nthree hosts: {total_s:.0f} s in all; {LOST_IP} lost to the load's tables back {tables_back_s:.1f} s; "
          f"load recoveries {recoveries}, fleets {summary['fleet_recoveries']}; tournament tables_lost "
          f"{doc['live']['tables_lost']} hands_voided {doc['live']['hands_voided']} nodes_lost "
          f"{doc['live'].get('nodes_lost')} duration_s {doc['duration_s']:.0f}")

    # The load run: the lost host's tables rebuilt on the others, every chip kept, every bot back.
    assert load_status == 0, "".join(load.lines[-30:])
    assert summary["chips_conserved"] is True and summary["chips_start"] > 0
    assert [r["node_address"] for r in recoveries] == [LOST_IP], recoveries
    recovery = recoveries[0]
    assert recovery["server"].startswith(f"{LOST_IP}:") and recovery["tables"] > 0
    assert recovery["at_s"] < LOAD_S - 20, "the host was lost too late in the run to see it recover"
    assert recovery["back_s"] is not None and recovery["bots_back"] == recovery["bots"], recovery
    assert {s["server"].rsplit(":", 1)[0] for s in summary["table_servers"]} == {HEAD_IP, *WORKER_IPS}
    assert f"node {LOST_IP}" in report
    (rebuilt,) = [line for line in load.lines if line.startswith("rebuilt: ")]
    assert f"{recovery['host']} ({recovery['server']}) on node {LOST_IP}, lost at" in rebuilt, rebuilt
    assert summary["protocol_violations"] == 0
    assert set(summary["errors"]) <= {"UNAVAILABLE"}, summary["errors"]

    # The tournament: its tables on the lost host rebuilt, finished to a winner with every chip.
    assert tournament_status == 0, "".join(tournament.lines[-30:])
    assert_complete(doc)
    live = doc["live"]
    assert live["tables_lost"] >= 1 and live["protocol_violations"] == 0, live
    assert [n["address"] for n in live["nodes_lost"]] == [LOST_IP], live


@functools.partial(run_async, timeout=TIMEOUT + 60)
async def test_tls_names_each_hosts_address_and_a_sit_and_go_plays_across_them(tmp_path: Path) -> None:
    certs = make_tls_files(tmp_path)
    director_cert, director_key = issue_client_cert(certs, DIRECTOR)
    player = ClientTls(certs.ca, *issue_client_cert(certs, "player"))
    named = {ip: issue_server_cert(certs, ip) for ip in (HEAD_IP, *WORKER_IPS)}
    token_file = tmp_path / "operator"
    token_file.write_text(OPERATOR)

    def table_server(ip: str, cert: Path, key: Path) -> AbstractContextManager[tuple[subprocess.Popen[str], Any]]:
        return process("serve", "--host", ip, "--port", "0", "--metrics-port", "0", "--drain-seconds", "0",
                       "--tls-cert", str(cert), "--tls-key", str(key), "--tls-client-ca", str(certs.ca),
                       "--director-name", DIRECTOR)

    # The services' gRPC clients and the bots' own HTTP/2 client check the address they reach a
    # server at: a certificate naming 127.0.0.1 and localhost, served at 127.0.0.3, is refused; the
    # same server with a certificate naming 127.0.0.3 is not.
    at = WORKER_IPS[0]
    for (cert, key), right in (((certs.cert, certs.key), False), (named[at], True)):
        with process("serve", "--host", at, "--port", "0", "--drain-seconds", "0", "--tls-cert", str(cert),
                     "--tls-key", str(key)) as (server, ports):
            endpoint = f"{at}:{ports['grpc_port']}"
            async with channel(endpoint, ClientTls(certs.ca)) as client:
                check = health_pb2_grpc.HealthStub(client).Check(health_pb2.HealthCheckRequest(), timeout=10)
                if right:
                    assert (await check).status == health_pb2.HealthCheckResponse.SERVING
                    (await PlayConnection.connect(endpoint, tls=Tls(certs.ca.read_bytes()).context())).close()
                else:
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await check
                    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
                    with pytest.raises(ssl.SSLCertVerificationError, match="IP address mismatch"):
                        await PlayConnection.connect(endpoint, tls=Tls(certs.ca.read_bytes()).context())
            stop(server)

    with table_server(WORKER_IPS[0], *named[WORKER_IPS[0]]) as (first, first_ports), \
            table_server(WORKER_IPS[1], *named[WORKER_IPS[1]]) as (second, second_ports):
        tables = [f"{ip}:{p['grpc_port']}" for ip, p in zip(WORKER_IPS, (first_ports, second_ports), strict=True)]
        with process("serve-tournaments", "--host", HEAD_IP, "--tables", ",".join(tables), "--port", "0",
                     "--metrics-port", "0", "--drain-seconds", "1", "--operator-token-file", str(token_file),
                     "--tls-cert", str(named[HEAD_IP][0]), "--tls-key", str(named[HEAD_IP][1]),
                     "--tables-ca", str(certs.ca), "--tables-cert", str(director_cert),
                     "--tables-key", str(director_key)) as (tournaments, ports):
            for child, ip in ((first, WORKER_IPS[0]), (second, WORKER_IPS[1]), (tournaments, HEAD_IP)):
                bound = {h for h, _, pid in _listeners() if pid == child.pid}
                assert bound == {ip}, (ip, bound)  # gRPC and /metrics on its own address only
            async with channel(f"{HEAD_IP}:{ports['grpc_port']}", ClientTls(certs.ca)) as lobby:
                stub = trpc.TournamentServiceStub(lobby)
                channels = Channels(player)
                structure = fast_structure("5stud", max_entrants=12, seats=6)
                players, watching = await seated_sit_and_go(stub, structure, channels)
                assert {bot.seats[0].endpoint for bot in players} == set(tables)  # a table on each server
                await asyncio.wait_for(asyncio.gather(*watching), TIMEOUT)
                standings = await stub.GetStandings(tpb.StandingsRequest(tournament_id="sng", page_size=12))
                assert standings.standings[0].stack == 12 * 200  # TOURN-11: the winner holds every chip
                await channels.close()
            stop(tournaments)
        stop(first)
        stop(second)
