"""What if: two runs of a day compared minute by minute and event by event, replication by replication.

Two runs from the same root seed draw every event they share alike (an event's draws are seeded
by the root seed, the replication and its name: :func:`~.replication.seed_of`), so replication k
of run B differs from replication k of run A only by what was changed. The comparison pairs them:
per replication the difference B - A of each quantity, then the quantiles of those differences.
An unchanged minute or event differs by exactly zero in every replication, and the spread of a
changed one is the change's own, not two runs' noise. Runs from different root seeds are paired
all the same, with a warning: their differences carry both runs' draws.

compare.json (``"schema": "tablestorm.schedule-compare/1"``):

- ``a``, ``b``: each run's ``file``, ``schedule`` (name), ``root_seed``, ``replications``,
  ``recurring``;
- ``paired``: the two runs share their root seed (their draws are paired);
- ``minutes``: a row per minute (the longer run's; a minute past a run's last row counts as
  zero): ``minute``, ``time``, and per quantity of :data:`~.result.DEMAND` the median of ``a``
  and of ``b`` and the ``difference`` (B - A per replication) as ``{p10, p50, p90, mean}``;
- ``changed``: per quantity, the spans of minutes (``from``, ``to``, both ``HH:MM``, inclusive)
  at which any replication differs, and ``any``: those of every quantity together;
- ``events``: per event of either run (A's order, then B's own) its ``name``, ``in`` (``both``,
  ``a`` or ``b``), ``settings`` (what the schedule set differently: ``start``, ``structure`` (its rules,
  compared by ``structure_digest``: not the path),
  ``buy_in``, ``guarantee``, ``fee``, ``seats_to``, each ``[a, b]``) and ``quantities``: per
  quantity of :data:`EVENT_QUANTITIES` the medians ``a`` and ``b`` and the ``difference``
  (``{p10, p50, p90, mean, values}``; None for an event of one run only; a figure an event lacks,
  the overlay of an event without a guarantee, counts 0);
- ``day``: the same for the day's quantities (:data:`DAY_QUANTITIES`);
- ``warnings``.

:func:`read_run` refuses what cannot be paired (not a schedule.json, a schedule.json written
before per-replication values were kept, different replications) with a
:class:`~tablestorm.services.fields.FieldError` naming the file and the key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from tablestorm.services.fields import FieldError
from tablestorm.sim.inputs import document, value_at
from tablestorm.sim.schedule.result import DEMAND, distribution, dumps
from tablestorm.sim.schedule.result import SCHEMA as SCHEDULE_SCHEMA
from tablestorm.sim.schedule.spec import clock

__all__ = ["DAY_QUANTITIES", "EVENT_QUANTITIES", "JSON_NAME", "SCHEMA", "Run", "compare", "read_run", "write_compare"]

SCHEMA: Final = "tablestorm.schedule-compare/1"
JSON_NAME: Final = "compare.json"
EVENT_QUANTITIES: Final = ("tournaments", "players", "entries", "prize_pool", "hands", "duration_s", "begin", "end",
                           "peak_tables", "peak_tables_minute", "peak_seated_players", "peak_seated_players_minute",
                           "fees", "overlay")
"""An event's quantities of schedule.json compared (each has ``values``, one per replication)."""
DAY_QUANTITIES: Final = ("overlay", "fees", "peak_tables", "peak_seated_players")
SETTINGS: Final = ("start", "structure", "buy_in", "guarantee", "fee", "seats_to")
"""What a schedule sets for an event that a comparison reports when it changed."""

Array = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Run:
    """One schedule.json as a comparison reads it."""

    path: Path
    data: Mapping[str, Any]
    minutes: dict[str, Array]
    """Per quantity of :data:`DEMAND`: replications x minutes."""

    @property
    def replications(self) -> list[int]:
        numbers: list[int] = self.data["run"]["replication_numbers"]
        return numbers

    def describe(self) -> dict[str, Any]:
        run = self.data["run"]
        return {"file": str(self.path), "schedule": run["schedule"]["name"], "root_seed": run["root_seed"],
                "replications": run["replications"], "recurring": self.data["recurring"]["on"]}


