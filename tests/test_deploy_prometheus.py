"""deploy/prometheus/: the configuration and rules pass promtool, and the rules' unit tests pass.

``promtool test rules`` runs every ``deploy/prometheus/*test*.yml`` file: input series for every
alert, a case where it fires and one where it stays silent, and the recording rules by value.
The checks here make sure those files keep covering every rule, and that the rules name only
metrics the services export (the catalogue in deploy/README.md, which tests/test_runtime_metrics.py
holds to the services' real /metrics).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
PROMETHEUS = ROOT / "deploy" / "prometheus"
RULE_TESTS = sorted(PROMETHEUS.glob("*test*.yml"))
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool is not installed (Debian: apt-get install prometheus; .ci/run does)"
)


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], cwd=PROMETHEUS, capture_output=True, text=True, timeout=120)


def rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load((PROMETHEUS / "rules.yml").read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def rule_tests() -> list[dict[str, Any]]:
    return [case for path in RULE_TESTS for case in yaml.safe_load(path.read_text())["tests"]]


@needs_promtool
def test_config_is_valid() -> None:
    done = promtool("check", "config", "prometheus.yml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


@needs_promtool
def test_rules_are_valid() -> None:
    done = promtool("check", "rules", "rules.yml")
    assert done.returncode == 0, done.stdout + done.stderr


@needs_promtool
def test_rule_unit_tests_pass() -> None:
    assert RULE_TESTS, "deploy/prometheus/*test*.yml: no promtool unit tests"
    done = promtool("test", "rules", *(path.name for path in RULE_TESTS))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout and "FAILED" not in done.stdout


@needs_promtool
def test_a_wrong_expectation_fails_the_unit_tests(tmp_path: Path) -> None:
    """The unit tests can fail: the same file with one alert's expected labels changed does."""
    for name in ("rules.yml", *(path.name for path in RULE_TESTS)):
        shutil.copy(PROMETHEUS / name, tmp_path / name)
    test_file = tmp_path / RULE_TESTS[0].name
    text = test_file.read_text()
    assert "game: 5stud}" in text
    test_file.write_text(text.replace("game: 5stud}", "game: 7stud}", 1))
    done = subprocess.run([str(PROMTOOL), "test", "rules", test_file.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "FAILED" in done.stdout + done.stderr, done.stdout + done.stderr


def test_every_alert_has_a_firing_and_a_silent_case() -> None:
    cases: dict[str, list[list[Any]]] = {}
    for case in rule_tests():
        for check in case.get("alert_rule_test", []):
            cases.setdefault(check["alertname"], []).append(check["exp_alerts"])
    alerts = [rule["alert"] for rule in rules() if "alert" in rule]
    assert len(alerts) == len(set(alerts))
    for alert in alerts:
        expected = cases.get(alert, [])
        assert any(expected), f"{alert}: no case where it fires"
        assert any(not alerts for alerts in expected), f"{alert}: no case where it stays silent"
    assert set(cases) <= set(alerts), set(cases) - set(alerts)


def test_every_recording_rule_is_checked() -> None:
    """A recording rule is checked by value (promql_expr_test), or feeds a checked rule or an alert."""
    recorded = {rule["record"]: rule["expr"] for rule in rules() if "record" in rule}
    checked = {check["expr"] for case in rule_tests() for check in case.get("promql_expr_test", [])}
    checked |= {rule["expr"] for rule in rules() if "alert" in rule}
    covered: set[str] = set()
    frontier = list(checked)
    while frontier:
        expr = frontier.pop()
        for name, body in recorded.items():
            if name not in covered and re.search(rf"(?<![\w:]){re.escape(name)}(?![\w:])", expr):
                covered.add(name)
                frontier.append(body)
    assert covered == set(recorded), set(recorded) - covered


def test_rules_name_only_exported_metrics() -> None:
    """Every raw metric a rule reads is in the services' catalogue (deploy/README.md)."""
    from support.metrics import catalogue

    exported = catalogue()
    for rule in rules():
        for name in re.findall(r"(?<![\w:])((?:tablestorm|process|python)_[a-z0-9_]+)", rule["expr"]):
            base = re.sub(r"_(bucket|count|sum)$", "", name)
            assert name in exported or base in exported, f"{rule.get('record') or rule.get('alert')}: {name}"
