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
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Final

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from support.capacity import PINNED, capacity_of, measured_step
from support.markdown import markdown_table

from tablestorm.sim.capacity.command import DEFAULT_SCENARIO, check, parse_steps
from tablestorm.sim.capacity.knee import AT_LEAST, KNEE, NONE, past_the_peak, slo_capacity, throughput_peak
from tablestorm.sim.capacity.report import render_capacity_html
from tablestorm.sim.capacity.result import SCHEMA, pinning_dict
from tablestorm.sim.capacity.slo import SLO
from tablestorm.sim.capacity.sweep import CpuUse, Steadiness, sweep_scenario
from tablestorm.sim.capacity.usl import CONFIDENCE, USLFitError, fit_usl, holdout, usl
from tablestorm.sim.cli import _build_parser
from tablestorm.sim.cli import main as cli_main
from tablestorm.sim.cluster.affinity import Pinning, choose, parse_cpus, pinned
from tablestorm.sim.cluster.deployment import ActorInfo
from tablestorm.sim.inputs import GAMES
from tablestorm.sim.load.scenario import Scenario, from_mapping, load
from tablestorm.sim.load.stats import RunStats
from tablestorm.sim.resources import example_scenarios
from tablestorm.sim.schedule.spec import load_schedule

ROOT = Path(__file__).resolve().parent.parent
USABLE: Final = tuple(sorted(os.sched_getaffinity(0)))
"""The cores this test process may run on."""

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


def test_each_step_left_out_is_predicted_by_the_fit_of_the_others() -> None:
    """Leave-one-out on exact numbers: points on the law predict one another; a step measured 10 %
    above the law is predicted at the law's value by the other four, an error of -1/11."""
    loads = [50, 100, 200, 400, 800]
    exact = [float(usl(n, 1.0, 0.02, 1e-5)) for n in loads]
    for held in holdout(loads, exact):
        assert held.predicted == pytest.approx(held.measured, rel=1e-6)
        assert held.error == pytest.approx(0.0, abs=1e-6)
    off = {h.load: h for h in holdout(loads, [x * 1.1 if n == 200 else x for n, x in zip(loads, exact, strict=True)])}
    assert off[200].measured == pytest.approx(1.1 * usl(200, 1.0, 0.02, 1e-5), rel=1e-12)
    assert off[200].predicted == pytest.approx(usl(200, 1.0, 0.02, 1e-5), rel=1e-6)
    assert off[200].error == pytest.approx(-1 / 11, rel=1e-5)
    with pytest.raises(USLFitError, match=re.escape("needs at least 4 distinct loads, got 3")):
        holdout(loads[:3], exact[:3])


T_975_2 = 4.302652729749462
"""Student's t at 97.5 % for 2 degrees of freedom (five points, three parameters): a 95 % interval."""


def test_intervals_are_t_standard_errors_either_side_within_the_bounds() -> None:
    loads = [100, 200, 400, 800, 1600]
    fit = fit_usl(loads, [10.0, 21.0, 39.0, 81.0, 158.0])  # linear: σ and κ at their bound 0
    assert CONFIDENCE == 0.95 and fit.points == 5
    values = (fit.lam, fit.sigma, fit.kappa)
    errors = (fit.lam_stderr, fit.sigma_stderr, fit.kappa_stderr)
    for value, error, interval, upper in zip(values, errors, fit.intervals(), (math.inf, 1.0, math.inf), strict=True):
        assert error is not None and interval is not None
        assert interval == pytest.approx((max(0.0, value - T_975_2 * error), min(upper, value + T_975_2 * error)))
    assert fit.intervals()[1][0] == 0.0 and fit.intervals()[2][0] == 0.0  # type: ignore[index]
    three = fit_usl(loads[:3], [10.0, 21.0, 39.0])
    assert three.intervals() == (None, None, None), "no degrees of freedom left: no interval"


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


