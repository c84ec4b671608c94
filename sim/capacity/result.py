"""capacity.json: what one core of the table service carries at the SLO, built from a sweep's steps.

The whole schema, built in one place (``"schema": "tablestorm.capacity/1"``):

- ``run``: the run's metadata (:func:`tablestorm.sim.reporting.meta.run_metadata`: tablestorm version, command
  line, start time, machine with its ``cores``); ``scenario`` and ``scenario_resolved`` (every
  setting of the load run as it ran, as in summary.json);
- ``slo``: ``expressions`` and the ``definition`` of a second and a step meeting it, and of
  goodput (:mod:`tablestorm.sim.capacity.slo`); ``steadiness``: ``window_s``, ``windows``, ``tolerance``,
  ``max_hold_s`` (:mod:`tablestorm.sim.capacity.sweep`);
- ``planned_steps``, ``complete`` (every planned step was measured), ``interrupted`` (the signal
  that cut the sweep short, or None);
- ``steps``, in load order, each: ``bots`` (offered), ``seated`` (online, mean over the window),
  ``steady``, ``held_s``, ``window`` (``start_s``, ``stop_s``, ``seconds``: run seconds),
  ``window_actions_per_s`` (the steadiness windows', oldest first), ``throughput`` and ``goodput``
  (``actions_per_s``, ``hands_per_s``; goodput also ``seconds_met`` of ``seconds``),
  ``latency_ms`` (the action round trip: p50/p90/p95/p99/p999/min/max/mean), ``errors`` by kind,
  ``errors_total``, ``slo`` (each expression judged over the window) and ``meets_slo``,
  ``hosts`` and ``fleets`` (``cpu_seconds``, ``cores_used``, ``missing``: processes whose CPU time
  is unknown for the window), ``per_core`` (per core of the hosts: ``actions_per_s``,
  ``hands_per_s``, ``seated_players``, ``play_streams``; None when a host's CPU time is unknown);
- ``fit``: the Universal Scalability Law fitted to actions/s against offered bots
  (:mod:`tablestorm.sim.capacity.usl`): ``lambda``, ``sigma``, ``kappa`` (each ``value`` and ``stderr``),
  ``peak_bots`` and ``peak_actions_per_s`` (None without a peak), ``r_squared``, ``points``; or,
  when the steps cannot be fitted, ``error`` saying why (and the other keys None);
- ``capacity``: ``slo_step`` (the largest step that met the SLO, None if none did), ``reason``
  (which step and why, in words), ``per_core`` (that step's, by dimension; None without one),
  ``hosts_cores_used`` at that step;
- ``load_run``: where the load run that carried the sweep wrote its outputs (``summary``,
  ``report``, relative to capacity.json), its ``chips_conserved``, ``errors_total`` and
  ``duration_s``;
- ``warnings``: what a reader must not miss (an unsteady step, an SLO met above a step that
  missed it, a sweep cut short, no fit, or σ and κ both within two standard errors of 0).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from tablestorm.sim.capacity.slo import SLO
from tablestorm.sim.capacity.sweep import CpuUse, Steadiness, Step
from tablestorm.sim.capacity.usl import USLFit, USLFitError, fit_usl
from tablestorm.sim.load.summary import latency_ms

__all__ = ["SCHEMA", "SLO_DEFINITION", "build_capacity", "fit_dict", "slo_capacity", "step_dict", "write_capacity"]

SCHEMA: Final = "tablestorm.capacity/1"
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
        "latency_ms": latency_ms(measured.latency),
        "errors": dict(sorted(measured.errors.items())),
        "errors_total": measured.errors_total,
        "slo": list(step.slo),
        "meets_slo": step.meets_slo,
        "hosts": _cpu(step.hosts),
        "fleets": _cpu(step.fleets),
        "per_core": _rounded(step.per_core()),
    }


def _fit(steps: Sequence[Step]) -> dict[str, Any]:
    base: dict[str, Any] = {"model": "usl", "load": "bots", "throughput": "actions_per_s"}
    try:
        fit = fit_usl([s.bots for s in steps], [s.actions_per_s for s in steps])
    except USLFitError as exc:
        none = dict.fromkeys(("lambda", "sigma", "kappa", "peak_bots", "peak_actions_per_s", "r_squared"))
        return {**base, **none, "points": len(steps), "error": str(exc)}
    return {**base, **fit_dict(fit), "error": None}


def fit_dict(fit: USLFit) -> dict[str, Any]:
    """A fit's parameters as capacity.json's ``fit`` holds them."""
    peak, top = fit.peak_load, fit.peak_throughput
    return {
        "lambda": {"value": fit.lam, "stderr": fit.lam_stderr},
        "sigma": {"value": fit.sigma, "stderr": fit.sigma_stderr},
        "kappa": {"value": fit.kappa, "stderr": fit.kappa_stderr},
        "peak_bots": None if peak is None else round(peak, 1),
        "peak_actions_per_s": None if top is None else round(top, 3),
        "r_squared": round(fit.r_squared, 6),
        "points": fit.points,
    }


def _insignificant(parameter: Mapping[str, float | None]) -> bool:
    value, error = parameter["value"], parameter["stderr"]
    return value is not None and error is not None and value <= 2 * error


def _judged(step: Step) -> str:
    """The step's SLO verdicts in words, e.g. ``p99_ms<100 with 42.1``."""
    return ", ".join(f"{r['expression']} with {'no value' if r['value'] is None else r['value']}" for r in step.slo)


