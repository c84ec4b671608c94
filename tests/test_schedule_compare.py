"""``tablestorm schedule compare``: a run against itself differs by nothing; an event moved shows up
at exactly the minutes it left and took, replication by replication, its unchanged neighbour not
at all; what cannot be paired is refused in one line (exit 2) before anything is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.schedules import METADATA, ROOT, capacity_doc, constructed_run, schedule_doc, write

from tablestorm.sim.cli import main
from tablestorm.sim.schedule.compare import DAY_QUANTITIES, EVENT_QUANTITIES, compare, read_run
from tablestorm.sim.schedule.compare_report import render_compare_html
from tablestorm.sim.schedule.demand import QUANTITIES
from tablestorm.sim.schedule.replication import EventRun, replicate
from tablestorm.sim.schedule.result import DEMAND, build_schedule, write_schedule
from tablestorm.sim.schedule.runner import ScheduleRun
from tablestorm.sim.schedule.spec import Schedule, schedule_from_mapping

BASE = ROOT / "sim" / "schedules"
REPLICATIONS = 2


def _written(tmp: Path, name: str, data: dict[str, Any]) -> Path:
    return write_schedule(data, tmp / name)["json"]


def test_a_run_compared_with_itself_differs_by_nothing(tmp_path: Path) -> None:
    path = _written(tmp_path, "a", build_schedule(constructed_run(), METADATA))
    data = compare(read_run(path), read_run(path))
    assert data["paired"] and not data["warnings"]
    assert data["changed"] == {**{name: [] for name in DEMAND}, "any": []}
    for row in data["minutes"]:
        for name in DEMAND:
            assert row[name]["difference"] == {"p10": 0.0, "p50": 0.0, "p90": 0.0, "mean": 0.0}
            assert row[name]["a"] == row[name]["b"]
    for event in data["events"]:
        assert event["in"] == "both" and event["settings"] == {}
        for quantity in EVENT_QUANTITIES:
            assert set(event["quantities"][quantity]["difference"]["values"]) <= {0.0, None}
    assert all(data["day"][q]["difference"]["values"] == [0.0] * 3 for q in DAY_QUANTITIES)
    html = render_compare_html(data)
    assert "Every event is the same in both runs" in html and "Minutes at which any replication differs: none" in html


def _day(moved_start: str, stay_structure: str = "../tournaments/fast-stud-mtt.yaml") -> Schedule:
    return schedule_from_mapping({"recurring": False, "tournaments": [
        {"name": "Stay", "start": "12:00", "structure": stay_structure, "entrants": 24},
        {"name": "Moved", "start": moved_start, "structure": "../tournaments/fast-draw.yaml", "entrants": 15},
    ]}, "day.yaml", BASE)


def _played(schedule: Schedule) -> ScheduleRun:
    runs = tuple(run for k in range(REPLICATIONS) for run in replicate(schedule, 11, k))
    return ScheduleRun(schedule=schedule, root_seed=11, replications=tuple(range(REPLICATIONS)), runs=runs,
                       wall_s=1.0, cores=1.0, nodes={})


def _placed(run: EventRun, minutes: int) -> np.ndarray:
    tables = np.zeros(minutes)
    row = run.load.counts[QUANTITIES.index("tables")]
    tables[run.load.start : run.load.stop] = row
    return tables


def test_a_moved_event_shows_up_at_the_minutes_it_left_and_took(tmp_path: Path) -> None:
    # B names Stay's structure by another path to the same file, as a copy of the schedule elsewhere would
    same_file = str((BASE / "../tournaments/fast-stud-mtt.yaml").resolve())
    before, after = _played(_day("12:00")), _played(_day("12:30", same_file))
    a = read_run(_written(tmp_path, "a", build_schedule(before, METADATA)))
    b = read_run(_written(tmp_path, "b", build_schedule(after, METADATA)))
    data = compare(a, b)
    moved = {r.replication: r for r in before.runs if r.name == "Moved"}
    again = {r.replication: r for r in after.runs if r.name == "Moved"}
    for k in range(REPLICATIONS):  # the same tournament, half an hour later
        assert again[k].load.start == moved[k].load.start + 30
        assert np.array_equal(again[k].load.counts, moved[k].load.counts)
        assert again[k].outcomes[0].hands == moved[k].outcomes[0].hands
    length = len(data["minutes"])
    differences = np.array([_placed(again[k], length) - _placed(moved[k], length) for k in range(REPLICATIONS)])
    tables = np.array([[row["tables"]["difference"][p] for p in ("p10", "p50", "p90")] for row in data["minutes"]])
    assert np.allclose(tables[:, 1], np.percentile(differences, 50, axis=0))
    assert np.allclose(tables[:, 0], np.percentile(differences, 10, axis=0))
    changed = np.flatnonzero((differences != 0).any(axis=0))
    first, last = int(changed[0]), int(changed[-1])
    assert first == 720 and 750 < last < 800  # from the old start to the end of the new run
    assert data["changed"]["tables"][0]["from"] == "12:00" and data["changed"]["tables"][-1]["to"] == (
        f"{last // 60:02d}:{last % 60:02d}")
    assert all(row["tables"]["difference"]["p50"] == 0 for row in data["minutes"] if row["minute"] < 720)
    events = {e["name"]: e for e in data["events"]}
    assert events["Moved"]["settings"] == {"start": ["12:00", "12:30"]}
    assert events["Moved"]["quantities"]["begin"]["difference"]["values"] == [30.0] * REPLICATIONS
    assert events["Moved"]["quantities"]["hands"]["difference"]["values"] == [0.0] * REPLICATIONS
    assert events["Stay"]["settings"] == {}, "the same rules by another path are no change"
    assert a.data["events"][0]["structure"] != b.data["events"][0]["structure"]
    for quantity in EVENT_QUANTITIES:
        assert set(events["Stay"]["quantities"][quantity]["difference"]["values"]) <= {0.0}
    html = render_compare_html(data)
    assert "Events that differ" in html and "start: 12:00 → 12:30" in html and "Stay" not in html.split(
        "Events that differ")[1].split("The day")[0]


def test_the_command_writes_compare_json_and_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _written(tmp_path, "a", build_schedule(constructed_run(), METADATA))
    out = tmp_path / "compare"
    assert main(["schedule", "compare", str(path), str(path), "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert printed["paired"] and printed["changed_minutes"] == []
    data = json.loads((out / "compare.json").read_text())
    assert data["schema"] == "tablestorm.schedule-compare/1" and data["a"]["file"] == str(path)
    assert "What if" in (out / "compare.html").read_text()


def test_a_different_root_seed_is_compared_with_a_warning(tmp_path: Path) -> None:
    a = _written(tmp_path, "a", build_schedule(constructed_run(), METADATA))
    other = build_schedule(constructed_run(), METADATA)
    other["run"]["root_seed"] = 8
    data = compare(read_run(a), read_run(_written(tmp_path, "b", other)))
    assert not data["paired"] and "root seeds differ (7 and 8)" in data["warnings"][0]


def _refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str], a: Path, b: Path) -> str:
    out = tmp_path / "never"
    assert main(["schedule", "compare", str(a), str(b), "--out", str(out)]) == 2
    assert not out.exists()
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and error.startswith("tablestorm schedule compare: ")
    return error.removeprefix("tablestorm schedule compare: ")


def test_what_cannot_be_paired_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _written(tmp_path, "a", build_schedule(constructed_run(), METADATA))
    capacity = write(tmp_path / "capacity.json", capacity_doc({"hands_per_s": 1.0}))
    assert _refusal(tmp_path, capsys, capacity, good) == (
        f"{capacity}: schema: expected tablestorm.schedule/1 (schedule.json (tablestorm schedule)); it is a "
        "capacity.json (tablestorm capacity)")
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert _refusal(tmp_path, capsys, good, broken).startswith(f"{broken}: not JSON")
    older = write(tmp_path / "older.json", {**schedule_doc([]), "recurring": {"on": True},
                                            "run": {**schedule_doc([])["run"], "replication_numbers": [0]}})
    assert _refusal(tmp_path, capsys, good, older).startswith(
        f"{older}: minutes_by_replication: missing: written by an older tablestorm schedule")
    fewer = _written(tmp_path, "fewer", build_schedule(constructed_run(replications=2), METADATA))
    assert _refusal(tmp_path, capsys, good, fewer) == (
        f"{fewer}: run.replications: 2 replications, {good} has 3: a paired comparison needs the same replications")
    assert _refusal(tmp_path, capsys, good, tmp_path / "missing.json").startswith(
        f"{tmp_path / 'missing.json'}: cannot read")
    with pytest.raises(SystemExit) as caught:
        main(["schedule", "compare", str(good)])
    assert caught.value.code == 2
    assert "the following arguments are required: B.json" in capsys.readouterr().err
