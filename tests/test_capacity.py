"""`tablestorm capacity`: the USL fit, the SLO and goodput, steadiness, capacity.json and its page,
the command's flags, and one short real sweep of the table services on a local Ray (127.0.0.1).

The pure parts are checked on constructed numbers with exact expectations; the sweep is one run of
three small steps with one-second windows, a few seconds each, through the installed command's
code path (it starts its own loopback Ray and stops it).
"""

from __future__ import annotations

import json
import math
import os
import re
import socket
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from support.capacity import capacity_of, measured_step
from support.markdown import markdown_table

from tablestorm.sim.capacity.command import DEFAULT_SCENARIO, check, parse_steps
from tablestorm.sim.capacity.report import render_capacity_html
from tablestorm.sim.capacity.result import SCHEMA, slo_capacity
from tablestorm.sim.capacity.slo import SLO
from tablestorm.sim.capacity.sweep import CpuUse, Steadiness, sweep_scenario
from tablestorm.sim.capacity.usl import USLFitError, fit_usl, usl
from tablestorm.sim.cli import _build_parser
from tablestorm.sim.cli import main as cli_main
from tablestorm.sim.inputs import GAMES
from tablestorm.sim.load.scenario import Scenario, from_mapping, load
from tablestorm.sim.load.stats import RunStats
from tablestorm.sim.resources import example_scenarios
from tablestorm.sim.schedule.spec import load_schedule

ROOT = Path(__file__).resolve().parent.parent

# ----------------------------------------------------------------------------- the USL fit


def _sweep_to_past_the_peak(lam: float, sigma: float, kappa: float) -> np.ndarray:
    """Twelve loads from 1 to where the throughput has fallen back to 70 % of its peak: a sweep
    that shows the retrograde, without which κ cannot be told from noise."""
    peak = math.sqrt((1 - sigma) / kappa)
    top = usl(peak, lam, sigma, kappa)
    far = brentq(lambda n: usl(n, lam, sigma, kappa) - 0.7 * top, peak, 1e12)
    return np.unique(np.round(np.geomspace(1, far, 12)))


@settings(max_examples=40, deadline=None)
@given(
    lam=st.floats(0.05, 1000.0),
    sigma=st.floats(0.02, 0.3),
    kappa=st.floats(1e-7, 1e-3),
    seed=st.integers(0, 2**32 - 1),
)
def test_usl_fit_recovers_known_parameters_from_noisy_points(lam: float, sigma: float, kappa: float, seed: int) -> None:
    loads = _sweep_to_past_the_peak(lam, sigma, kappa)
    noise = 1 + np.random.default_rng(seed).normal(0.0, 0.002, len(loads))  # 0.2 % per point
    fit = fit_usl(loads.tolist(), (usl(loads, lam, sigma, kappa) * noise).tolist())
    assert fit.lam == pytest.approx(lam, rel=0.05)
    assert fit.sigma == pytest.approx(sigma, rel=0.05)
    assert fit.kappa == pytest.approx(kappa, rel=0.05)
    assert fit.peak_load == pytest.approx(math.sqrt((1 - sigma) / kappa), rel=0.05)
    assert fit.points == len(loads) and fit.r_squared > 0.99
    for error in (fit.lam_stderr, fit.sigma_stderr, fit.kappa_stderr):
        assert error is not None and error > 0


def test_usl_fit_of_exact_points_and_of_three_points() -> None:
    loads = [1.0, 50.0, 100.0, 200.0, 400.0, 800.0]
    fit = fit_usl(loads, [float(usl(n, 2.0, 0.05, 1e-4)) for n in loads])
    assert (fit.lam, fit.sigma, fit.kappa) == pytest.approx((2.0, 0.05, 1e-4), rel=1e-4)
    assert fit.throughput(400.0) == pytest.approx(usl(400.0, 2.0, 0.05, 1e-4), rel=1e-4)
    three = fit_usl(loads[:3], [float(usl(n, 2.0, 0.05, 1e-4)) for n in loads[:3]])
    assert three.lam_stderr is None and three.sigma_stderr is None and three.kappa_stderr is None


