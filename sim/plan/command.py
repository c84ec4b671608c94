"""``tablestorm plan``: the command's flags, checks and outputs (registered in :mod:`tablestorm.sim.cli`).

Both inputs are read and checked, and the metrics port bound once, before anything is written; a
refusal is one line naming the file and key or the flag, exit 2: a capacity sweep that never
reached its SLO among them, unless ``--allow-extrapolated``, and then every output says that the
plan extrapolates. Exit status 0 otherwise; with ``--serve-metrics`` the command then serves the
forecast until SIGINT or SIGTERM (exit 0).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Final

from tablestorm.services.fields import FieldError
from tablestorm.sim.inputs import COUNT, NON_NEGATIVE, PORT, flag

__all__ = ["QUANTILES", "register", "run"]

QUANTILES: Final = ("p10", "p50", "p90")


def run(args: argparse.Namespace) -> int:
    """Plan for the day and capacity ``args`` names, once both are read and checked; the exit status."""
    from tablestorm import version
    from tablestorm.sim.listen import check_port
    from tablestorm.sim.plan.inputs import check_games, read_capacity, read_schedule
    from tablestorm.sim.plan.report import write_plan_html
    from tablestorm.sim.plan.result import QUANTITIES, Settings, build_plan, capacity_lines, minute_sizes, write_plan
    from tablestorm.sim.reporting.meta import run_metadata

    started = time.time()
    schedule = read_schedule(Path(args.schedule), QUANTITIES)
    capacity = read_capacity(Path(args.capacity), allow_extrapolated=args.allow_extrapolated)
    check_games(schedule, capacity)
    if args.serve_metrics is not None:
        check_port(args.metrics_host, args.serve_metrics, "--serve-metrics", "--metrics-host")
    settings = Settings(headroom=args.headroom, cores_per_node=args.cores_per_node, quantile=args.quantile)
    plan, manifest = build_plan(schedule, capacity, settings, run_metadata(args.command_line, started),
                                image=f"tablestorm:{version()}")
    out = Path(args.out)
    try:
        files = write_plan(plan, manifest, out)
        files["html"] = write_plan_html(plan, out)
    except OSError as exc:
        raise FieldError("--out", f"cannot write to {out}: {exc.strerror}") from None
    peak = plan["peak"]
    print(json.dumps({
        "peak": {"time": peak["time"], "cores": peak["cores"], "nodes": peak["nodes"], "binding": peak["binding"]},
        "autoscaling": plan["autoscaling"]["spans"], "extrapolated": plan["extrapolated"],
        "warnings": len(plan["warnings"]),
    }), flush=True)
    source, measured = plan["inputs"]["schedule"], plan["inputs"]["capacity"]
    print(f"demand: {source['file']} ({source['schedule_file']}, root seed {source['root_seed']},"
          f" {source['replications']} replications)", file=sys.stderr)
    print(f"capacity: {measured['file']} ({measured['command_line']}, {measured['started_at']})", file=sys.stderr)
    for label, text in capacity_lines(measured).items():
        print(f"  {label}: {text}", file=sys.stderr)
    for warning in plan["warnings"]:
        print(f"tablestorm plan: warning: {warning}", file=sys.stderr)
    print(f"report: {files['html']}", file=sys.stderr)
    if args.serve_metrics is None:
        return 0
    from tablestorm.sim.cluster.interruption import Abort, Interruption
    from tablestorm.sim.plan.forecast_metrics import BANDS, ForecastCollector, serve

    sizes = {band: minute_sizes(schedule, capacity, settings, band) for band in BANDS.values()}
    with Interruption().installed() as interruption, contextlib.suppress(Abort):  # a signal ends the serving
        port = serve(ForecastCollector(schedule, sizes), args.metrics_host, args.serve_metrics)
        print(json.dumps({"metrics": f"http://{args.metrics_host}:{port}/metrics", "port": port}), flush=True)
        interruption.requested.wait()
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm plan``: the nodes that carry a simulated day (docs/plan.md).

    For every minute of --schedule (schedule.json of tablestorm schedule), its demand at --quantile
    over --capacity's capacity per core at the SLO (capacity.json of tablestorm capacity) on each
    dimension (hands/s, actions/s, seated players, Play streams); the binding one sets the minute's
    cores, times 1 + --headroom, in nodes of --cores-per-node. Writes plan.json, plan.html and
    raycluster-peak.yaml (a KubeRay RayCluster for the peak, with the autoscaler's bounds) to
    --out. With --serve-metrics it then serves the forecast for the current minute as Prometheus
    gauges (tablestorm_forecast_*) until stopped. Exit status: 0 done; 2 a bad flag, a file that
    is not the kind named or lacks a key, a capacity sweep that never reached its SLO (without
    --allow-extrapolated), a game the capacity run did not measure, a port in use.
    """
    p = sub.add_parser("plan", help="size the cluster for a simulated day (schedule.json + capacity.json)",
                       description=register.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--schedule", required=True, metavar="FILE", help="schedule.json (tablestorm schedule)")
    p.add_argument("--capacity", required=True, metavar="FILE", help="capacity.json (tablestorm capacity)")
    p.add_argument("--headroom", type=flag(NON_NEGATIVE), default=0.3,
                   help="cores on top of the forecast's need, as a share of it (default 0.3)")
    p.add_argument("--cores-per-node", type=flag(COUNT), default=16, help="cores of one node (default 16)")
    p.add_argument("--quantile", choices=QUANTILES, default="p90", help="the schedule's band to plan for (default p90)")
    p.add_argument("--allow-extrapolated", action="store_true",
                   help="plan from a capacity sweep that never reached its SLO (a lower bound, not a measured"
                   " capacity); every output then says the plan extrapolates")
    p.add_argument("--out", default="out/plan", help="directory for plan.json, plan.html, raycluster-peak.yaml")
    p.add_argument("--serve-metrics", type=flag(PORT), default=None, metavar="PORT",
                   help="then serve the forecast as Prometheus gauges on PORT (0 picks one) until stopped")
    p.add_argument("--metrics-host", default="127.0.0.1", help="address for --serve-metrics (default 127.0.0.1)")