def test_the_knee_is_the_largest_step_that_met_the_slo_and_the_next_that_missed_it() -> None:
    steps = [measured_step(100, 50, 0.01), measured_step(200, 90, 0.15), measured_step(300, 120, 0.02),
             measured_step(400, 130, 0.3)]
    knee = slo_capacity(steps)
    assert (knee.kind, knee.step, knee.missed) == (KNEE, steps[2], steps[3])
    assert knee.headline == "capacity 300 bots: the knee (400 missed the SLO)"
    assert knee.reason.startswith("300 bots is the largest step that met the SLO (p99_ms<100 with 20")
    assert "the next, 400 bots, missed it (p99_ms<100 with 30" in knee.reason
    assert knee.warnings == (
        "200 bots missed the SLO although the larger 300 met it: the machine may be noisy; repeat the sweep"
        " before relying on it",
    )
    at_least = slo_capacity(steps[:1])
    assert (at_least.kind, at_least.step, at_least.missed) == (AT_LEAST, steps[0], None)
    assert at_least.headline == "at least 100 bots: no step reached the SLO"
    assert "it is the largest step measured, so the capacity may be higher" in at_least.reason
    assert at_least.warnings[0] == (
        "no step reached the SLO: the capacity is at least 100 bots, not measured, and the per-core figures are"
        " those of a load below the knee; a plan from them extrapolates: sweep larger steps"
    )
    none = slo_capacity([steps[1], steps[3]])
    assert (none.kind, none.step, none.headline) == (NONE, None, "no step met the SLO")
    assert none.reason.startswith("no step met the SLO: even the smallest, 200 bots, had p99_ms<100")
    assert slo_capacity([]).kind == NONE


def test_throughput_stops_rising_at_a_step_carrying_less_than_5_per_cent_more() -> None:
    steps = [measured_step(100, 50, 0.01), measured_step(200, 100, 0.02), measured_step(300, 104, 0.2),
             measured_step(400, 90, 0.4)]
    assert throughput_peak(steps) == {"bots": 300, "actions_per_s": 104.0, "stopped_after": 200}
    assert throughput_peak(steps[:2]) == {"bots": 200, "actions_per_s": 100.0, "stopped_after": None}
    assert throughput_peak([]) is None
    assert [past_the_peak(steps[:k]) for k in range(5)] == [False, False, False, True, True]
    flat_but_met = [measured_step(100, 100, 0.01), measured_step(200, 101, 0.01)]
    assert not past_the_peak(flat_but_met), "a step that met the SLO never ends the sweep"
    assert not past_the_peak([measured_step(100, 100, 0.01), measured_step(200, 106, 0.5)]), "6 % more is still rising"


def test_per_core_divides_by_the_hosts_cores_and_needs_every_host() -> None:
    step = measured_step(400, 100, 0.01, host_cores=0.25)
    assert step.per_core() == {"actions_per_s": 400.0, "hands_per_s": 40.0, "seated_players": 1600.0,
                               "play_streams": 1600.0}
    assert set(measured_step(400, 100, 0.01, missing=("host-1",)).per_core().values()) == {None}


def test_capacity_json_of_constructed_steps(tmp_path: Path) -> None:
    loads = (100, 300, 600, 900, 1200)
    steps = [measured_step(n, round(float(usl(n, 0.5, 0.002, 2e-7))), 0.15 if n == 1200 else 0.01) for n in loads]
    capacity = capacity_of(steps, tmp_path)
    assert capacity["schema"] == SCHEMA and capacity["complete"] and capacity["warnings"] == []
    assert not capacity["past_the_peak"] and capacity["pinning"] == PINNED
    assert [s["bots"] for s in capacity["steps"]] == list(loads)
    fit = capacity["fit"]
    assert fit["error"] is None and fit["points"] == 5 and fit["confidence"] == 0.95
    direct = fit_usl([s.bots for s in steps], [s.actions_per_s for s in steps])
    assert [fit[k]["value"] for k in ("lambda", "sigma", "kappa")] == [direct.lam, direct.sigma, direct.kappa]
    assert [fit[k]["interval"] for k in ("lambda", "sigma", "kappa")] == [list(i or ()) for i in direct.intervals()]
    assert fit["peak_bots"] == round(direct.peak_load or 0, 1) and fit["lambda"]["stderr"] == direct.lam_stderr
    held = holdout([s.bots for s in steps], [s.actions_per_s for s in steps])
    assert fit["holdout"] == {
        "steps": [{"bots": int(h.load), "measured": round(h.measured, 3), "predicted": round(h.predicted or 0, 3),
                   "error": round(h.error or 0, 4)} for h in held],
        "mean_abs_error": round(sum(abs(h.error or 0) for h in held) / 5, 4),
        "error": None,
    }
    assert fit["holdout"]["mean_abs_error"] < 0.01, "points on the law, to the nearest action"
    assert capacity["throughput_peak"] == {"bots": 1200, "actions_per_s": steps[-1].actions_per_s,
                                           "stopped_after": None}
    assert capacity["capacity"] == {
        "kind": KNEE, "headline": "capacity 900 bots: the knee (1,200 missed the SLO)", "slo_step": 900,
        "next_step": 1200, "reason": capacity["capacity"]["reason"], "per_core": steps[3].per_core(),
        "hosts_cores_used": 0.5,
    }
    assert capacity["capacity"]["per_core"]["seated_players"] == 1800.0
    assert capacity["load_run"] == {"summary": "load/summary.json", "report": "load/report.html",
                                    "chips_conserved": True, "errors_total": 0, "duration_s": 60.0}
    json.dumps(capacity)  # JSON-safe throughout
    page = render_capacity_html(capacity)
    assert '<span class="verdict pass">CAPACITY 900 BOTS: THE KNEE (1,200 MISSED THE SLO)</span>' in page
    assert "The table hosts ran on CPU 0 (1 core, pinned: --pin auto); the fleets, the driver and Ray on CPU 1." in page
    assert "left out (bots)" in page and "95% interval" in page
    assert fit["peak_bots"] > 1200 and ">USL peak (extrapolated)<" in page, "a peak past the sweep was not measured"
    _check_page(page, steps=5, charts=3)