@pytest.mark.parametrize(
    ("loads", "throughputs", "error", "message"),
    [
        ([500, 1000], [50.0, 100.0], USLFitError, "at least 3 distinct loads, got 2"),
        ([500, 500, 1000], [50.0, 51.0, 100.0], USLFitError, "at least 3 distinct loads, got 2"),
        ([500, 1000, 2000, 4000], [300.0, 301.0, 299.0, 302.0], USLFitError,
         "throughput is flat across loads 500 to 4000"),
        ([500, 1000, 2000], [0.0, 0.0, 0.0], USLFitError, "throughput is flat"),
        ([500, 1000, 2000], [1.0, 2.0], ValueError, "3 loads but 2 throughputs"),
        ([0, 1000, 2000], [1.0, 2.0, 3.0], ValueError, "loads must be positive"),
        ([500, 1000, 2000], [1.0, float("nan"), 3.0], ValueError, "throughputs must be numbers >= 0"),
    ],
)
def test_usl_fit_refuses_degenerate_sweeps(
    loads: list[float], throughputs: list[float], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=re.escape(message)):
        fit_usl(loads, throughputs)


# ----------------------------------------------------------------------------- SLO, goodput, steadiness


def _constructed_stats() -> RunStats:
    """Second 0: 10 actions at 10 ms, 2 hands; second 1: 9 at 10 ms and one at 200 ms (its p99),
    1 hand; second 2: nothing; second 3: 5 actions at 5 ms, 1 hand and an UNAVAILABLE."""
    stats = RunStats()
    for k in range(10):
        stats.action(0.010, "call", "random", now=0.5)
        stats.action(0.200 if k == 9 else 0.010, "call", "random", now=1.5)
    for _ in range(5):
        stats.action(0.005, "check", "random", now=3.5)
    for now in (0.2, 0.7, 1.9, 3.1):
        stats.hand(now)
    stats.error("UNAVAILABLE", 3.2)
    return stats


def test_goodput_counts_only_the_seconds_that_met_the_slo() -> None:
    stats = _constructed_stats()
    latency_only = SLO.parse(["p99_ms<100"]).goodput(stats, 0, 4)
    assert (latency_only.actions, latency_only.hands, latency_only.seconds_met, latency_only.seconds) == (15, 3, 2, 4)
    assert latency_only.actions_per_s == 15 / 4 and latency_only.hands_per_s == 3 / 4
    strict = SLO.parse(["p99_ms < 100", "errors==0"]).goodput(stats, 0, 4)
    assert (strict.actions, strict.hands, strict.seconds_met) == (10, 2, 1)
    # The window as a whole: 25 actions, the slowest is the 25th = the p99 rank, so it fails.
    results = SLO.parse(["p99_ms<100", "p50_ms<20"]).check(stats.window(0, 4))
    assert [(r["metric"], r["ok"]) for r in results] == [("p99_ms", False), ("p50_ms", True)]
    assert results[0]["value"] == pytest.approx(200.0, rel=0.016)


@pytest.mark.parametrize(
    ("expressions", "message"),
    [
        ([], "at least one expression"),
        (["p99<100"], "unknown metric 'p99'"),
        (["hands>0"], "'hands' in 'hands>0' cannot be judged per second"),
        (["chips_conserved==true"], "cannot be judged per second"),
        (["p99_ms<fast"], "needs a number"),
    ],
)
def test_bad_slo_is_named(expressions: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        SLO.parse(expressions)


def test_steadiness_compares_the_last_whole_windows() -> None:
    stats = RunStats()
    for second, actions in enumerate([5, 40, 100, 100, 102, 98, 100, 101, 99, 100]):
        for _ in range(actions):
            stats.action(0.01, "call", "random", now=second + 0.5)
    rule = Steadiness(window_s=2, windows=3, tolerance=0.05, max_hold_s=20)
    assert rule.measured_s == 6
    assert rule.rates(stats, 4, 10) == [100.0, 100.5, 99.5]
    assert rule.steady(rule.rates(stats, 4, 10))
    assert rule.rates(stats, 0, 6) == [22.5, 100.0, 100.0] and not rule.steady(rule.rates(stats, 0, 6))
    assert rule.rates(stats, 5, 10) == [100.5, 99.5], "only whole windows after the start"
    assert not rule.steady([100.5, 99.5]), "fewer windows than asked never count as steady"
    assert not rule.steady([0.0, 0.0, 0.0])
    assert not Steadiness(tolerance=0.001).steady([100.0, 100.5, 99.5])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"window_s": 0}, "at least 2 windows of at least 1 s"),
        ({"windows": 1}, "at least 2 windows"),
        ({"tolerance": 0.0}, "tolerance must be between 0 and 1"),
        ({"max_hold_s": 14}, "cannot be measured over 3 windows of 5 s (15 s)"),
    ],
)
def test_bad_steadiness_is_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        Steadiness(**options)


