"""What counting one action costs a fleet: :meth:`~tablestorm.sim.load.stats.RunStats.action` with its
per-game breakdown.

    .venv/bin/python benchmarks/run_stats.py [--actions 200000] [--runs 7]

A fleet calls ``RunStats.action`` once per answered action, in its hot loop. Since the per-game
breakdown it records each latency twice (the second's histogram and the game's) beside the action
kind and bot kind counters. The baseline, timed in the same process in alternating runs, is the
counting without the breakdown: one histogram record and the two counters. Both record the same
latencies (a log-normal spread around 5 ms, as a load run's round trips), times spread over 60 s and
four games. Printed: nanoseconds per action of each (median of ``--runs``) and their ratio; what the
difference is worth is the fleet's whole CPU per action, which ``benchmarks/fleet_cost.py``
measures (a few hundred µs). The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tablestorm.sim.load.stats import RunStats  # noqa: E402

GAMES = ("7stud", "7stud8", "5stud", "7a5draw")
KINDS = ("call", "check", "raise", "fold", "bet")
BOTS = ("random", "maniac", "calling_station", "strength")


def workload(actions: int, seed: int = 1) -> list[tuple[float, str, str, float, str]]:
    rng = random.Random(seed)
    return [
        (rng.lognormvariate(-5.3, 0.6), rng.choice(KINDS), rng.choice(BOTS), 60.0 * k / actions, rng.choice(GAMES))
        for k in range(actions)
    ]


def with_breakdown(work: list[tuple[float, str, str, float, str]]) -> float:
    """Seconds to count ``work`` as a fleet does."""
    stats = RunStats()
    action = stats.action
    start = time.perf_counter()
    for latency, kind, bot, now, game in work:
        action(latency, kind, bot, now, game)
    return time.perf_counter() - start


def without_breakdown(work: list[tuple[float, str, str, float, str]]) -> float:
    """Seconds to count ``work`` into the per-second series and the two counters only."""
    stats = RunStats()
    second, by_kind, by_bot = stats._second, stats.actions_by_kind, stats.actions_by_bot
    start = time.perf_counter()
    for latency, kind, bot, now, _ in work:
        second(now).latency.record(latency)
        by_kind[kind] = by_kind.get(kind, 0) + 1
        by_bot[bot] = by_bot.get(bot, 0) + 1
    return time.perf_counter() - start


def ns_per_action(measure: Callable[[list[tuple[float, str, str, float, str]]], float],
                  work: list[tuple[float, str, str, float, str]]) -> float:
    return measure(work) / len(work) * 1e9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=200_000, help="actions counted per run (default 200000)")
    parser.add_argument("--runs", type=int, default=7, help="timed runs per side (median kept, default 7)")
    args = parser.parse_args(argv)
    if args.actions < 1:
        parser.error(f"argument --actions: at least 1, got {args.actions}")
    if args.runs < 1:
        parser.error(f"argument --runs: at least 1, got {args.runs}")
    work = workload(args.actions)
    with_breakdown(work)  # warm up
    times: dict[str, list[float]] = {"baseline": [], "breakdown": []}
    for _ in range(args.runs):
        times["baseline"].append(ns_per_action(without_breakdown, work))
        times["breakdown"].append(ns_per_action(with_breakdown, work))
    baseline, breakdown = statistics.median(times["baseline"]), statistics.median(times["breakdown"])
    print(f"RunStats.action: {breakdown:,.0f} ns per action with the per-game breakdown, {baseline:,.0f} ns "
          f"without (ratio {breakdown / baseline:.2f}, {breakdown - baseline:,.0f} ns more)")
    print(json.dumps({
        "ns_per_action_with_breakdown": round(breakdown, 1),
        "ns_per_action_without_breakdown": round(baseline, 1),
        "ratio": round(breakdown / baseline, 3),
        "actions": args.actions,
        "runs": args.runs,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
