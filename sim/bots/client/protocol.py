"""The proto's numbers under the names strategies and RunStats use, built from the generated enums."""

from __future__ import annotations

from typing import Final, cast

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.table.convert import STRUCTURE_FROM_PB

__all__ = ["KIND_NAMES", "KIND_NUMBERS", "STRUCTURE_NAMES"]

KIND_NUMBERS: Final = {
    name.removeprefix("ACTION_KIND_").lower(): cast("pb.ActionKind", number) for name, number in pb.ActionKind.items()
}
"""Proto action kinds by the names strategies and RunStats use ("fold", "bring_in", ...)."""
KIND_NAMES: Final = {int(number): name for name, number in KIND_NUMBERS.items()}
"""Action kind names by proto enum number; a number the proto does not define reads "unknown"."""
STRUCTURE_NAMES: Final = {int(number): structure.value for number, structure in STRUCTURE_FROM_PB.items()}
"""Betting structure names (``tablestorm.services.engine.Structure`` values) by proto enum number."""
