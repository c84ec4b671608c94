"""Tournaments (docs/rules.md, TOURN): the structure file, the payouts, and the director that runs one.

Pure like the engine it drives: no I/O, clocks or threads. ``structure`` reads the team's YAML
schema, ``payouts`` makes TOURN-9's tables, ``advisor`` suggests structures, and ``director`` is
the tournament director, which takes inputs with their time and returns the ``commands`` for the
tables while keeping an append-only list of ``events``. The live service and the accelerated
simulation (``tablestorm.sim.tournament``) run the same director.
"""

from tablestorm.services.director.commands import (
    AddChips,
    CloseTable,
    Command,
    DealHand,
    OpenTable,
    RemovePlayer,
    SeatPlayer,
    SetAway,
    TournamentFinished,
)
from tablestorm.services.director.director import (
    AuditError,
    ChipInvariantError,
    Director,
    DirectorError,
    Placing,
    Standing,
    TableSummary,
)
from tablestorm.services.director.structure import TournamentStructure, structure_from_mapping

__all__ = [
    "AddChips",
    "AuditError",
    "ChipInvariantError",
    "CloseTable",
    "Command",
    "DealHand",
    "Director",
    "DirectorError",
    "OpenTable",
    "Placing",
    "RemovePlayer",
    "SeatPlayer",
    "SetAway",
    "Standing",
    "TableSummary",
    "TournamentFinished",
    "TournamentStructure",
    "structure_from_mapping",
]
