"""``tablestorm load``: its flags (checked whole by :mod:`tablestorm.sim.load.args` before Ray
starts), then the load test and its files."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tablestorm.sim.cluster.connection import add_flags as add_cluster_flags
from tablestorm.sim.inputs import GAMES
from tablestorm.sim.load.chaos import LOAD_ACTIONS

if TYPE_CHECKING:
    from tablestorm.sim.cluster.interruption import Interruption

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm load``: bots against table services on a Ray cluster, with live stats and a report.

    SCENARIO is a YAML file (docs/scenarios.md) or the name of an example shipped with tablestorm:
    smoke, stud-ramp, draw-open, capacity-1s-think. Flags override the scenario's values and are
    checked by the same rules. Without --address a new local Ray is started on 127.0.0.1 for the
    run and stopped after (never one named by Ray's temp dir or RAY_ADDRESS). With --target the
    tables live on table servers already running (created there, or --tables existing: those found
    there) and no table host is started. Exit status: 0 every threshold held and the chips were
    conserved; 1 a threshold failed or chips were not conserved; 2 the run did not start (a bad
    flag or scenario, Ray, Prometheus or a --target server out of reach).
    """
    p = sub.add_parser("load", help="load-test table services with bot fleets on Ray",
                       description=register.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenario", nargs="?", metavar="SCENARIO",
                   help="scenario file or example name (default: the defaults of docs/scenarios.md)")
    p.add_argument("--bots", type=int, help="bots (closed model, no ramp)")
    p.add_argument("--hosts", type=int, help="table host actors")
    p.add_argument("--fleets", type=int, help="bot fleet actors")
    p.add_argument("--game", choices=GAMES, metavar="GAME",
                   help="play this game only (with the scenario's first game's stakes): %(choices)s")
    p.add_argument("--duration", type=float, help="seconds of load (at least 1)")
    p.add_argument("--think", type=float, help="bot think time in seconds (fixed)")
    p.add_argument("--clock", type=float, help="action clock seconds (CLOCK-1; its limits: clock_seconds in "
                   "docs/scenarios.md)")
    p.add_argument("--seed", type=int, help="seed the deals and bots (TABLE-2)")
    p.add_argument("--threshold", action="append", default=[], help="e.g. 'p99_ms<100' (repeatable)")
    p.add_argument("--chaos", action="append", default=[],
                   help=f"{' or '.join(f'{action}@SECONDS' for action in LOAD_ACTIONS)}, before the run's end "
                   "(repeatable)")
    p.add_argument("--prometheus", action="store_true", help="start Prometheus on 127.0.0.1 for the run")
    p.add_argument("--out", default="out/load", help="directory for summary.json, history.csv, report.html")
    p.add_argument("--junit", metavar="FILE", help="also write the gates as JUnit XML (a test case per threshold)")
    add_cluster_flags(p, reaching=", or reaching a --target server")
    p.add_argument("--target", metavar="HOST:PORT[,HOST:PORT...]",
                   help="load these table servers (tablestorm serve or another TableService): no table host "
                   "is started; the tables are created there round robin (or see --tables)")
    p.add_argument("--room", metavar="NAME",
                   help="the room adapter the bots talk through: a registered name (default grpc) or "
                   "module:Class; its options come from the scenario's room section (docs/rooms.md)")
    p.add_argument("--tls-ca", metavar="FILE", help="with --target: connect over TLS, trusting this CA (PEM)")
    p.add_argument("--tables", choices=("create", "existing"),
                   help="with --target: create the run's tables there (default), or play the cash tables "
                   "found there with free seats (--game: only that game's)")


def run(args: argparse.Namespace) -> int:
    """The load test ``args`` asks for, once every flag (and a --target's servers) passed; the exit
    status. SIGINT and SIGTERM are the command's from here to its end (sim/cluster/interruption.py)."""
    from tablestorm.sim.cluster.interruption import Interruption

    with Interruption().installed() as interruption:
        return _run(args, interruption)


def _run(args: argparse.Namespace, interruption: Interruption) -> int:
    import json

    from tablestorm.services.fields import FieldError
    from tablestorm.sim.cluster import connection
    from tablestorm.sim.cluster.deployment import DeploymentError
    from tablestorm.sim.cluster.interruption import EXIT_STATUS, Abort
    from tablestorm.sim.load.args import check
    from tablestorm.sim.load.driver import LoadTest
    from tablestorm.sim.load.given_servers import probe
    from tablestorm.sim.load.prometheus import PrometheusError

    request = check(args)
    if request.target is not None:  # the servers answer, before Ray starts
        probe(request.target, args.connect_timeout)
    if request.prometheus:
        import shutil

        if shutil.which("prometheus") is None:
            raise FieldError(
                "--prometheus", "the prometheus binary is not installed (Debian: apt-get install prometheus)"
            )
    try:  # connected here, within --connect-timeout: the run uses this Ray and leaves it to us
        info = connection.connect(request.address, timeout=args.connect_timeout)
    except connection.ClusterError as exc:
        print(f"tablestorm load: {exc}", file=sys.stderr)
        return 2
    test = LoadTest(request.scenario, request.out, servers=request.target, chaos=request.chaos,
                    prometheus=request.prometheus, interruption=interruption, command=args.command_line)
    try:
        result = test.run()
    except PrometheusError as exc:
        print(f"tablestorm load: --prometheus: {exc}", file=sys.stderr)
        return 2
    except DeploymentError as exc:
        print(f"tablestorm load: {exc}", file=sys.stderr)
        return 2
    except Abort:  # before the load began: its set-up is cut short
        print("tablestorm load: stopped before the load began: nothing was measured", file=sys.stderr)
        return EXIT_STATUS
    finally:
        if info.started_here:
            with interruption.shielded("stopping Ray"):
                connection.disconnect()
    summary = result.summary
    print(json.dumps({k: summary[k] for k in (
        "bots", "duration_s", "hands", "actions", "hands_per_s", "actions_per_s", "latency_ms",
        "errors_total", "chips_conserved", "protocol_violations", "thresholds_ok", "interrupted",
    ) if k in summary}))
    print(f"report: {result.files.get('report', request.out / 'report.html')}", file=sys.stderr)
    if request.junit is not None:
        from tablestorm.sim.load.junit import write_junit

        with interruption.shielded():
            request.junit.parent.mkdir(parents=True, exist_ok=True)
            write_junit(request.junit, summary["thresholds"], summary,
                        suite=f"tablestorm load: {request.scenario.name}")
    if interruption.signal_name is not None:
        return EXIT_STATUS
    return 0 if result.ok and summary.get("chips_conserved") is not False else 1
