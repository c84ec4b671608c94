"""tablestorm.sim.load.thresholds: parsing k6-style criteria, naming the bad part, and checking them on a summary."""

from __future__ import annotations

from typing import Any

import pytest

from tablestorm.sim.load.thresholds import METRICS, Threshold, all_ok, evaluate, parse

SUMMARY: dict[str, Any] = {
    "bots": 200,
    "duration_s": 60.0,
    "hands": 3000,
    "actions": 72000,
    "hands_per_s": 50.0,
    "actions_per_s": 1200.0,
    "latency_ms": {"p50": 4.2, "p90": 9.0, "p95": 12.5, "p99": 99.9, "p999": 150.0, "max": 180.0,
                   "mean": 5.1},
    "errors": {"UNAVAILABLE": 2},
    "errors_total": 2,
    "timeouts": 7,
    "side_pots": 40,
    "raise_caps": 3,
    "hands_voided": 0,
    "protocol_violations": 0,
    "chips_conserved": True,
}


@pytest.mark.parametrize(
    ("expression", "metric", "op", "target"),
    [
        ("p99_ms<100", "p99_ms", "<", 100.0),
        ("  p95_ms <= 250 ", "p95_ms", "<=", 250.0),
        ("errors==0", "errors", "==", 0.0),
        ("hands_per_s>50", "hands_per_s", ">", 50.0),
        ("actions_per_s>=1e3", "actions_per_s", ">=", 1000.0),
        ("chips_conserved==true", "chips_conserved", "==", True),
        ("chips_conserved != false", "chips_conserved", "!=", False),
        ("timeouts>0", "timeouts", ">", 0.0),
        ("mean_ms<-0.5", "mean_ms", "<", -0.5),
    ],
)
def test_parse(expression: str, metric: str, op: str, target: float | bool) -> None:
    assert parse(expression) == Threshold(expression.strip(), metric, op, target)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("p98_ms<100", "unknown metric 'p98_ms' in threshold 'p98_ms<100'; known: p50_ms, p90_ms,"),
        ("p99_ms=<100", "unknown operator '=<' in threshold 'p99_ms=<100'; use one of < <= > >= == !="),
        ("p99_ms=100", "unknown operator '='"),
        ("p99_ms 100", "no comparison operator in threshold 'p99_ms 100'"),
        ("p99_ms<100ms", "bad value '100ms' in threshold 'p99_ms<100ms': p99_ms needs a number"),
        ("p99_ms<nan", "bad value 'nan'"),
        ("errors==true", "bad value 'true' in threshold 'errors==true': errors needs a number"),
        ("chips_conserved==1", "bad value '1' in threshold 'chips_conserved==1': chips_conserved is true"),
        ("chips_conserved<true", "operator '<' in threshold 'chips_conserved<true' does not apply"),
        ("<100", "missing metric in threshold '<100'"),
        ("p99_ms<", "missing value in threshold 'p99_ms<'"),
    ],
)
def test_bad_expressions_name_the_bad_part(expression: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse(expression)
    assert str(caught.value).startswith(message)


def test_known_metrics_are_listed_in_the_error() -> None:
    with pytest.raises(ValueError) as caught:
        parse("p98_ms<100")
    assert str(caught.value).endswith(", ".join(METRICS))


def test_evaluate_against_a_summary() -> None:
    results = evaluate(
        ["p99_ms<100", "p95_ms<=12.5", "errors==0", "errors_total<=2", "hands_per_s>50",
         "actions_per_s>=1000", "chips_conserved==true", "protocol_violations==0", "timeouts>0",
         "hands_voided!=0", parse("max_ms<200")],
        SUMMARY,
    )
    assert [(r["metric"], r["value"], r["ok"]) for r in results] == [
        ("p99_ms", 99.9, True),
        ("p95_ms", 12.5, True),
        ("errors", 2, False),
        ("errors_total", 2, True),
        ("hands_per_s", 50.0, False),
        ("actions_per_s", 1200.0, True),
        ("chips_conserved", True, True),
        ("protocol_violations", 0, True),
        ("timeouts", 7, True),
        ("hands_voided", 0, False),
        ("max_ms", 180.0, True),
    ]
    assert results[0] == {"expression": "p99_ms<100", "metric": "p99_ms", "value": 99.9, "ok": True}
    assert not all_ok(results)
    assert all_ok([r for r in results if r["ok"]])
    assert all_ok([])


def test_missing_values_fail() -> None:
    """No latencies (None) or no chip count: the criterion could not be checked, so it is not met."""
    summary = {"latency_ms": {"p99": None}, "chips_conserved": None}
    results = evaluate(["p99_ms<100", "p99_ms>=0", "chips_conserved==true", "chips_conserved!=true",
                        "hands>=0"], summary)
    assert [(r["value"], r["ok"]) for r in results] == [(None, False)] * 5


def test_evaluate_parses_everything_before_checking() -> None:
    with pytest.raises(ValueError, match="unknown metric 'bogus'"):
        evaluate(["p99_ms<100", "bogus>1"], SUMMARY)