def test_cpu_use_counts_the_processes_read_at_both_ends() -> None:
    before = {"host-0": (10.0, 1000.0), "host-1": (4.0, 1000.0), "host-2": (1.0, 1000.0)}
    after = {"host-0": (13.0, 1004.0), "host-1": (6.0, 1004.0), "host-3": (0.5, 1004.0)}
    use = CpuUse.between(before, after)
    assert use.cpu_seconds == 5.0 and use.cores == pytest.approx(0.75 + 0.5)
    assert use.missing == ("host-2", "host-3")


# ----------------------------------------------------------------------------- capacity.json and its page


def test_slo_capacity_is_the_largest_step_that_met_the_slo() -> None:
    steps = [measured_step(100, 50, 0.01), measured_step(200, 90, 0.15), measured_step(300, 120, 0.02),
             measured_step(400, 130, 0.3)]
    best, reason, warnings = slo_capacity(steps)
    assert best is steps[2]
    assert reason.startswith("300 bots is the largest step that met the SLO (p99_ms<100 with 20")
    assert "the next, 400 bots, missed it (p99_ms<100 with 30" in reason
    assert warnings == [
        "200 bots missed the SLO although the larger 300 met it: the machine may be noisy; repeat the sweep"
        " before relying on it"
    ]
    best, reason, _ = slo_capacity(steps[:1])
    assert best is steps[0] and "it is the largest step measured, so the capacity may be higher" in reason
    best, reason, _ = slo_capacity([steps[1], steps[3]])
    assert best is None and reason.startswith("no step met the SLO: even the smallest, 200 bots, had p99_ms<100")


def test_per_core_divides_by_the_hosts_cores_and_needs_every_host() -> None:
    step = measured_step(400, 100, 0.01, host_cores=0.25)
    assert step.per_core() == {"actions_per_s": 400.0, "hands_per_s": 40.0, "seated_players": 1600.0,
                               "play_streams": 1600.0}
    assert set(measured_step(400, 100, 0.01, missing=("host-1",)).per_core().values()) == {None}


def test_capacity_json_of_constructed_steps(tmp_path: Path) -> None:
    steps = [measured_step(n, round(float(usl(n, 0.5, 0.02, 2e-6))), 0.01 + n / 100_000) for n in (100, 300, 600, 900)]
    capacity = capacity_of(steps, tmp_path)
    assert capacity["schema"] == SCHEMA and capacity["complete"] and capacity["warnings"] == []
    assert [s["bots"] for s in capacity["steps"]] == [100, 300, 600, 900]
    fit = capacity["fit"]
    assert fit["error"] is None and fit["points"] == 4
    direct = fit_usl([s.bots for s in steps], [s.actions_per_s for s in steps])
    assert [fit[k]["value"] for k in ("lambda", "sigma", "kappa")] == [direct.lam, direct.sigma, direct.kappa]
    assert fit["peak_bots"] == round(direct.peak_load or 0, 1) and fit["lambda"]["stderr"] == direct.lam_stderr
    assert capacity["capacity"]["slo_step"] == 900
    assert capacity["capacity"]["per_core"]["seated_players"] == 1800.0
    assert capacity["load_run"] == {"summary": "load/summary.json", "report": "load/report.html",
                                    "chips_conserved": True, "errors_total": 0, "duration_s": 60.0}
    json.dumps(capacity)  # JSON-safe throughout


