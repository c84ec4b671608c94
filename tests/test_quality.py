"""Repository-level checks: lint, types, and the set-up commands the README promises."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _readme_commands() -> list[str]:
    return re.findall(r"```sh\n(.+?)\n```", (ROOT / "README.md").read_text())


def test_readme_has_exactly_two_setup_commands_at_top() -> None:
    commands = _readme_commands()
    assert len(commands) == 2, commands
    text = (ROOT / "README.md").read_text()
    assert text.index(commands[1]) < text.index("## "), "the set-up commands come before any section"


def test_ci_runs_both_readme_commands() -> None:
    """CI runs the README's test command as written, and its main-job command as written in a
    fresh clone of its own (a fresh virtualenv without the test extra)."""
    main_job, test_command = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_command in ci.splitlines()
    assert f'&& {main_job})' in ci


def test_ruff_clean() -> None:
    result = subprocess.run([BIN / "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_clean_on_engine() -> None:
    result = subprocess.run(
        [BIN / "mypy", "services/engine"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_engine_imports_no_io_frameworks() -> None:
    """The engine stays pure: nothing under services/engine imports gRPC, Ray or asyncio."""
    forbidden = re.compile(r"^\s*(?:from|import)\s+(grpc|ray|asyncio|prometheus_client|socket)\b", re.M)
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "services" / "engine").rglob("*.py")
        if forbidden.search(path.read_text())
    ]
    assert offenders == []


def test_cli_help() -> None:
    result = subprocess.run([BIN / "tablestorm", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "usage: tablestorm" in result.stdout
