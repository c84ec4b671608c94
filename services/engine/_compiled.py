"""Refuse to run a compiled engine module that is older than its source.

``pip install -e .`` compiles the hot modules with mypyc into ``.so`` files beside the sources,
and Python imports a ``.so`` before the ``.py`` of the same name. Editing ``hand.py`` without
rebuilding would therefore run the old rules silently; this check turns that into an error
that says what to do.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import ModuleType

_HERE = Path(__file__).resolve()
_ROOT = _HERE.parent.parent.parent


def check(*modules: ModuleType) -> None:
    record = _ROOT / "services" / "engine" / "_compiled.json"
    for module in modules:
        compiled = module.__file__ or ""
        if compiled.endswith(".py"):
            continue  # interpreted: always current
        # Beside this file: a compiled module's own __file__ is not (mypyc names it from the
        # shared runtime's folder, which is this package's).
        source = _HERE.with_name(module.__name__.rsplit(".", 1)[-1] + ".py")
        key = str(source.relative_to(_ROOT))
        built = json.loads(record.read_text()).get(key) if record.exists() else None
        if built != hashlib.sha256(source.read_bytes()).hexdigest():
            raise ImportError(
                f"{key} changed since it was compiled: rebuild with `pip install -e .` "
                "(or delete services/engine/*.so to run it interpreted)"
            )
