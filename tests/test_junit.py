"""``--junit``: the thresholds of a run as JUnit XML, parsed back as a CI system reads them."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tablestorm.sim.load.junit import write_junit
from tablestorm.sim.load.thresholds import evaluate

SUMMARY: dict[str, Any] = {
    "duration_s": 12.5, "latency_ms": {"p99": 132.5}, "errors_total": 0, "hands": 900,
    "chips_start": 4000, "chips_end": 4000, "chips_conserved": True,
}


def _suite(path: Path) -> ET.Element:
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    [suite] = root.findall("testsuite")
    return suite


def test_one_case_per_threshold_failures_say_actual_against_threshold(tmp_path: Path) -> None:
    results = evaluate(["p99_ms<100", "errors==0", "hands >= 1000", "mean_ms<5"], SUMMARY)
    write_junit(tmp_path / "junit.xml", results, SUMMARY, suite="tablestorm load: smoke")
    suite = _suite(tmp_path / "junit.xml")
    assert suite.get("name") == "tablestorm load: smoke"
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("5", "3", "0")
    assert suite.get("time") == "12.5"
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert list(cases) == ["p99_ms<100", "errors==0", "hands >= 1000", "mean_ms<5", "chips_conserved"]
    assert [cases[name].get("classname") for name in cases] == ["thresholds"] * 4 + ["invariants"]
    messages = {name: [f.get("message") for f in case.findall("failure")] for name, case in cases.items()}
    assert messages == {
        "p99_ms<100": ["p99_ms was 132.5; threshold p99_ms<100"],
        "errors==0": [],
        "hands >= 1000": ["hands was 900; threshold hands >= 1000"],
        "mean_ms<5": ["mean_ms was not measured; threshold mean_ms<5"],
        "chips_conserved": [],
    }


def test_chips_lost_fail_and_chips_not_counted_are_skipped(tmp_path: Path) -> None:
    lost = {**SUMMARY, "chips_end": 3990, "chips_conserved": False}
    write_junit(tmp_path / "lost.xml", evaluate(["chips_conserved==true"], lost), lost, suite="s")
    suite = _suite(tmp_path / "lost.xml")
    assert suite.get("failures") == "2"
    [failure] = suite.findall("testcase[@name='chips_conserved']/failure")
    assert failure.get("message") == "chips at the start 4000, at the end 3990"
    [threshold] = suite.findall("testcase[@name='chips_conserved==true']/failure")
    assert threshold.get("message") == "chips_conserved was false; threshold chips_conserved==true"

    uncounted = {**SUMMARY, "chips_start": None, "chips_end": None, "chips_conserved": None}
    write_junit(tmp_path / "uncounted.xml", [], uncounted, suite="s")
    suite = _suite(tmp_path / "uncounted.xml")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("1", "0", "1")
    assert suite.find("testcase[@name='chips_conserved']/skipped") is not None
