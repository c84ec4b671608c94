"""A load run's gates as JUnit XML, the report format every CI system shows as test results.

``tablestorm load --junit FILE`` writes one ``<testcase>`` per threshold, named by its expression
(``p99_ms<100``), failed with the actual value against the threshold, and one for the chip count
that the exit status also gates on (``chips_conserved``: failed when chips were lost or made,
skipped when they could not be counted). The file agrees with the exit status: status 1 exactly
when a test case failed.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tablestorm.sim.load.thresholds import ThresholdResult

__all__ = ["write_junit"]


def _show(value: float | bool | None) -> str:
    if value is None:
        return "not measured"
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:g}"


def _case(suite: ET.Element, classname: str, name: str) -> ET.Element:
    return ET.SubElement(suite, "testcase", classname=classname, name=name, time="0")


def write_junit(
    path: Path,
    results: Sequence[ThresholdResult],
    summary: Mapping[str, Any],
    *,
    suite: str,
) -> None:
    """Write the thresholds' ``results`` and the chip check of ``summary`` as one test suite."""
    failures = sum(not r["ok"] for r in results) + (summary.get("chips_conserved") is False)
    skipped = summary.get("chips_conserved") is None
    root = ET.Element("testsuites")
    element = ET.SubElement(
        root, "testsuite", name=suite, tests=str(len(results) + 1), failures=str(failures),
        errors="0", skipped=str(int(skipped)), time=f"{float(summary.get('duration_s') or 0):g}",
    )
    for result in results:
        case = _case(element, "thresholds", result["expression"])
        if not result["ok"]:
            actual = f"{result['metric']} was {_show(result['value'])}"
            ET.SubElement(case, "failure", type="threshold", message=f"{actual}; threshold {result['expression']}")
    case = _case(element, "invariants", "chips_conserved")
    start, end = summary.get("chips_start"), summary.get("chips_end")
    if summary.get("chips_conserved") is False:
        ET.SubElement(case, "failure", type="chips", message=f"chips at the start {start}, at the end {end}")
    elif skipped:
        ET.SubElement(case, "skipped", message="the chips could not be counted")
    ET.indent(root)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
