"""The 24-hour example day (sim/schedules/online-day.yaml), 20 replications on Ray, against the same
replications played one after another in this process, same run.

Measured: the wall time of the whole job (a local Ray started, every (replication, event) task run,
schedule.json built), replications per core-minute, and the share of the cluster's core-seconds
spent outside the tasks (``ray_overhead_share``: 1 - the tasks' own seconds / (wall x cores), the
tasks timing themselves: scheduling, serialization, worker start-up and the idle cores of the
last tasks). The baseline: ``--baseline`` replications played in this process with no Ray at all
(the same :func:`tablestorm.sim.schedule.replication.replicate`); ``ratio_vs_serial`` is the Ray run's
core-seconds per replication over the baseline's seconds per replication (1.0: no overhead), and
``cpu_ratio_vs_serial`` the same in CPU seconds (the tasks' own against the baseline's), which
other processes on a shared machine do not move. ``cpu_share`` is the share of a core the tasks
got while they ran (1.0 on an idle machine); ``idle_wall_s`` what the job would take with whole
cores: Ray's start-up plus the tasks' CPU seconds over the cores, scaled by the overhead share.
Targets on a 2-core machine: the wall time at most 10 minutes, the overhead share below 5%.

Usage: ``python benchmarks/schedule.py [--replications 20] [--runs 1] [--baseline 2] [--seed 1] [--out DIR]``
(``--out``: also write the last run's schedule.json, schedule.csv and schedule.html there, as
``tablestorm schedule`` does); RAY_TMPDIR keeps the local Ray apart from others on a shared
machine. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tablestorm.sim.cluster import connection
from tablestorm.sim.reporting.meta import run_metadata
from tablestorm.sim.schedule.replication import replicate
from tablestorm.sim.schedule.report import write_schedule_html
from tablestorm.sim.schedule.result import build_schedule, write_schedule
from tablestorm.sim.schedule.runner import ScheduleRun, run_schedule
from tablestorm.sim.schedule.spec import load_schedule

DAY = Path(__file__).resolve().parent.parent / "sim" / "schedules" / "online-day.yaml"


def ray_run(replications: int, seed: int, out: Path | None) -> tuple[ScheduleRun, float, float]:
    """One whole job on a new local Ray; returns the run, its wall seconds and Ray's start-up seconds."""
    schedule = load_schedule(DAY)
    started, begun = time.perf_counter(), time.time()
    info = connection.connect(None)
    startup = time.perf_counter() - started
    try:
        run = run_schedule(schedule, root_seed=seed, replications=range(replications), progress=False)
        data = build_schedule(run, run_metadata(sys.argv, begun))
    finally:
        if info.started_here:
            connection.disconnect()
    if out is not None:
        write_schedule(data, out)
        write_schedule_html(data, out)
    return run, time.perf_counter() - started, startup


def serial(count: int, seed: int) -> tuple[float, float]:
    """Median wall and CPU seconds of one replication in this process (replications numbered from
    1000, so none is also in the Ray run: the sizes are alike, the draws are not the same)."""
    schedule = load_schedule(DAY)
    walls, cpus = [], []
    for replication in range(1000, 1000 + count):
        wall, cpu = time.perf_counter(), time.process_time()
        replicate(schedule, seed, replication)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=20)
    parser.add_argument("--runs", type=int, default=1, help="Ray runs (the median kept)")
    parser.add_argument("--baseline", type=int, default=2, help="replications played in-process for the baseline")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="write the last run's schedule.json/csv/html here")
    args = parser.parse_args(argv)
    if args.replications < 1 or args.runs < 1 or args.baseline < 1:
        parser.error("--replications, --runs and --baseline must be at least 1")
    per_replication, cpu_per_replication = serial(args.baseline, args.seed)
    print(f"baseline: one replication in-process takes {per_replication:.1f} s ({cpu_per_replication:.1f} s CPU)",
          flush=True)
    results = []
    for number in range(args.runs):
        run, wall, startup = ray_run(args.replications, args.seed, args.out)
        results.append((wall, run, startup))
        print(
            f"run {number + 1}: {len(run.replications)} replications in {wall:.1f} s wall ({startup:.1f} s starting"
            f" Ray) on {run.cores:g} cores; tasks' own time {run.task_seconds:.1f} s; Ray overhead"
            f" {100 * run.ray_overhead_share:.1f}% of the core-seconds", flush=True,
        )
    wall, run, startup = sorted(results, key=lambda r: r[0])[len(results) // 2]
    core_minutes = wall * run.cores / 60
    ratio = wall * run.cores / len(run.replications) / per_replication
    task_cpu = sum(r.cpu_seconds for r in run.runs)
    cpu_ratio = task_cpu / len(run.replications) / cpu_per_replication
    cpu_share = task_cpu / run.task_seconds
    idle_wall = startup + task_cpu / run.cores / (1 - run.ray_overhead_share)
    print(f"{len(run.replications) / core_minutes:.2f} replications per core-minute; the Ray run's core-seconds per"
          f" replication are {ratio:.2f}x the in-process baseline's seconds, its tasks' CPU seconds"
          f" {cpu_ratio:.2f}x the baseline's; the tasks had {cpu_share:.0%} of a core each (1.0: an idle"
          f" machine), so with whole cores the job takes about {idle_wall:.0f} s")
    print(json.dumps({
        "wall_s": round(wall, 1),
        "replications": len(run.replications),
        "ray_overhead_share": round(run.ray_overhead_share, 4),
        "replications_per_core_minute": round(len(run.replications) / core_minutes, 3),
        "cores": run.cores,
        "ray_startup_s": round(startup, 1),
        "run_s": round(run.wall_s, 1),
        "task_seconds": round(run.task_seconds, 1),
        "task_cpu_seconds": round(task_cpu, 1),
        "serial_s_per_replication": round(per_replication, 2),
        "serial_cpu_s_per_replication": round(cpu_per_replication, 2),
        "ratio_vs_serial": round(ratio, 3),
        "cpu_ratio_vs_serial": round(cpu_ratio, 3),
        "cpu_share": round(cpu_share, 3),
        "idle_wall_s": round(idle_wall, 1),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
