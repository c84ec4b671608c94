"""The committed gRPC code is what ``python -m tablestorm.services.api.codegen`` makes from proto/."""

from __future__ import annotations

import re
from pathlib import Path

from tablestorm.services.api import codegen

_VERSIONS = re.compile(
    r"^# Protobuf Python Version: .*$|_runtime_version\.ValidateProtobufRuntimeVersion\([^)]*\)"
    r"|^GRPC_GENERATED_VERSION = .*$",
    re.M,
)
"""What names the generator's version: a newer grpcio-tools is not drift of the API."""


def _normalized(path: Path) -> str:
    return _VERSIONS.sub("", path.read_text())


def test_generated_code_matches_the_proto(tmp_path: Path) -> None:
    fresh = {path.name: path for path in codegen.generate(tmp_path)}
    committed = {path.name: path for path in codegen.OUT.iterdir() if path.is_file() and path.name != "codegen.py"}
    assert sorted(fresh) == sorted(committed), "regenerate: .venv/bin/python -m tablestorm.services.api.codegen"
    for name, path in fresh.items():
        assert _normalized(path) == _normalized(committed[name]), (
            f"{name} is stale: regenerate with .venv/bin/python -m tablestorm.services.api.codegen"
        )
