"""``tablestorm schedule``: the command's flags, checks and outputs (registered in :mod:`tablestorm.sim.cli`).

Everything is checked before Ray starts (the schedule file and every structure it names, the
flags, the output directory); a refusal is one line naming the file and field or the flag, exit 2.
Exit status: 0 the day was simulated and every tournament conserved its chips; 1 a tournament did
not (TOURN-11) or a task failed, or (``--live``) a live tournament did not finish with every chip;
2 it did not run; 130 interrupted (what completed is written).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablestorm.services.fields import FieldError
from tablestorm.sim.cluster.connection import add_flags as add_cluster_flags
from tablestorm.sim.inputs import COUNT, SEED, flag
from tablestorm.sim.schedule.money import DEFAULT_RISK, RISK

if TYPE_CHECKING:
    from tablestorm.sim.cluster.interruption import Interruption
    from tablestorm.sim.schedule.spec import Schedule

__all__ = ["DEFAULT_REPLICATIONS", "register", "run"]

DEFAULT_REPLICATIONS = 20


def _fail(message: str) -> int:
    print(f"tablestorm schedule: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Simulate the day ``args`` names, once the schedule and every flag are checked; the exit
    status. SIGINT and SIGTERM are the command's from here to its end (sim/cluster/interruption.py)."""
    from tablestorm.sim.cluster.interruption import Interruption

    with Interruption().installed() as interruption:
        return _run(args, interruption)


def _run(args: argparse.Namespace, interruption: Interruption) -> int:
    from tablestorm.sim.cluster import connection
    from tablestorm.sim.cluster.deployment import DeploymentError
    from tablestorm.sim.cluster.interruption import EXIT_STATUS
    from tablestorm.sim.reporting.meta import run_metadata
    from tablestorm.sim.schedule.report import write_schedule_html
    from tablestorm.sim.schedule.result import build_schedule, write_schedule
    from tablestorm.sim.schedule.runner import TaskError, run_schedule
    from tablestorm.sim.schedule.spec import load_schedule

    started = time.time()
    schedule = load_schedule(args.schedule)
    if args.address is not None:
        connection.check_address(args.address)
    if args.live:
        from tablestorm.sim.schedule.live import live_problems

        problems = live_problems(schedule)
        if problems:
            raise FieldError("--live", f"{schedule.source}: {problems[0]}")
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FieldError("--out", f"cannot create {out}: {exc.strerror}") from None
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    try:
        info = connection.connect(args.address, timeout=args.connect_timeout)
    except connection.ClusterError as exc:
        return _fail(str(exc))
    live: dict[str, Any] | None = None
    try:
        run = run_schedule(schedule, root_seed=seed, replications=range(args.replications),
                           interruption=interruption)
        if not run.replications:
            print("tablestorm schedule: interrupted before a replication completed: nothing was written",
                  file=sys.stderr)
            return EXIT_STATUS
        with interruption.shielded():
            data = build_schedule(run, run_metadata(args.command_line, started), overlay_risk=args.overlay_risk)
        if args.live and not interruption.requested.is_set():
            live = _live(schedule, data, seed, args.replications, out, interruption)
    except TaskError as exc:
        print(f"tablestorm schedule: {exc}", file=sys.stderr)
        return 1
    except DeploymentError as exc:
        return _fail(f"--live: {exc}")
    finally:
        if info.started_here:
            with interruption.shielded("stopping Ray"):
                connection.disconnect()
    if live is not None:
        data["live"] = live
    with interruption.shielded():
        files = write_schedule(data, out)
        files["html"] = write_schedule_html(data, out)
    peak = data["peak"]
    print(json.dumps({
        "schedule": schedule.name, "replications": len(run.replications), "root_seed": seed,
        "peak": {"time": peak["time"], **{k: peak[k]["p50"] for k in ("tables", "seated_players", "hands_per_s")}},
        "chips_conserved": data["chips_conserved"], "wall_s": data["run"]["wall_s"],
        "ray_overhead_share": data["run"]["ray_overhead_share"],
        **({} if live is None else {"live_inside_share": live["inside_share"], "live_complete": live["complete"]}),
    }))
    print(f"report: {files['html']}", file=sys.stderr)
    if run.interrupted or (live is not None and live["interrupted"]):
        return EXIT_STATUS
    return 0 if data["chips_conserved"] and (live is None or live["complete"]) else 1


