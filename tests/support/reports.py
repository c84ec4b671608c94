"""Each kind of report tablestorm writes, built from constructed data by the same code the commands
run: ``REPORTS`` lists the kinds (a new command's report is a new row) and how to write one into a
folder, for the tests that open them in a browser and read their charts."""

from __future__ import annotations

import dataclasses
import importlib.util
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from support.capacity import capacity_of, measured_step
from support.load_runs import constructed_run, summary_of
from support.schedules import METADATA, ROOT, capacity_doc, priced_quick, write
from support.schedules import constructed_run as constructed_day
from tablestorm.sim.capacity.report import render_capacity_html
from tablestorm.sim.distributions import Distribution
from tablestorm.sim.load.report import write_report
from tablestorm.sim.plan.inputs import read_capacity, read_schedule
from tablestorm.sim.plan.report import write_plan_html
from tablestorm.sim.plan.result import QUANTITIES, Settings, build_plan
from tablestorm.sim.reporting.meta import run_metadata
from tablestorm.sim.schedule.compare import compare, read_run
from tablestorm.sim.schedule.compare_report import write_compare_html
from tablestorm.sim.schedule.demand import Load
from tablestorm.sim.schedule.report import write_schedule_html
from tablestorm.sim.schedule.result import build_schedule, write_schedule
from tablestorm.sim.tournament.accelerated import AcceleratedTournament
from tablestorm.sim.tournament.outputs import tournament_document, write_outputs
from tablestorm.sim.tournament.profiles import PlayerProfile
from tablestorm.sim.tournament.structure_file import load_structure

__all__ = ["REPORTS"]


def _load_report(out: Path) -> Path:
    stats = constructed_run()
    return write_report(out, summary_of(stats), stats, bots_online={0: 12, 1: 12, 2: 11, 3: 12})["report"]


def _capacity_report(out: Path) -> Path:
    steps = [measured_step(100, 50, 0.01), measured_step(200, 95, 0.02), measured_step(400, 170, 0.04),
             measured_step(800, 190, 0.3)]
    out.mkdir(parents=True)
    path = out / "capacity.html"
    path.write_text(render_capacity_html(capacity_of(steps, out)), encoding="utf-8")
    return path


def _tournament_report(out: Path) -> Path:
    """A real accelerated tournament of the fast test structure (30 entrants, late entries)."""
    structure = load_structure("sim/tournaments/fast-test.yaml")
    result = AcceleratedTournament(structure, entrants=30, seed=3, profiles=[PlayerProfile(think=Distribution())]).run()
    document = tournament_document(result, mode="accelerated", finished=True, interrupted=False,
                                   run=run_metadata(["tablestorm", "tournament"], 0.0))
    return write_outputs(out, document)["html"]


def _schedule_report(out: Path) -> Path:
    out.mkdir(parents=True)
    return write_schedule_html(build_schedule(constructed_day(priced_quick()), METADATA), out)


def _compare_report(out: Path) -> Path:
    """The constructed day against itself with one event half an hour later."""
    day = constructed_day(priced_quick())
    later = dataclasses.replace(day, runs=tuple(
        dataclasses.replace(r, load=Load(r.load.start + 30, r.load.counts)) if r.name == "Fast draw" else r
        for r in day.runs))
    a, b = (write_schedule(build_schedule(run, METADATA), out / name)["json"]
            for run, name in ((day, "a"), (later, "b")))
    return write_compare_html(compare(read_run(a), read_run(b)), out)


def _plan_report(out: Path) -> Path:
    out.mkdir(parents=True)
    schedule = read_schedule(write(out / "schedule.json", build_schedule(constructed_day(), METADATA)), QUANTITIES)
    per_core = {"actions_per_s": 700.0, "hands_per_s": 25.0, "seated_players": 4800.0, "play_streams": 4800.0}
    capacity = read_capacity(write(out / "capacity.json", capacity_doc(per_core)))
    plan, _ = build_plan(schedule, capacity, Settings(headroom=0.3, cores_per_node=4, quantile="p90"), METADATA,
                         image="tablestorm:test")
    return write_plan_html(plan, out)


def _benchmark(name: str) -> ModuleType:
    """A script of ``benchmarks/`` (not a package) loaded as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _soak_report(out: Path) -> Path:
    """Ten minutes of samples of two hosts and two fleets, host-1 killed at minute 5 and replaced
    by host-2."""
    soak = _benchmark("soak")
    samples = [
        {"minute": m, "p99_ms": 5.0 + m % 3, "bots_online": 2000, "protocol_violations": 0,
         "rss": {"host-0": (150 + m) * 2**20, ("host-1" if m < 5 else "host-2"): (140 + m % 5) * 2**20,
                 "fleet-0": (300 + m / 2) * 2**20, "fleet-1": (305 - m / 4) * 2**20}}
        for m in range(1, 11)
    ]
    summary = {"recoveries": [{"at_s": 300.0, "host": "host-1"}], "chips_conserved": True,
               "protocol_violations": 0, "errors": 0, "hands": 40_000, "actions": 400_000}
    result = soak.soak_result(2000, 10, ["benchmarks/soak.py", "--minutes", "10"], time.time(), samples, summary)
    out.mkdir(parents=True)
    path = out / "soak.html"
    path.write_text(soak.soak_page(result), encoding="utf-8")
    return path


REPORTS: dict[str, Callable[[Path], Path]] = {
    "load": _load_report,
    "capacity": _capacity_report,
    "tournament": _tournament_report,
    "schedule": _schedule_report,
    "schedule-compare": _compare_report,
    "plan": _plan_report,
    "soak": _soak_report,
}
"""Each kind of report and how to build one from constructed data (the commands' own code)."""
