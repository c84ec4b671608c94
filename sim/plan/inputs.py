"""A plan's two inputs, read and checked: schedule.json (the demand) and capacity.json (one core's worth).

Each reader takes exactly the keys its producer documents (:mod:`tablestorm.sim.schedule.result` for
``tablestorm.schedule/1``, ``sim/capacity/result.py`` for ``tablestorm.capacity/1``) and nothing
else, and refuses a file that is not what it claims with a :class:`~tablestorm.services.fields.FieldError`
naming the file and the key (``capacity.json: capacity.per_core.hands_per_s: missing``): the wrong kind of
file, a missing or mistyped key, a capacity sweep that found no SLO capacity, or a game in the
schedule that the capacity run did not measure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tablestorm.services.fields import FieldError, number
from tablestorm.sim.capacity.command import DEFAULT_SCENARIO

__all__ = [
    "CAPACITY_SCHEMA",
    "PER_CORE_KEYS",
    "SCHEDULE_SCHEMA",
    "Capacity",
    "ScheduleDemand",
    "check_games",
    "read_capacity",
    "read_schedule",
]

SCHEDULE_SCHEMA: Final = "tablestorm.schedule/1"
CAPACITY_SCHEMA: Final = "tablestorm.capacity/1"
"""The schemas this reader knows (``tablestorm.sim.schedule.result.SCHEMA``; the capacity run's ``SCHEMA``)."""
PER_CORE_KEYS: Final = ("actions_per_s", "hands_per_s", "seated_players", "play_streams")
"""``capacity.per_core``: what one core of the table hosts carried at the SLO, by dimension."""
_KINDS: Final = {
    SCHEDULE_SCHEMA: "schedule.json (tablestorm schedule)",
    CAPACITY_SCHEMA: "capacity.json (tablestorm capacity)",
}


def _load(path: Path, schema: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise FieldError(str(path), f"cannot read: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FieldError(str(path), f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise FieldError(str(path), f"expected a JSON object, got {type(data).__name__}")
    found = data.get("schema")
    if found != schema:
        what = f"it is a {_KINDS[found]}" if found in _KINDS else f"schema is {found!r}"
        raise FieldError(f"{path}: schema", f"expected {schema} ({_KINDS[schema]}); {what}")
    return data


def _get(data: Mapping[str, Any], key: str, path: Path, kind: type = object, where: str = "") -> Any:
    """``data``'s value at the dotted ``key``, of ``kind``; :class:`FieldError` naming ``where`` + the
    key otherwise."""
    value: Any = data
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise FieldError(f"{path}: {where}{key}", "missing")
        value = value[part]
    if not isinstance(value, kind):
        raise FieldError(f"{path}: {where}{key}", f"expected {kind.__name__}, got {value!r}")
    return value


def _number(data: Mapping[str, Any], key: str, path: Path, *, positive: bool = False, where: str = "") -> float:
    field = f"{path}: {where}{key}"
    value: float = number(_get(data, key, path, where=where), field)
    if value < 0 or (positive and value == 0):
        raise FieldError(field, f"expected a {'positive' if positive else 'non-negative'} number, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class ScheduleDemand:
    """schedule.json as a plan reads it: its minutes' bands and where they came from."""

    path: Path
    games: tuple[str, ...]
    minutes: tuple[Mapping[str, Any], ...]
    """schedule.json's ``minutes`` rows, checked to hold every quantity a plan reads."""
    run: Mapping[str, Any]
    warnings: tuple[str, ...]

    def value(self, minute: int, quantity: str, percentile: str) -> float:
        value: float = self.minutes[minute][quantity][percentile]
        return value


@dataclass(frozen=True, slots=True)
class Capacity:
    """capacity.json as a plan reads it: one host core's worth at the SLO, and the run behind it."""

    path: Path
    per_core: Mapping[str, float]
    games: tuple[str, ...]
    """The games the capacity run's load played (``scenario_resolved.games``)."""
    machine_cores: int
    hosts_cores_used: float
    fleet_cores_per_host_core: float | None
    """Bot-fleet CPU per table-host CPU at the SLO step (None when either is unknown)."""
    run: Mapping[str, Any]
    slo: tuple[str, ...]
    reason: str
    warnings: tuple[str, ...]


def read_schedule(path: Path, quantities: Sequence[str]) -> ScheduleDemand:
    """schedule.json, with every row holding p10/p50/p90 of each of ``quantities``."""
    data = _load(path, SCHEDULE_SCHEMA)
    games = tuple(_get(data, "games", path, list))
    rows = _get(data, "minutes", path, list)
    if not rows:
        raise FieldError(f"{path}: minutes", "empty")
    for k, row in enumerate(rows):
        if not isinstance(row, dict) or row.get("minute") != k:
            raise FieldError(f"{path}: minutes[{k}].minute", f"expected {k}")
        for quantity in quantities:
            for percentile in ("p10", "p50", "p90"):
                _number(row, f"{quantity}.{percentile}", path, where=f"minutes[{k}].")  # checked once, read after
    run = _get(data, "run", path, dict)
    for key in ("schedule.file", "root_seed", "replications"):
        _get(data, f"run.{key}", path)
    return ScheduleDemand(path, games, tuple(rows), run, tuple(_get(data, "warnings", path, list)))


def read_capacity(path: Path) -> Capacity:
    """capacity.json, with an SLO capacity per core on every dimension."""
    data = _load(path, CAPACITY_SCHEMA)
    step = _get(data, "capacity.slo_step", path)
    if step is None:
        reason = data["capacity"].get("reason", "no step met the SLO")
        raise FieldError(f"{path}: capacity.slo_step", f"the sweep found no SLO capacity ({reason}): sweep lower")
    per_core = {key: _number(data, f"capacity.per_core.{key}", path, positive=True) for key in PER_CORE_KEYS}
    games = tuple(_get(g, "game", path, str) for g in _get(data, "scenario_resolved.games", path, list))
    hosts = _number(data, "capacity.hosts_cores_used", path)
    steps = [s for s in _get(data, "steps", path, list) if isinstance(s, dict) and s.get("bots") == step]
    ratio = None
    if steps:
        host_cores = steps[0].get("hosts", {}).get("cores_used")
        fleet_cores = steps[0].get("fleets", {}).get("cores_used")
        if isinstance(host_cores, int | float) and isinstance(fleet_cores, int | float) and host_cores > 0:
            ratio = float(fleet_cores) / float(host_cores)
    run = _get(data, "run", path, dict)
    return Capacity(
        path=path, per_core=per_core, games=games,
        machine_cores=int(_number(data, "run.machine.cores", path, positive=True)),
        hosts_cores_used=hosts, fleet_cores_per_host_core=ratio, run=run,
        slo=tuple(_get(data, "slo.expressions", path, list)),
        reason=str(_get(data, "capacity.reason", path, str)),
        warnings=tuple(_get(data, "warnings", path, list)),
    )


def check_games(schedule: ScheduleDemand, capacity: Capacity) -> None:
    """Every game of the schedule was played by the capacity run's load (its capacity is that mix's);
    the refusal names the scenario that plays every game."""
    missing = [g for g in schedule.games if g not in capacity.games]
    if missing:
        raise FieldError(
            f"{capacity.path}: scenario_resolved.games", f"the capacity run did not measure {', '.join(missing)}, "
            f"which {schedule.path} (games) plays; measured: {', '.join(capacity.games) or 'none'}; sweep a "
            f"scenario that plays them: {DEFAULT_SCENARIO}, tablestorm capacity's default, plays every game "
            "(docs/capacity.md)"
        )