def _live(schedule: Schedule, data: dict[str, Any], seed: int, replication: int, out: Path,
          interruption: Interruption) -> dict[str, Any]:
    """The day live (each event's median field, the seeds of replication ``replication``: the one
    after the forecast's) and its comparison with the forecast in ``data``; stopped
    :data:`~.live.SLACK_S` after the forecast's last minute with a table at the latest."""
    from tablestorm.sim.schedule.live import SLACK_S, play_live
    from tablestorm.sim.schedule.spec import Tournament
    from tablestorm.sim.schedule.validation import compare

    first = min(e.start_s for e in schedule.events if isinstance(e, Tournament))
    last = max([row["minute"] for row in data["minutes"] if row["tables"]["p90"] > 0], default=0)
    limit_s = max(0.0, 60.0 * (last + 1) - first) + SLACK_S
    day = play_live(schedule, root_seed=seed, replication=replication, out=out / "live", limit_s=limit_s,
                    stream=sys.stderr, interruption=interruption)
    return compare(data["minutes"], day)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm schedule``: a Monte Carlo of a day's tournament schedule (docs/schedules.md).

    Each replication draws every event's field and late arrivals from the schedule's forecast and
    plays every hand with the engine on a virtual clock; replications run in parallel as Ray tasks
    (one per replication and event), each reproducible from --seed. Writes schedule.json, a
    per-minute schedule.csv and schedule.html to --out: per minute of the day the p10/p50/p90 of
    live tables, seated players, hands/s, actions/s and table-service events/s, per game; per event
    its duration, end, entrants and prize pool. Without --address a new local Ray is started on
    127.0.0.1 and stopped after. With --live the day is then played on the real services (table
    hosts, a tournament server and bots on the same Ray, the schedule's clock, each event's median
    field) and its live tables and hands/s per minute compared with the forecast's p10-p90 band.
    Exit status: 0 done, chips conserved; 1 a tournament did not conserve its chips (TOURN-11) or
    failed, or a live one did not finish; 2 a bad flag or file, or Ray out of reach; 130
    interrupted (the completed replications are written).

    Per event also its guarantee's overlay (P(overlay), the mean, p95), the fees, the largest
    guarantee at --overlay-risk, its peak tables and seated players; the day's total overlay.
    To compare two runs of a day (a what-if): tablestorm schedule compare A.json B.json.
    """
    p = sub.add_parser("schedule", help="simulate a day's tournament schedule (replications on Ray); "
                       "'schedule compare A.json B.json' compares two runs",
                       description=register.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("schedule", metavar="SCHEDULE", help="schedule file (YAML; examples in sim/schedules/)")
    p.add_argument("--replications", type=flag(COUNT), default=DEFAULT_REPLICATIONS,
                   help=f"days to simulate (default {DEFAULT_REPLICATIONS})")
    p.add_argument("--seed", type=flag(SEED), default=None,
                   help="root seed of every draw (default: a random one, written to schedule.json)")
    p.add_argument("--overlay-risk", type=flag(RISK), default=DEFAULT_RISK, metavar="SHARE",
                   help="the share of days a guarantee may fall short on: each tournament's guarantee_at_risk is "
                   f"the largest its pools miss on at most that share of the replications (default {DEFAULT_RISK})")
    p.add_argument("--live", action="store_true",
                   help="then play the day live (table hosts, a tournament server and bots on Ray, the schedule's "
                   "clock) and compare its tables and hands/s per minute with the forecast's p10-p90 band")
    p.add_argument("--out", default="out/schedule", help="directory for schedule.json, schedule.csv, schedule.html")
    add_cluster_flags(p)