def slo_capacity(steps: Sequence[Step]) -> tuple[Step | None, str, list[str]]:
    """The SLO capacity step (the largest step that met the SLO), why, in words, and warnings."""
    met = [s for s in steps if s.meets_slo]
    if not steps:
        return None, "no step was measured", []
    if not met:
        first = steps[0]
        return None, f"no step met the SLO: even the smallest, {first.bots:,} bots, had {_judged(first)}", []
    best = max(met, key=lambda s: s.bots)
    reason = f"{best.bots:,} bots is the largest step that met the SLO ({_judged(best)})"
    above = [s for s in steps if s.bots > best.bots]
    if above:
        reason += f"; the next, {above[0].bots:,} bots, missed it ({_judged(above[0])})"
    else:
        reason += "; it is the largest step measured, so the capacity may be higher: sweep further"
    warnings = [
        f"{s.bots:,} bots missed the SLO although the larger {best.bots:,} met it: the machine may be"
        " noisy; repeat the sweep before relying on it"
        for s in steps if s.bots < best.bots and not s.meets_slo
    ]
    if not best.steady:
        warnings.append(f"the SLO capacity step ({best.bots:,} bots) never became steady")
    return best, reason, warnings


def build_capacity(
    steps: Sequence[Step],
    *,
    planned: Sequence[int],
    slo: SLO,
    steadiness: Steadiness,
    run: Mapping[str, Any],
    load_summary: Mapping[str, Any],
    load_files: Mapping[str, Path],
    out_dir: Path,
) -> dict[str, Any]:
    """The contents of capacity.json (see the module docstring). ``load_summary`` and
    ``load_files`` are the load run's (:class:`~tablestorm.sim.load.driver.RunResult`), its scenario and
    interruption included."""
    best, reason, warnings = slo_capacity(steps)
    warnings += [f"{s.bots:,} bots never became steady within {s.held_s} s" for s in steps if not s.steady]
    interrupted = load_summary.get("interrupted")
    if len(steps) < len(planned):
        missing = ", ".join(f"{b:,}" for b in planned[len(steps):])
        cause = f"interrupted by {interrupted}" if interrupted else "the sweep's time bound ran out"
        warnings.append(f"{cause}: steps {missing} were not measured")
    fit = _fit(steps)
    if fit["error"] is not None:
        warnings.append(f"no USL fit: {fit['error']}")
    elif all(_insignificant(fit[name]) for name in ("sigma", "kappa")):
        warnings.append(
            "σ and κ cannot be told from 0 (each within two standard errors of it): the throughput grew in"
            " proportion to the bots, so the sweep did not reach a limit of the table service"
        )
    return {
        "schema": SCHEMA,
        "run": dict(run),
        "scenario": load_summary.get("scenario"),
        "scenario_resolved": load_summary.get("scenario_resolved"),
        "slo": {"expressions": slo.expressions, "definition": SLO_DEFINITION},
        "steadiness": {
            "window_s": steadiness.window_s,
            "windows": steadiness.windows,
            "tolerance": steadiness.tolerance,
            "max_hold_s": steadiness.max_hold_s,
        },
        "planned_steps": list(planned),
        "complete": len(steps) == len(planned),
        "interrupted": interrupted,
        "steps": [step_dict(s) for s in steps],
        "fit": fit,
        "capacity": {
            "slo_step": None if best is None else best.bots,
            "reason": reason,
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
