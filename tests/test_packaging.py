"""A regular (non-editable) install ships what the commands need, and says what it is.

The wheel is built from a copy of the source tree (``pip wheel . --no-deps``, interpreted engine:
the data files do not depend on the compiled build), then installed into a fresh virtualenv and
run from another directory, where nothing of the checkout can be found: the example scenarios
and the Prometheus configuration must come from the installed package.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SCENARIOS = sorted(path.name for path in (ROOT / "sim" / "scenarios").glob("*.yaml"))
PROMETHEUS = sorted(path.name for path in (ROOT / "deploy" / "prometheus").glob("*.yml"))
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.so", "_compiled.json", "out",
    ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis",
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE)
    subprocess.run(
        [BIN / "pip", "wheel", ".", "--no-deps", "--no-build-isolation", "-q", "-w", work / "dist"],
        cwd=source, check=True, capture_output=True, env={"PATH": str(BIN), "TABLESTORM_COMPILE": "0"},
    )
    [built] = (work / "dist").glob("tablestorm-*.whl")
    yield built


def test_wheel_carries_the_data_files_and_the_license(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"sim/scenarios/{name}" for name in SCENARIOS} <= names
    assert {f"sim/_deploy/prometheus/{name}" for name in PROMETHEUS} <= names
    assert "sim/_deploy/prometheus/prometheus.yml" in names
    dist_info = f"tablestorm-{version('tablestorm')}.dist-info"
    assert f"{dist_info}/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read(f"{dist_info}/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata
    for name in PROMETHEUS:  # the copy is the file operators deploy, byte for byte
        packaged = zipfile.ZipFile(wheel).read(f"sim/_deploy/prometheus/{name}")
        assert packaged == (ROOT / "deploy" / "prometheus" / name).read_bytes()


def test_installed_wheel_runs_from_another_directory(wheel: Path, tmp_path: Path) -> None:
    """A fresh virtualenv with the wheel (its dependencies borrowed from this one by a .pth file,
    which puts no checkout on the path), used from an empty directory."""
    env_dir = tmp_path / "venv"
    base_python = getattr(sys, "_base_executable", sys.executable)  # the interpreter this venv was made from
    subprocess.run([base_python, "-m", "venv", "--without-pip", env_dir], check=True)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip())
    (site / "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([BIN / "pip", "--python", python, "install", "--no-deps", "-q", wheel],
                   check=True, capture_output=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def run(*argv: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*argv], cwd=elsewhere, capture_output=True, text=True, timeout=120,
                              env={"PATH": str(env_dir / "bin"), "HOME": str(tmp_path)})

    done = run(env_dir / "bin" / "tablestorm", "--version")
    assert done.returncode == 0 and done.stdout.strip() == f"tablestorm {version('tablestorm')}", done.stderr
    where = run(python, "-c", "import sim.resources as r; print(r.__file__); print(r.prometheus_config()); "
                "print(' '.join(r.example_scenarios()))")
    module, prometheus, examples = where.stdout.splitlines()
    assert module.startswith(str(site)), "the installed copy, not the checkout"
    assert Path(prometheus) == site / "sim" / "_deploy" / "prometheus"
    assert sorted(path.name for path in Path(prometheus).glob("*.yml")) == PROMETHEUS
    assert examples.split() == [Path(name).stem for name in SCENARIOS]
    # The example is found by name; the run is then refused for the flag alone (no Ray needed).
    done = run(env_dir / "bin" / "tablestorm", "load", "smoke", "--duration", "0")
    assert done.returncode == 2
    assert done.stderr.strip() == "tablestorm load: --duration: must be at least 1, got 0", done.stderr
