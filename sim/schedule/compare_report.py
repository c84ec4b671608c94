"""compare.html: where and by how much run B of a day differs from run A, with the spread of the difference.

Read from compare.json alone (:mod:`.compare`), built from the shared report pieces
(:mod:`tablestorm.sim.reporting`): cards for what changed, a plot per quantity of the difference
B - A over the day (its median over the replications, the p10-p90 band of the paired
differences) beside the two runs' medians, the events that differ and the day's money and peaks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from tablestorm.sim.reporting import plots
from tablestorm.sim.reporting.html import banner, card, cards, escape, figure, fmt, note, page, section, table
from tablestorm.sim.reporting.style import BLUE, ORANGE, PURPLE
from tablestorm.sim.schedule.compare import DAY_QUANTITIES, EVENT_QUANTITIES
from tablestorm.sim.schedule.result import DEMAND
from tablestorm.sim.schedule.spec import day_clock

__all__ = ["HTML_NAME", "render_compare_html", "write_compare_html"]

HTML_NAME: Final = "compare.html"
UNITS: Final = {"tables": "tables", "seated_players": "players", "hands_per_s": "hands/s",
                "actions_per_s": "actions/s", "events_per_s": "events/s"}
_SHOWN: Final = ("players", "prize_pool", "end", "peak_tables", "peak_tables_minute", "overlay", "fees")
"""The event quantities in the events' table (compare.json has every one of :data:`EVENT_QUANTITIES`)."""
_MINUTES: Final = frozenset({"begin", "end", "peak_tables_minute", "peak_seated_players_minute"})
"""Quantities that are minutes of the day: their medians shown as times."""


def _plots(rows: Sequence[Mapping[str, Any]], name: str) -> str:
    hours = [row["minute"] / 60 for row in rows]
    change = plots.Series(
        "B - A (p50, p10-p90 band of the paired differences)", [row[name]["difference"]["p50"] for row in rows],
        low=[row[name]["difference"]["p10"] for row in rows], high=[row[name]["difference"]["p90"] for row in rows],
        colour=PURPLE,
    )
    runs = [plots.Series("A (p50)", [row[name]["a"] for row in rows], colour=BLUE),
            plots.Series("B (p50)", [row[name]["b"] for row in rows], colour=ORANGE, dashed=True)]
    unit = UNITS[name]
    both_title, delta_title = f"{DEMAND[name]}: A and B", f"{DEMAND[name]}: B - A"
    both = plots.lines(hours, runs, title=both_title, xlabel="time of day", ylabel=unit, clock=True)
    delta = plots.lines(hours, [change], title=delta_title, xlabel="time of day", ylabel=f"B - A ({unit})",
                        from_zero=False, hlines=[plots.Mark(0.0, "")], clock=True)
    return figure(both_title, both) + figure(delta_title, delta)


def _value(quantity: str, value: Any) -> str:
    if value is None:
        return "–"
    return escape(day_clock(round(value))) if quantity in _MINUTES else fmt(value, digits=1)


def _change(quantity: str, compared: Mapping[str, Any]) -> str:
    """``A → B`` medians and the paired difference's median (p10–p90)."""
    moved = f"{_value(quantity, compared['a'])} → {_value(quantity, compared['b'])}"
    difference = compared["difference"]
    if difference is None or difference["p50"] is None:
        return moved
    low, mid, high = (fmt(difference[p], digits=1) for p in ("p10", "p50", "p90"))
    unit = " min" if quantity in _MINUTES else ""
    return f"{moved}<br><small>{'+' if difference['p50'] > 0 else ''}{mid}{unit} ({low}–{high})</small>"


def _differs(event: Mapping[str, Any]) -> bool:
    if event["in"] != "both" or event["settings"]:
        return True
    return any(q["difference"]["values"] != [0.0] * len(q["difference"]["values"])
               for q in event["quantities"].values() if q["difference"] is not None)


def _events(events: Sequence[Mapping[str, Any]]) -> str:
    changed = [e for e in events if _differs(e)]
    if not changed:
        return note("Every event is the same in both runs, in every replication.")
    rows = []
    for e in changed:
        where = {"both": "both", "a": "A only", "b": "B only"}[e["in"]]
        settings = "; ".join(f"{key}: {a} → {b}" for key, (a, b) in e["settings"].items())
        rows.append([escape(e["name"]), escape(where), escape(settings or "–"),
                     *(_change(q, e["quantities"][q]) for q in _SHOWN)])
    return table(["event", "in", "what the schedule changed", *(q.replace("_", " ") for q in _SHOWN)], rows,
                 numeric_from=3)


def _spans(spans: Sequence[Mapping[str, str]]) -> str:
    return ", ".join(f"{s['from']}–{s['to']}" for s in spans) if spans else "none"


def render_compare_html(data: Mapping[str, Any]) -> str:
    a, b, rows, changed = data["a"], data["b"], data["minutes"], data["changed"]
    meta = (f"A: {a['file']} ({a['schedule']}, seed {a['root_seed']}) · B: {b['file']} ({b['schedule']}, seed "
            f"{b['root_seed']}) · {a['replications']} paired replications")
    day = data["day"]
    minutes_changed = sum(1 for row in rows if any(row[name]["difference"]["p90"] or row[name]["difference"]["p10"]
                                                   for name in DEMAND))
    largest = max(rows, key=lambda row: abs(row["tables"]["difference"]["p50"]), default=None)
    if largest is not None and not largest["tables"]["difference"]["p50"]:
        largest = None
    body = [banner(w) for w in data["warnings"]]
    body.append(cards([
        card("replications paired", a["replications"]),
        card("same draws", "yes" if data["paired"] else "no"),
        card("minutes changed (p10-p90 off 0)", minutes_changed),
        card("largest change in tables (p50)", None if largest is None else largest["tables"]["difference"]["p50"],
             "" if largest is None else f"at {largest['time']}", digits=0),
        card("overlay change (p50)", day["overlay"]["difference"]["p50"], digits=0),
        card("fees change (p50)", day["fees"]["difference"]["p50"], digits=0),
    ]))
    body.append(note(f"Minutes at which any replication differs: {_spans(changed['any'])}."))
    shown = plots.busy_hours(rows, lambda row: any(row[name]["a"] or row[name]["b"] or row[name]["difference"]["p90"]
                                         or row[name]["difference"]["p10"] for name in DEMAND))
    body.append(section("Where the day changes", "".join(_plots(shown, name) for name in DEMAND), "charts"))
    body.append(section("Events that differ", _events(data["events"])))
    body.append(section("The day", table(
        ["quantity", "A → B (p50), the paired difference p50 (p10–p90)"],
        [[escape(q.replace("_", " ")), _change(q, day[q])] for q in DAY_QUANTITIES], numeric_from=1)))
    badge = '<span class="badge none">WHAT IF</span>'
    return page(f"What if: {b['schedule']} against {a['schedule']}", meta, badge, body,
                footer=f"B - A per replication, then its quantiles (tablestorm schedule compare); event quantities: "
                f"{', '.join(EVENT_QUANTITIES)} in compare.json.")


def write_compare_html(data: Mapping[str, Any], out: Path) -> Path:
    path = out / HTML_NAME
    path.write_text(render_compare_html(data))
    return path
