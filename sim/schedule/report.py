"""schedule.html: the day's demand with its spread, and when each event starts and ends.

Read from schedule.json alone (:mod:`.result`), built from the shared report pieces
(:mod:`tablestorm.sim.reporting`): cards for the peak, a band plot per quantity over the day (the median of
the replications, total and per game, with the total's p10-p90 band), a Gantt of the events (a bar
from the median start to the median end, the p10-p90 spread of the end beside it), the events'
table, each event's own peak beside the room's, the guarantees' overlays and the fees, the
satellites' seats; after ``--live``, the live day against the band (:mod:`.validation`). A
recurring day is drawn on one day's clock (what runs past midnight is the small hours'); events
whose tournaments look unlike real ones are named in a banner and the badge says IMPLAUSIBLE.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from tablestorm.sim.reporting import plots
from tablestorm.sim.reporting.html import (
    FAIL_BADGE,
    IMPLAUSIBLE_BADGE,
    INTERRUPTED,
    PASS_BADGE,
    banner,
    card,
    cards,
    escape,
    figure,
    fmt,
    game,
    key_values,
    note,
    page,
    section,
    table,
)
from tablestorm.sim.reporting.style import BLUE, ORANGE, game_colour, game_name
from tablestorm.sim.schedule.progress import duration
from tablestorm.sim.schedule.result import DEMAND, PERCENTILES, implausible
from tablestorm.sim.schedule.spec import MINUTES_PER_DAY, clock, day_clock

__all__ = ["HTML_NAME", "render_schedule_html", "write_schedule_html"]

HTML_NAME: Final = "schedule.html"
_TITLES: Final = {
    "tables": ("Live tables", "tables"),
    "seated_players": ("Seated players (Play streams)", "players"),
    "hands_per_s": ("Hands per second", "hands/s"),
    "actions_per_s": ("Actions per second", "actions/s"),
    "events_per_s": ("Table-service events per second", "events/s"),
}


def _band(rows: Sequence[Mapping[str, Any]], games: Sequence[str], name: str) -> str:
    hours = [row["minute"] / 60 for row in rows]
    total = plots.Series(
        "all games (p50, p10-p90 band)", [row[name]["p50"] for row in rows],
        low=[row[name]["p10"] for row in rows], high=[row[name]["p90"] for row in rows], colour=BLUE,
    )
    per_game = [
        plots.Series(f"{game_name(game)} (p50)", [row["games"][game][name]["p50"] for row in rows],
                     colour=game_colour(game), dashed=True)
        for game in games
    ]
    series = [total, *per_game] if len(games) > 1 else [total]
    title, unit = _TITLES[name]
    return figure(title, plots.lines(hours, series, title=title, xlabel="time of day", ylabel=unit, clock=True))


def _gantt(events: Sequence[Mapping[str, Any]], recurring: bool) -> str:
    spans = [
        plots.Span(e["name"], e["begin"]["p50"] / 60, e["end"]["p10"] / 60, e["end"]["p50"] / 60, e["end"]["p90"] / 60)
        for e in events if e["end"]["p50"] is not None
    ]
    if not spans:
        return ""
    title = "Events: median start to median end, the end's p10-p90 spread"
    return figure(title, plots.gantt(spans, title=title, xlabel="time of day", clock=True,
                                     period=24.0 if recurring else None))


def _spread(summary: Mapping[str, Any], scale: float = 1.0, digits: int = 0) -> str:
    if summary["p50"] is None:
        return "–"
    low, mid, high = (fmt(summary[p] / scale, digits=digits) for p in ("p10", "p50", "p90"))
    return f"{mid} <small>({low}–{high})</small>"


def _end(summary: Mapping[str, Any]) -> str:
    """The median end with its p10-p90, on the day's clock: ``04:50 (04:19–05:39) +1d``."""
    if summary["p50"] is None:
        return "–"
    minutes = [round(summary[p]) for p in ("p10", "p50", "p90")]
    days = {m // MINUTES_PER_DAY for m in minutes}
    if len(days) == 1:
        low, mid, high = (clock(m % MINUTES_PER_DAY) for m in minutes)
        suffix = day_clock(minutes[1])[len(mid):]
    else:
        (low, mid, high), suffix = (day_clock(m) for m in minutes), ""
    return escape(f"{mid} ({low}–{high}){suffix}")


def _at(summary: Mapping[str, Any]) -> str:
    return "–" if summary["p50"] is None else escape(day_clock(round(summary["p50"])))


def _peaks_table(events: Sequence[Mapping[str, Any]], day: Mapping[str, Any]) -> str:
    """Each event's own peak tables and seated players, and their (median) minute, under the room's."""
    def cells(label: str, row: Mapping[str, Any]) -> list[str]:
        return [label, _spread(row["peak_tables"]), _at(row["peak_tables_minute"]),
                _spread(row["peak_seated_players"]), _at(row["peak_seated_players_minute"])]

    rows = [cells("<b>the room (all events)</b>", day), *(cells(escape(e["name"]), e) for e in events)]
    return table(["event", "peak tables", "at", "peak seated players", "at"], rows, numeric_from=1)


def _flags(events: Sequence[Mapping[str, Any]]) -> str:
    """The events whose tournaments look unlike real ones: each flag, how often, the first one's words."""
    rows = [
        [escape(e["name"]), escape(code), escape(flag["message"]), _count(flag["tournaments"], e["tournaments"])]
        for e in events for code, flag in e["sanity"].items()
    ]
    if not rows:
        return ""
    return section("Tournaments that do not look like real ones (docs/calibration.md)",
                   table(["event", "flag", "the first one's reason", "tournaments"], rows, numeric_from=3))


def _count(flagged: int, played: Mapping[str, Any]) -> str:
    return f"{flagged} of {round(sum(v for v in played['values'] if v is not None)):,}"


def _money(events: Sequence[Mapping[str, Any]], day: Mapping[str, Any]) -> str:
    """The day's overlay and fees; the guaranteed events' overlays; per raked (or seat) event its pool,
    the largest guarantee at the run's risk and its fees; the satellites' seats."""
    priced = [e for e in events if e["guarantee"] is not None or e["fee"] or e["seats_to"] or e["seat_entries"]]
    if not priced:
        return ""
    owed, fees = day["overlay"], day["fees"]
    risk = day["overlay_risk"]
    body = cards([
        card("P(any overlay)", 100 * owed["probability"], "%", digits=0),
        card("overlay p50 / p90", f"{owed['p50']:,.0f} / {owed['p90']:,.0f}"),
        card("overlay p95", owed["p95"], digits=0),
        card("expected overlay", owed["mean"], digits=0),
        card("fees p50", fees["p50"], digits=0),
    ])
    guaranteed = [e for e in events if e["overlay"] is not None]
    if guaranteed:
        body += table(
            ["guaranteed event", "buy-in", "guarantee", "entries", "prize pool", "break-even entries", "P(overlay)",
             "expected overlay", "overlay p95"],
            [[escape(e["name"]), fmt(e["buy_in"]), fmt(e["guarantee"], digits=0), _spread(e["entries"]),
              _spread(e["prize_pool"]), fmt(e["break_even_entries"]), fmt(100 * e["overlay"]["probability"], "%",
                                                                         digits=0),
              fmt(e["overlay"]["mean"], digits=0), fmt(e["overlay"]["p95"], digits=0)] for e in guaranteed],
            numeric_from=1)
    body += table(
        ["event", "buy-in", "prize pool", f"largest guarantee at {100 * risk:g}% risk", "fee", "fees"],
        [[escape(e["name"]), fmt(e["buy_in"]), _spread(e["prize_pool"]),
          fmt(None if e["guarantee_at_risk"] is None else e["guarantee_at_risk"]["value"], digits=0),
          fmt(e["fee"]), _spread(e["fees"])] for e in priced],
        numeric_from=1)
    satellites = [e for e in events if e["seats_to"]]
    if satellites:
        by_name = {e["name"]: e for e in events}
        body += table(["satellite", "seats to", "seats won", "seat winners who played the target",
                       "seats won too late"],
                      [[escape(e["name"]), escape(e["seats_to"]), _spread(e["seats"]),
                        _spread(by_name[e["seats_to"]]["seat_entries"]), _spread(by_name[e["seats_to"]]["seats_lost"])]
                       for e in satellites], numeric_from=2)
    return section("Guarantees, overlays and fees", body)


def _events_table(events: Sequence[Mapping[str, Any]]) -> str:
    rows = [
        [escape(e["name"]), game(e["game"]), escape(e["start"] or "on demand"), _spread(e["tournaments"]),
         _spread(e["players"]), _spread(e["prize_pool"]), _spread(e["duration_s"], 3600, 2), _end(e["end"]),
         _spread(e["hands"])]
        for e in events
    ]
    headers = ["event", "game", "start", "tournaments", "players", "prize pool", "hours each", "last end", "hands"]
    return table(headers, rows, numeric_from=3)


def _live(live: Mapping[str, Any]) -> str:
    """The live day against the forecast: the share of minutes inside the band, a plot per quantity
    (the forecast's p50 with its p10-p90 band, the live line), the live tournaments."""
    rows = live["minutes"]
    since = [row["minute"] - rows[0]["minute"] for row in rows] if rows else []
    shares = live["inside_share"]
    head = cards([
        *(card(f"{_TITLES[name][1]} minutes inside p10-p90", 100 * (share or 0.0), "%", digits=0)
          for name, share in shares.items()),
        card("minutes compared", len(rows)),
        card("live day", duration(live["wall_s"])),
        card("seeds of replication", live["replication"]),
    ])
    figures = []
    for name in shares:
        band = plots.Series("forecast (p50, p10-p90 band)", [row[name]["p50"] for row in rows],
                            low=[row[name]["p10"] for row in rows], high=[row[name]["p90"] for row in rows],
                            colour=BLUE)
        measured = plots.Series("live", [row[name]["live"] for row in rows], colour=ORANGE)
        title = f"{_TITLES[name][0]}: live against the forecast"
        figures.append(figure(title, plots.lines(
            since, [band, measured], title=title, xlabel=f"minutes from {rows[0]['time'] if rows else '–'}",
            ylabel=_TITLES[name][1],
        )))
    events = table(
        ["tournament", "start", "entrants", "entries", "hands", "minutes", "finished", "chips conserved"],
        [[escape(e["name"]), escape(e["start"]), fmt(e["entrants"]), fmt(e["entries"]), fmt(e["hands"]),
          "–" if e["duration_s"] is None else fmt(e["duration_s"] / 60, digits=1),
          escape("yes" if e["finished"] else "no"), escape("yes" if e["chips_conserved"] else "no")]
         for e in live["events"]],
        numeric_from=2,
    )
    stopped = [] if live["stopped"] is None else [banner(f"the live day stopped early: {live['stopped']}")]
    return (section("The day played live", "".join([*stopped, head, *figures]), "charts")
            + section("The live tournaments", events))


def render_schedule_html(data: Mapping[str, Any]) -> str:
    run, peak, games = data["run"], data["peak"], data["games"]
    rows = data["minutes"]
    meta = (f"{run['schedule']['file']} · {run['replications']} replications · root seed {run['root_seed']} · "
            f"{run['started_at']} · {run['machine']['hostname']} ({run['machine']['cores']} cores)")
    body = [banner(w, "stop" if "chips" in w else "warn") for w in data["warnings"]]
    recurring = data["recurring"]
    body.append(cards([
        card("peak minute", peak["time"]),
        card("tables at the peak", peak["tables"]["p50"], "p50", digits=0),
        card("seated players at the peak", peak["seated_players"]["p50"], "p50", digits=0),
        card("hands/s at the peak", peak["hands_per_s"]["p50"], "p50"),
        card("events/s at the peak", peak["events_per_s"]["p50"], "p50"),
        card("events", len(data["events"])),
        card("replications", run["replications"]),
        card("wall time", duration(run["wall_s"])),
    ]))
    shown = plots.busy_hours(rows, lambda row: row["tables"]["p90"] > 0)
    tail = f" (the last table closed at {recurring['tail_until']} the next morning)" if recurring["tail_until"] else ""
    body.append(note(f"This is {recurring['note']}{tail}."))
    body.append(section("Demand over the day", "".join(_band(shown, games, name) for name in DEMAND), "charts"))
    body.append(section("Events", _gantt(data["events"], recurring["on"]) + _events_table(data["events"])))
    body.append(section("Peaks: each event's own and the room's", _peaks_table(data["events"], data["day"])))
    body.append(_money(data["events"], data["day"]))
    body.append(_flags(data["events"]))
    if data.get("live") is not None:
        body.append(_live(data["live"]))
    peak_values = {f"{_TITLES[name][0]} (p10 / p50 / p90)": " / ".join(fmt(peak[name][p]) for p in PERCENTILES)
                   for name in DEMAND}
    run_values = {
        "schedule": run["schedule"]["name"], "root seed": run["root_seed"], "replications": run["replications"],
        "Ray cores": run["cores"], "Ray nodes": len(run["nodes"]), "tasks' seconds": run["task_seconds"],
        "Ray overhead share": run["ray_overhead_share"], "command": run["command_line"],
        "day": "recurring (the tail folded onto the small hours)" if recurring["on"] else "single (recurring: false)",
        "tablestorm": run["tablestorm_version"],
    }
    body.append(section("The peak and the run", key_values(f"peak at {peak['time']}", peak_values)
                        + key_values("run", run_values), "tables"))
    interrupted = run["interrupted"] or (data.get("live") or {}).get("interrupted")
    flagged = any(implausible(e) for e in data["events"])
    badge = (FAIL_BADGE if not data["chips_conserved"] else INTERRUPTED if interrupted
             else IMPLAUSIBLE_BADGE if flagged else PASS_BADGE)
    return page(f"Schedule: {run['schedule']['name']}", meta, badge, body,
                footer="Every hand dealt and played by the engine on a virtual clock (tablestorm schedule).")


def write_schedule_html(data: Mapping[str, Any], out: Path) -> Path:
    path = out / HTML_NAME
    path.write_text(render_schedule_html(data))
    return path
