"""capacity.html: the sweep for people, drawn from capacity.json alone through :mod:`tablestorm.sim.reporting`.

The headline is what was measured, in capacity.json's words: the knee in the pass colour, "at
least N" in the warning colour when no step reached the SLO (a lower bound is no capacity), none
in the failure colour. Then throughput (and goodput) against the offered bots with the fitted USL
curve, the round trip's percentiles against the bots with the SLO's line, the cores the hosts and
fleets used against the cores the hosts had, a table of the steps, the fit's parameters with their
intervals and its predictions of the steps it was not shown, and the machine. Rendering needs
nothing but the JSON, so a report can be drawn again from an archived file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np

from tablestorm.sim.capacity.knee import AT_LEAST, KNEE, PEAK_RISE
from tablestorm.sim.capacity.usl import usl
from tablestorm.sim.load.thresholds import METRICS, parse
from tablestorm.sim.reporting import plots
from tablestorm.sim.reporting.html import (
    FAIL_BADGE,
    INTERRUPTED,
    PASS_BADGE,
    banner,
    card,
    cards,
    empty,
    escape,
    figure,
    fmt,
    page,
    run_table,
    section,
    table,
)
from tablestorm.sim.reporting.style import BLUE, GREEN, ORANGE, PURPLE, RED

__all__ = ["render_capacity_html", "write_capacity_html"]

_LATENCY_COLOURS = {"p50": GREEN, "p99": ORANGE}
_IN_REACH = 10
"""A fitted peak beyond this many times the largest step is no peak the sweep can speak for."""


def _value(parameter: Mapping[str, Any] | None) -> float | None:
    return None if parameter is None else parameter.get("value")


def _throughput_chart(steps: Sequence[Mapping[str, Any]], fit: Mapping[str, Any], slo_step: int | None) -> str:
    bots = [s["bots"] for s in steps]
    actions = [s["throughput"]["actions_per_s"] for s in steps]
    goodput = plots.Series("goodput actions/s", [s["goodput"]["actions_per_s"] for s in steps], colour=GREEN)
    vlines = [] if slo_step is None else [plots.Mark(float(slo_step), "SLO capacity")]
    if fit.get("error") is None:
        lam, sigma, kappa = (float(fit[k]["value"]) for k in ("lambda", "sigma", "kappa"))
        peak = fit.get("peak_bots")
        right = max(bots) * 1.15
        if peak is not None and peak <= right:
            vlines.append(plots.Mark(peak, "USL peak"))
        curve_x = np.linspace(1.0, right, 200)
        curve_y = usl(curve_x, lam, sigma, kappa)
        label = f"USL: λ={lam:.4g}, σ={sigma:.3g}, κ={kappa:.3g}"
    else:
        curve_x, curve_y, label = np.array([]), np.array([]), "no USL fit"
    title = "Throughput against load"
    return figure(title, plots.scatter_fit(
        bots, actions, curve_x.tolist(), curve_y.tolist(), title=title, xlabel="bots (offered)", ylabel="actions / s",
        point_label="throughput actions/s", fit_label=label, vlines=vlines, more_points=[goodput],
    ))


def _slo_lines(expressions: Sequence[str]) -> list[tuple[str, float, str]]:
    """(latency key, level in ms, label) of each SLO expression on a round-trip latency."""
    found = []
    for expression in expressions:
        threshold = parse(expression)
        path, _ = METRICS[threshold.metric]
        if path[0] == "latency_ms" and isinstance(threshold.target, float):
            found.append((path[1], threshold.target, f"SLO {expression}"))
    return found


def _latency_chart(steps: Sequence[Mapping[str, Any]], expressions: Sequence[str]) -> str:
    slo_lines = _slo_lines(expressions)
    keys = ["p50", "p99", *(key for key, _, _ in slo_lines if key not in ("p50", "p99"))]
    series = [
        plots.Series(f"{key} round trip", [s["latency_ms"].get(key) for s in steps], colour=_LATENCY_COLOURS.get(key))
        for key in dict.fromkeys(keys)
    ]
    title = "Round trip against load"
    return figure(title, plots.lines(
        [s["bots"] for s in steps], series, title=title, xlabel="bots (offered)", ylabel="latency (ms)",
        hlines=[plots.Mark(level, label, RED) for _, level, label in slo_lines], markers=True,
    ))


def _cores_chart(steps: Sequence[Mapping[str, Any]], hosts_cores: int | None) -> str:
    series = [
        plots.Series("table hosts", [s["hosts"]["cores_used"] for s in steps], colour=BLUE),
        plots.Series("bot fleets", [s["fleets"]["cores_used"] for s in steps], colour=PURPLE),
    ]
    had = [] if hosts_cores is None else [plots.Mark(float(hosts_cores), "the hosts' cores", BLUE)]
    title = "CPU against load"
    return figure(title, plots.lines([s["bots"] for s in steps], series, title=title, xlabel="bots (offered)",
                                     ylabel="cores used", markers=True, hlines=had))


def _steps_table(steps: Sequence[Mapping[str, Any]], slo_step: int | None) -> str:
    rows = []
    for s in steps:
        per_core = s["per_core"]
        bots = fmt(s["bots"]) + (" ◀" if s["bots"] == slo_step else "")
        rows.append([
            bots, fmt(s["seated"]), fmt(s["steady"]), fmt(s["held_s"], "s"),
            fmt(s["throughput"]["actions_per_s"], digits=1), fmt(s["goodput"]["actions_per_s"], digits=1),
            fmt(s["throughput"]["hands_per_s"], digits=2), fmt(s["latency_ms"]["p50"], digits=1),
            fmt(s["latency_ms"]["p99"], digits=1), fmt(s["errors_total"]), fmt(s["hosts"]["cores_used"], digits=3),
            fmt(per_core["actions_per_s"], digits=1), PASS_BADGE if s["meets_slo"] else FAIL_BADGE,
        ])
    return table(
        ["bots", "seated", "steady", "held", "actions/s", "goodput/s", "hands/s", "p50 ms", "p99 ms", "errors",
         "host cores", "actions/s per core", "SLO"],
        rows,
    )


def _significant(value: float | None) -> str:
    return "–" if value is None else escape(f"{value:.4g}")


def _interval(parameter: Mapping[str, Any]) -> str:
    interval = parameter.get("interval")
    return "–" if interval is None else f"{_significant(interval[0])} to {_significant(interval[1])}"


def _fit_table(fit: Mapping[str, Any], largest: int) -> str:
    if fit.get("error") is not None:
        return table(["USL fit", ""], [["not fitted", escape(fit["error"])]], pairs=True)
    rows = [
        [name, _significant(_value(fit[key])), _interval(fit[key])]
        for name, key in (("λ (actions/s of one bot)", "lambda"), ("σ (contention)", "sigma"),
                          ("κ (crosstalk)", "kappa"))
    ]
    peak = fit["peak_bots"]
    beyond = " (beyond the largest step: extrapolated)" if peak is not None and peak > largest else ""
    rows += [
        ["peak bots N* = √((1−σ)/κ)", ("none: κ = 0" if peak is None else fmt(peak, digits=0)) + beyond, ""],
        ["peak actions/s", fmt(fit["peak_actions_per_s"], digits=1), ""],
        ["R²", fmt(fit["r_squared"], digits=4), ""],
        ["steps fitted", fmt(fit["points"]), ""],
    ]
    return table(["USL fit", "value", f"{fit['confidence']:.0%} interval"], rows)


def _percent(share: float | None) -> str:
    return "–" if share is None else escape(f"{share:+.1%}")


def _holdout_table(fit: Mapping[str, Any]) -> str:
    """Each step as the fit of the others predicts it: how well the law describes the sweep."""
    held = fit.get("holdout")
    if held is None:
        return ""
    if held["error"] is not None:
        return table(["fit of the other steps", ""], [["not checked", escape(held["error"])]], pairs=True)
    rows = [[fmt(h["bots"]), fmt(h["measured"], digits=1), fmt(h["predicted"], digits=1), _percent(h["error"])]
            for h in held["steps"]]
    mean = held["mean_abs_error"]
    rows.append(["mean |error|", "", "", "–" if mean is None else escape(f"{mean:.1%}")])
    return table(["left out (bots)", "actions/s", "predicted", "error"], rows)


def _pinning(pinning: Mapping[str, Any], cores: Any) -> str:
    """Where the hosts ran, in a sentence."""
    hosts, others, had = pinning["hosts_cpus"], pinning["others_cpus"], pinning["hosts_cores"]
    if hosts is not None:
        return (f"The table hosts ran on CPU {','.join(map(str, hosts))} ({had} core{'' if had == 1 else 's'},"
                f" pinned: --pin {pinning['requested']}); the fleets, the driver and Ray on CPU"
                f" {','.join(map(str, others))}.")
    if pinning["shared_with_fleets"]:
        return f"The table hosts were not pinned: they shared the machine's {cores} cores with the fleets."
    return "The table hosts were not pinned."


def _measured(capacity: Mapping[str, Any]) -> str:
    """What the sweep measured, in sentences: the SLO capacity and why, where throughput peaked,
    and the cores the hosts had."""
    result, peak = capacity["capacity"], capacity["throughput_peak"]
    lines = [f"{result['reason']}."]
    if peak is not None:
        if peak["stopped_after"] is not None:
            lines.append(f"Throughput stopped rising after {peak['stopped_after']:,} bots (the next step carried less"
                         f" than {PEAK_RISE:.0%} more); the most was {peak['actions_per_s']:,.1f} actions/s, at"
                         f" {peak['bots']:,} bots.")
        else:
            lines.append("Throughput rose at every step: the sweep did not reach the most the hosts carry.")
    if capacity["past_the_peak"]:
        lines.append("The sweep ended there: larger steps would only have overloaded the hosts.")
    lines.append(_pinning(capacity["pinning"], capacity["run"].get("machine", {}).get("cores", "?")))
    return "".join(f"<p>{escape(line)}</p>" for line in lines)


def _peak_card(peak: float | None, largest: int) -> str:
    """The law's peak; past the largest step it was never measured, and the card says so."""
    if peak is not None and peak > _IN_REACH * largest:
        return card("USL peak", f"beyond {_IN_REACH}× the sweep")
    return card("USL peak (extrapolated)" if peak is not None and peak > largest else "USL peak", peak, "bots", 0)