def test_a_sweep_that_never_reached_its_slo_is_a_lower_bound_in_the_warning_colour(tmp_path: Path) -> None:
    """Throughput in proportion to the bots and every step within the SLO: "at least 800", not a
    capacity; σ and κ cannot be told from 0, so the contention was not reached."""
    steps = [measured_step(bots, actions, 0.01) for bots, actions in ((100, 10), (200, 21), (400, 39), (800, 81))]
    capacity = capacity_of(steps, tmp_path)
    assert capacity["fit"]["lambda"]["value"] == pytest.approx(0.1, rel=0.05)
    assert (capacity["capacity"]["kind"], capacity["capacity"]["slo_step"]) == (AT_LEAST, 800)
    assert capacity["capacity"]["headline"] == "at least 800 bots: no step reached the SLO"
    assert capacity["warnings"] == [
        "no step reached the SLO: the capacity is at least 800 bots, not measured, and the per-core figures are"
        " those of a load below the knee; a plan from them extrapolates: sweep larger steps",
        "σ and κ cannot be told from 0 (the 95% interval of each reaches 0): these steps did not reach the"
        " contention of the table service (throughput rose at every step); sweep larger steps",
    ]
    page = render_capacity_html(capacity)
    assert '<span class="verdict caution">AT LEAST 800 BOTS: NO STEP REACHED THE SLO</span>' in page
    assert "verdict pass" not in page and "SLO capacity (the knee)" not in page
    assert "Throughput rose at every step: the sweep did not reach the most the hosts carry." in page


def test_a_sweep_that_ended_past_the_peak_says_why_it_stopped(tmp_path: Path) -> None:
    steps = [measured_step(1000, 100, 0.01), measured_step(2000, 200, 0.02),
             measured_step(3000, 290, 0.3), measured_step(4000, 300, 0.9)]
    capacity = capacity_of(steps, tmp_path, planned=[1000, 2000, 3000, 4000, 5000, 6000])
    assert capacity["past_the_peak"] and not capacity["complete"]
    assert capacity["throughput_peak"] == {"bots": 4000, "actions_per_s": 300.0, "stopped_after": 3000}
    assert not any("were not measured" in w for w in capacity["warnings"])
    page = render_capacity_html(capacity)
    assert ("Throughput stopped rising after 3,000 bots (the next step carried less than 5% more); the most was"
            " 300.0 actions/s, at 4,000 bots.") in page
    assert "The sweep ended there: larger steps would only have overloaded the hosts." in page


def test_no_step_met_the_slo_is_a_failure(tmp_path: Path) -> None:
    steps = [measured_step(100, 40, 0.2), measured_step(200, 80, 0.3), measured_step(300, 90, 0.5)]
    capacity = capacity_of(steps, tmp_path)
    assert (capacity["capacity"]["kind"], capacity["capacity"]["slo_step"]) == (NONE, None)
    assert '<span class="verdict fail">NO STEP MET THE SLO</span>' in render_capacity_html(capacity)