def test_a_sweep_that_never_left_the_linear_regime_says_so(tmp_path: Path) -> None:
    steps = [measured_step(bots, actions, 0.01) for bots, actions in ((100, 10), (200, 21), (400, 39), (800, 81))]
    capacity = capacity_of(steps, tmp_path)
    assert capacity["fit"]["lambda"]["value"] == pytest.approx(0.1, rel=0.05)
    assert capacity["warnings"] == [
        "σ and κ cannot be told from 0 (each within two standard errors of it): the throughput grew in"
        " proportion to the bots, so the sweep did not reach a limit of the table service"
    ]


def test_too_few_steps_are_reported_unfitted(tmp_path: Path) -> None:
    capacity = capacity_of([measured_step(100, 40, 0.01), measured_step(200, 80, 0.01)], tmp_path)
    assert capacity["fit"]["lambda"] is None
    assert capacity["fit"]["error"].startswith("the USL has three parameters")
    assert any(w.startswith("no USL fit: the USL has three parameters") for w in capacity["warnings"])
    page = render_capacity_html(capacity)
    assert "not fitted" in page and "SLO CAPACITY · 200 BOTS" in page
    _check_page(page, steps=2, charts=3)


def test_an_interrupted_sweep_says_what_it_did_not_measure(tmp_path: Path) -> None:
    steps = [measured_step(100, 40, 0.01), measured_step(200, 80, 0.3, steady=False)]
    capacity = capacity_of(steps, tmp_path, planned=[100, 200, 300, 400], interrupted="SIGINT")
    assert not capacity["complete"] and capacity["interrupted"] == "SIGINT"
    assert capacity["capacity"]["slo_step"] == 100
    assert capacity["warnings"] == [
        "200 bots never became steady within 15 s",
        "interrupted by SIGINT: steps 300, 400 were not measured",
        "no USL fit: the USL has three parameters: it needs at least 3 distinct loads, got 2",
    ]
    page = render_capacity_html(capacity)
    assert "interrupted by SIGINT" in page
    assert '<span class="verdict caution">INTERRUPTED</span>' in page  # 300 and 400 bots might have met the SLO


class _Tags(HTMLParser):
    """Every element opened is closed, in order (void elements aside); collects the tables' rows."""

    VOID = frozenset({"meta", "br", "img", "input", "link", "hr"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.rows_per_table: list[int] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.rows_per_table.append(0)
        elif tag == "tr" and self.open[-2:] == ["table", "tbody"]:
            self.rows_per_table[-1] += 1
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # <rect/>, <path/>: opened and closed at once

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1] if self.open else None}>"
        self.open.pop()


def _check_page(page: str, *, steps: int, charts: int) -> None:
    parser = _Tags()
    parser.feed(page)
    parser.close()
    assert parser.open == [], parser.open
    assert parser.rows_per_table[0] == steps, "the steps table lists every step"
    svgs = [ET.fromstring(svg) for svg in re.findall(r"<svg .*?</svg>", page, flags=re.S)]
    assert len(svgs) == charts
    # self-contained: nothing to fetch or run (an SVG's markers refer to its own #ids)
    assert not re.search(r"<script|<link|<img|<iframe|@import|\bsrc=|\bhref=\"(?!#)", page, flags=re.I)


