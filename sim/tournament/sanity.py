"""Whether a tournament's result looks like a real event, or says it cannot be trusted.

A forecast is only as good as the play behind it. Published events end when the big blind (or big
bet) is 2.5-10 % of the chips in play, play many hands per entry, and do not end with one player
alone waiting for late registration to close (docs/calibration.md, S3, S4, T1). A result outside
those lines is flagged with the reason, in ``tournament.json`` and on the report, so nobody reads
an artefact of the bots as a duration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["DEALT_PER_ENTRY", "DEEP_END_UNITS", "EVENT_SHARE", "LONE_WAIT_S", "OUTLASTED", "Flag", "check"]

DEEP_END_UNITS: Final = 60.0
"""Chips in play over the final big blind (big bet) above which the end came implausibly early:
real events end at 10-40 (S3, S4), so 60 leaves room for a lucky run."""
DEALT_PER_ENTRY: Final = 10.0
"""Fewer hands dealt to an entry than this, on average, is implausible: a published 5-player
sit-and-go deals each entry about 30 (T1: 40 and more hands, 3-4 players a hand), a 100-entrant
8-max turbo about 35. Counted per entry, not per table, so a big field at full tables and a
sit-and-go are judged alike."""
LONE_WAIT_S: Final = 60.0
"""The last player alone for longer than this, waiting for late registration to close."""
EVENT_SHARE: Final = 0.05
"""An event of many tournaments (a day's sit-and-gos, its replications) is judged unlike a real one
when more than this share of its tournaments is flagged: a rare flag is chance (a lucky early
stack-off happens in real sit-and-gos too), a frequent one is the play or the structure."""
OUTLASTED: Final = 3.0
"""The last level of the structure lasting this many times its length: the blinds stopped rising,
so the duration is the bots', not the structure's."""


@dataclass(frozen=True, slots=True)
class Flag:
    """One reason not to trust a result: a stable code and a sentence for the reader."""

    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def check(
    *,
    entries: int,
    hands: int,
    dealt: int,
    chips: int,
    levels: Sequence[dict[str, Any]],
    eliminations: Sequence[dict[str, Any]],
    duration_s: float,
    finished: bool,
    last_level: tuple[int, float] = (-1, 0.0),
) -> list[Flag]:
    """The flags of one result (none for a plausible one). ``dealt``: the players dealt in, summed
    over the ``hands``; ``chips``: every chip put in play
    (entries, re-entries, rebuys, add-ons); ``levels``/``eliminations`` as ``tournament.json``
    writes them; ``last_level``: the structure's last level (index, seconds). An unfinished run is
    not judged: its figures stop where it stopped."""
    flags = []
    if finished and dealt < DEALT_PER_ENTRY * entries:
        flags.append(Flag(
            "few_hands",
            f"{hands} hands dealt {dealt / entries:,.1f} times to each of {entries} entries: real events deal each "
            f"at least {DEALT_PER_ENTRY:g}",
        ))
    stakes = next((level["stakes"] for level in reversed(levels) if level["stakes"]), None)
    unit = (stakes["big_bet"] or stakes["big_blind"]) if stakes else 0
    if finished and unit and chips / unit > DEEP_END_UNITS:
        flags.append(Flag(
            "ended_deep",
            f"it ended with {chips / unit:,.0f} big {'bets' if stakes and stakes['big_bet'] else 'blinds'} in play: "
            "real events end at 10-40 (the field was gone long before the structure's end)",
        ))
    if finished and eliminations:
        alone = duration_s - max(e["t"] for e in eliminations)
        if alone > LONE_WAIT_S:
            flags.append(Flag(
                "lone_player_waited",
                f"the last player sat alone for {alone / 60:,.0f} min until late registration closed",
            ))
    index, length = last_level
    reached = levels[-1] if levels else None
    if finished and reached is not None and reached.get("level") == index and length > 0:
        lasted = reached["end_s"] - reached["start_s"]
        if lasted > OUTLASTED * length:
            flags.append(Flag(
                "outlasted_structure",
                f"its last level lasted {lasted / 60:,.0f} min, {lasted / length:,.0f} times its length: "
                "the blinds stopped rising, so the end is the bots' and not the structure's",
            ))
    return flags