def test_hosts_sharing_their_cores_with_the_fleets_are_warned_of(tmp_path: Path) -> None:
    shared = pinning_dict("off", None, {
        "hosts": {"host-0": ActorInfo("host-0", "node-a", 10, "m", cpus=(0, 1))},
        "fleets": {"fleet-0": ActorInfo("fleet-0", "node-a", 11, "m", cpus=(0, 1)),
                   "fleet-1": ActorInfo("fleet-1", "node-b", 12, "m", cpus=(0, 1))},
    })
    assert shared == {"requested": "off", "hosts_cpus": None, "others_cpus": None, "hosts_cores": 2,
                      "shared_with_fleets": True, "actors": {
                          "host-0": {"node_id": "node-a", "cpus": [0, 1]},
                          "fleet-0": {"node_id": "node-a", "cpus": [0, 1]},
                          "fleet-1": {"node_id": "node-b", "cpus": [0, 1]}}}
    capacity = capacity_of([measured_step(100, 40, 0.01), measured_step(200, 80, 0.3)], tmp_path, pinning=shared)
    assert capacity["warnings"][-1] == (
        "the table hosts shared their cores with the bot fleets: the hosts' share of them, and so the knee, depends"
        " on what the fleets took (tablestorm capacity --pin)"
    )
    assert "The table hosts were not pinned: they shared the machine&#x27;s 2 cores with the fleets." in (
        render_capacity_html(capacity))
    elsewhere = pinning_dict("off", None, {"hosts": {"host-0": ActorInfo("host-0", "node-a", 10, "m", cpus=(0, 1))},
                                           "fleets": {"fleet-0": ActorInfo("fleet-0", "node-b", 11, "m", cpus=(0,))}})
    assert (elsewhere["hosts_cores"], elsewhere["shared_with_fleets"]) == (2, False), "a fleet on another node"
    assert pinning_dict("auto", None, {})["hosts_cores"] is None, "no host reported: unknown"


def test_too_few_steps_are_reported_unfitted(tmp_path: Path) -> None:
    capacity = capacity_of([measured_step(100, 40, 0.01), measured_step(200, 80, 0.01)], tmp_path)
    assert capacity["fit"]["lambda"] is None and capacity["fit"]["holdout"] is None
    assert capacity["fit"]["error"].startswith("the USL has three parameters")
    assert any(w.startswith("no USL fit: the USL has three parameters") for w in capacity["warnings"])
    page = render_capacity_html(capacity)
    assert "not fitted" in page and "AT LEAST 200 BOTS" in page
    _check_page(page, steps=2, charts=3)


def test_an_interrupted_sweep_says_what_it_did_not_measure(tmp_path: Path) -> None:
    steps = [measured_step(100, 40, 0.01), measured_step(200, 80, 0.3, steady=False)]
    capacity = capacity_of(steps, tmp_path, planned=[100, 200, 300, 400], interrupted="SIGINT")
    assert not capacity["complete"] and capacity["interrupted"] == "SIGINT" and not capacity["past_the_peak"]
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
        (["--steps", "8", "--pin", "lots"],
         "argument --pin: expected auto, off or a CPU list such as 0 or 0-1 or 0,2, got 'lots'"),
        (["--steps", "8", "--pin", "1-0"], "argument --pin: '1-0' is not a range of CPU numbers"),
        (["--steps", "8", "--pin", "4096"], "argument --pin: CPU 4096 is not usable here (usable: "),
        (["--steps", "8", "--pin", ",".join(map(str, USABLE))],
         "argument --pin: leaves no core for the fleets, the driver and Ray (usable: "),
        (["--steps", "8", "--pin", "0", "--address", "127.0.0.1:1"],
         "argument --pin: pins the processes of this machine: only for a local Ray (without --address)"),
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


# ----------------------------------------------------------------------------- CPU affinity

def test_cpu_lists_read_as_taskset_writes_them() -> None:
    assert parse_cpus("0") == (0,) and parse_cpus("0-2") == (0, 1, 2) and parse_cpus("3, 0-1,1") == (0, 1, 3)


@pytest.mark.skipif(len(USABLE) < 2, reason="pinning needs two cores")
def test_auto_gives_the_hosts_the_first_cores_up_to_half_the_machine() -> None:
    half = len(USABLE) // 2
    assert choose("auto", hosts=1, local=True) == Pinning(USABLE[:1], USABLE[1:], "auto")
    assert choose("auto", hosts=64, local=True) == Pinning(USABLE[:half], USABLE[half:], "auto")
    assert choose("auto", hosts=2, local=False) is None, "a joined cluster's hosts have nodes of their own"
    assert choose("off", hosts=2, local=True) is None
    last = str(USABLE[-1])
    assert choose(last, hosts=1, local=True) == Pinning(USABLE[-1:], USABLE[:-1], last)


PINNED_CHILD: Final = """
import os, subprocess, sys, threading
from tablestorm.sim.cluster.affinity import pin_process
stop = threading.Event()
before = threading.Thread(target=stop.wait, daemon=True)
before.start()
pin_process([int(sys.argv[1])])
after = threading.Thread(target=stop.wait, daemon=True)
after.start()
child = subprocess.run([sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
                       capture_output=True, text=True, check=True)
print(os.getpid(), child.stdout.strip(), flush=True)
sys.stdin.readline()
stop.set()
"""
"""Pins itself to the CPU it is given with a thread running and starts another thread and a
process after: prints its pid and the process's cores, then waits for a line."""


