"""capacity.json: what one core of the table service carries at the SLO, built from a sweep's steps.

The whole schema, built in one place (``"schema": "tablestorm.capacity/2"``; /1 had no knee, no fit
check and no pinning, and ``tablestorm plan`` refuses it):

- ``run``: the run's metadata (:func:`tablestorm.sim.reporting.meta.run_metadata`: tablestorm version, command
  line, start time, machine with its ``cpu_model``, ``cores``, ``python`` and ``ray``); ``scenario``
  and ``scenario_resolved`` (every setting of the load run as it ran, as in summary.json: its
  ``games`` with their weights, ``bot_mix``, ``think``);
- ``pinning``: the cores the table hosts had (:mod:`tablestorm.sim.cluster.affinity`): ``requested``
  (the ``--pin`` flag), ``hosts_cpus`` and ``others_cpus`` (the cores asked for the hosts and for
  every other process of the run; None when nothing was pinned), ``hosts_cores`` (the cores the
  hosts could run on as they reported them, per node, summed; None when unknown),
  ``shared_with_fleets`` (a fleet could run on one of them), ``actors`` (each host's and fleet's
  ``node_id`` and ``cpus``);
- ``slo``: ``expressions`` and the ``definition`` of a second and a step meeting it, and of
  goodput (:mod:`tablestorm.sim.capacity.slo`); ``steadiness``: ``window_s``, ``windows``, ``tolerance``,
  ``max_hold_s`` (:mod:`tablestorm.sim.capacity.sweep`);
- ``planned_steps``, ``complete`` (every planned step was measured), ``past_the_peak`` (the sweep
  ended before its last steps because throughput had stopped rising past the SLO:
  :func:`tablestorm.sim.capacity.knee.past_the_peak`), ``interrupted`` (the signal that cut the
  sweep short, or None);
- ``steps``, in load order, each: ``bots`` (offered), ``seated`` (online, mean over the window),
  ``steady``, ``held_s``, ``window`` (``start_s``, ``stop_s``, ``seconds``: run seconds),
  ``window_actions_per_s`` (the steadiness windows', oldest first), ``throughput`` and ``goodput``
  (``actions_per_s``, ``hands_per_s``; goodput also ``seconds_met`` of ``seconds``),
  ``latency_ms`` (the action round trip: p50/p90/p95/p99/p999/min/max/mean), ``errors`` by kind,
  ``errors_total``, ``slo`` (each expression judged over the window) and ``meets_slo``,
  ``hosts`` and ``fleets`` (``cpu_seconds``, ``cores_used``, ``missing``: processes whose CPU time
  is unknown for the window), ``per_core`` (per core of the hosts: ``actions_per_s``,
  ``hands_per_s``, ``seated_players``, ``play_streams``; None when a host's CPU time is unknown);
- ``throughput_peak``: the step of the most actions/s (``bots``, ``actions_per_s``) and
  ``stopped_after``: the step after which throughput stopped rising (the next carried less than 5 %
  more: :data:`tablestorm.sim.capacity.knee.PEAK_RISE`; None when it rose at every step); None
  without steps;
- ``fit``: the Universal Scalability Law fitted to actions/s against offered bots
  (:mod:`tablestorm.sim.capacity.usl`): ``lambda``, ``sigma``, ``kappa`` (each ``value``, ``stderr`` and
  ``interval``, the ``confidence`` interval within the parameter's bounds, None without a standard
  error), ``peak_bots`` and ``peak_actions_per_s`` (None without a peak), ``r_squared``, ``points``,
  ``holdout`` (``steps``: each step's ``bots``, ``measured`` and ``predicted`` actions/s by the fit
  of every other step, and the ``error`` (predicted − measured) / measured; ``mean_abs_error``;
  ``error`` saying why there is none); or, when the steps cannot be fitted, ``error`` saying why
  (and the other keys None);
- ``capacity``: ``kind``, what was measured (:mod:`tablestorm.sim.capacity.knee`): ``knee`` (a step
  met the SLO and the next one, larger, missed it), ``at_least`` (the largest step met it: the
  capacity is at least that, and per-core figures from it are an extrapolation) or ``none`` (no
  step met it); ``headline``, the report's headline in words; ``slo_step`` (the largest step that
  met the SLO, None if none did), ``next_step`` (the step above it, which missed it; None unless a
  knee), ``reason`` (which step and why, in words), ``per_core`` (the SLO step's, by dimension; None without one),
  ``hosts_cores_used`` at that step;
- ``load_run``: where the load run that carried the sweep wrote its outputs (``summary``,
  ``report``, relative to capacity.json), its ``chips_conserved``, ``errors_total`` and
  ``duration_s``;
- ``warnings``: what a reader must not miss (no step reaching the SLO, an unsteady step, an SLO
  met above a step that missed it, a sweep cut short, no fit, a fit that misses the steps it was
  not shown, σ and κ both indistinguishable from 0, hosts sharing their cores with the fleets).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from tablestorm.sim.capacity.knee import past_the_peak, slo_capacity, throughput_peak
from tablestorm.sim.capacity.slo import SLO
from tablestorm.sim.capacity.sweep import CpuUse, Steadiness, Step
from tablestorm.sim.capacity.usl import CONFIDENCE, USLFit, USLFitError, fit_usl, holdout
from tablestorm.sim.cluster.affinity import Pinning
from tablestorm.sim.cluster.deployment import ActorInfo
from tablestorm.sim.load.summary import latency_ms

__all__ = [
    "HOLDOUT_WARNING", "SCHEMA", "SLO_DEFINITION", "build_capacity", "fit_dict", "pinning_dict", "step_dict",
    "write_capacity",
]

SCHEMA: Final = "tablestorm.capacity/2"
HOLDOUT_WARNING: Final = 0.10
"""A fit whose predictions of the steps it was not shown miss by more than this on average does
not describe the sweep (a warning)."""
SLO_DEFINITION: Final = (
    "A second meets the SLO when every expression holds for the actions answered in it; goodput is"
    " the actions (hands) of the seconds that met it over the window's seconds. A step meets the SLO"
    " when every expression holds over its whole measured window."
)


def _cpu(use: CpuUse) -> dict[str, Any]:
    return {"cpu_seconds": round(use.cpu_seconds, 3), "cores_used": round(use.cores, 4), "missing": list(use.missing)}


def _rounded(values: Mapping[str, float | None], digits: int = 3) -> dict[str, float | None]:
    return {k: None if v is None else round(v, digits) for k, v in values.items()}


def step_dict(step: Step) -> dict[str, Any]:
    """One step as capacity.json lists it."""
    measured = step.measured
    return {
        "bots": step.bots,
        "seated": round(step.seated, 1),
        "steady": step.steady,
        "held_s": step.held_s,
        "window": {"start_s": step.start_s, "stop_s": step.stop_s, "seconds": step.seconds},
        "window_actions_per_s": [round(r, 3) for r in step.window_rates],
        "throughput": {
            "actions_per_s": round(step.actions_per_s, 3),
            "hands_per_s": round(step.hands_per_s, 3),
            "actions": measured.actions,
            "hands": measured.hands,
        },
        "goodput": {
            "actions_per_s": round(step.goodput.actions_per_s, 3),
            "hands_per_s": round(step.goodput.hands_per_s, 3),
            "seconds_met": step.goodput.seconds_met,
            "seconds": step.goodput.seconds,
        },
        "latency_ms": latency_ms(measured.corrected()),
        "errors": dict(sorted(measured.errors.items())),
        "errors_total": measured.errors_total,
        "slo": list(step.slo),
        "meets_slo": step.meets_slo,
        "hosts": _cpu(step.hosts),
        "fleets": _cpu(step.fleets),
        "per_core": _rounded(step.per_core()),
    }


def _fit(steps: Sequence[Step]) -> dict[str, Any]:
    base: dict[str, Any] = {"model": "usl", "load": "bots", "throughput": "actions_per_s", "confidence": CONFIDENCE}
    load, throughput = [s.bots for s in steps], [s.actions_per_s for s in steps]
    try:
        fit = fit_usl(load, throughput)
    except USLFitError as exc:
        none = dict.fromkeys(("lambda", "sigma", "kappa", "peak_bots", "peak_actions_per_s", "r_squared", "holdout"))
        return {**base, **none, "points": len(steps), "error": str(exc)}
    return {**base, **fit_dict(fit), "holdout": _holdout(load, throughput), "error": None}


def fit_dict(fit: USLFit) -> dict[str, Any]:
    """A fit's parameters as capacity.json's ``fit`` holds them."""
    peak, top = fit.peak_load, fit.peak_throughput
    lam, sigma, kappa = fit.intervals()
    return {
        "lambda": {"value": fit.lam, "stderr": fit.lam_stderr, "interval": None if lam is None else list(lam)},
        "sigma": {"value": fit.sigma, "stderr": fit.sigma_stderr, "interval": None if sigma is None else list(sigma)},
        "kappa": {"value": fit.kappa, "stderr": fit.kappa_stderr, "interval": None if kappa is None else list(kappa)},
        "peak_bots": None if peak is None else round(peak, 1),
        "peak_actions_per_s": None if top is None else round(top, 3),
        "r_squared": round(fit.r_squared, 6),
        "points": fit.points,
    }


def _holdout(load: Sequence[int], throughput: Sequence[float]) -> dict[str, Any]:
    """Each step predicted by the fit of the others (:func:`~tablestorm.sim.capacity.usl.holdout`)."""
    try:
        held = holdout(load, throughput)
    except USLFitError as exc:
        return {"steps": [], "mean_abs_error": None, "error": str(exc)}
    errors = [h.error for h in held if h.error is not None]
    return {
        "steps": [
            {"bots": int(h.load), "measured": round(h.measured, 3),
             "predicted": None if h.predicted is None else round(h.predicted, 3),
             "error": None if h.error is None else round(h.error, 4)}
            for h in held
        ],
        "mean_abs_error": round(statistics.fmean(abs(e) for e in errors), 4) if errors else None,
        "error": None,
    }


def _fit_warnings(fit: Mapping[str, Any], peak: Mapping[str, Any] | None) -> list[str]:
    """What the fit says of itself: not fitted, not checked, missing the steps it was not shown, or
    σ and κ indistinguishable from 0 (``peak``: capacity.json's ``throughput_peak``)."""
    if fit["error"] is not None:
        return [f"no USL fit: {fit['error']}"]
    warnings = []
    held = fit["holdout"]
    if held["error"] is not None:
        warnings.append(f"the USL fit cannot be checked against a step it was not shown: {held['error']}")
    elif held["mean_abs_error"] is not None and held["mean_abs_error"] > HOLDOUT_WARNING:
        warnings.append(
            f"the USL fitted to all steps but one misses the step left out by {held['mean_abs_error']:.0%} on"
            " average: the law does not describe this sweep, so its parameters and peak are not to be relied on"
        )
    intervals = [fit[name]["interval"] for name in ("sigma", "kappa")]
    if all(interval is not None and interval[0] <= 0 for interval in intervals):
        flat = f"σ and κ cannot be told from 0 (the {CONFIDENCE:.0%} interval of each reaches 0)"
        if peak is None or peak["stopped_after"] is None:
            warnings.append(f"{flat}: these steps did not reach the contention of the table service (throughput rose"
                            " at every step); sweep larger steps")
        else:
            warnings.append(f"{flat}, although throughput stopped rising after {peak['stopped_after']:,} bots: the"
                            " law's gradual contention does not describe how this service saturated, so its σ, κ"
                            " and peak say nothing of it")
    return warnings


def pinning_dict(requested: str, pinning: Pinning | None,
                 actors: Mapping[str, Mapping[str, ActorInfo]]) -> dict[str, Any]:
    """capacity.json's ``pinning``: what the ``--pin`` flag asked (``requested``) and chose
    (``pinning``), and the cores the hosts and fleets (``actors``) reported."""
    hosts, fleets = actors.get("hosts", {}), actors.get("fleets", {})
    by_node: dict[str, set[int]] = {}
    for info in hosts.values():
        by_node.setdefault(info.node_id, set()).update(info.cpus)
    known = bool(hosts) and all(info.cpus for info in [*hosts.values(), *fleets.values()])
    shared = any(set(f.cpus) & by_node.get(f.node_id, set()) for f in fleets.values())
    return {
        "requested": requested,
        "hosts_cpus": None if pinning is None else list(pinning.hosts),
        "others_cpus": None if pinning is None else list(pinning.others),
        "hosts_cores": sum(len(cpus) for cpus in by_node.values()) if known else None,
        "shared_with_fleets": shared if known else None,
        "actors": {a: {"node_id": info.node_id, "cpus": list(info.cpus)} for a, info in {**hosts, **fleets}.items()},
    }


def build_capacity(
    steps: Sequence[Step],
    *,
    planned: Sequence[int],
    slo: SLO,
    steadiness: Steadiness,
    run: Mapping[str, Any],
    pinning: Mapping[str, Any],
    load_summary: Mapping[str, Any],
    load_files: Mapping[str, Path],
    out_dir: Path,
) -> dict[str, Any]:
    """The contents of capacity.json (see the module docstring). ``pinning``: :func:`pinning_dict`'s;
    ``load_summary`` and ``load_files`` are the load run's (:class:`~tablestorm.sim.load.driver.RunResult`),
    its scenario and interruption included."""
    verdict = slo_capacity(steps)
    best = verdict.step
    warnings = list(verdict.warnings)
    warnings += [f"{s.bots:,} bots never became steady within {s.held_s} s" for s in steps if not s.steady]
    interrupted = load_summary.get("interrupted")
    ended_past_the_peak = len(steps) < len(planned) and not interrupted and past_the_peak(steps)
    if len(steps) < len(planned) and not ended_past_the_peak:
        missing = ", ".join(f"{b:,}" for b in planned[len(steps):])
        cause = f"interrupted by {interrupted}" if interrupted else "the sweep's time bound ran out"
        warnings.append(f"{cause}: steps {missing} were not measured")
    fit, peak = _fit(steps), throughput_peak(steps)
    warnings += _fit_warnings(fit, peak)
    if pinning.get("shared_with_fleets"):
        warnings.append(
            "the table hosts shared their cores with the bot fleets: the hosts' share of them, and so the knee,"
            " depends on what the fleets took (tablestorm capacity --pin)"
        )
    return {
        "schema": SCHEMA,
        "run": dict(run),
        "scenario": load_summary.get("scenario"),
        "scenario_resolved": load_summary.get("scenario_resolved"),
        "pinning": dict(pinning),
        "slo": {"expressions": slo.expressions, "definition": SLO_DEFINITION},
        "steadiness": {
            "window_s": steadiness.window_s,
            "windows": steadiness.windows,
            "tolerance": steadiness.tolerance,
            "max_hold_s": steadiness.max_hold_s,
        },
        "planned_steps": list(planned),
        "complete": len(steps) == len(planned),
        "past_the_peak": ended_past_the_peak,
        "interrupted": interrupted,
        "steps": [step_dict(s) for s in steps],
        "throughput_peak": peak,
        "fit": fit,
        "capacity": {
            "kind": verdict.kind,
            "headline": verdict.headline,
            "slo_step": None if best is None else best.bots,
            "next_step": None if verdict.missed is None else verdict.missed.bots,
            "reason": verdict.reason,
            "per_core": None if best is None else _rounded(best.per_core()),
            "hosts_cores_used": None if best is None else round(best.hosts.cores, 4),
        },
        "load_run": {
            **{name: str(path.relative_to(out_dir)) for name, path in load_files.items()
               if name in ("summary", "report")},
            "chips_conserved": load_summary.get("chips_conserved"),
            "errors_total": load_summary.get("errors_total"),
            "duration_s": load_summary.get("duration_s"),
        },
        "warnings": warnings,
    }


def write_capacity(path: Path, capacity: Mapping[str, Any]) -> None:
    path.write_text(json.dumps(capacity, indent=2) + "\n", encoding="utf-8")
