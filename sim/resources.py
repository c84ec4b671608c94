"""The files the commands read at run time: the example scenarios and the Prometheus configuration.

Both ship in the wheel as data of the ``tablestorm.sim`` package, so ``tablestorm load smoke --prometheus``
works from any directory after ``pip install tablestorm``. The Prometheus files have one source,
``deploy/prometheus/`` (what operators deploy), which the build copies into the package as
``sim/_deploy/prometheus/`` (``setup.py``); a source checkout (an editable install, the tests)
reads them where they are.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Final

# Resolved: in a checkout the package is reached through the tablestorm/sim link, the deploy/
# folder lies beside the real sim/.
_PACKAGE: Final = Path(str(files("tablestorm.sim"))).resolve()
SCENARIOS: Final = _PACKAGE / "scenarios"
"""The example scenarios (``smoke``, ``stud-ramp``, ...): ``tablestorm load NAME`` runs one."""
TOURNAMENTS: Final = _PACKAGE / "tournaments"
"""The example tournament structures (the example schedules name them)."""
_PACKAGED_PROMETHEUS: Final = _PACKAGE / "_deploy" / "prometheus"
_CHECKOUT_PROMETHEUS: Final = _PACKAGE.parent / "deploy" / "prometheus"


def example_scenarios() -> dict[str, Path]:
    """The example scenarios by name (file stem)."""
    return {path.stem: path for path in sorted(SCENARIOS.glob("*.yaml"))}


def prometheus_config() -> Path:
    """The directory holding ``prometheus.yml`` and the rule files it names."""
    return _PACKAGED_PROMETHEUS if _PACKAGED_PROMETHEUS.is_dir() else _CHECKOUT_PROMETHEUS
