"""The forecast against the live day: is each measured minute inside the forecast's p10-p90 band?

Two quantities are compared (:data:`COMPARED`), the two a live run measures the way a forecast
counts them (:mod:`.live`): live tables at the start of each minute and hands dealt in it per
second. The minutes compared run from the first event's start to the last minute at which the
forecast (any replication) or the live day had a table; a minute the live day did not reach (it
ended earlier) counts as zero tables and hands, as a forecast's replication that ended earlier
does. A value is inside when ``p10 <= value <= p90``, both rounded as schedule.json rounds them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from tablestorm.sim.schedule.live import LiveDay
from tablestorm.sim.schedule.spec import clock

__all__ = ["COMPARED", "compare"]

COMPARED: Final = ("tables", "hands_per_s")
"""schedule.json's per-minute quantities a live day measures."""


_NONE: Final = {name: {"p10": 0.0, "p50": 0.0, "p90": 0.0} for name in COMPARED}
"""The band of a minute past the forecast's last row: no replication had a table then."""


def _live_value(name: str, tables: int, hands: int) -> float:
    return float(tables) if name == "tables" else round(hands / 60, 3)


def compare(rows: Sequence[Mapping[str, Any]], live: LiveDay) -> dict[str, Any]:
    """schedule.json's ``live`` section: the live day's minutes beside the forecast's ``rows``
    (its ``minutes``), each quantity's band and whether the live value is inside, and the share of
    minutes inside per quantity."""
    measured = {m.minute: m for m in live.minutes}
    started = [m.minute for m in live.minutes]
    forecast = [row["minute"] for row in rows if row["tables"]["p90"] > 0]
    first = min([*started, *forecast[:1]])
    last = max([*(m.minute for m in live.minutes if m.tables), *forecast[-1:]])
    compared = []
    inside = dict.fromkeys(COMPARED, 0)
    for minute in range(first, last + 1):
        row = rows[minute] if minute < len(rows) else _NONE
        seen = measured.get(minute)
        entry: dict[str, Any] = {"minute": minute, "time": clock(minute)}
        for name in COMPARED:
            value = _live_value(name, seen.tables if seen else 0, seen.hands if seen else 0)
            band = row[name]
            within = band["p10"] <= value <= band["p90"]
            inside[name] += within
            entry[name] = {"live": value, "p10": band["p10"], "p50": band["p50"], "p90": band["p90"],
                           "inside": within}
        compared.append(entry)
    count = len(compared)
    return {
        "replication": live.replication,
        "complete": live.complete,
        "stopped": live.stopped,
        "interrupted": live.interrupted,
        "setup_s": live.setup_s,
        "wall_s": live.wall_s,
        "events": list(live.events),
        "players": live.players,
        "minutes": compared,
        "inside_share": {name: round(inside[name] / count, 4) if count else None for name in COMPARED},
    }
