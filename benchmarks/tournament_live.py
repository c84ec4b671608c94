"""A live tournament on Ray against its accelerated forecast, same seeds, same run.

Each run plays one tournament twice with ``tablestorm tournament``: live (table hosts, the
tournament server and player fleets on a local loopback Ray, bots over gRPC with the given think
time, started in a process of its own like a user's) and accelerated (in-process, the same seed,
the same think time and pause between hands: the baseline, what the tournament would take with
nothing but think times and dealing). It reports per run, and the medians over runs:

* the live run's **wall time** (the whole command: Ray, deployment, registration, play, files),
* its **duration** (tournament seconds from creation to the winner) against the forecast's, and
  their ratio (1.0: the live tables added no delay of their own),
* the **start burst** (seconds from the start until every starting table dealt its first hand, to
  its first turn) and the **move latency** (p50 and p99, from a moved player's ``Moved`` event to
  its first turn at the new table).

The last line is JSON. Usage:
``RAY_TMPDIR=/tmp/ray-bench python benchmarks/tournament_live.py [--entrants 1000] [--runs 3]
[--think 0.2] [--hosts 2] [--fleets 2] [--structure sim/tournaments/stud-mtt-fast.yaml]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TABLESTORM = Path(sys.executable).parent / "tablestorm"


def tournament(
    out: Path, structure: str, args: argparse.Namespace, seed: int, *flags: str
) -> tuple[float, dict[str, Any]]:
    """One ``tablestorm tournament`` process; (its wall seconds, its tournament.json)."""
    argv = [str(TABLESTORM), "tournament", structure, "--entrants", str(args.entrants), "--seed", str(seed),
            "--think", str(args.think), "--hand-pause", str(args.hand_pause), "--out", str(out), *flags]
    began = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-2000:]}")
    return wall, json.loads((out / "tournament.json").read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--structure", default="sim/tournaments/stud-mtt-fast.yaml")
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--think", type=float, default=0.2)
    parser.add_argument("--hand-pause", type=float, default=0.0)
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--fleets", type=int, default=2)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            seed = run + 1
            wall, live = tournament(Path(tmp) / f"live{run}", args.structure, args, seed,
                                    "--hosts", str(args.hosts), "--fleets", str(args.fleets))
            _, forecast = tournament(Path(tmp) / f"acc{run}", args.structure, args, seed, "--accelerated")
            report = live["live"]
            row = {
                "seed": seed, "wall_s": wall, "duration_s": live["duration_s"],
                "forecast_duration_s": forecast["duration_s"], "ratio": live["duration_s"] / forecast["duration_s"],
                "hands": live["hands"], "forecast_hands": forecast["hands"],
                "start_burst_s": report["start_burst_s"],
                "move_p50_ms": report["move_latency_ms"]["p50"], "move_p99_ms": report["move_latency_ms"]["p99"],
                "moves": report["move_latency_ms"]["count"], "timeouts": report["timeouts"],
                "errors": report["errors"], "chips_conserved": live["chips_conserved"],
            }
            rows.append(row)
            print(f"run {run + 1}: wall {wall:.0f} s, duration {row['duration_s']:.0f} s vs forecast "
                  f"{row['forecast_duration_s']:.0f} s (x{row['ratio']:.2f}), hands {row['hands']} vs "
                  f"{row['forecast_hands']}, start burst {row['start_burst_s']:.1f} s, move p50/p99 "
                  f"{row['move_p50_ms']:.0f}/{row['move_p99_ms']:.0f} ms over {row['moves']} moves", flush=True)
    medians = {key: statistics.median(r[key] for r in rows) for key in (
        "wall_s", "duration_s", "forecast_duration_s", "ratio", "start_burst_s", "move_p50_ms", "move_p99_ms",
    )}
    print(f"median over {len(rows)} runs: wall {medians['wall_s']:.0f} s, duration x{medians['ratio']:.2f} the "
          f"forecast, start burst {medians['start_burst_s']:.1f} s, move p99 {medians['move_p99_ms']:.0f} ms")
    print(json.dumps({"entrants": args.entrants, "think_s": args.think, "runs": rows, "median": medians}))


if __name__ == "__main__":
    main()
