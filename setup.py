"""Build hooks: compile the engine's hot modules with mypyc; ship the Prometheus configuration.

The modules stay plain, type-checked Python: without compilation (``TABLESTORM_COMPILE=0``, or
where no C compiler exists) they run interpreted with identical behaviour, only about half as
fast. A compiled build records the hash of each source it compiled so that the engine refuses
to import a compiled module older than its source (see ``services/engine/_compiled.py``).

``deploy/prometheus/`` is what operators deploy and what ``tablestorm load --prometheus`` runs;
the build copies it into the package as ``tablestorm/sim/_deploy/prometheus/`` (``sim/resources.py`` finds
it there, or in a source checkout where it is), so that it has one source and ships in the wheel.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
COMPILED = [
    "services/engine/record.py",
    "services/engine/actions.py",
    "services/engine/events.py",
    "services/engine/hand.py",
    "services/engine/pots.py",
    "services/engine/deck.py",
    "services/engine/shuffle.py",
    "services/engine/evaluation.py",
]


def _ext_modules() -> list[object]:
    if os.environ.get("TABLESTORM_COMPILE", "1") == "0":
        return []
    from mypyc.build import mypycify

    hashes = {path: hashlib.sha256((ROOT / path).read_bytes()).hexdigest() for path in COMPILED}
    (ROOT / "services/engine/_compiled.json").write_text(json.dumps(hashes, indent=1) + "\n")
    # Compiled through the package's link, so the modules are tablestorm.services.engine.*; the
    # group name puts mypyc's shared runtime inside the package too, not at site-packages' top.
    return list(mypycify([f"tablestorm/{path}" for path in COMPILED], opt_level="3",
                         group_name="tablestorm.services.engine.compiled"))


PROMETHEUS = ROOT / "deploy" / "prometheus"


class BuildPy(build_py):
    """build_py, plus deploy/prometheus/*.yml as data of the sim package."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "tablestorm" / "sim" / "_deploy" / "prometheus"
        self.mkpath(str(target))
        for config in sorted(PROMETHEUS.glob("*.yml")):
            self.copy_file(str(config), str(target / config.name))


setup(ext_modules=_ext_modules(), cmdclass={"build_py": BuildPy})
