"""tablestorm plan: hand-computed sizes (demand, capacity, headroom -> exact cores, nodes and the
binding dimension), the autoscaling spans, plan.json from real producers' files, the KubeRay
manifest against the CRD's OpenAPI schema and the team's groups, every refusal naming the file
and the key, a capacity that never reached its SLO refused or, when allowed, marked on every
output, the capacity's provenance, and the forecast gauges scraped from a running command."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families
from support.capacity import measured_step
from support.kuberay import errors
from support.markdown import markdown_table
from support.schedules import METADATA, PER_CORE, ROOT, band, capacity_doc, constructed_run, schedule_doc, write

from tablestorm import version
from tablestorm.sim.capacity.result import build_capacity, pinning_dict
from tablestorm.sim.capacity.slo import SLO
from tablestorm.sim.capacity.sweep import Steadiness
from tablestorm.sim.cli import main
from tablestorm.sim.cluster.affinity import Pinning
from tablestorm.sim.cluster.deployment import ActorInfo
from tablestorm.sim.cluster.nodes import FLEET_RESOURCE, TABLE_HOST_RESOURCE
from tablestorm.sim.load.scenario import load
from tablestorm.sim.plan.forecast_metrics import GAUGES
from tablestorm.sim.plan.inputs import read_capacity, read_schedule
from tablestorm.sim.plan.kuberay import BOT_FLEETS_GROUP, TABLE_HOSTS_GROUP
from tablestorm.sim.plan.result import QUANTITIES
from tablestorm.sim.plan.sizing import DIMENSIONS, MinuteSize, Span, autoscaling, size
from tablestorm.sim.resources import example_scenarios
from tablestorm.sim.schedule.result import build_schedule


def _demand(hands: float, actions: float, seated: float) -> dict[str, float]:
    return {"hands_per_s": hands, "actions_per_s": actions, "seated_players": seated, "play_streams": seated}


def test_the_binding_dimension_sets_the_cores() -> None:
    # hands 25/10 = 2.5 cores, actions 200/100 = 2, seated 1000/500 = 2, streams 1000/400 = 2.5:
    # hands and streams tie at 2.5; the first listed binds. 2.5 x 1.3 = 3.25 -> 4 cores.
    sized = size(_demand(25, 200, 1000), PER_CORE, headroom=0.3, cores_per_node=16)
    assert sized.cores_by_dimension == {"hands_per_s": 2.5, "actions_per_s": 2.0, "seated_players": 2.0,
                                        "play_streams": 2.5}
    assert (sized.binding, sized.cores, sized.nodes) == ("hands_per_s", 4, 1)
    assert size(_demand(25, 200, 1000), PER_CORE, headroom=0.3, cores_per_node=3).nodes == 2
    # 3,300 players need 3300/400 = 8.25 stream cores, x 1.5 = 12.375 -> 13 cores, 4-core nodes -> 4.
    streams = size(_demand(10, 300, 3300), PER_CORE, headroom=0.5, cores_per_node=4)
    assert (streams.binding, streams.cores, streams.nodes) == ("play_streams", 13, 4)


def test_whole_cores_do_not_round_past_a_floats_last_digit() -> None:
    # 100 hands/s is exactly 10 cores; 10 x 1.3 is 13.000000000000002 in floats: still 13 cores.
    assert size(_demand(100, 0, 0), PER_CORE, headroom=0.3, cores_per_node=13).cores == 13
    assert size(_demand(100, 0, 0), PER_CORE, headroom=0.3, cores_per_node=13).nodes == 1
    assert size(_demand(40, 0, 0), PER_CORE, headroom=0.25, cores_per_node=16).cores == 5
    idle = size(_demand(0, 0, 0), PER_CORE, headroom=0.3, cores_per_node=16)
    assert (idle.cores, idle.nodes) == (0, 0)


def _sized(nodes: int, cores: int) -> MinuteSize:
    return MinuteSize({}, "hands_per_s", cores, nodes)


def test_the_autoscaling_spans_are_each_hours_busiest_minute() -> None:
    minutes = [_sized(1, 3)] * 60 + [_sized(1, 2)] * 59 + [_sized(3, 40)] + [_sized(2, 20)] * 60 + [_sized(1, 1)] * 30
    assert autoscaling(minutes) == [Span(0, 1, 1, 3), Span(1, 2, 3, 40), Span(2, 3, 2, 20), Span(3, 4, 1, 1)]
    assert autoscaling([_sized(2, 20)] * 120) == [Span(0, 2, 2, 20)]


def _day() -> list[dict[str, dict[str, float]]]:
    """Three hours: quiet, a peak at minute 90 (hands 60 p90: 6 cores, x1.3 = 7.8 -> 8), quieter."""
    rows = []
    for minute in range(180):
        hands = 60.0 if minute == 90 else 30.0 if 60 <= minute < 120 else 5.0
        rows.append({"tables": band(1, 2, 3), "seated_players": band(100, 200, 300),
                     "hands_per_s": band(hands / 3, hands / 2, hands), "actions_per_s": band(10, 20, 30),
                     "events_per_s": band(50, 60, 70)})
    return rows


def _plan(tmp_path: Path, *extra: str, schedule: Mapping[str, Any] | None = None,
          capacity: Mapping[str, Any] | None = None) -> tuple[int, Path]:
    s = write(tmp_path / "schedule.json", schedule or schedule_doc(_day()))
    c = write(tmp_path / "capacity.json", capacity or capacity_doc(PER_CORE))
    out = tmp_path / "plan"
    status = main(["plan", "--schedule", str(s), "--capacity", str(c), "--out", str(out), *extra])
    return status, out


def test_plan_json_sizes_every_minute_and_the_peak(tmp_path: Path) -> None:
    status, out = _plan(tmp_path, "--cores-per-node", "4")
    assert status == 0
    plan = json.loads((out / "plan.json").read_text())
    assert plan["schema"] == "tablestorm.plan/1" and plan["settings"] == {"headroom": 0.3, "cores_per_node": 4,
                                                                          "quantile": "p90"}
    rows = plan["minutes"]
    assert len(rows) == 180
    # Quiet: hands 5/10 = 0.5, seated 300/500 = 0.6, streams 300/400 = 0.75 -> streams bind; 0.975 -> 1 core.
    assert (rows[0]["binding"], rows[0]["cores"], rows[0]["nodes"]) == ("play_streams", 1, 1)
    # Busy hour: hands 30/10 = 3 cores, x1.3 = 3.9 -> 4 cores, one 4-core node.
    assert (rows[60]["binding"], rows[60]["cores"], rows[60]["nodes"]) == ("hands_per_s", 4, 1)
    assert plan["peak"] == rows[90] and (rows[90]["cores"], rows[90]["nodes"]) == (8, 2)
    assert rows[90]["demand"] == {"hands_per_s": 60.0, "actions_per_s": 30.0, "seated_players": 300.0,
                                  "play_streams": 300.0}
    assert plan["autoscaling"]["spans"] == [
        {"from": "00:00", "to": "01:00", "nodes": 1, "cores": 1},
        {"from": "01:00", "to": "02:00", "nodes": 2, "cores": 8},
        {"from": "02:00", "to": "03:00", "nodes": 1, "cores": 1},
    ]
    assert [s["from"] for s in plan["autoscaling"]["smaller_than_peak"]] == ["00:00", "02:00"]
    # Fleets: 1.0 fleet core per 0.5 host core at the SLO step -> 16 fleet cores for 8 host cores -> 4 nodes.
    assert plan["kuberay"][TABLE_HOSTS_GROUP] == {"replicas": 2, "min_replicas": 1, "max_replicas": 2}
    assert plan["kuberay"][BOT_FLEETS_GROUP] == {"replicas": 4, "fleet_cores_per_host_core": 2.0}
    assert plan["inputs"]["schedule"]["root_seed"] == 11 and plan["inputs"]["capacity"]["machine"]["cores"] == 2
    assert any("measured on a 2-core machine" in w and "8 cores at the peak" in w for w in plan["warnings"])
    html = (out / "plan.html").read_text()
    assert "Where the inputs came from" in html and "tablestorm capacity smoke" in html and "<svg" in html


def test_the_median_plans_for_less(tmp_path: Path) -> None:
    status, out = _plan(tmp_path, "--quantile", "p50", "--headroom", "0")
    assert status == 0
    peak = json.loads((out / "plan.json").read_text())["peak"]
    assert (peak["cores"], peak["binding"]) == (3, "hands_per_s")  # 30 hands/s / 10 per core, no headroom
    assert peak["minute"] == 90


def test_a_real_schedule_and_capacity_runs_files_are_read(tmp_path: Path) -> None:
    schedule = build_schedule(constructed_run(), METADATA)
    steps = [measured_step(500, 400, 0.01), measured_step(1000, 700, 0.02), measured_step(2000, 800, 0.4)]
    actors = {"hosts": {"host-0": ActorInfo("host-0", "node", 10, "127.0.0.1:1", cpus=(0,))},
              "fleets": {"fleet-0": ActorInfo("fleet-0", "node", 11, "127.0.0.1:2", cpus=(1,))}}
    capacity = build_capacity(
        steps, planned=[500, 1000, 2000], slo=SLO.parse(["p99_ms<100"]), steadiness=Steadiness(),
        run=METADATA, pinning=pinning_dict("auto", Pinning((0,), (1,), "auto"), actors),
        load_summary={"scenario": "smoke", "scenario_resolved": load(example_scenarios()["smoke"]).resolved(),
                      "chips_conserved": True, "errors_total": 0, "duration_s": 60.0, "interrupted": None},
        load_files={"summary": tmp_path / "s.json", "report": tmp_path / "r.html"}, out_dir=tmp_path,
    )
    s, c = write(tmp_path / "schedule.json", schedule), write(tmp_path / "capacity.json", capacity)
    read = read_capacity(c)
    assert read.per_core == capacity["capacity"]["per_core"] and (read.kind, read.extrapolated) == ("knee", False)
    assert read.headline == "capacity 1,000 bots: the knee (2,000 missed the SLO)"
    assert read.scenario["games"] == [{"game": g, "structure": "fixed_limit", "share": 0.25}
                                      for g in ("7stud", "7stud8", "5stud", "7a5draw")]
    assert len(read_schedule(s, QUANTITIES).minutes) == len(schedule["minutes"])
    status, out = _plan(tmp_path, schedule=schedule, capacity=capacity)
    plan = json.loads((out / "plan.json").read_text())
    assert status == 0 and plan["peak"]["cores"] > 0 and plan["extrapolated"] is False
    assert plan["inputs"]["capacity"]["pinning"] == {"requested": "auto", "hosts_cpus": [0], "hosts_cores": 1,
                                                     "shared_with_fleets": False}


def test_the_manifest_is_a_valid_raycluster_with_the_teams_groups(tmp_path: Path) -> None:
    status, out = _plan(tmp_path, "--cores-per-node", "4")
    assert status == 0
    manifest = yaml.safe_load((out / "raycluster-peak.yaml").read_text())
    assert errors("rayclusters", manifest) == []
    assert (manifest["apiVersion"], manifest["kind"]) == ("ray.io/v1", "RayCluster")
    groups = {g["groupName"]: g for g in manifest["spec"]["workerGroupSpecs"]}
    team = yaml.safe_load((ROOT / "deploy" / "kuberay" / "raycluster.yaml").read_text())
    assert set(groups) == {g["groupName"] for g in team["spec"]["workerGroupSpecs"]} == {TABLE_HOSTS_GROUP,
                                                                                        BOT_FLEETS_GROUP}
    hosts, fleets = groups[TABLE_HOSTS_GROUP], groups[BOT_FLEETS_GROUP]
    assert (hosts["replicas"], hosts["minReplicas"], hosts["maxReplicas"]) == (2, 1, 2)
    assert (fleets["replicas"], fleets["minReplicas"], fleets["maxReplicas"]) == (4, 0, 4)
    assert hosts["rayStartParams"]["resources"] == '"{\\"' + TABLE_HOST_RESOURCE + '\\": 4}"'
    assert FLEET_RESOURCE in fleets["rayStartParams"]["resources"]
    assert hosts["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] == "4"
    assert manifest["spec"]["enableInTreeAutoscaling"] is True


def test_a_broken_manifest_is_caught_by_the_schema(tmp_path: Path) -> None:
    _plan(tmp_path)
    manifest = yaml.safe_load((tmp_path / "plan" / "raycluster-peak.yaml").read_text())
    manifest["spec"]["workerGroupSpecs"][0]["replicas"] = "two"
    assert errors("rayclusters", manifest) == ["spec.workerGroupSpecs.0.replicas: 'two' is not of type 'integer'"]


def _without(data: Mapping[str, Any], dotted: str) -> dict[str, Any]:
    copy = json.loads(json.dumps(data))
    *parents, last = dotted.split(".")
    node = copy
    for part in parents:
        node = node[part]
    del node[last]
    return copy


REFUSALS = [
    ("schedule", "capacity", "schedule.json: schema: expected tablestorm.schedule/1 (schedule.json (tablestorm "
     "schedule)); it is a capacity.json (tablestorm capacity)"),
    ("capacity", "schedule", "capacity.json: schema: expected tablestorm.capacity/2"),
    ("capacity", {**capacity_doc(PER_CORE), "schema": "tablestorm.capacity/1"},
     "capacity.json: schema: expected tablestorm.capacity/2 (capacity.json (tablestorm capacity)); it is a"
     " capacity.json of an earlier tablestorm, without a knee or the hosts' cores: sweep again"),
    ("capacity", _without(capacity_doc(PER_CORE), "capacity.per_core.hands_per_s"),
     "capacity.json: capacity.per_core.hands_per_s: missing"),
    ("capacity", _without(capacity_doc(PER_CORE), "run.machine"), "capacity.json: run.machine.cores: missing"),
    ("capacity", {**capacity_doc(PER_CORE), "capacity": {"kind": "none", "headline": "no step met the SLO",
                                                         "slo_step": None, "reason": "no step met the SLO"}},
     "capacity.json: capacity.kind: the sweep found no SLO capacity (no step met the SLO): sweep lower"),
    ("capacity", {**capacity_doc(PER_CORE), "capacity": {"kind": "measured", "headline": "?"}},
     "capacity.json: capacity.kind: expected one of knee, at_least, none, got 'measured'"),
    ("capacity", capacity_doc({**PER_CORE, "hands_per_s": 0}),
     "capacity.json: capacity.per_core.hands_per_s: expected a positive number, got 0.0"),
    ("capacity", capacity_doc(PER_CORE, games=("7stud8",)),
     "capacity.json: scenario_resolved.games: the capacity run did not measure 7stud"),
    ("schedule", _without(schedule_doc(_day()), "run.root_seed"), "schedule.json: run.root_seed: missing"),
    ("schedule", {**schedule_doc(_day()), "minutes": [{"minute": 0, "tables": band(1, 2, 3)}]},
     "schedule.json: minutes[0].hands_per_s.p10: missing"),
    ("schedule", "not json", "schedule.json: not JSON"),
]


def test_a_game_the_capacity_run_did_not_play_is_refused_naming_the_scenario_that_plays_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schedule = write(tmp_path / "schedule.json", schedule_doc(_day(), games=("7stud", "5stud", "7a5draw")))
    capacity = write(tmp_path / "capacity.json", capacity_doc(PER_CORE, games=("7stud",)))
    assert main(["plan", "--schedule", str(schedule), "--capacity", str(capacity),
                 "--out", str(tmp_path / "plan")]) == 2
    assert capsys.readouterr().err == (
        f"tablestorm plan: {capacity}: scenario_resolved.games: the capacity run did not measure 5stud, 7a5draw,"
        f" which {schedule} (games) plays; measured: 7stud; sweep a scenario that plays them: capacity-1s-think,"
        " tablestorm capacity's default, plays every game (docs/capacity.md)\n"
    )


def test_a_capacity_that_never_reached_its_slo_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = _plan(tmp_path, capacity=capacity_doc(PER_CORE, knee=False))
    assert status == 2 and not out.exists()
    assert capsys.readouterr().err == (
        f"tablestorm plan: {tmp_path / 'capacity.json'}: capacity.kind: at least 1,000 bots: no step reached the"
        " SLO: its capacity was never measured, and a plan from it would extrapolate; sweep larger steps"
        " (docs/capacity.md), or plan from the lower bound with --allow-extrapolated\n"
    )


def test_an_allowed_extrapolation_is_marked_on_every_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _plan(tmp_path, "--allow-extrapolated", capacity=capacity_doc(PER_CORE, knee=False))
    assert status == 0
    printed, err = capsys.readouterr()
    assert json.loads(printed)["extrapolated"] is True
    plan = json.loads((out / "plan.json").read_text())
    assert plan["extrapolated"] is True and plan["inputs"]["capacity"]["kind"] == "at_least"
    marked = (f"EXTRAPOLATED: {tmp_path / 'capacity.json'}: at least 1,000 bots: no step reached the SLO, so its"
              " capacity was never measured")
    assert plan["warnings"][0].startswith(marked)
    assert f"tablestorm plan: warning: {marked}" in err
    html = (out / "plan.html").read_text()
    assert re.search(r'<span class="verdict caution">\d+ nodes? at the peak · EXTRAPOLATED</span>', html)
    assert escape(marked) in html  # the warning's banner
    manifest = (out / "raycluster-peak.yaml").read_text()
    assert "# EXTRAPOLATED from a capacity sweep that never reached its SLO" in manifest
    # A measured knee is not marked.
    (tmp_path / "knee").mkdir()
    status, out = _plan(tmp_path / "knee", capacity=capacity_doc(PER_CORE))
    plan = json.loads((out / "plan.json").read_text())
    assert status == 0 and plan["extrapolated"] is False and not any("EXTRAPOLATED" in w for w in plan["warnings"])
    assert "EXTRAPOLATED" not in (out / "plan.html").read_text() + (out / "raycluster-peak.yaml").read_text()


def test_the_capacitys_provenance_is_printed_and_another_version_warned_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = _plan(tmp_path, capacity=capacity_doc(PER_CORE, version="0.0.9"))
    assert status == 0
    err = capsys.readouterr().err
    lines = [
        "  measured: capacity 1,000 bots: the knee (2,000 missed the SLO)",
        "  machine: test: Test CPU @ 2.00GHz, 2 cores, the table hosts pinned to 1 of them (CPU 0)",
        "  software: tablestorm 0.0.9, Python 3.11, Ray 2.60.0",
        "  scenario: smoke: 7stud 25% (fixed limit), 7stud8 25% (fixed limit), 5stud 25% (fixed limit), 7a5draw 25%"
        " (fixed limit); think 0.11 s on average (uniform); bots random 2, strength 1",
    ]
    assert "\n".join(lines) in err
    mismatch = (f"the capacity was measured by tablestorm 0.0.9 and this plan is tablestorm {version()}: a change in"
                " between may have moved what a core carries; sweep again with this version")
    assert f"tablestorm plan: warning: {mismatch}" in err
    plan = json.loads((out / "plan.json").read_text())
    assert mismatch in plan["warnings"] and plan["inputs"]["capacity"]["tablestorm_version"] == "0.0.9"
    html = (out / "plan.html").read_text()
    assert all(escape(line.split(": ", 1)[1]) in html for line in lines)
    (tmp_path / "same").mkdir()
    status, out = _plan(tmp_path / "same", capacity=capacity_doc(PER_CORE, version=version()))
    assert not any("measured by tablestorm" in w for w in json.loads((out / "plan.json").read_text())["warnings"])


@pytest.mark.parametrize(("which", "content", "message"), REFUSALS,
                         ids=[m.split(": ", 1)[1][:40] for *_, m in REFUSALS])
def test_a_bad_input_is_refused_naming_the_file_and_the_key(
    which: str, content: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    documents = {"schedule": schedule_doc(_day()), "capacity": capacity_doc(PER_CORE)}
    paths = {name: tmp_path / f"{name}.json" for name in documents}
    for name, data in documents.items():
        write(paths[name], data)
    if isinstance(content, str) and content in documents:  # the other kind of file
        paths[which].write_text(json.dumps(documents[content]))
    elif isinstance(content, str):
        paths[which].write_text(content)
    else:
        write(paths[which], content)
    out = tmp_path / "plan"
    assert main(["plan", "--schedule", str(paths["schedule"]), "--capacity", str(paths["capacity"]),
                 "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"tablestorm plan: {tmp_path}/{message}"), error
    assert not out.exists()


@pytest.mark.parametrize(("flags", "message"), [
    (["--headroom", "-0.1"], "argument --headroom: must be at least 0, got -0.1"),
    (["--cores-per-node", "0"], "argument --cores-per-node: must be at least 1, got 0"),
    (["--quantile", "p95"], "argument --quantile: invalid choice: 'p95'"),
    (["--serve-metrics", "70000"], "argument --serve-metrics: must be at most 65535"),
])
def test_a_bad_flag_is_refused(flags: list[str], message: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        _plan(tmp_path, *flags)
    assert caught.value.code == 2 and message in capsys.readouterr().err


def test_a_metrics_port_in_use_is_refused_before_anything_is_written(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        status, out = _plan(tmp_path, "--serve-metrics", str(taken.getsockname()[1]))
    assert status == 2 and not out.exists()
    assert "--serve-metrics: 127.0.0.1:" in capsys.readouterr().err


def _scrape(url: str) -> dict[tuple[str, str], float]:
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    return {(sample.name, sample.labels.get("quantile", "")): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def test_the_forecast_for_the_current_minute_is_scraped(tmp_path: Path) -> None:
    # A whole day whose every minute is told apart: tables p50 = minute, p90 = minute + 1000.
    day = [{"tables": band(0, m, m + 1000), "seated_players": band(0, 2 * m, 3 * m),
            "hands_per_s": band(0, m / 10, m / 5), "actions_per_s": band(0, 1, 1), "events_per_s": band(0, 1, 1)}
           for m in range(24 * 60)]
    s = write(tmp_path / "schedule.json", schedule_doc(day))
    c = write(tmp_path / "capacity.json", capacity_doc(PER_CORE))
    command = [sys.executable, "-m", "tablestorm", "plan", "--schedule", str(s), "--capacity", str(c),
               "--out", str(tmp_path / "plan"), "--serve-metrics", "0", "--headroom", "0", "--cores-per-node", "8"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               env={**os.environ, "TZ": "UTC"})
    try:
        assert process.stdout is not None
        json.loads(process.stdout.readline())  # the plan's summary
        port = json.loads(process.stdout.readline())["port"]
        metrics = _scrape(f"http://127.0.0.1:{port}/metrics")
        minute = int(metrics[("tablestorm_forecast_minute_of_day", "")])
        assert {name for name, _ in metrics} == set(GAUGES)
        assert metrics[("tablestorm_forecast_tables", "0.5")] == minute
        assert metrics[("tablestorm_forecast_tables", "0.9")] == minute + 1000
        assert metrics[("tablestorm_forecast_seated_players", "0.9")] == 3 * minute
        assert metrics[("tablestorm_forecast_hands_per_second", "0.5")] == pytest.approx(minute / 10)
        # p90: hands m/5 / 10 per core vs streams 3m / 400 per core: streams need more from minute 1 on.
        cores = max(minute / 5 / 10, 3 * minute / 400, 3 * minute / 500, 1 / 100)
        assert metrics[("tablestorm_forecast_cores_needed", "0.9")] == -(-round(cores, 9) // 1)
        assert metrics[("tablestorm_forecast_nodes_needed", "0.9")] == -(-metrics[("tablestorm_forecast_cores_needed",
                                                                                     "0.9")] // 8)
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0 and err.endswith("\nSIGTERM: stopping now\n"), err  # named, no traceback


def test_docs_plan_lists_every_dimension_and_gauge() -> None:
    doc = (ROOT / "docs" / "plan.md").read_text()
    rows = markdown_table("## The arithmetic", doc)
    documented = [tuple(re.findall(r"`(\w+)`", " ".join(row.values()))[:3]) for row in rows]
    assert documented == [(d.name, d.demand, d.capacity) for d in DIMENSIONS]
    gauges = [row["gauge"].strip("`") for row in markdown_table("## Forecast against actual (`--serve-metrics`)", doc)]
    assert gauges == list(GAUGES)
