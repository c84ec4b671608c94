"""Ctrl-C during `tablestorm load`, with real signals sent to a real `tablestorm load` process.

The first SIGINT (or SIGTERM, answered as such) ends the load early but gracefully: the wind-down
runs and every output is written, marked interrupted; a second one stops at once and still writes
what was measured, without a traceback. The run is started by its console script in its own
session (so the signal reaches only it), and the test waits for its live view's first line before
signalling: never a sleep.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from support.processes import TABLESTORM

ROOT = Path(__file__).resolve().parent.parent
RUN_LIMIT = 180.0
"""Seconds the whole interrupted run may take at most (Ray's start included)."""


def _start(out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(TABLESTORM), "load", str(ROOT / "sim/scenarios/smoke.yaml"), "--duration", "120", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "RAY_TMPDIR": os.environ.get("RAY_TMPDIR", "/tmp/ray")},
    )


def _wait_for(process: subprocess.Popen[str], starts: str) -> list[str]:
    """Read the run's stderr until a line containing ``starts`` (the live view's first line: the
    load has begun)."""
    assert process.stderr is not None
    seen = []
    for line in process.stderr:
        seen.append(line)
        if starts in line:
            return seen
    raise AssertionError(f"the run ended before printing {starts!r}:\n" + "".join(seen))


def _finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        _, rest = process.communicate(timeout=RUN_LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return process.returncode, rest


@pytest.mark.parametrize(("signum", "hint"), [
    (signal.SIGINT, "press Ctrl-C again"),
    # the same wind-down; SIGTERM's own wording is tested in-process (test_interruption.py)
    pytest.param(signal.SIGTERM, "send SIGTERM again", marks=pytest.mark.slow),
], ids=["SIGINT", "SIGTERM"])
def test_a_signal_winds_the_run_down_and_writes_every_output(
    tmp_path: Path, signum: signal.Signals, hint: str
) -> None:
    process = _start(tmp_path)
    _wait_for(process, "[00:")
    process.send_signal(signum)
    status, stderr = _finish(process)
    assert status == 130, stderr
    assert f"{signum.name}: winding down ({hint} to stop at once)" in stderr  # the signal it got, named
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["interrupted"] == signum.name and summary["aborted"] is False
    assert summary["duration_s"] < 60  # stopped long before its 120 s
    assert summary["wind_down"] is not None and summary["wind_down"]["chips_left_at_tables"] == 0
    assert summary["chips_conserved"] is True
    assert any(signum.name in warning for warning in summary["warnings"])
    assert (tmp_path / "history.csv").read_text().startswith("second,")
    assert "interrupted by " + signum.name in (tmp_path / "report.html").read_text()


@pytest.mark.slow  # CI time (~13 s): test_interruption's in-process case and the schedule command's two-signal run stay
def test_a_second_signal_stops_at_once_and_still_writes_what_was_measured(tmp_path: Path) -> None:
    process = _start(tmp_path)
    _wait_for(process, "[00:")
    process.send_signal(signal.SIGINT)
    _wait_for(process, "winding down")  # the wind-down has begun: it takes seconds
    process.send_signal(signal.SIGINT)
    status, stderr = _finish(process)
    assert status == 130, stderr
    assert "SIGINT again: stopping now" in stderr and "Traceback" not in stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["interrupted"] == "SIGINT" and summary["aborted"] is True
    assert summary["wind_down"] is None
    assert summary["chips_conserved"] is None  # not counted: nobody was waited for
    assert (tmp_path / "report.html").exists() and (tmp_path / "history.csv").exists()
