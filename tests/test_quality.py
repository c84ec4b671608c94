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
    """``mypy --strict`` (pyproject's settings) over the one import package (the engine, the
    director, the services, sim: ``tablestorm/services`` and ``tablestorm/sim`` link to the folders)
    and the benchmarks, which drive it."""
    result = subprocess.run([BIN / "mypy", "tablestorm", "benchmarks"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


PURE = ("services/fields.py", "services/engine", "services/director")
"""Pure logic: no I/O, clocks, threads, processes, network, gRPC, Ray or metrics; time is an argument."""
_IMPURE = re.compile(
    r"^\s*(?:from|import)\s+(grpc|ray|asyncio|prometheus_client|socket|threading|concurrent|multiprocessing|"
    r"subprocess|signal|time|datetime|logging|yaml|sqlite3|urllib|http)\b"
    r"|\bopen\(|\.read_text\(|\.write_text\(|\.read_bytes\(",
    re.M,
)


def test_pure_layers_do_no_io() -> None:
    """The field errors, the engine and the tournament director stay pure: nothing in them imports an
    I/O framework, a clock or threads, or reads or writes a file (the engine's compiled-build check
    aside: it reads the hashes of its own sources at import)."""
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group(0).strip()}"
        for where in PURE
        for path in ([ROOT / where] if where.endswith(".py") else (ROOT / where).rglob("*.py"))
        if path.name != "_compiled.py"
        for match in _IMPURE.finditer(path.read_text())
    ]
    assert offenders == []


def test_the_purity_check_sees_a_clock(tmp_path: Path) -> None:
    assert _IMPURE.search("import time\n") and _IMPURE.search("from datetime import UTC\n")
    assert _IMPURE.search("data = path.read_text()\n") and not _IMPURE.search("import math\n")


def test_cli_help() -> None:
    result = subprocess.run([BIN / "tablestorm", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    assert "usage: tablestorm" in result.stdout


LAYERS = {
    "services.fields": (),
    "services.engine": ("services.fields", "services.engine"),
    "services.director": ("services.fields", "services.engine", "services.director"),
    "services.api": ("services.api",),
    "services.rpc": ("services.api", "services.rpc"),
    "services.table": ("services.fields", "services.engine", "services.api", "services.rpc", "services.table"),
    "services.tournament": ("services.fields", "services.engine", "services.director", "services.api",
                            "services.rpc", "services.table", "services.tournament"),
    "services.websocket": ("services.fields", "services.engine", "services.api", "services.rpc", "services.table",
                           "services.websocket"),
}
"""What each layer may import of the project (names under ``tablestorm.``): dependencies point one way,
sim -> services -> engine -> fields (the field errors, which import nothing of the project); the
director is pure beside the engine; the gRPC kit knows no service."""


def _project_imports(path: Path, root: Path = ROOT) -> set[str]:
    """The modules of this project that a file imports, as dotted names under ``tablestorm.``
    (relative imports resolved); a bare ``services``/``sim`` import is returned as written."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                found.add(f"tablestorm.{base}.{node.module}" if node.module else f"tablestorm.{base}")
            elif node.module:
                found.add(node.module)
    return {name for name in found if name.split(".")[0] in ("tablestorm", "services", "sim")}


def _within(name: str, layers: tuple[str, ...]) -> bool:
    return any(name == layer or name.startswith(f"{layer}.") for layer in layers)


def test_imports_point_one_way() -> None:
    """Each layer imports only the layers it may (:data:`LAYERS`)."""
    offenders = []
    for layer, allowed in LAYERS.items():
        where = ROOT / layer.replace(".", "/")
        for path in [where.with_suffix(".py")] if where.with_suffix(".py").is_file() else where.rglob("*.py"):
            for name in _project_imports(path):
                if not _within(name, tuple(f"tablestorm.{a}" for a in allowed)) and name != "tablestorm":
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_the_project_is_imported_as_tablestorm_only() -> None:
    """Nothing imports the folders by their bare names: installed, only ``tablestorm`` exists."""
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for folder in ("services", "sim", "tests", "benchmarks", "deploy")
        for path in (ROOT / folder).rglob("*.py")
        for name in _project_imports(path)
        if name.split(".")[0] in ("services", "sim")
    ]
    assert offenders == []


def test_the_layer_check_sees_relative_imports(tmp_path: Path) -> None:
    """The checks above resolve ``from .x import`` and ``from ..y import``."""
    table = tmp_path / "services" / "table"
    table.mkdir(parents=True)
    (table / "service.py").write_text("from .host import TableHost\nfrom ..engine import Hand\nimport sim.cli\n")
    assert _project_imports(table / "service.py", tmp_path) == {
        "tablestorm.services.table.host", "tablestorm.services.engine", "sim.cli",
    }


def _names_a_test(name: str) -> bool:
    """A dotted name with a part ``test_*`` (pytest's pattern for test files and functions)."""
    return any(part.startswith("test_") for part in name.split("."))


def _tests_imported(path: Path) -> set[str]:
    """The test modules (or what of them) a file imports, whatever the form of the import."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [module] if _names_a_test(module) else [f"{module}.{a.name}".lstrip(".") for a in node.names]
        else:
            continue
        found.update(filter(_names_a_test, names))
    return found


def test_no_test_module_imports_another() -> None:
    """What tests share lives in ``tests/support/`` (fixtures in ``conftest.py``): a test module that
    another imports hides its helpers among tests and ties the two files' changes together."""
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        for name in sorted(_tests_imported(path))
    ]
    assert offenders == []


def test_the_test_import_check_sees_every_form(tmp_path: Path) -> None:
    """``import test_x``, ``from test_x import y``, ``from . import test_x`` and a test imported
    from a helper module are seen; the helper modules' own imports are not."""
    module = tmp_path / "test_a.py"
    module.write_text("import test_b\nfrom test_c import helper\nfrom . import test_d\n"
                      "from support.tables import test_e\nfrom support.tables import serving\nimport support\n")
    assert _tests_imported(module) == {"test_b", "test_c", "test_d", "support.tables.test_e"}
