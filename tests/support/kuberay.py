"""The KubeRay CRDs' schemas, as ``kubectl --validate=strict`` checks a manifest against them.

The CRDs are reference data in the team's ``shared/kuberay/`` (not in the repository): a test that
needs one skips, naming the file, where it is absent. Each is 1-2 MB of YAML, read once a run with
libyaml.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CRDS = next((p / "shared" / "kuberay" for p in ROOT.parents if (p / "shared" / "kuberay").is_dir()),
            ROOT.parent / "shared" / "kuberay")
"""The team's shared/ lies beside the repository (CI's clone) or above it (a worktree)."""


def strict(schema: Any) -> Any:
    """The schema with unknown fields refused wherever it lists the fields (kubectl --validate=strict)."""
    if isinstance(schema, dict):
        schema = {key: strict(value) for key, value in schema.items()}
        if ("properties" in schema and "additionalProperties" not in schema
                and not schema.get("x-kubernetes-preserve-unknown-fields")):
            schema["additionalProperties"] = False
        return schema
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    return schema


@functools.cache
def crd_schema(kind: str) -> dict[str, Any]:
    """The v1 schema of ``ray.io_{kind}.yaml`` (``rayclusters``, ``rayjobs``...), made strict."""
    path = CRDS / f"ray.io_{kind}.yaml"
    if not path.exists():
        pytest.skip(f"{path} is missing (the KubeRay CRDs are reference data in shared/kuberay)")
    crd = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    (version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    schema: dict[str, Any] = strict(version["schema"]["openAPIV3Schema"])
    return schema


def errors(kind: str, document: dict[str, Any]) -> list[str]:
    """What the schema finds wrong with ``document``, a line a fault (none: valid)."""
    validator = jsonschema.Draft7Validator(crd_schema(kind))
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]
