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
- ``minutes``: a row per minute from midnight (``minute``, ``time`` as ``HH:MM``, past ``24:00``
  for what runs into the next day) to the last minute any replication had a table: for each of
  :data:`DEMAND` its ``p10``, ``p50`` and ``p90`` over the replications, summed over the games,
  and the same per game under ``games``;
- ``peak``: the minute whose median seated players is highest, with its row;
- ``events``: per event its ``name``, ``kind`` (``tournament`` or ``sit_and_go``), ``game``,
  ``structure`` and ``start`` (tournaments), and as ``{p10, p50, p90, mean}`` over the
  replications: ``tournaments`` (how many were played), ``players``, ``entries``,
  ``prize_pool``, ``hands``, ``duration_s`` (each tournament's; for sit-and-gos pooled over all
  of them), ``begin`` and ``end`` (minute of the day the event's first tournament started and its
  last one ended);
- ``chips_conserved``: every tournament of every replication ended with its chips (TOURN-11);
- ``warnings``: what a reader must not miss;
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
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from tablestorm.sim.schedule.demand import QUANTITIES
from tablestorm.sim.schedule.replication import EventRun
from tablestorm.sim.schedule.runner import ScheduleRun
from tablestorm.sim.schedule.spec import Tournament

__all__ = ["CSV_NAME", "DEMAND", "JSON_NAME", "PERCENTILES", "SCHEMA", "build_schedule", "clock", "write_schedule"]

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
MINUTES_PER_DAY: Final = 24 * 60

Array = npt.NDArray[np.float64]


def clock(minute: int) -> str:
    """``HH:MM`` of a minute from midnight (``25:30`` is 01:30 the next day)."""
    return f"{minute // 60:02d}:{minute % 60:02d}"


Counts = npt.NDArray[np.int64]


def _day(runs: Iterable[EventRun], replications: Sequence[int], games: Sequence[str]) -> dict[str, Counts]:
    """Counts per game: replications x quantities x minutes from midnight."""
    listed = list(runs)
    minutes = max([MINUTES_PER_DAY, *(r.load.stop for r in listed)])
    index = {r: k for k, r in enumerate(replications)}
    day = {g: np.zeros((len(replications), len(QUANTITIES), minutes), dtype=np.int64) for g in games}
    for run in listed:
        run.load.into(day[run.game][index[run.replication]])
    return day


def _quantiles(values: Array) -> dict[str, Array]:
    """p10/p50/p90 over the first axis (linear interpolation between replications)."""
    low, mid, high = np.percentile(values, [10, 50, 90], axis=0)
    return {"p10": low, "p50": mid, "p90": high}


def _summary(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"p10": None, "p50": None, "p90": None, "mean": None}
    low, mid, high = np.percentile(np.asarray(values, dtype=np.float64), [10, 50, 90])
    return {"p10": round(float(low), 3), "p50": round(float(mid), 3), "p90": round(float(high), 3),
            "mean": round(float(np.mean(values)), 3)}


def _minutes(day: Mapping[str, Counts]) -> tuple[list[dict[str, Any]], int]:
    """The ``minutes`` rows and the index of the peak row."""
    total = np.sum(list(day.values()), axis=0)
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


def _events(run: ScheduleRun) -> list[dict[str, Any]]:
    by_event: dict[str, list[EventRun]] = {}
    for event_run in run.runs:
        by_event.setdefault(event_run.name, []).append(event_run)
    rows = []
    for event in run.schedule.events:
        runs = by_event.get(event.name, [])
        outcomes = [o for r in runs for o in r.outcomes]
        row: dict[str, Any] = {
            "name": event.name,
            "kind": "tournament" if isinstance(event, Tournament) else "sit_and_go",
            "game": event.structure.game.code,
            "structure": event.structure_file,
            "start": clock(round(event.start_s / 60)) if isinstance(event, Tournament) else None,
            "tournaments": _summary([len(r.outcomes) for r in runs]),
            "players": _summary([sum(o.players for o in r.outcomes) for r in runs]),
            "entries": _summary([sum(o.entries for o in r.outcomes) for r in runs]),
            "prize_pool": _summary([sum(o.prize_pool for o in r.outcomes) for r in runs]),
            "hands": _summary([sum(o.hands for o in r.outcomes) for r in runs]),
            "duration_s": _summary([o.duration_s for o in outcomes]),
            "begin": _summary([min(o.start_s for o in r.outcomes) / 60 for r in runs if r.outcomes]),
            "end": _summary([max(o.end_s for o in r.outcomes) / 60 for r in runs if r.outcomes]),
        }
        rows.append(row)
    return rows


def build_schedule(run: ScheduleRun, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The contents of schedule.json (see the module docstring); ``metadata`` from
    :func:`tablestorm.sim.reporting.meta.run_metadata`."""
    games = run.schedule.games
    rows, peak = _minutes(_day(run.runs, run.replications, games))
    conserved = all(o.chips_conserved for r in run.runs for o in r.outcomes)
    warnings = []
    if not conserved:
        broken = sorted({f"{r.name} (replication {r.replication})" for r in run.runs
                         for o in r.outcomes if not o.chips_conserved})
        warnings.append(f"chips were not conserved (TOURN-11) in {', '.join(broken)}")
    if run.interrupted:
        warnings.append(f"interrupted by {run.interrupted}: {len(run.replications)} replications completed")
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
        "minutes": rows,
        "peak": rows[peak],
        "events": _events(run),
        "chips_conserved": conserved,
        "warnings": warnings,
    }


def csv_columns(games: Sequence[str]) -> list[str]:
    return ["minute", "time"] + [f"{scope}_{name}_{p}" for scope in ("total", *games) for name in DEMAND
                                 for p in PERCENTILES]


def write_schedule(data: Mapping[str, Any], out: Path) -> dict[str, Path]:
    """schedule.json and schedule.csv in ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / JSON_NAME, "csv": out / CSV_NAME}
    paths["json"].write_text(json.dumps(data, indent=1) + "\n")
    games = data["games"]
    with paths["csv"].open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(csv_columns(games))
        for row in data["minutes"]:
            scopes = [row, *(row["games"][g] for g in games)]
            writer.writerow([row["minute"], row["time"]] + [scope[name][p] for scope in scopes for name in DEMAND
                                                            for p in PERCENTILES])
    return paths
