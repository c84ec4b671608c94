"""The proto's numbers under the names strategies and RunStats use, built from the generated enums."""

from __future__ import annotations

from typing import Final, cast

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine.visibility import HIDDEN
from tablestorm.services.table.convert import STRUCTURE_FROM_PB

__all__ = ["HIDDEN", "KIND_NAMES", "KIND_NUMBERS", "OUTCOME_NAMES", "PLAYABLE", "STRUCTURE_NAMES"]

# HIDDEN is the proto's CARD_HIDDEN (the server encodes cards with it: services/table/convert.py): a
# face-down card the receiver may not see. Real cards are 0..51, so one ``max`` (or ``min``) of a
# card list tells whether any card in it is visible (or hidden).

KIND_NUMBERS: Final = {
    name.removeprefix("ACTION_KIND_").lower(): cast("pb.ActionKind", number) for name, number in pb.ActionKind.items()
}
"""Proto action kinds by the names strategies and RunStats use ("fold", "bring_in", ...)."""
KIND_NAMES: Final = {int(number): name for name, number in KIND_NUMBERS.items()}
"""Action kind names by proto enum number; a number the proto does not define reads "unknown"."""
OUTCOME_NAMES: Final = tuple(
    pb.TimeoutOutcome.Name(number).removeprefix("TIMEOUT_OUTCOME_").lower()
    for number in sorted(pb.TimeoutOutcome.values())
)
"""CLOCK-2 outcome names by proto enum number ("unspecified" first, then TIMEOUT_OUTCOMES)."""
STRUCTURE_NAMES: Final = {int(number): structure.value for number, structure in STRUCTURE_FROM_PB.items()}
"""Betting structure names (``tablestorm.services.engine.Structure`` values) by proto enum number."""
PLAYABLE: Final = frozenset(KIND_NUMBERS) - {"unspecified", "timeout"}
"""The kinds a YourTurn may offer."""
