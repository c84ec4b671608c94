"""What the runtime metrics cost a service process: GC pause timing and the event-loop probe.

    .venv/bin/python benchmarks/runtime_metrics.py [--seconds 2] [--runs 5]

Two workloads, each timed with the instrument on and off in alternating runs of the same process
(median of ``--runs``), the ratio printed:

* **GC pauses**: random Seven Card Stud hands played through the engine (``tablestorm.sim.random_play``),
  allocation-heavy, under the service processes' collector thresholds
  (``tablestorm.services.rpc.gc_policy``): young collections every 10,000 allocations, each one timed by
  :class:`~tablestorm.services.rpc.runtime_metrics.GcPauses` when it is installed.
* **Event-loop lag**: an asyncio loop running a chain of 0-delay callbacks (a busy table server's
  loop in miniature), with :class:`~tablestorm.services.rpc.runtime_metrics.LoopLag` probing it four times a
  second or not at all.

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from prometheus_client import CollectorRegistry  # noqa: E402

from tablestorm.services.engine import SEVEN_CARD_STUD, Stakes, TableOptions  # noqa: E402
from tablestorm.services.rpc.gc_policy import MIDDLE_THRESHOLD, NO_FULL, YOUNG_THRESHOLD  # noqa: E402
from tablestorm.services.rpc.runtime_metrics import GcPauses, LoopLag  # noqa: E402
from tablestorm.sim.random_play import play_random_hand  # noqa: E402

OPTIONS = TableOptions(SEVEN_CARD_STUD, Stakes.default(10))


def hands_per_second(seconds: float, rng: random.Random) -> float:
    stacks = [OPTIONS.posted_buy_in] * 8
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        play_random_hand(OPTIONS, stacks, rng, button=hands % 8)
        hands += 1
        if hands % 16 == 0 and time.perf_counter() >= deadline:
            return hands / (time.perf_counter() - start)


def callbacks_per_second(seconds: float, probe: bool) -> float:
    async def run() -> float:
        loop = asyncio.get_running_loop()
        lag = LoopLag(CollectorRegistry())
        if probe:
            lag.start(loop)
        done = loop.create_future()
        count = 0
        start = time.perf_counter()
        deadline = start + seconds

        def step() -> None:
            nonlocal count
            count += 1
            if count % 1024 == 0 and time.perf_counter() >= deadline:
                done.set_result(count / (time.perf_counter() - start))
            else:
                loop.call_soon(step)

        loop.call_soon(step)
        rate: float = await done
        lag.stop()
        return rate

    return asyncio.run(run())


def compare(measure: Callable[[bool], float], runs: int) -> dict[str, float]:
    """Median rate with the instrument off and on, alternating runs; and on / off."""
    rates: dict[bool, list[float]] = {False: [], True: []}
    measure(False)  # warm up
    for _ in range(runs):
        for instrumented in (False, True):
            rates[instrumented].append(measure(instrumented))
    off, on = statistics.median(rates[False]), statistics.median(rates[True])
    return {"off": off, "on": on, "ratio": on / off}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one timed run (default 2)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per side (median kept, default 5)")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error(f"argument --seconds: must be positive, got {args.seconds:g}")
    if args.runs < 1:
        parser.error(f"argument --runs: at least 1, got {args.runs}")

    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, NO_FULL)
    pauses = GcPauses()
    rng = random.Random(1)

    def hands(on: bool) -> float:
        if on:
            pauses.install()
        try:
            return hands_per_second(args.seconds, rng)
        finally:
            pauses.uninstall()

    gc_result = compare(hands, args.runs)
    loop_result = compare(lambda on: callbacks_per_second(args.seconds, on), args.runs)
    print(f"engine hands/s: {gc_result['off']:,.0f} without GC pause timing, {gc_result['on']:,.0f} with "
          f"(ratio {gc_result['ratio']:.3f})")
    print(f"loop callbacks/s: {loop_result['off']:,.0f} without the lag probe, {loop_result['on']:,.0f} with "
          f"(ratio {loop_result['ratio']:.3f})")
    print(json.dumps({
        "hands_per_s_without_gc_timing": round(gc_result["off"], 1),
        "hands_per_s_with_gc_timing": round(gc_result["on"], 1),
        "gc_timing_ratio": round(gc_result["ratio"], 4),
        "callbacks_per_s_without_probe": round(loop_result["off"]),
        "callbacks_per_s_with_probe": round(loop_result["on"]),
        "loop_probe_ratio": round(loop_result["ratio"], 4),
        "runs": args.runs,
        "seconds": args.seconds,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
