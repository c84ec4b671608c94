"""What the load generator costs: CPU seconds per 1,000 actions in a bot fleet and in the table host.

    .venv/bin/python benchmarks/fleet_cost.py [--bots 400] [--seats 8] [--think 0] [--duration 20] [--runs 3]
        [--room grpc|websocket] [--profile DIR]

A load tool is worth most when a small generator saturates a large server, so the figure of merit
is how many actions one fleet core drives for each action one host core serves. Each run starts two
real processes on 127.0.0.1: a table server (``tablestorm serve``) and a fleet process holding one
:class:`tablestorm.sim.bots.Fleet` (the bots of ``tablestorm load``, referee and all) with ``--bots`` bots at
zero think time (or ``--think`` seconds), seated 8 (or ``--seats``) to a Seven Card Stud table, playing the kinds
that never stall a table (no sleepers), through the room adapter ``--room`` names (``websocket``: the
server opens its WebSocket front door and the bots play there). At zero think the host is saturated
and its queueing sets the round trip; a think time that keeps both sides below a core compares latencies at one load.
After a warm-up the fleet process measures, for ``--duration`` seconds:

* the actions the server accepted (counted by the bots, as RunStats counts them in a load run),
* both processes' CPU time, user plus system over all their threads, from ``/proc/PID/stat``,
* the action round trip p50/p99 (ActRequest sent to its ActResult read), errors and violations.

It prints, per run and as the median of ``--runs`` runs, CPU seconds per 1,000 actions of each side
and ``host_per_fleet``: host CPU per action over fleet CPU per action, the number of actions a fleet
core drives while a host core serves one (the target is at least 2). Every action goes out to each
seat of its table, so runs at two ``--seats`` tell a host's cost per action from its cost per seat
that hears it (the fan-out). Both processes use the same
garbage-collector policy as in a load run (``tablestorm.services.rpc.gc_policy``), so a collection pause is
billed to neither side by mistake. ``--profile DIR`` records both processes with py-spy (collapsed
stacks, one file per process and run: grep them, or open them in speedscope). The last line printed is one JSON
object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SEATS = 8
KINDS = ("random", "calling_station", "maniac", "shover", "strength")
"""Every kind that acts on each turn: a sleeper would hold its table for a whole clock."""
WARMUP = 4.0
CLOCK_SECONDS = 10.0
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` (every thread), from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime and stime: fields 14 and 15


# ----------------------------------------------------------------- the fleet process


async def fleet_main(args: argparse.Namespace) -> None:
    import grpc

    from tablestorm.services.api import table_service_pb2 as pb
    from tablestorm.services.api import table_service_pb2_grpc as rpc
    from tablestorm.services.rpc.gc_policy import tune_for_latency
    from tablestorm.sim.bots import Assignment, BotConfig, Fleet
    from tablestorm.sim.distributions import Distribution
    from tablestorm.sim.rooms.registry import room_class

    options = pb.TableOptions(game="7stud", stakes=pb.Stakes(small_bet=10), clock_seconds=CLOCK_SECONDS)
    tables = -(-args.bots // args.seats)
    async with grpc.aio.insecure_channel(args.target) as channel:
        stub = rpc.TableServiceStub(channel)
        for table in range(tables):
            await stub.CreateTable(pb.CreateTableRequest(table_id=f"t{table}", options=options, seed=table))
    think = Distribution("fixed", args.think)
    assignments = [
        Assignment(
            args.endpoint, f"t{k // args.seats}", k % args.seats + 1, f"p{k}", KINDS[k % len(KINDS)], think, seed=k
        )
        for k in range(args.bots)
    ]
    # A host saturated by the bots already playing welcomes the last ones slowly: wait for them.
    fleet = Fleet(config=BotConfig(stop_timeout=10.0, rpc_timeout=60.0), room=room_class(args.room)({}))
    joined = await fleet.add(assignments)
    tune_for_latency()  # as a FleetActor does once started
    await asyncio.sleep(args.warmup)
    join_errors = fleet.stats.take().errors
    messages, events = fleet.tally.messages, fleet.tally.events
    fleet_cpu, host_cpu = cpu_seconds(os.getpid()), cpu_seconds(args.server_pid)
    started = time.perf_counter()
    await asyncio.sleep(args.duration)
    fleet_cpu = cpu_seconds(os.getpid()) - fleet_cpu
    host_cpu = cpu_seconds(args.server_pid) - host_cpu
    seconds = time.perf_counter() - started
    window = fleet.stats.take()
    messages, events = fleet.tally.messages - messages, fleet.tally.events - events
    await fleet.stop_all(stand_up=False)
    latency = window.latency()
    actions = window.actions
    per_1000 = 1000.0 / actions if actions else float("nan")
    print(json.dumps({
        "bots": len(joined),
        "join_errors": join_errors,
        "seconds": round(seconds, 2),
        "actions": actions,
        "actions_per_s": round(actions / seconds, 1),
        "fleet_cpu_s": round(fleet_cpu, 2),
        "host_cpu_s": round(host_cpu, 2),
        "fleet_cpu_s_per_1000": round(fleet_cpu * per_1000, 4),
        "host_cpu_s_per_1000": round(host_cpu * per_1000, 4),
        "host_per_fleet": round(host_cpu / fleet_cpu, 3) if fleet_cpu else None,
        "messages_per_action": round(messages * per_1000 / 1000, 2),
        "events_per_action": round(events * per_1000 / 1000, 2),
        "rtt_p50_ms": _ms(latency.percentile(50)),
        "rtt_p99_ms": _ms(latency.percentile(99)),
        "errors": window.errors,
        "violations": fleet.tally.violations[:5],
    }), flush=True)


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


# ----------------------------------------------------------------- the driver


def run_once(args: argparse.Namespace, run: int, profile: Path | None) -> dict[str, Any]:
    """One run; with ``profile`` (a directory), py-spy records both processes into it, named by run."""
    websocket = ["--websocket", "0"] if args.room == "websocket" else []
    server = subprocess.Popen(
        [sys.executable, "-m", "tablestorm", "serve", "--port", "0", "--log-level", "warning",
         "--max-tables", str(max(1000, args.bots // args.seats + 10)), "--drain-seconds", "0", *websocket],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
    )
    spies: list[subprocess.Popen[bytes]] = []
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if not line:
            raise RuntimeError("the table server did not start")
        ports = json.loads(line)
        target = f"127.0.0.1:{ports['grpc_port']}"
        endpoint = f"ws://127.0.0.1:{ports['websocket_port']}/ws" if websocket else target
        fleet = subprocess.Popen(
            [sys.executable, __file__, "fleet", "--target", target, "--endpoint", endpoint, "--room", args.room,
             "--server-pid", str(server.pid),
             "--bots", str(args.bots), "--seats", str(args.seats), "--think", str(args.think),
             "--duration", str(args.duration), "--warmup", str(args.warmup)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        )
        if profile is not None:
            seconds = str(int(args.warmup + args.duration + 30))
            spies = [
                subprocess.Popen(
                    [str(Path(sys.executable).parent / "py-spy"), "record", "-p", str(pid), "-d", seconds,
                     "-f", "raw", "-o", str(profile / f"{side}-{args.bots}x{args.seats}-{run}.txt")],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
                for side, pid in (("fleet", fleet.pid), ("host", server.pid))
            ]
        out, err = fleet.communicate(timeout=3 * (args.warmup + args.duration) + 300)
        if fleet.returncode != 0:
            raise RuntimeError(f"the fleet process failed:\n{err[-3000:]}")
        return dict(json.loads(out.strip().splitlines()[-1]))
    finally:
        for spy in spies:
            spy.wait()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


METRICS = (
    "actions_per_s", "fleet_cpu_s_per_1000", "host_cpu_s_per_1000", "host_per_fleet", "rtt_p50_ms", "rtt_p99_ms",
)


def driver(args: argparse.Namespace) -> None:
    runs = []
    for k in range(args.runs):
        load_before = os.getloadavg()[0]
        run = run_once(args, k, Path(args.profile) if args.profile else None)
        run["loadavg_1m"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
        runs.append(run)
        print(f"run {k + 1}: {json.dumps(run)}", flush=True)
    medians = {metric: round(statistics.median(run[metric] for run in runs), 4) for metric in METRICS}
    print(
        f"{args.bots} bots, {args.seats} a table, think {args.think:g} s, median of {args.runs}: "
        f"{medians['actions_per_s']} actions/s; "
        f"CPU s per 1,000 actions: fleet {medians['fleet_cpu_s_per_1000']}, host {medians['host_cpu_s_per_1000']}; "
        f"a fleet core drives {medians['host_per_fleet']}x the actions a host core serves; "
        f"rtt p50 {medians['rtt_p50_ms']} ms, p99 {medians['rtt_p99_ms']} ms",
        flush=True,
    )
    summary = {
        "bots": args.bots, "seats": args.seats, "think_s": args.think, "duration_s": args.duration, "runs": runs,
        "median": medians,
    }
    print(json.dumps(summary), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode")
    fleet = sub.add_parser("fleet", help="(internal) the fleet process")
    fleet.add_argument("--target", required=True, help="the server's gRPC endpoint (its tables are created there)")
    fleet.add_argument("--endpoint", required=True, help="where the bots reach it, in their room's address form")
    fleet.add_argument("--server-pid", type=int, required=True)
    for p in (parser, fleet):
        p.add_argument("--bots", type=int, default=400, help="bots in the fleet (default 400)")
        p.add_argument("--seats", type=int, default=SEATS, help=f"bots per table, 2-{SEATS} (default {SEATS})")
        p.add_argument("--think", type=float, default=0.0, help="seconds each bot thinks per turn (default 0)")
        p.add_argument("--duration", type=float, default=20.0, help="seconds measured per run (default 20)")
        p.add_argument("--warmup", type=float, default=WARMUP, help=f"seconds before measuring (default {WARMUP:g})")
        p.add_argument("--room", choices=("grpc", "websocket"), default="grpc",
                       help="the room adapter the bots play through (default grpc)")
    parser.add_argument("--runs", type=int, default=3, help="runs (medians are reported; default 3)")
    parser.add_argument("--profile", help="directory for py-spy profiles of both processes (collapsed stacks)")
    args = parser.parse_args()
    if not 2 <= args.seats <= SEATS:
        parser.error(f"--seats must be 2 to {SEATS}")
    if args.bots < 1 or args.duration <= 0 or args.warmup < 0 or args.think < 0 or getattr(args, "runs", 1) < 1:
        parser.error("--bots and --runs must be at least 1, --duration positive, --warmup and --think not negative")
    if args.mode == "fleet":
        asyncio.run(fleet_main(args))
    else:
        driver(args)


if __name__ == "__main__":
    main()
