"""Build hook: compile the engine's hot modules with mypyc.

The modules stay plain, type-checked Python: without compilation (``TABLESTORM_COMPILE=0``, or
where no C compiler exists) they run interpreted with identical behaviour, only about half as
fast. A compiled build records the hash of each source it compiled so that the engine refuses
to import a compiled module older than its source (see ``services/engine/_compiled.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from setuptools import setup

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
    return list(mypycify(COMPILED, opt_level="3"))


setup(ext_modules=_ext_modules())