@pytest.mark.skipif(len(USABLE) < 2, reason="pinning needs two cores")
def test_a_pinned_process_runs_every_thread_and_child_on_its_cores() -> None:
    """Read from outside, in /proc: every thread of the process, those started before the pin and
    after it, may run on the one CPU only, and a process it starts inherits it (as Ray's do)."""
    cpu = USABLE[-1]
    child = subprocess.Popen([sys.executable, "-c", PINNED_CHILD, str(cpu)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdin is not None
        pid, grandchild = child.stdout.readline().split(" ", 1)
        tasks = sorted(Path(f"/proc/{pid}/task").iterdir())
        allowed = {
            line.split(":", 1)[1].strip()
            for task in tasks for line in (task / "status").read_text().splitlines()
            if line.startswith("Cpus_allowed_list:")
        }
        assert len(tasks) >= 3 and allowed == {str(cpu)}
        assert grandchild.strip() == f"[{cpu}]"
        child.stdin.write("\n")
        child.stdin.flush()
        assert child.wait(timeout=30) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.mark.skipif(len(USABLE) < 2, reason="pinning needs two cores")
def test_pinned_gives_the_cores_back() -> None:
    with pinned(USABLE[-1:]):
        assert os.sched_getaffinity(0) == {USABLE[-1]}
    assert tuple(sorted(os.sched_getaffinity(0))) == USABLE
    with pinned(None):
        assert tuple(sorted(os.sched_getaffinity(0))) == USABLE


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
    affinity = os.sched_getaffinity(0)
    status = cli_main([
        "capacity", str(scenario), "--steps", "8,16,24", "--window", "1", "--windows", "2", "--hold", "4",
        "--slo", "p99_ms<2000", "--slo", "errors==0", "--out", str(out),
    ])
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    capacity = json.loads((out / "capacity.json").read_text())
    print(json.dumps(capacity["steps"], indent=1))
    assert os.sched_getaffinity(0) == affinity, "the command gives its process its cores back"
    assert status == 1, "every step met the SLO: no knee, so no capacity measured"
    assert set(capacity) == {
        "schema", "run", "scenario", "scenario_resolved", "pinning", "slo", "steadiness", "planned_steps",
        "complete", "past_the_peak", "interrupted", "steps", "throughput_peak", "fit", "capacity", "load_run",
        "warnings",
    }
    assert capacity["schema"] == SCHEMA and capacity["scenario"] == "tiny" and capacity["complete"]
    assert capacity["run"]["machine"]["cores"] == os.cpu_count()
    assert capacity["run"]["machine"]["cpu_model"] and capacity["run"]["machine"]["ray"]
    usable = sorted(affinity)
    if len(usable) >= 2:  # auto: the host on the first core, every other process of the run on the rest
        assert capacity["pinning"] == {
            "requested": "auto", "hosts_cpus": usable[:1], "others_cpus": usable[1:], "hosts_cores": 1,
            "shared_with_fleets": False, "actors": {
                "host-0": {"node_id": capacity["pinning"]["actors"]["host-0"]["node_id"], "cpus": usable[:1]},
                "fleet-0": {"node_id": capacity["pinning"]["actors"]["host-0"]["node_id"], "cpus": usable[1:]},
            },
        }
        assert printed["hosts_cores"] == 1
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
    assert fit["holdout"]["error"] == "predicting a step the fit was not shown needs at least 4 distinct loads, got 3"
    result = capacity["capacity"]
    assert (result["kind"], result["slo_step"], result["next_step"]) == (AT_LEAST, 24, None)
    assert result["headline"] == "at least 24 bots: no step reached the SLO"
    assert "24 bots is the largest step that met the SLO" in result["reason"]
    assert all(value > 0 for value in result["per_core"].values())
    assert printed["kind"] == AT_LEAST and printed["headline"] == result["headline"]
    assert printed["slo_step"] == 24 and printed["per_core"] == result["per_core"]
    load = capacity["load_run"]
    assert load["chips_conserved"] is True and load["errors_total"] == 0
    assert load["duration_s"] < sweep_scenario(from_mapping({}), (8, 16, 24), Steadiness(1, 2, 0.05, 4)).duration_s
    assert (out / load["summary"]).is_file() and (out / load["report"]).is_file()
    page = (out / "capacity.html").read_text()
    assert '<span class="verdict caution">AT LEAST 24 BOTS: NO STEP REACHED THE SLO</span>' in page
    assert "Throughput against load" in page
    _check_page(page, steps=3, charts=3)
