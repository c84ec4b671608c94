"""Pass/fail criteria of a load run, k6-style: ``p99_ms<100``, ``errors==0``, ``chips_conserved==true``.

A threshold is ``METRIC OPERATOR VALUE`` (spaces allowed) checked against the run's summary
(see tablestorm.sim.load.report.build_summary). Operators: ``<  <=  >  >=  ==  !=``. Metrics:

============================  ==================================================  =========
metric                        summary value                                       type
============================  ==================================================  =========
p50_ms p90_ms p95_ms p99_ms   latency_ms.p50 / .p90 / .p95 / .p99                 number
p999_ms max_ms mean_ms        latency_ms.p999 / .max / .mean                      number
next_prompt_p50_ms, _p99_ms   next_prompt_ms.p50 / .p99                           number
broadcast_p50_ms, _p99_ms     broadcast_ms.p50 / .p99                             number
errors, errors_total          errors_total (errors of every kind)                 number
unexpected_errors             unexpected_errors_total (those chaos did not cause) number
chaos_errors                  chaos_errors_total (those the run's chaos caused)   number
hands, actions                hands, actions                                      number
hands_per_s, actions_per_s    hands_per_s, actions_per_s                          number
timeouts                      timeouts (every CLOCK-2 outcome)                    number
side_pots, raise_caps         side_pots, raise_caps                               number
hands_voided                  hands_voided                                        number
protocol_violations           protocol_violations                                 number
bots, duration_s              bots, duration_s                                    number
chips_conserved               chips_conserved                                     true/false
============================  ==================================================  =========

The ``p*_ms``, ``max_ms`` and ``mean_ms`` metrics are the action round trip corrected for
coordinated omission (summary.json's ``latency_ms``; the uncorrected figures are beside, in
``latency_uncorrected_ms``: see :class:`tablestorm.sim.load.stats.Timings`); ``next_prompt_*`` and
``broadcast_*`` the latencies the other seats feel.

A threshold whose value is missing from the summary (no latencies recorded, chips not counted)
fails: a criterion that could not be checked has not been met.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypedDict

__all__ = ["METRICS", "OPERATORS", "Threshold", "ThresholdResult", "all_ok", "evaluate", "parse"]

METRICS: Final[dict[str, tuple[tuple[str, ...], type]]] = {
    "p50_ms": (("latency_ms", "p50"), float),
    "p90_ms": (("latency_ms", "p90"), float),
    "p95_ms": (("latency_ms", "p95"), float),
    "p99_ms": (("latency_ms", "p99"), float),
    "p999_ms": (("latency_ms", "p999"), float),
    "max_ms": (("latency_ms", "max"), float),
    "mean_ms": (("latency_ms", "mean"), float),
    "next_prompt_p50_ms": (("next_prompt_ms", "p50"), float),
    "next_prompt_p99_ms": (("next_prompt_ms", "p99"), float),
    "broadcast_p50_ms": (("broadcast_ms", "p50"), float),
    "broadcast_p99_ms": (("broadcast_ms", "p99"), float),
    "errors": (("errors_total",), float),
    "errors_total": (("errors_total",), float),
    "unexpected_errors": (("unexpected_errors_total",), float),
    "chaos_errors": (("chaos_errors_total",), float),
    "hands": (("hands",), float),
    "actions": (("actions",), float),
    "hands_per_s": (("hands_per_s",), float),
    "actions_per_s": (("actions_per_s",), float),
    "timeouts": (("timeouts",), float),
    "side_pots": (("side_pots",), float),
    "raise_caps": (("raise_caps",), float),
    "hands_voided": (("hands_voided",), float),
    "protocol_violations": (("protocol_violations",), float),
    "bots": (("bots",), float),
    "duration_s": (("duration_s",), float),
    "chips_conserved": (("chips_conserved",), bool),
}
"""Metric name -> (path of keys into the summary, float for numbers or bool)."""

OPERATORS: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "<": lambda a, b: bool(a < b),
    "<=": lambda a, b: bool(a <= b),
    ">": lambda a, b: bool(a > b),
    ">=": lambda a, b: bool(a >= b),
    "==": lambda a, b: bool(a == b),
    "!=": lambda a, b: bool(a != b),
}

_SHAPE: Final = re.compile(r"^\s*(?P<metric>[^<>=!\s]*)\s*(?P<op>[<>=!]+)\s*(?P<value>.*?)\s*$")


class ThresholdResult(TypedDict):
    """One threshold checked against a summary, as it appears in summary.json."""

    expression: str
    metric: str
    value: float | bool | None
    ok: bool


@dataclass(frozen=True)
class Threshold:
    """A parsed threshold; build it with :func:`parse`."""

    expression: str
    metric: str
    op: str
    target: float | bool

    def check(self, summary: Mapping[str, Any]) -> ThresholdResult:
        """Look the metric up in ``summary`` and compare it with the target."""
        path, kind = METRICS[self.metric]
        value: Any = summary
        for key in path:
            value = value.get(key) if isinstance(value, Mapping) else None
        if kind is bool:
            value = value if isinstance(value, bool) else None
        elif isinstance(value, bool) or not isinstance(value, int | float):
            value = None
        ok = value is not None and OPERATORS[self.op](value, self.target)
        return {"expression": self.expression, "metric": self.metric, "value": value, "ok": ok}


def parse(expression: str) -> Threshold:
    """Parse ``METRIC OPERATOR VALUE``; a ValueError names the part that is wrong."""
    text = expression.strip()
    shape = _SHAPE.match(text)
    if shape is None:
        raise ValueError(
            f"no comparison operator in threshold {text!r}; use one of {' '.join(OPERATORS)}"
        )
    metric, op, raw = shape["metric"], shape["op"], shape["value"]
    if not metric or not raw:
        missing = "metric" if not metric else "value"
        raise ValueError(f"missing {missing} in threshold {text!r}; expected METRIC OPERATOR VALUE")
    if metric not in METRICS:
        raise ValueError(
            f"unknown metric {metric!r} in threshold {text!r}; known: {', '.join(METRICS)}"
        )
    if op not in OPERATORS:
        raise ValueError(
            f"unknown operator {op!r} in threshold {text!r}; use one of {' '.join(OPERATORS)}"
        )
    target: float | bool
    if METRICS[metric][1] is bool:
        if raw not in ("true", "false"):
            raise ValueError(f"bad value {raw!r} in threshold {text!r}: {metric} is true or false")
        if op not in ("==", "!="):
            raise ValueError(f"operator {op!r} in threshold {text!r} does not apply to true/false")
        target = raw == "true"
    else:
        try:
            target = float(raw)
        except ValueError:
            target = math.nan
        if not math.isfinite(target):
            raise ValueError(f"bad value {raw!r} in threshold {text!r}: {metric} needs a number")
    return Threshold(text, metric, op, target)


def evaluate(thresholds: Iterable[str | Threshold], summary: Mapping[str, Any]) -> list[ThresholdResult]:
    """Check each threshold against ``summary``, in order; strings are parsed first (ValueError)."""
    parsed = [t if isinstance(t, Threshold) else parse(t) for t in thresholds]
    return [threshold.check(summary) for threshold in parsed]


def all_ok(results: Iterable[ThresholdResult]) -> bool:
    """Whether every threshold passed (true for none: a run without criteria has not failed one)."""
    return all(result["ok"] for result in results)
