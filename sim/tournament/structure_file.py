"""Reading a tournament structure file (the schema: :mod:`tablestorm.services.director.structure`).

The director parses a mapping and never touches a file (it stays pure); the commands read the YAML.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tablestorm.services.director.structure import TournamentStructure, structure_from_mapping
from tablestorm.services.fields import FieldError


def load_structure(path: str | Path) -> TournamentStructure:
    """Read a structure file; errors name the file and the field."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise FieldError(str(path), f"cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise FieldError(str(path), f"not valid YAML: {exc}") from None
    return structure_from_mapping(data, str(path))
