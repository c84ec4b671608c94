"""Inputs for the schedule and plan tests: the quick example day, a constructed run of it, and
schedule.json / capacity.json documents written to the schemas their producers document."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from tablestorm.sim.schedule.demand import QUANTITIES, Load
from tablestorm.sim.schedule.replication import EventRun, Outcome
from tablestorm.sim.schedule.runner import ScheduleRun
from tablestorm.sim.schedule.spec import Schedule, load_schedule, schedule_from_mapping

ROOT = Path(__file__).resolve().parents[2]
QUICK = ROOT / "sim" / "schedules" / "quick.yaml"
ONLINE_DAY = ROOT / "sim" / "schedules" / "online-day.yaml"
METADATA = {
    "tablestorm_version": "0.1.0", "command_line": "tablestorm schedule sim/schedules/quick.yaml",
    "started_at": "2026-12-01T12:00:00+00:00",
    "machine": {"hostname": "test", "cores": 2, "platform": "Linux", "python": "3.11", "ray": "2.60.0"},
}


def constructed_run(schedule: Schedule | None = None, replications: int = 3) -> ScheduleRun:
    """A run of the quick day with made-up loads: each event's tables rise and fall over 30
    minutes from its start, a little more in each replication (no Ray, no engine)."""
    schedule = schedule or load_schedule(QUICK)
    runs = []
    for replication in range(replications):
        for k, event in enumerate(schedule.events):
            start = 720 + 5 * k
            shape = np.concatenate([np.arange(1, 16), np.arange(15, 0, -1)]).astype(np.int64) * (replication + 1)
            counts = np.stack([shape, 8 * shape, 2 * shape, 30 * shape, 90 * shape]).astype(np.int64)
            assert counts.shape[0] == len(QUANTITIES)
            outcome = Outcome(start_s=60.0 * start, duration_s=1800.0 + 60 * replication, players=100 + replication,
                              entries=104 + replication, prize_pool=2000 + 20 * replication, hands=900,
                              chips_conserved=True)
            runs.append(EventRun(event.name, replication, event.structure.game.code, Load(start, counts),
                                 (outcome,), seconds=1.0, cpu_seconds=0.9))
    return ScheduleRun(schedule=schedule, root_seed=7, replications=tuple(range(replications)), runs=tuple(runs),
                       wall_s=2.0, cores=2.0, nodes={"node-a": len(runs)})


def priced_quick() -> Schedule:
    """The quick day with money on it: its first tournament guaranteed at 2,010 (the constructed
    run's pools are 2,000, 2,020 and 2,040: an overlay in one replication of three) and every
    event raked."""
    data = yaml.safe_load(QUICK.read_text())
    data["tournaments"][0].update(guarantee=2010, fee=2)
    data["tournaments"][1].update(fee=5)
    data["sit_and_gos"][0].update(fee=1)
    return schedule_from_mapping(data, str(QUICK), QUICK.parent)


PER_CORE = {"actions_per_s": 100.0, "hands_per_s": 10.0, "seated_players": 500.0, "play_streams": 400.0}
"""capacity.json's ``capacity.per_core`` for the plan tests (:func:`capacity_doc`)."""


def band(p10: float, p50: float, p90: float) -> dict[str, float]:
    return {"p10": p10, "p50": p50, "p90": p90}


STEADY_MINUTE = {"tables": band(1, 3, 5), "seated_players": band(20, 40, 60), "hands_per_s": band(5, 10, 25),
                 "actions_per_s": band(10, 50, 100), "events_per_s": band(50, 60, 70)}
"""Every minute of :func:`steady_day`. Planned at :data:`PER_CORE` without headroom, hands/s binds:
1 core at p50 (10 hands/s at 10 a core), 3 at p90 (25: 2.5 cores, rounded up)."""


def steady_day() -> dict[str, Any]:
    """A schedule.json forecasting :data:`STEADY_MINUTE` for every minute of the day: a plan's
    forecast exporter serves the same gauges whenever it is scraped."""
    return schedule_doc([STEADY_MINUTE] * (24 * 60))


def schedule_doc(minutes: Sequence[Mapping[str, Mapping[str, float]]], games: Sequence[str] = ("7stud",),
                 replications: int = 20) -> dict[str, Any]:
    """A schedule.json with these ``minutes`` (each: quantity -> band) and the documented run keys."""
    return {
        "schema": "tablestorm.schedule/1",
        "run": {**METADATA, "schedule": {"file": "day.yaml", "name": "Test day"}, "root_seed": 11,
                "replications": replications},
        "games": list(games),
        "minutes": [{"minute": m, "time": f"{m // 60:02d}:{m % 60:02d}", **copy.deepcopy(dict(row)),
                     "games": {}} for m, row in enumerate(minutes)],
        "warnings": [],
    }


def capacity_doc(per_core: Mapping[str, float], *, games: Sequence[str] = ("7stud", "7stud8", "5stud", "7a5draw"),
                 cores: int = 2, hosts_cores: float = 0.5, fleets_cores: float = 1.0, knee: bool = True,
                 version: str = "0.1.0") -> dict[str, Any]:
    """A capacity.json with the keys sim/capacity/result.py documents: its SLO step at 1,000 bots,
    the knee with 2,000 missing the SLO (or, without ``knee``, the largest step: at least 1,000),
    the hosts pinned to CPU 0, measured by tablestorm ``version``."""
    headline = ("capacity 1,000 bots: the knee (2,000 missed the SLO)" if knee
                else "at least 1,000 bots: no step reached the SLO")
    return {
        "schema": "tablestorm.capacity/2",
        "run": {**METADATA, "tablestorm_version": version, "command_line": "tablestorm capacity smoke",
                "machine": {**METADATA["machine"], "cpu_model": "Test CPU @ 2.00GHz", "cores": cores}},
        "scenario": "smoke",
        "scenario_resolved": {"games": [{"game": g, "weight": 1.0, "structure": "fixed_limit"} for g in games],
                              "bot_mix": {"random": 2, "strength": 1, "sleeper": 0},
                              "think": {"kind": "uniform", "value": 0.0, "low": 0.02, "high": 0.2}},
        "pinning": {"requested": "auto", "hosts_cpus": [0], "others_cpus": [1], "hosts_cores": 1,
                    "shared_with_fleets": False, "actors": {}},
        "slo": {"expressions": ["p99_ms<100"], "definition": "..."},
        "steps": [{"bots": 1000, "hosts": {"cores_used": hosts_cores}, "fleets": {"cores_used": fleets_cores}}],
        "capacity": {"kind": "knee" if knee else "at_least", "headline": headline, "slo_step": 1000,
                     "next_step": 2000 if knee else None, "reason": "1,000 bots is the largest step that met the SLO",
                     "per_core": dict(per_core), "hosts_cores_used": hosts_cores},
        "warnings": [],
    }


def write(path: Path, data: Mapping[str, Any]) -> Path:
    path.write_text(json.dumps(data))
    return path
