"""Replications on a real (local, loopback) Ray: reproducible from the root seed, each one equal to
itself re-run alone, one event's replication equal to a direct accelerated run; the command's
outputs; interruption; the progress line."""

from __future__ import annotations

import csv
import io
import json
import re
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support.interrupting import interrupt_when
from support.schedules import METADATA, QUICK, ROOT

from tablestorm.services.engine import Hand
from tablestorm.sim.cli import main
from tablestorm.sim.cluster import connection
from tablestorm.sim.cluster.interruption import Interruption
from tablestorm.sim.schedule.demand import QUANTITIES, turns
from tablestorm.sim.schedule.progress import Progress
from tablestorm.sim.schedule.replication import EventRun, draws, play_event, replicate
from tablestorm.sim.schedule.result import DEMAND, PERCENTILES, SCHEMA, build_schedule, csv_columns
from tablestorm.sim.schedule.runner import ScheduleRun, run_schedule
from tablestorm.sim.schedule.spec import Schedule, Tournament, load_schedule
from tablestorm.sim.tournament.accelerated import AcceleratedTournament

SEED = 5


@pytest.fixture(scope="module")
def ray_local() -> Iterator[None]:
    info = connection.connect(None, num_cpus=2)
    yield
    if info.started_here:
        connection.disconnect()


@pytest.fixture(scope="module")
def quick() -> Schedule:
    return load_schedule(QUICK)


@pytest.fixture(scope="module")
def whole(ray_local: None, quick: Schedule) -> ScheduleRun:
    return run_schedule(quick, root_seed=SEED, replications=range(3), progress=False)


def _same(a: EventRun, b: EventRun) -> None:
    assert (a.name, a.replication, a.game, a.outcomes) == (b.name, b.replication, b.game, b.outcomes)
    assert a.load.start == b.load.start and np.array_equal(a.load.counts, b.load.counts)


def test_the_same_root_seed_gives_the_same_day(whole: ScheduleRun, quick: Schedule) -> None:
    again = run_schedule(quick, root_seed=SEED, replications=range(3), progress=False)
    first, second = build_schedule(whole, METADATA), build_schedule(again, METADATA)
    assert first["minutes"] == second["minutes"] and first["events"] == second["events"]
    other = build_schedule(run_schedule(quick, root_seed=SEED + 1, replications=range(3), progress=False), METADATA)
    assert other["minutes"] != first["minutes"]


def test_one_replication_rerun_alone_equals_its_part_of_the_whole(whole: ScheduleRun, quick: Schedule) -> None:
    assert whole.replications == (0, 1, 2) and len(whole.runs) == 3 * len(quick.events)
    alone = replicate(quick, SEED, 1)  # in this process, no Ray
    part = [r for r in whole.runs if r.replication == 1]
    assert len(alone) == len(part)
    for mine, theirs in zip(alone, part, strict=True):
        _same(mine, theirs)


