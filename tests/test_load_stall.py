"""A table server frozen mid-run (SIGSTOP for 5 s, then SIGCONT; only the PID the test started): the
run's corrected p99 shows the stall, in seconds, where the uncorrected one hardly moves.

The run is ``tablestorm load --target`` against a ``tablestorm serve`` on 127.0.0.1 at about 1,000
actions/s. Every action caught in flight by the freeze is timed to its fate on the thaw: applied, or
refused as late when its table's action clock (2 s) ran out during the freeze and fired first, which
of the two is a race inside the thawed server (before, the late ones were not timed at all, and a run
where all of them lost it reported a max of a few ms). Each of them fills in the samples its table
would have taken at its bots' pace, one per mean think time (docs/scenarios.md, Latency under a stall).
The freeze starts at a tick of the run's one-second timeline and ends on a timer: nothing waits on a
sleep.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import signal
import threading
from pathlib import Path
from typing import Any

import pytest
from support.processes import serve

from tablestorm.sim.cluster import connection
from tablestorm.sim.distributions import Distribution
from tablestorm.sim.load.driver import LoadTest
from tablestorm.sim.load.given_servers import Target
from tablestorm.sim.load.scenario import from_mapping

FREEZE_S = 5.0
THINK = Distribution("uniform", 0.01, 0.005, 0.015)
"""A mean think of 10 ms (5-15): 32 eight-seat tables then play about 1,000 actions/s on this machine."""


@pytest.mark.slow
def test_a_frozen_server_shows_in_the_corrected_p99(ray_local: connection.ClusterInfo, tmp_path: Path) -> None:
    scenario = dataclasses.replace(from_mapping({
        "name": "stall", "bots": 256, "fleets": 2, "duration_s": 24, "seed": 11, "games": [{"game": "7stud"}],
    }), think=THINK)
    with serve() as server:
        pid = server.process.pid
        frozen: dict[str, float] = {}

        def thaw() -> None:
            os.kill(pid, signal.SIGCONT)

        timer = threading.Timer(FREEZE_S, thaw)

        def on_second(second: int, state: Any) -> None:
            if second == 8:
                os.kill(pid, signal.SIGSTOP)
                timer.start()
                frozen["at_s"] = second

        try:
            result = LoadTest(scenario, tmp_path, servers=Target((server.endpoint,)), stream=io.StringIO(),
                              on_second=on_second).run()
        finally:
            timer.cancel()
            os.kill(pid, signal.SIGCONT)  # whatever happened above, the server is not left stopped
    summary = result.summary
    corrected, uncorrected = summary["latency_ms"], summary["latency_uncorrected_ms"]
    figures = {
        "actions_per_s": summary["actions_per_s"], "p99_ms": corrected["p99"], "p999_ms": corrected["p999"],
        "p99_uncorrected_ms": uncorrected["p99"], "max_ms": corrected["max"],
        "correction": summary["latency_correction"],
        "next_prompt_p99_ms": summary["next_prompt_ms"]["p99"], "broadcast_p99_ms": summary["broadcast_ms"]["p99"],
    }
    history = list(csv.DictReader((tmp_path / "history.csv").open()))
    figures["actions_per_s_by_second"] = [int(row["actions"]) for row in history]
    print(f"\nstall: {json.dumps(figures)}")
    assert frozen and summary["servers_lost"] == [] and summary["errors_total"] == 0, summary["errors"]
    before = figures["actions_per_s_by_second"][2:8]
    assert sum(before) / len(before) >= 600, "the run is not near the ~1,000 actions/s this test is about"
    # Every action caught in flight was timed, to the thaw: the longest took the whole freeze.
    assert FREEZE_S - 1.0 <= corrected["max"] / 1000 == uncorrected["max"] / 1000 < FREEZE_S + 3.0
    assert summary["latency_correction"]["omitted"] > 0
    # The stall in seconds once corrected; uncorrected, it is a handful of samples among thousands.
    assert corrected["p99"] >= 1000.0, figures
    assert uncorrected["p99"] < corrected["p99"] / 10, figures
    # What thresholds check is the corrected figure.
    (p99,) = [t for t in summary["thresholds"] if t["metric"] == "p99_ms"] or [None]
    assert p99 is None or (p99["value"] == corrected["p99"] and not p99["ok"])
