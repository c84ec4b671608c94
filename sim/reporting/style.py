"""How every report shows things: its colours, and a game's colour and name.

One palette for every report kind, so a reader who learnt that Seven Card Stud is orange in a
schedule finds it orange in a tournament's and a load test's report too; and games are shown by
their names (the rule book's), never by their codes.
"""

from __future__ import annotations

from typing import Final

from tablestorm.services.engine.variants import VARIANTS

__all__ = [
    "BLUE", "CYAN", "GAME_COLOURS", "GREEN", "GREY", "ORANGE", "PALETTE", "PURPLE", "RED", "YELLOW",
    "game_colour", "game_name",
]

BLUE: Final = "#2563eb"
ORANGE: Final = "#ea580c"
GREEN: Final = "#16a34a"
RED: Final = "#dc2626"
PURPLE: Final = "#7c3aed"
CYAN: Final = "#0891b2"
YELLOW: Final = "#ca8a04"
GREY: Final = "#64748b"
PALETTE: Final = (BLUE, ORANGE, GREEN, PURPLE, CYAN, YELLOW, RED, GREY)
"""Series colours in order, for series that are not games. Blue is also a chart's one series and a
total beside its games."""

GAME_COLOURS: Final = dict(zip(VARIANTS, (ORANGE, GREEN, PURPLE, CYAN), strict=True))
"""Each game's colour, in every report; none is blue, which a total beside them keeps (a new game
without a colour fails here, at import)."""


def game_colour(code: str) -> str:
    """The game's colour; grey for a code this version does not know (a report of another's file)."""
    return GAME_COLOURS.get(code, GREY)


def game_name(code: str) -> str:
    """The game's name as the rule book writes it; the code itself for one this version does not know."""
    variant = VARIANTS.get(code)
    return code if variant is None else variant.name