def read_run(path: Path) -> Run:
    """A schedule.json with its per-replication values, checked to be pairable."""
    data = document(path, SCHEDULE_SCHEMA)
    for key in ("run.schedule.name", "run.root_seed", "recurring.on"):
        value_at(data, key, path)
    numbers = value_at(data, "run.replication_numbers", path, list)
    if not numbers:
        raise FieldError(f"{path}: run.replication_numbers", "no replication completed: nothing to compare")
    if "minutes_by_replication" not in data:
        raise FieldError(f"{path}: minutes_by_replication", "missing: written by an older tablestorm schedule, which "
                         "kept no per-replication values; run the schedule again")
    minutes = {}
    for name in DEMAND:
        rows = value_at(data, f"minutes_by_replication.{name}", path, list)
        try:
            array = np.asarray(rows, dtype=np.float64)
        except (TypeError, ValueError):
            array = np.empty(0)
        if array.ndim != 2 or array.shape[0] != len(numbers):
            raise FieldError(f"{path}: minutes_by_replication.{name}",
                             f"expected {len(numbers)} lists of numbers, one per replication")
        minutes[name] = array
    for k, event in enumerate(value_at(data, "events", path, list)):
        value_at(event, "name", path, str, where=f"events[{k}].")
        for quantity in EVENT_QUANTITIES:
            if event.get(quantity) is not None:
                _values(event[quantity], len(numbers), path, f"events[{k}].{quantity}")
    for quantity in DAY_QUANTITIES:
        _values(value_at(data, f"day.{quantity}", path, dict), len(numbers), path, f"day.{quantity}")
    return Run(path, data, minutes)


def _values(summary: Any, count: int, path: Path, where: str) -> None:
    values = summary.get("values") if isinstance(summary, dict) else None
    if not isinstance(values, list) or len(values) != count:
        raise FieldError(f"{path}: {where}.values", f"expected a list of {count} values, one per replication")


def _pairable(a: Run, b: Run) -> None:
    if len(a.replications) != len(b.replications):
        raise FieldError(f"{b.path}: run.replications", f"{len(b.replications)} replications, {a.path} has "
                         f"{len(a.replications)}: a paired comparison needs the same replications")
    if a.replications != b.replications:
        raise FieldError(f"{b.path}: run.replication_numbers", f"not the replications of {a.path}: a paired "
                         "comparison needs the same ones (an interrupted run keeps those that completed)")


def _difference(a: Sequence[float | None], b: Sequence[float | None]) -> dict[str, Any]:
    """B - A per replication (None where either is), as :func:`~.result.distribution`."""
    return distribution([None if x is None or y is None else y - x for x, y in zip(a, b, strict=True)])


def _median(summary: Mapping[str, Any] | None) -> float | None:
    return None if summary is None else summary["p50"]


def _values_of(summary: Mapping[str, Any] | None, count: int) -> list[float | None]:
    """A quantity's values; an event without it (no guarantee: no overlay) reads as zeros."""
    return [0.0] * count if summary is None else list(summary["values"])


def _spans(changed: npt.NDArray[np.bool_]) -> list[dict[str, str]]:
    """The runs of True minutes as ``{from, to}`` (inclusive)."""
    spans = []
    edges = np.flatnonzero(np.diff(np.concatenate([[0], changed.astype(np.int8), [0]])))
    for start, stop in zip(edges[::2], edges[1::2], strict=True):
        spans.append({"from": clock(int(start)), "to": clock(int(stop) - 1)})
    return spans