def test_one_events_replication_is_a_direct_accelerated_run(quick: Schedule) -> None:
    stud = next(e for e in quick.events if isinstance(e, Tournament))
    (draw,) = draws(stud, SEED, 2)
    minutes: Counter[int] = Counter()
    actions: Counter[int] = Counter()

    def observe(table_id: str, hand: Hand) -> None:
        minute = int((draw.start_s + direct.now) // 60)
        minutes[minute] += 1
        seen.append((minute, hand))

    seen: list[tuple[int, Hand]] = []
    direct = AcceleratedTournament(
        stud.structure, entrants=draw.entrants, late_entrants=len(draw.late_arrivals),
        late_arrivals=draw.late_arrivals, seed=draw.seed, profiles=stud.players.profiles(stud.reentry_rate),
        observe=observe, tournament_id=stud.name, check_chips=True,
    )
    result = direct.run()
    for minute, hand in seen:
        actions[minute] += turns(hand.events)
    run = play_event(stud, SEED, 2)
    (outcome,) = run.outcomes
    assert (outcome.duration_s, outcome.entries, outcome.prize_pool, outcome.hands, outcome.chips_conserved) == (
        result.duration_s, result.entries, result.prize_pool, result.hands, True)
    hands = run.load.counts[QUANTITIES.index("hands")]
    assert {run.load.start + k: int(n) for k, n in enumerate(hands) if n} == dict(minutes)
    assert sum(run.load.counts[QUANTITIES.index("actions")]) == sum(actions.values()) > 0
    assert run.load.counts[QUANTITIES.index("tables")][0] == result.timeline[0]["tables"]


def test_the_command_writes_json_csv_and_html(ray_local: None, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["schedule", str(QUICK), "--replications", "2", "--seed", str(SEED), "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    data = json.loads((out / "schedule.json").read_text())
    assert data["schema"] == SCHEMA and data["run"]["root_seed"] == SEED and data["run"]["replications"] == 2
    assert data["run"]["schedule"]["file"] == str(QUICK) and data["run"]["machine"]["cores"] >= 1
    assert data["chips_conserved"] and printed["chips_conserved"] and printed["root_seed"] == SEED
    assert data["games"] == ["7stud", "7a5draw", "5stud"]
    rows = data["minutes"]
    assert [r["minute"] for r in rows] == list(range(len(rows))) and len(rows) >= 24 * 60
    busy = rows[721]
    assert all(busy[q]["p10"] <= busy[q]["p50"] <= busy[q]["p90"] for q in DEMAND) and busy["tables"]["p50"] > 0
    assert busy["tables"]["p50"] == pytest.approx(sum(busy["games"][g]["tables"]["p50"] for g in data["games"]),
                                                  abs=2)  # a median of sums is near the sum of medians
    assert rows[0]["tables"] == {"p10": 0.0, "p50": 0.0, "p90": 0.0}
    assert data["peak"]["time"].startswith("12:")
    events = {e["name"]: e for e in data["events"]}
    assert events["Fast stud"]["start"] == "12:00" and events["Fast stud"]["tournaments"]["p50"] == 1
    assert events["Fast 5 Card Stud SNG"]["kind"] == "sit_and_go" and events["Fast 5 Card Stud SNG"]["start"] is None
    with (out / "schedule.csv").open() as handle:
        table = list(csv.reader(handle))
    assert table[0] == csv_columns(data["games"]) and len(table) == len(rows) + 1
    assert float(table[722][table[0].index("total_tables_p50")]) == busy["tables"]["p50"]
    html = (out / "schedule.html").read_text()
    assert "Schedule: Quick day" in html and html.count("<svg") >= len(DEMAND) + 1 and "Fast draw" in html


def test_an_interrupted_run_keeps_nothing_unfinished(ray_local: None, quick: Schedule) -> None:
    interruption = Interruption(io.StringIO())
    interruption.signal_name = "SIGINT"
    interruption.requested.set()
    run = run_schedule(quick, root_seed=SEED, replications=range(2), interruption=interruption, progress=False)
    assert run.replications == () and run.runs == () and run.interrupted == "SIGINT"


def test_the_progress_line_counts_replications_and_the_time_left() -> None:
    now = [100.0]
    stream = io.StringIO()
    bar = Progress(4, 8, 80.0, stream=stream, clock=lambda: now[0])
    now[0] = 130.0
    assert bar.line(1, 2, 20.0) == ("schedule [######------------------] 1/4 replications, 2/8 tasks, 30s elapsed,"
                                    " 1m 30s left")
    bar.update(1, 2, 20.0)
    bar.update(1, 3, 30.0)  # no new replication, within 10 s: not a terminal, so no line
    assert stream.getvalue().count("\n") == 1
    assert PERCENTILES == ("p10", "p50", "p90")


@pytest.mark.parametrize(("signum", "hint"), [
    (signal.SIGTERM, "send SIGTERM again"),  # the harder: Ray's start sets a SIGTERM handler of its own
    pytest.param(signal.SIGINT, "press Ctrl-C again", marks=pytest.mark.slow),
], ids=["SIGTERM", "SIGINT"])
def test_two_signals_keep_the_replications_that_completed(tmp_path: Path, signum: signal.Signals, hint: str) -> None:
    """A real command, signalled once a replication is done and again as it answers the first (it
    is cancelling the rest): it writes what completed, marked interrupted and badged so, names the
    signal it got, and exits 130 without a traceback."""
    out = tmp_path / "out"
    process = subprocess.Popen(
        [sys.executable, "-m", "tablestorm", "schedule", str(QUICK), "--replications", "500", "--seed", "2",
         "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    err = interrupt_when(process, lambda line: re.search(r"\] [1-9]\d*/500 replications", line) is not None,
                         signum=signum, again=lambda line: "winding down" in line)
    assert process.returncode == 130, err
    assert f"{signum.name}: winding down ({hint} to stop at once)" in err and "Traceback" not in err
    data = json.loads((out / "schedule.json").read_text())
    assert data["run"]["interrupted"] == signum.name and 1 <= data["run"]["replications"] < 500
    assert data["run"]["replication_numbers"] == sorted(data["run"]["replication_numbers"])
    assert any(f"interrupted by {signum.name}" in w for w in data["warnings"])
    assert (out / "schedule.csv").exists()
    assert '<span class="verdict caution">INTERRUPTED</span>' in (out / "schedule.html").read_text()
