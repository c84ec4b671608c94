"""PHH variant codes: phh-std's for the stud games, tablestorm extensions for the others.

phh-std has no Five Card Stud or Seven-to-Ace draw; tablestorm's codes for them follow its pattern
(structure letter, game, number of draws) and a hand using one is flagged by the user field
``_variant_extension = "tablestorm"`` (docs/phh.md).
"""

from __future__ import annotations

from tablestorm.services.engine.variants import Structure, Variant

PHH_CODES: dict[str, tuple[str, Structure]] = {
    "F7S": ("7stud", Structure.FIXED_LIMIT),
    "F7S/8": ("7stud8", Structure.FIXED_LIMIT),
    "F5S": ("5stud", Structure.FIXED_LIMIT),
    "F7A1D": ("7a5draw", Structure.FIXED_LIMIT),
    "P7A1D": ("7a5draw", Structure.POT_LIMIT),
    "N7A1D": ("7a5draw", Structure.NO_LIMIT),
}
"""PHH variant code -> (tablestorm game code, betting structure)."""

EXTENSION_CODES = frozenset({"F5S", "F7A1D", "P7A1D", "N7A1D"})
"""Codes tablestorm defines (phh-std has no Five Card Stud or Seven-to-Ace draw)."""

EXTENSION_MARK = "tablestorm"
"""Value of ``_variant_extension`` in a hand whose variant code is one of EXTENSION_CODES."""

_CODE_OF = {value: code for code, value in PHH_CODES.items()}


def phh_code(variant: Variant, structure: Structure) -> str:
    """The PHH variant code of a game and structure (``F7S``, ``N7A1D``...)."""
    try:
        return _CODE_OF[variant.code, structure]
    except KeyError:
        raise ValueError(f"no PHH code for {variant.name} in {structure.value}") from None
