"""schedule.html: the day's demand with its spread, and when each event starts and ends.

Read from schedule.json alone (:mod:`.result`), built from the shared report pieces
(:mod:`tablestorm.sim.reporting`): cards for the peak, a band plot per quantity over the day (the median of
the replications, total and per game, with the total's p10-p90 band), a Gantt of the events (a bar
from the median start to the median end, the p10-p90 spread of the end beside it) and the events'
table; after ``--live``, the live day against the band (:mod:`.validation`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from tablestorm.sim.reporting import plots
from tablestorm.sim.reporting.html import (
    FAIL_BADGE,
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
    page,
    section,
    table,
)
from tablestorm.sim.reporting.style import BLUE, ORANGE, game_colour, game_name
from tablestorm.sim.schedule.progress import duration
from tablestorm.sim.schedule.result import DEMAND, PERCENTILES, clock

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


def _gantt(events: Sequence[Mapping[str, Any]]) -> str:
    spans = [
        plots.Span(e["name"], e["begin"]["p50"] / 60, e["end"]["p10"] / 60, e["end"]["p50"] / 60, e["end"]["p90"] / 60)
        for e in events if e["end"]["p50"] is not None
    ]
    if not spans:
        return ""
    title = "Events: median start to median end, the end's p10-p90 spread"
    return figure(title, plots.gantt(spans, title=title, xlabel="time of day", clock=True))


def _spread(summary: Mapping[str, Any], scale: float = 1.0, digits: int = 0) -> str:
    if summary["p50"] is None:
        return "–"
    low, mid, high = (fmt(summary[p] / scale, digits=digits) for p in ("p10", "p50", "p90"))
    return f"{mid} <small>({low}–{high})</small>"


def _end(summary: Mapping[str, Any]) -> str:
    if summary["p50"] is None:
        return "–"
    return escape(f"{clock(round(summary['p50']))} ({clock(round(summary['p10']))}–{clock(round(summary['p90']))})")


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
    active = plots.busy_hours(rows, lambda row: row["tables"]["p90"] > 0)
    body.append(section("Demand over the day", "".join(_band(active, games, name) for name in DEMAND), "charts"))
    body.append(section("Events", _gantt(data["events"]) + _events_table(data["events"])))
    if data.get("live") is not None:
        body.append(_live(data["live"]))
    peak_values = {f"{_TITLES[name][0]} (p10 / p50 / p90)": " / ".join(fmt(peak[name][p]) for p in PERCENTILES)
                   for name in DEMAND}
    run_values = {
        "schedule": run["schedule"]["name"], "root seed": run["root_seed"], "replications": run["replications"],
        "Ray cores": run["cores"], "Ray nodes": len(run["nodes"]), "tasks' seconds": run["task_seconds"],
        "Ray overhead share": run["ray_overhead_share"], "command": run["command_line"],
        "tablestorm": run["tablestorm_version"],
    }
    body.append(section("The peak and the run", key_values(f"peak at {peak['time']}", peak_values)
                        + key_values("run", run_values), "tables"))
    interrupted = run["interrupted"] or (data.get("live") or {}).get("interrupted")
    badge = FAIL_BADGE if not data["chips_conserved"] else INTERRUPTED if interrupted else PASS_BADGE
    return page(f"Schedule: {run['schedule']['name']}", meta, badge, body,
                footer="Every hand dealt and played by the engine on a virtual clock (tablestorm schedule).")


def write_schedule_html(data: Mapping[str, Any], out: Path) -> Path:
    path = out / HTML_NAME
    path.write_text(render_schedule_html(data))
    return path
