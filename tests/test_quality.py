"""Repository-level checks: lint, types, and the set-up commands the README promises."""

from __future__ import annotations

import ast
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


def test_mypy_strict_clean_on_the_house() -> None:
    """``mypy --strict`` (pyproject's settings) over every package: the engine, the services, sim."""
    result = subprocess.run([BIN / "mypy", "services", "sim"], cwd=ROOT, capture_output=True, text=True)
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


LAYERS = {
    "services.engine": ("services.engine",),
    "services.table": ("services.engine", "services.table"),
    "services.tournament": ("services.engine", "services.table", "services.tournament"),
}
"""What each layer may import of the project: dependencies point one way, sim -> services -> engine."""


def _project_imports(path: Path) -> set[str]:
    """The modules of this project (``services``, ``sim``) that a file imports, resolved to full
    dotted names (relative imports included)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                found.add(f"{base}.{node.module}" if node.module else base)
            elif node.module:
                found.add(node.module)
    return {name for name in found if name.split(".")[0] in ("services", "sim")}


def test_imports_point_one_way() -> None:
    """The engine imports nothing of the services above it, the services nothing of sim."""
    offenders = []
    for layer, allowed in LAYERS.items():
        for path in (ROOT / layer.replace(".", "/")).rglob("*.py"):
            for name in _project_imports(path):
                if not name.startswith(allowed):
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_the_layer_check_sees_relative_imports() -> None:
    """The check above resolves ``from .x import`` and ``from ..y import`` (a file of each kind)."""
    assert "services.table.host" in _project_imports(ROOT / "services/table/service.py")
    assert "services.engine" in _project_imports(ROOT / "services/table/host.py")
