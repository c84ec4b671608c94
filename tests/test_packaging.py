"""A regular (non-editable) install ships what the commands need, and says what it is.

The wheel is built from a copy of the source tree (``pip wheel . --no-deps``, interpreted engine:
the data files do not depend on the compiled build), then installed into a fresh virtualenv and
run from another directory, where nothing of the checkout can be found: the example scenarios
and the Prometheus configuration must come from the installed package.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
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
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE, symlinks=True)  # the package's links, as in a clone
    subprocess.run(
        [BIN / "pip", "wheel", ".", "--no-deps", "--no-build-isolation", "-q", "-w", work / "dist"],
        cwd=source, check=True, capture_output=True, env={"PATH": str(BIN), "TABLESTORM_COMPILE": "0"},
    )
    [built] = (work / "dist").glob("tablestorm-*.whl")
    yield built


def test_wheel_carries_the_data_files_and_the_license(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    dist_info = f"tablestorm-{version('tablestorm')}.dist-info"
    assert {name.split("/")[0] for name in names} == {"tablestorm", dist_info}, "one import package"
    assert {"tablestorm/__init__.py", "tablestorm/services/engine/hand.py", "tablestorm/sim/cli.py"} <= names
    assert {f"tablestorm/sim/scenarios/{name}" for name in SCENARIOS} <= names
    # The example schedules and every structure they name (relative to them: ../tournaments/).
    assert {f"tablestorm/sim/{p.relative_to(ROOT / 'sim')}" for d in ("schedules", "tournaments")
            for p in (ROOT / "sim" / d).glob("*.yaml")} <= names
    assert {f"tablestorm/sim/_deploy/prometheus/{name}" for name in PROMETHEUS} <= names
    assert "tablestorm/sim/_deploy/prometheus/prometheus.yml" in names
    assert f"{dist_info}/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read(f"{dist_info}/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata
    for name in PROMETHEUS:  # the copy is the file operators deploy, byte for byte
        packaged = zipfile.ZipFile(wheel).read(f"tablestorm/sim/_deploy/prometheus/{name}")
        assert packaged == (ROOT / "deploy" / "prometheus" / name).read_bytes()


@dataclass(frozen=True)
class Installed:
    """The wheel in a fresh virtualenv, and a directory with nothing of the checkout in it."""

    env_dir: Path
    site: Path
    elsewhere: Path

    def run(self, *argv: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        env = {"PATH": f"{self.env_dir / 'bin'}:/usr/bin:/bin", "HOME": str(self.elsewhere),
               "RAY_TMPDIR": str(self.elsewhere)}
        return subprocess.run([*argv], cwd=self.elsewhere, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def installed(wheel: Path) -> Iterator[Installed]:
    """Its dependencies borrowed from this virtualenv by a .pth file, which puts no checkout on
    the path; the directory short enough for Ray's socket paths."""
    with tempfile.TemporaryDirectory(prefix="ts-", dir="/tmp") as directory:
        root = Path(directory)
        env_dir = root / "venv"
        base_python = getattr(sys, "_base_executable", sys.executable)  # what this venv was made from
        subprocess.run([base_python, "-m", "venv", "--without-pip", env_dir], check=True)
        python = env_dir / "bin" / "python"
        site = Path(subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip())
        (site / "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        subprocess.run([BIN / "pip", "--python", python, "install", "--no-deps", "-q", wheel],
                       check=True, capture_output=True)
        (root / "elsewhere").mkdir()
        yield Installed(env_dir, site, root / "elsewhere")


def test_installed_wheel_runs_from_another_directory(installed: Installed) -> None:
    tablestorm = installed.env_dir / "bin" / "tablestorm"
    done = installed.run(tablestorm, "--version")
    assert done.returncode == 0 and done.stdout.strip() == f"tablestorm {version('tablestorm')}", done.stderr
    where = installed.run(installed.env_dir / "bin" / "python", "-c", "import tablestorm.sim.resources as r; "
                          "print(r.__file__); print(r.prometheus_config()); print(' '.join(r.example_scenarios()))")
    module, prometheus, examples = where.stdout.splitlines()
    assert module.startswith(str(installed.site)), "the installed copy, not the checkout"
    assert Path(prometheus) == installed.site / "tablestorm" / "sim" / "_deploy" / "prometheus"
    assert sorted(path.name for path in Path(prometheus).glob("*.yml")) == PROMETHEUS
    assert examples.split() == [Path(name).stem for name in SCENARIOS]
    # The example is found by name; the run is then refused for the flag alone (no Ray needed).
    done = installed.run(tablestorm, "load", "smoke", "--duration", "0")
    assert done.returncode == 2
    assert done.stderr.strip() == "tablestorm load: --duration: must be at least 1, got 0", done.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("prometheus") is None, reason="needs the prometheus binary (.ci/run installs it)")
def test_installed_wheel_runs_a_load_with_prometheus(installed: Installed) -> None:
    """What used to fail with FileNotFoundError: a short run of the packaged example, with the
    packaged Prometheus configuration, from a directory with nothing of the checkout."""
    done = installed.run(
        installed.env_dir / "bin" / "tablestorm", "load", "smoke", "--prometheus", "--duration", "3", "--bots", "8",
        "--hosts", "1", "--fleets", "1", "--out", "out", "--junit", "out/junit.xml", timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]  # 1: smoke's p99 bound on a busy machine
    out = installed.elsewhere / "out"
    assert sorted(p.name for p in (out / "prometheus").glob("*.yml")) == PROMETHEUS
    assert "prometheus: http://127.0.0.1:" in done.stderr
    assert (out / "prometheus" / "data").is_dir() and (out / "prometheus" / "targets" / "tablestorm.json").is_file()
    assert json.loads((out / "summary.json").read_text())["chips_conserved"] is True
    assert (out / "junit.xml").is_file()