# ----------------------------------------------------------------------------- the command's flags


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ([], "the following arguments are required: --steps"),
        (["--steps", "500,400"], "argument --steps: steps must increase, got 400 after 500"),
        (["--steps", "500,500"], "argument --steps: steps must increase"),
        (["--steps", "0,5"], "argument --steps: a step needs at least one bot, got 0"),
        (["--steps", "500,lots"], "argument --steps: expected whole numbers of bots separated by commas, got 'lots'"),
        (["--steps", "500,,600"], "argument --steps: expected whole numbers"),
        (["--steps", "8", "--slo", "p99<100"], "argument --slo: unknown metric 'p99'"),
        (["--steps", "8", "--slo", "hands>5"], "argument --slo: 'hands' in 'hands>5' cannot be judged per second"),
        (["--steps", "8", "--hold", "10"], "argument --hold: a step must be held long enough for 3 windows of 5 s"),
        (["--steps", "8", "--hold", "soon"], "argument --hold: invalid int value: 'soon'"),
        (["--steps", "8", "--window", "0"], "argument --window: a window lasts at least 1 s, got 0"),
        (["--steps", "8", "--windows", "1"], "argument --windows: steadiness compares at least 2 windows"),
        (["--steps", "8", "--tolerance", "1.5"], "argument --tolerance: must be between 0 and 1, got 1.5"),
    ],
)
def test_cli_errors_exit_2_naming_the_flag(
    flags: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_:
        cli_main(["capacity", *flags, "--out", str(out)])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists(), "nothing is started or written"


def test_cli_names_a_bad_scenario_and_a_bad_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("bots: lots\n")
    with pytest.raises(SystemExit) as exit_:
        cli_main(["capacity", str(bad), "--steps", "8", "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2 and "argument scenario: " in capsys.readouterr().err
    taken = tmp_path / "file"
    taken.write_text("")
    with pytest.raises(SystemExit) as exit_:
        cli_main(["capacity", "--steps", "8", "--out", str(taken)])
    assert exit_.value.code == 2 and "argument --out: " in capsys.readouterr().err


def test_without_a_scenario_the_sweep_plays_every_game_of_the_example_schedules(tmp_path: Path) -> None:
    """``tablestorm plan`` refuses a capacity.json short of a game the schedule plays: the default
    sweep must measure all four, and an example may be named as ``tablestorm load`` names one."""
    def scenario(*words: str) -> Scenario:
        args = _build_parser().parse_args(["capacity", *words, "--steps", "8", "--out", str(tmp_path / "out")])
        return check(args, args.parser).scenario

    default = scenario()
    played = {g.game for g in default.games if g.weight > 0}
    assert default.name == DEFAULT_SCENARIO and played == set(GAMES)
    for path in sorted((ROOT / "sim" / "schedules").glob("*.yaml")):
        assert set(load_schedule(path).games) <= played, path
    assert scenario("stud-ramp").name == "stud-ramp"


def test_docs_capacity_names_the_schedules_each_example_scenario_can_size() -> None:
    """docs/capacity.md's table is what the files say: each example scenario's games, and the
    example schedules whose every game it plays (what ``tablestorm plan`` checks)."""
    schedules = {p.stem: set(load_schedule(p).games) for p in sorted((ROOT / "sim" / "schedules").glob("*.yaml"))}
    expected = {}
    for name, path in example_scenarios().items():
        games = list(dict.fromkeys(g.game for g in load(path).games if g.weight > 0))
        expected[name] = (", ".join(games), ", ".join(s for s, needed in schedules.items() if needed <= set(games)))
    rows = markdown_table("## Which scenario for which schedule", (ROOT / "docs" / "capacity.md").read_text())
    documented = {}
    for row in rows:
        sized = row["example schedules it can size"].split(":")[0]  # "none: each plays draw"
        documented[row["scenario"].split()[0].strip("`")] = (row["games"], "" if sized == "none" else sized)
    assert documented == expected


def test_a_ray_out_of_reach_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    with socket.socket() as free:  # bound, not listening: a connection is refused at once
        free.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{free.getsockname()[1]}"
        assert cli_main(["capacity", "--steps", "8", "--address", address, "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"tablestorm capacity: cannot reach Ray at {address}: ") and error.count("\n") == 1
    assert not out.exists()


def test_parse_steps() -> None:
    assert parse_steps("500, 1000,2000") == (500, 1000, 2000)
    assert parse_steps("7") == (7,)


def test_sweep_scenario_opens_tables_for_the_largest_step_once() -> None:
    scenario = from_mapping({"stages": [{"duration_s": 10, "bots": 50}], "thresholds": ["p99_ms<5"], "hosts": 3})
    swept = sweep_scenario(scenario, (20, 40, 80), Steadiness(max_hold_s=30))
    assert (swept.peak_bots, swept.stages, swept.thresholds, swept.hosts) == (80, (), (), 3)
    assert not swept.open_model and swept.duration_s == 3 * 40 + 30


# ----------------------------------------------------------------------------- a real sweep


def test_real_sweep_writes_a_complete_capacity_json_and_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three steps of 8, 16 and 24 bots, one-second windows, each step held 4 s at most: the
    command starts a loopback Ray, sets the tables up once, steps the bots, and writes both files."""
    scenario = tmp_path / "tiny.yaml"
    scenario.write_text(
        "name: tiny\nclock_seconds: 0.5\nhosts: 1\nfleets: 1\nseed: 3\n"
        "games: [{game: 7stud}, {game: 5stud}]\n"
        "bot_mix: {random: 1, calling_station: 1, strength: 1}\n"
        "think_s: {dist: uniform, min: 0.01, max: 0.03}\n"
    )
    out = tmp_path / "out"
    status = cli_main([
        "capacity", str(scenario), "--steps", "8,16,24", "--window", "1", "--windows", "2", "--hold", "4",
        "--slo", "p99_ms<2000", "--slo", "errors==0", "--out", str(out),
    ])
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    capacity = json.loads((out / "capacity.json").read_text())
    print(json.dumps(capacity["steps"], indent=1))
    assert status == 0, capacity["warnings"]
    assert set(capacity) == {
        "schema", "run", "scenario", "scenario_resolved", "slo", "steadiness", "planned_steps", "complete",
        "interrupted", "steps", "fit", "capacity", "load_run", "warnings",
    }
    assert capacity["schema"] == SCHEMA and capacity["scenario"] == "tiny" and capacity["complete"]
    assert capacity["run"]["machine"]["cores"] == os.cpu_count()
    assert capacity["scenario_resolved"]["bots"] == 24 and capacity["scenario_resolved"]["hosts"] == 1
    assert capacity["slo"]["expressions"] == ["p99_ms<2000", "errors==0"]
    assert [s["bots"] for s in capacity["steps"]] == capacity["planned_steps"] == [8, 16, 24]
    for step in capacity["steps"]:
        assert step["seated"] == step["bots"] and step["errors_total"] == 0 and step["meets_slo"]
        assert 2 <= step["window"]["seconds"] <= step["held_s"] <= 4
        throughput, goodput = step["throughput"], step["goodput"]
        assert 0 < goodput["actions_per_s"] <= throughput["actions_per_s"]
        assert 0 <= goodput["hands_per_s"] <= throughput["hands_per_s"]
        assert throughput["actions"] == round(throughput["actions_per_s"] * step["window"]["seconds"])
        assert 0 < step["latency_ms"]["p50"] <= step["latency_ms"]["p99"]
        assert step["hosts"]["cpu_seconds"] > 0 and 0 < step["hosts"]["cores_used"] < (os.cpu_count() or 1)
        assert step["fleets"]["cpu_seconds"] > 0 and step["hosts"]["missing"] == []
        assert all(value > 0 for value in step["per_core"].values())
        assert step["per_core"]["actions_per_s"] == pytest.approx(
            throughput["actions_per_s"] / step["hosts"]["cores_used"], rel=0.01
        )
    rates = [s["throughput"]["actions_per_s"] for s in capacity["steps"]]
    assert rates[2] > rates[0], "three times the bots at a few per cent of a core: more actions"
    fit = capacity["fit"]
    assert fit["error"] is None and fit["lambda"]["value"] > 0 and fit["points"] == 3
    assert 0 <= fit["sigma"]["value"] <= 1 and fit["kappa"]["value"] >= 0
    result = capacity["capacity"]
    assert result["slo_step"] == 24 and "24 bots is the largest step that met the SLO" in result["reason"]
    assert all(value > 0 for value in result["per_core"].values())
    assert printed["slo_step"] == 24 and printed["per_core"] == result["per_core"]
    load = capacity["load_run"]
    assert load["chips_conserved"] is True and load["errors_total"] == 0
    assert load["duration_s"] < sweep_scenario(from_mapping({}), (8, 16, 24), Steadiness(1, 2, 0.05, 4)).duration_s
    assert (out / load["summary"]).is_file() and (out / load["report"]).is_file()
    page = (out / "capacity.html").read_text()
    assert "SLO CAPACITY · 24 BOTS" in page and "Throughput against load" in page
    _check_page(page, steps=3, charts=3)