_BADGE_CLASS: Final = {KNEE: "pass", AT_LEAST: "caution"}
"""A knee is measured; a lower bound is a warning; anything else (no step met the SLO) a failure."""


def _badge(result: Mapping[str, Any], interrupted: bool) -> str:
    kind = result["kind"]
    if kind in _BADGE_CLASS and interrupted:  # the steps not measured might have met it too
        return INTERRUPTED
    return f'<span class="verdict {_BADGE_CLASS.get(kind, "fail")}">{escape(result["headline"].upper())}</span>'


def _host_cores(used: float | None, had: int | None) -> str:
    """``0.78 of 1``: the cores the hosts used at the SLO step of those they had."""
    if used is None:
        return "–"
    return f"{used:.3g}" if had is None else f"{used:.3g} of {had}"


def render_capacity_html(capacity: Mapping[str, Any]) -> str:
    """The report page for a capacity.json's contents."""
    steps: Sequence[Mapping[str, Any]] = capacity["steps"]
    fit: Mapping[str, Any] = capacity["fit"]
    result: Mapping[str, Any] = capacity["capacity"]
    slo_step = result["slo_step"]
    expressions = capacity["slo"]["expressions"]
    per_core = result["per_core"] or {}
    machine = capacity["run"].get("machine", {})
    hosts_cores = capacity["pinning"]["hosts_cores"]
    meta = (
        f"{capacity['scenario']} · SLO {' and '.join(expressions)} · steps "
        f"{', '.join(f'{b:,}' for b in capacity['planned_steps'])} · {machine.get('cores', '?')} cores"
    )
    held = fit.get("holdout") or {}
    mean_error = held.get("mean_abs_error")
    step_card = card("SLO capacity (the knee)", slo_step, "bots", 0) if result["kind"] == KNEE else (
        card("at least (no knee)", slo_step, "bots", 0) if result["kind"] == AT_LEAST else card("SLO capacity", None))
    headline = cards([
        step_card,
        card("next step (missed the SLO)", result["next_step"], "bots", 0),
        card("actions/s per core", per_core.get("actions_per_s")),
        card("hands/s per core", per_core.get("hands_per_s"), digits=2),
        card("seated players per core", per_core.get("seated_players"), digits=0),
        card("Play streams per core", per_core.get("play_streams"), digits=0),
        card("host cores at the SLO step", _host_cores(result["hosts_cores_used"], hosts_cores)),
        card("held-out fit error", None if mean_error is None else f"{mean_error:.1%}"),
        _peak_card(fit.get("peak_bots"), max(capacity["planned_steps"])),
    ])
    if steps:
        charts = [_throughput_chart(steps, fit, slo_step), _latency_chart(steps, expressions),
                  _cores_chart(steps, hosts_cores)]
    else:
        charts = [empty("Throughput against load", "No step was measured.")]
    steadiness = capacity["steadiness"]
    footer = (
        f"<b>Steady</b>: all the step's bots online, then the actions/s of the last {steadiness['windows']}"
        f" windows of {steadiness['window_s']} s each within {steadiness['tolerance']:.0%} of their mean;"
        f" the step is measured over those seconds, or over its last seconds when it is not steady after"
        f" {steadiness['max_hold_s']} s. <b>Goodput</b>: {escape(capacity['slo']['definition'])}"
        " <b>Cores used</b>: each process's CPU seconds (user + system) over the wall seconds of the window,"
        " summed; per core divides by the table hosts' cores. A seated bot holds one Play stream."
        " Machine-readable: capacity.json; the sweep second by second:"
        f" {escape(capacity['load_run'].get('report', ''))}."
    )
    return page(
        f"tablestorm capacity: {capacity['scenario']}", meta, _badge(result, bool(capacity.get("interrupted"))),
        [
            *(banner(text) for text in capacity["warnings"]),
            headline,
            section("What was measured", _measured(capacity)),
            section("Against load", "".join(charts), "charts"),
            section("Steps", _steps_table(steps, slo_step)),
            section("The law fitted", _fit_table(fit, max(capacity["planned_steps"])) + _holdout_table(fit), "tables"),
            section("Run", run_table(capacity["run"]), "tables"),
        ],
        footer,
    )


def write_capacity_html(path: Path, capacity: Mapping[str, Any]) -> None:
    path.write_text(render_capacity_html(capacity), encoding="utf-8")