def _minutes(a: Run, b: Run) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    length = max(a.minutes["tables"].shape[1], b.minutes["tables"].shape[1])

    def padded(array: Array) -> Array:
        return np.pad(array, ((0, 0), (0, length - array.shape[1])))

    cells: dict[str, dict[str, list[Any]]] = {}
    changed: dict[str, Any] = {}
    union = np.zeros(length, dtype=bool)
    for name in DEMAND:
        first, second = padded(a.minutes[name]), padded(b.minutes[name])
        difference = np.round(second - first, 3)
        low, mid, high = np.round(np.percentile(difference, [10, 50, 90], axis=0), 3)
        cells[name] = {
            "a": np.round(np.median(first, axis=0), 3).tolist(), "b": np.round(np.median(second, axis=0), 3).tolist(),
            "p10": low.tolist(), "p50": mid.tolist(), "p90": high.tolist(),
            "mean": np.round(difference.mean(axis=0), 3).tolist(),
        }
        moved = (difference != 0).any(axis=0)
        changed[name] = _spans(moved)
        union |= moved
    changed["any"] = _spans(union)
    rows = [
        {"minute": m, "time": clock(m), **{name: {
            "a": cell["a"][m], "b": cell["b"][m],
            "difference": {p: cell[p][m] for p in ("p10", "p50", "p90", "mean")}} for name, cell in cells.items()}}
        for m in range(length)
    ]
    return rows, changed


def _compared(first: Mapping[str, Any] | None, second: Mapping[str, Any] | None, count: int) -> dict[str, Any]:
    return {"a": _median(first), "b": _median(second),
            "difference": _difference(_values_of(first, count), _values_of(second, count))}


def _changed(key: str, mine: Mapping[str, Any], theirs: Mapping[str, Any]) -> bool:
    """Whether a setting differs; a structure by its rules (its digest), not the file's name, so a
    schedule copied elsewhere that names the same file by another path changes nothing."""
    if key == "structure" and mine.get("structure_digest") and theirs.get("structure_digest"):
        return bool(mine["structure_digest"] != theirs["structure_digest"])
    return bool(mine.get(key) != theirs.get(key))


def _events(a: Run, b: Run) -> list[dict[str, Any]]:
    count = len(a.replications)
    first = {e["name"]: e for e in a.data["events"]}
    second = {e["name"]: e for e in b.data["events"]}
    rows = []
    for name in [*first, *(n for n in second if n not in first)]:
        mine, theirs = first.get(name), second.get(name)
        if mine is None or theirs is None:
            rows.append({"name": name, "in": "a" if theirs is None else "b", "settings": {}, "quantities": {
                q: {"a": None if mine is None else _median(mine.get(q)),
                    "b": None if theirs is None else _median(theirs.get(q)), "difference": None}
                for q in EVENT_QUANTITIES}})
            continue
        settings = {key: [mine.get(key), theirs.get(key)] for key in SETTINGS if _changed(key, mine, theirs)}
        rows.append({"name": name, "in": "both", "settings": settings,
                     "quantities": {q: _compared(mine.get(q), theirs.get(q), count) for q in EVENT_QUANTITIES}})
    return rows


def compare(a: Run, b: Run) -> dict[str, Any]:
    """compare.json's contents (the module docstring): B against A, replication by replication;
    :class:`FieldError` when they cannot be paired."""
    _pairable(a, b)
    warnings = []
    paired = a.data["run"]["root_seed"] == b.data["run"]["root_seed"]
    if not paired:
        warnings.append(f"the runs' root seeds differ ({a.data['run']['root_seed']} and {b.data['run']['root_seed']}): "
                        "their replications are not the same draws, so each difference carries both runs' noise "
                        "(run B with A's --seed to see the change alone)")
    if a.data["recurring"]["on"] != b.data["recurring"]["on"]:
        warnings.append("one run is a recurring day and the other a single one: their small hours differ by the "
                        "evening's tail")
    rows, changed = _minutes(a, b)
    count = len(a.replications)
    return {
        "schema": SCHEMA,
        "a": a.describe(),
        "b": b.describe(),
        "paired": paired,
        "minutes": rows,
        "changed": changed,
        "events": _events(a, b),
        "day": {q: _compared(a.data["day"][q], b.data["day"][q], count) for q in DAY_QUANTITIES},
        "warnings": warnings,
    }


def write_compare(data: Mapping[str, Any], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / JSON_NAME
    path.write_text(dumps(data) + "\n")
    return path
