"""schedule.json and schedule.csv: a day's demand by minute and each event's outcome, as distributions.

The whole schema (``"schema": "tablestorm.schedule/1"``):

- ``run``: the run's metadata (:func:`tablestorm.sim.reporting.meta.run_metadata`: version, command line,
  start, ``machine`` with its ``cores``), ``schedule`` (``file``, ``name``), ``root_seed``,
  ``replications`` (how many completed) and ``replication_numbers``, ``interrupted`` (the signal
  that cut the run short, or None), ``wall_s``, ``cores`` (the Ray cluster's CPUs), ``nodes``
  (tasks per Ray node), ``task_seconds`` and ``task_cpu_seconds`` (the tasks' own time, summed),
  ``ray_overhead_share`` (the share of the cluster's core-seconds spent outside the tasks);
- ``games``: the games of the schedule (codes);
- ``quantities``: the per-minute quantities (:data:`DEMAND`) with their meaning;
- ``recurring``: ``on`` (the schedule's ``recurring``), ``tail_until`` (``HH:MM`` of the next day
  at which the last replication's last table closed, None when none ran past midnight) and
  ``note`` (:data:`RECURRING_NOTE`: what was done with that tail);
- ``minutes``: a row per minute from midnight (``minute``, ``time`` as ``HH:MM``) for each of
  :data:`DEMAND` its ``p10``, ``p50`` and ``p90`` over the replications, summed over the games,
  and the same per game under ``games``. A recurring day has 1,440 rows, its replications' minutes
  past 24:00 added onto their first ones; a single day's rows run to the last minute any
  replication had a table (``time`` past ``24:00`` for the next day);
- ``minutes_by_replication``: per quantity of :data:`DEMAND`, one list per replication (in
  ``run.replication_numbers`` order) of its total in each row's minute: what the rows' percentiles
  are taken over;
- ``peak``: the minute whose median seated players is highest, with its row;
- ``events``: per event its ``name``, ``kind`` (``tournament`` or ``sit_and_go``), ``game``,
  ``structure`` (the file as the schedule names it), ``structure_digest`` (a hash of its rules:
  :meth:`~tablestorm.services.director.structure.TournamentStructure.digest`) and ``start``
  (tournaments); as distributions (:func:`distribution`: ``p10``,
  ``p50``, ``p90``, ``mean`` and ``values``, one per replication in order, None where it had
  none): ``tournaments`` (how many were played), ``players``, ``entries``, ``prize_pool``,
  ``hands``, ``duration_s`` (each tournament's; a series' percentiles pooled over all of them, its
  values each replication's mean), ``begin`` and ``end`` (minute of the day the event's first
  tournament started and its last one ended, past 1,440 the next day), ``peak_tables`` and
  ``peak_seated_players`` (the event's own highest count in a minute) with ``peak_tables_minute``
  and ``peak_seated_players_minute`` (the first minute it was reached), ``fees`` (``fee`` x
  entries); its money: ``buy_in``, ``guarantee``, ``fee``, ``seats_to``, ``overlay``
  (:func:`overlays` of ``guarantee`` - ``prize_pool`` where positive; None without a guarantee),
  ``break_even_entries`` (the entries whose buy-ins reach the guarantee), ``guarantee_at_risk``
  (tournaments: ``{risk, value}``, the largest guarantee the pools fall short of in at most a share
  ``risk`` of the replications, :func:`~.money.guarantee_at_risk`), ``seats`` (a satellite's seats
  won), ``seat_entries`` and ``seats_lost`` (a satellite target's seat winners who played, and
  those who won too late); ``sanity``: per flag code of :mod:`tablestorm.sim.tournament.sanity`,
  ``tournaments`` (how many of the event's raised it) and ``message`` (the first one's);
- ``day``: the day's own distributions: ``overlay`` (the room's overlay over every guarantee:
  ``probability`` that any is paid, ``mean``, ``p50``, ``p90``, ``p95``, ``values``), ``fees``,
  ``overlay_risk`` (``--overlay-risk``), ``peak_tables``, ``peak_seated_players`` and their
  ``_minute`` (each replication's highest minute of the room);
- ``chips_conserved``: every tournament of every replication ended with its chips (TOURN-11);
- ``warnings``: what a reader must not miss (chips, the events whose tournaments look unlike real
  ones in one line, satellite seats won too late, an interruption);
- ``live`` (only after ``--live``): the day played on the real services against the band
  (:func:`tablestorm.sim.schedule.validation.compare`): ``replication`` (whose seeds it played),
  ``complete``, ``stopped``, ``interrupted``, ``setup_s``, ``wall_s``, ``events`` (per tournament
  ``name``, ``start``, ``entrants``, ``entries``, ``hands``, ``duration_s``, ``finished``,
  ``chips_conserved``, ``halted``), ``players`` (what the bots saw: ``actions``, ``timeouts``,
  ``errors``, ``call_errors``, ``protocol_violations``...), ``minutes`` (``minute``, ``time``, and
  for ``tables`` and ``hands_per_s`` the ``live`` value, the band's ``p10``, ``p50``, ``p90`` and
  ``inside``) and ``inside_share`` (per quantity, the share of those minutes inside).

``schedule.csv`` holds the ``minutes`` rows flat: ``minute``, ``time``, then
``<scope>_<quantity>_<pNN>`` for the scope ``total`` and each game.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from tablestorm.sim.schedule.demand import QUANTITIES
from tablestorm.sim.schedule.money import DEFAULT_RISK, break_even_entries, guarantee_at_risk, overlay
from tablestorm.sim.schedule.replication import EventRun
from tablestorm.sim.schedule.runner import ScheduleRun
from tablestorm.sim.schedule.spec import MINUTES_PER_DAY, Event, Tournament, clock
from tablestorm.sim.tournament.sanity import EVENT_SHARE

__all__ = [
    "CSV_NAME",
    "DEMAND",
    "JSON_NAME",
    "PEAKS",
    "PERCENTILES",
    "SCHEMA",
    "build_schedule",
    "csv_columns",
    "distribution",
    "dumps",
    "overlays",
    "write_schedule",
]

SCHEMA: Final = "tablestorm.schedule/1"
JSON_NAME: Final = "schedule.json"
CSV_NAME: Final = "schedule.csv"
PERCENTILES: Final = ("p10", "p50", "p90")
DEMAND: Final = {
    "tables": "live tables at the start of the minute",
    "seated_players": "players seated at the start of the minute, each holding one Play stream",
    "hands_per_s": "hands dealt in the minute, per second",
    "actions_per_s": "turns taken in the minute (a player's move or the clock's), per second",
    "events_per_s": "events the table services stream in the minute (one per engine event), per second",
}
"""The per-minute quantities, each from one of :data:`~.demand.QUANTITIES` (levels as they are,
counts divided by 60)."""
_SOURCE: Final = {name: (QUANTITIES.index(q), div) for name, q, div in (
    ("tables", "tables", 1), ("seated_players", "players", 1), ("hands_per_s", "hands", 60),
    ("actions_per_s", "actions", 60), ("events_per_s", "events", 60),
)}
PEAKS: Final = ("tables", "seated_players")
"""The levels whose peak (and its minute) is reported per event and for the room."""
RECURRING_NOTE: Final = {
    True: "a recurring day: each replication's minutes past 24:00 are added onto its own first minutes, "
          "so the small hours hold the previous evening's tail as in a room that runs every day",
    False: "a single day: the minutes past 24:00 run on as the next day's (recurring: false)",
}

Array = npt.NDArray[np.float64]
Counts = npt.NDArray[np.int64]


def _day(runs: Iterable[EventRun], replications: Sequence[int], games: Sequence[str],
         recurring: bool) -> tuple[dict[str, Counts], int]:
    """Counts per game (replications x quantities x minutes from midnight) and the minute after the
    last one any replication had a table in. A recurring day's minutes past 24:00 are folded onto
    the same replication's day: its events are drawn apart, so that tail is distributed as the
    previous day's is."""
    listed = list(runs)
    minutes = max([MINUTES_PER_DAY, *(r.load.stop for r in listed)])
    index = {r: k for k, r in enumerate(replications)}
    day = {g: np.zeros((len(replications), len(QUANTITIES), minutes), dtype=np.int64) for g in games}
    for run in listed:
        run.load.into(day[run.game][index[run.replication]])
    tables = QUANTITIES.index("tables")
    live = np.flatnonzero(np.sum([counts[:, tables, :].max(axis=0) for counts in day.values()], axis=0))
    end = int(live[-1]) + 1 if live.size else 0
    if recurring:
        days = -(-minutes // MINUTES_PER_DAY)
        width = ((0, 0), (0, 0), (0, days * MINUTES_PER_DAY - minutes))
        day = {g: np.pad(counts, width).reshape(len(replications), len(QUANTITIES), days, MINUTES_PER_DAY).sum(axis=2)
               for g, counts in day.items()}
    return day, end


def _quantiles(values: Array) -> dict[str, Array]:
    """p10/p50/p90 over the first axis (linear interpolation between replications)."""
    low, mid, high = np.percentile(values, [10, 50, 90], axis=0)
    return {"p10": low, "p50": mid, "p90": high}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(float(value), 3)


def distribution(values: Sequence[float | None]) -> dict[str, Any]:
    """``{p10, p50, p90, mean}`` of the known ``values`` (None without any) and ``values`` themselves:
    one per replication, in order, None where a replication had none."""
    known = np.asarray([v for v in values if v is not None], dtype=np.float64)
    summary: dict[str, Any] = {"p10": None, "p50": None, "p90": None, "mean": None}
    if known.size:
        low, mid, high = np.percentile(known, [10, 50, 90])
        summary = {"p10": _rounded(low), "p50": _rounded(mid), "p90": _rounded(high), "mean": _rounded(known.mean())}
    return {**summary, "values": [_rounded(v) for v in values]}


def overlays(values: Sequence[float]) -> dict[str, Any]:
    """What guarantees cost over the replications: the share of replications with an overlay, its
    mean, p50, p90 and p95, and every replication's."""
    array = np.asarray(values, dtype=np.float64)
    if not array.size:
        return {"probability": None, "mean": None, "p50": None, "p90": None, "p95": None, "values": []}
    mid, high, top = np.percentile(array, [50, 90, 95])
    return {"probability": round(float(np.mean(array > 0)), 4), "mean": _rounded(array.mean()),
            "p50": _rounded(mid), "p90": _rounded(high), "p95": _rounded(top), "values": [_rounded(v) for v in array]}


def _minutes(day: Mapping[str, Counts], total: Counts) -> tuple[list[dict[str, Any]], int]:
    """The ``minutes`` rows and the index of the peak row."""
    scopes = {"total": total, **day}
    bands: dict[str, dict[str, dict[str, Array]]] = {
        scope: {name: _quantiles(counts[:, q, :] / div) for name, (q, div) in _SOURCE.items()}
        for scope, counts in scopes.items()
    }
    live = np.flatnonzero(total[:, QUANTITIES.index("tables"), :].max(axis=0))
    last = int(live[-1]) + 1 if live.size else MINUTES_PER_DAY
    rounded = {scope: {name: {p: np.round(band[p], 3).tolist() for p in PERCENTILES} for name, band in named.items()}
               for scope, named in bands.items()}

    def cell(scope: str, minute: int) -> dict[str, Any]:
        return {name: {p: band[p][minute] for p in PERCENTILES} for name, band in rounded[scope].items()}

    rows = [
        {"minute": minute, "time": clock(minute), **cell("total", minute),
         "games": {game: cell(game, minute) for game in day}}
        for minute in range(max(last, MINUTES_PER_DAY))
    ]
    peak = int(np.argmax(bands["total"]["seated_players"]["p50"][: len(rows)]))
    return rows, peak


def _peak(counts: Counts, start: int) -> tuple[float | None, float | None]:
    """The highest of a level's minutes and the first minute it is reached (None for none above 0)."""
    if not counts.size or not counts.max():
        return None, None
    k = int(np.argmax(counts))
    return float(counts[k]), float(start + k)


def _peaks(rows: Sequence[tuple[Counts, int]], prefix: str = "peak_") -> dict[str, Any]:
    """Per level of :data:`PEAKS`: each replication's peak and its minute, as distributions; ``rows``
    holds each replication's quantities-by-minutes counts and the minute they start at."""
    found = {name: [_peak(counts[_SOURCE[name][0]], start) for counts, start in rows] for name in PEAKS}
    return {key: value for name, peaks in found.items() for key, value in (
        (f"{prefix}{name}", distribution([p for p, _ in peaks])),
        (f"{prefix}{name}_minute", distribution([m for _, m in peaks])),
    )}


def _money(event: Event, runs: Sequence[EventRun], risk: float, fed: bool) -> dict[str, Any]:
    """An event's guarantee, fees and seats (docs/schedules.md, "Guarantees, overlays and fees");
    ``fed``: it has satellites."""
    pools = [float(sum(o.prize_pool for o in r.outcomes)) for r in runs]
    buy_in = event.structure.buy_in
    guarantee = event.guarantee
    satellite = event.satellite
    return {
        "buy_in": buy_in,
        "guarantee": guarantee,
        "fee": event.fee,
        "seats_to": satellite.target if satellite else None,
        "fees": distribution([event.fee * sum(o.entries for o in r.outcomes) for r in runs]),
        "overlay": None if guarantee is None else overlays([overlay(pool, guarantee) for pool in pools]),
        "break_even_entries": None if guarantee is None else break_even_entries(guarantee, buy_in),
        "guarantee_at_risk": ({"risk": risk, "value": guarantee_at_risk(pools, risk)}
                              if isinstance(event, Tournament) and pools else None),
        "seats": distribution([len(r.seats) for r in runs]) if satellite else None,
        "seat_entries": distribution([r.seat_entries for r in runs]) if fed else None,
        "seats_lost": distribution([r.seats_lost for r in runs]) if fed else None,
    }


def _sanity(runs: Sequence[EventRun]) -> dict[str, dict[str, Any]]:
    """Per sanity flag code: how many of the event's tournaments raised it, and the first one's words."""
    flags: dict[str, dict[str, Any]] = {}
    for run in runs:
        for outcome in run.outcomes:
            for code, message in outcome.sanity:
                flags.setdefault(code, {"tournaments": 0, "message": message})["tournaments"] += 1
    return flags


def _durations(runs: Sequence[EventRun]) -> dict[str, Any]:
    """Each tournament's duration (a series' pooled over all of them), and per replication the mean
    of its tournaments'."""
    pooled = distribution([o.duration_s for r in runs for o in r.outcomes])
    means = [sum(o.duration_s for o in r.outcomes) / len(r.outcomes) if r.outcomes else None for r in runs]
    return {**pooled, "values": [_rounded(v) for v in means]}


def _events(run: ScheduleRun, risk: float) -> list[dict[str, Any]]:
    by_event: dict[str, list[EventRun]] = {}
    for event_run in sorted(run.runs, key=lambda r: r.replication):
        by_event.setdefault(event_run.name, []).append(event_run)
    rows = []
    for event in run.schedule.events:
        runs = by_event.get(event.name, [])
        rows.append({
            "name": event.name,
            "kind": "tournament" if isinstance(event, Tournament) else "sit_and_go",
            "game": event.structure.game.code,
            "structure": event.structure_file,
            "structure_digest": event.structure.digest(),
            "start": clock(round(event.start_s / 60)) if isinstance(event, Tournament) else None,
            "tournaments": distribution([len(r.outcomes) for r in runs]),
            "players": distribution([sum(o.players for o in r.outcomes) for r in runs]),
            "entries": distribution([sum(o.entries for o in r.outcomes) for r in runs]),
            "prize_pool": distribution([sum(o.prize_pool for o in r.outcomes) for r in runs]),
            "hands": distribution([sum(o.hands for o in r.outcomes) for r in runs]),
            "duration_s": _durations(runs),
            "begin": distribution([min(o.start_s for o in r.outcomes) / 60 if r.outcomes else None for r in runs]),
            "end": distribution([max(o.end_s for o in r.outcomes) / 60 if r.outcomes else None for r in runs]),
            **_peaks([(r.load.counts, r.load.start) for r in runs]),
            **_money(event, runs, risk, fed=bool(run.schedule.satellites_of(event.name))),
            "sanity": _sanity(runs),
        })
    return rows


def _day_totals(events: Sequence[Mapping[str, Any]], total: Counts, risk: float) -> dict[str, Any]:
    """The day's own distributions: the room's overlay and fees, its peaks."""
    count = total.shape[0]
    paid = [e["overlay"]["values"] for e in events if e["overlay"] is not None]
    return {
        "overlay": overlays([sum(v[r] for v in paid) for r in range(count)]),
        "fees": distribution([sum(e["fees"]["values"][r] for e in events) for r in range(count)]),
        "overlay_risk": risk,
        **_peaks([(total[r], 0) for r in range(count)]),
    }


def implausible(event: Mapping[str, Any]) -> bool:
    """Whether more than :data:`~tablestorm.sim.tournament.sanity.EVENT_SHARE` of an event's
    tournaments were flagged (by any flag): one of a day's 20 replications is chance."""
    played = sum(v for v in event["tournaments"]["values"] if v is not None)
    flagged = max((flag["tournaments"] for flag in event["sanity"].values()), default=0)
    return bool(played) and flagged > EVENT_SHARE * played


def _sanity_warning(events: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line naming every event with too many flagged tournaments (:func:`implausible`), with
    how many of them and which flags (each flag's words are in the events' ``sanity``)."""
    named = []
    for e in events:
        if implausible(e):
            played = round(sum(v for v in e["tournaments"]["values"] if v is not None))
            codes = ", ".join(f"{code} x{flag['tournaments']}" for code, flag in e["sanity"].items())
            named.append(f"{e['name']} ({codes} of {played})")
    if not named:
        return []
    return [f"{len(named)} of {len(events)} events played tournaments that do not look like real ones "
            f"(docs/calibration.md): their figures are the bots' more than a room's: {'; '.join(named)}"]


def build_schedule(run: ScheduleRun, metadata: Mapping[str, Any], overlay_risk: float = DEFAULT_RISK) -> dict[str, Any]:
    """The contents of schedule.json (see the module docstring); ``metadata`` from
    :func:`tablestorm.sim.reporting.meta.run_metadata`; ``overlay_risk`` the share of days a
    ``guarantee_at_risk`` falls short on."""
    games = run.schedule.games
    day, end = _day(run.runs, run.replications, games, run.schedule.recurring)
    total = np.sum(list(day.values()), axis=0)
    rows, peak = _minutes(day, total)
    events = _events(run, overlay_risk)
    conserved = all(o.chips_conserved for r in run.runs for o in r.outcomes)
    warnings = []
    if not conserved:
        broken = sorted({f"{r.name} (replication {r.replication})" for r in run.runs
                         for o in r.outcomes if not o.chips_conserved})
        warnings.append(f"chips were not conserved (TOURN-11) in {', '.join(broken)}")
    warnings += _sanity_warning(events)
    lost = [e["name"] for e in events if e["seats_lost"] is not None and e["seats_lost"]["mean"]]
    if lost:
        warnings.append(f"satellite seats won after registration closed (not played) in {', '.join(lost)}")
    if run.interrupted:
        warnings.append(f"interrupted by {run.interrupted}: {len(run.replications)} replications completed")
    recurring = run.schedule.recurring
    return {
        "schema": SCHEMA,
        "run": {
            **metadata,
            "schedule": {"file": run.schedule.source, "name": run.schedule.name},
            "root_seed": run.root_seed,
            "replications": len(run.replications),
            "replication_numbers": list(run.replications),
            "interrupted": run.interrupted,
            "wall_s": round(run.wall_s, 3),
            "cores": run.cores,
            "nodes": run.nodes,
            "task_seconds": round(run.task_seconds, 3),
            "task_cpu_seconds": round(sum(r.cpu_seconds for r in run.runs), 3),
            "ray_overhead_share": round(run.ray_overhead_share, 4),
        },
        "games": list(games),
        "quantities": dict(DEMAND),
        "recurring": {"on": recurring, "tail_until": clock(end - MINUTES_PER_DAY) if end > MINUTES_PER_DAY else None,
                      "note": RECURRING_NOTE[recurring]},
        "minutes": rows,
        "minutes_by_replication": {name: np.round(total[:, q, : len(rows)] / div, 3).tolist()
                                   for name, (q, div) in _SOURCE.items()},
        "peak": rows[peak],
        "events": events,
        "day": _day_totals(events, total, overlay_risk),
        "chips_conserved": conserved,
        "warnings": warnings,
    }


def csv_columns(games: Sequence[str]) -> list[str]:
    return ["minute", "time"] + [f"{scope}_{name}_{p}" for scope in ("total", *games) for name in DEMAND
                                 for p in PERCENTILES]


_FLAT_LIST: Final = re.compile(r"\[\n\s*([^\[\]{}]*?)\n\s*\]")


def dumps(data: Mapping[str, Any]) -> str:
    """JSON indented by level, each list of plain values on one line (the per-replication values
    would otherwise take a line each)."""
    return _FLAT_LIST.sub(lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]", json.dumps(data, indent=1))


def write_schedule(data: Mapping[str, Any], out: Path) -> dict[str, Path]:
    """schedule.json and schedule.csv in ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / JSON_NAME, "csv": out / CSV_NAME}
    paths["json"].write_text(dumps(data) + "\n")
    games = data["games"]
    with paths["csv"].open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(csv_columns(games))
        for row in data["minutes"]:
            scopes = [row, *(row["games"][g] for g in games)]
            writer.writerow([row["minute"], row["time"]] + [scope[name][p] for scope in scopes for name in DEMAND
                                                            for p in PERCENTILES])
    return paths
