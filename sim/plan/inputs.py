"""A plan's two inputs, read and checked: schedule.json (the demand) and capacity.json (one core's worth).

Each reader takes exactly the keys its producer documents (:mod:`tablestorm.sim.schedule.result` for
``tablestorm.schedule/1``, ``sim/capacity/result.py`` for ``tablestorm.capacity/2``) and nothing
else, and refuses a file that is not what it claims with a :class:`~tablestorm.services.fields.FieldError`
naming the file and the key (``capacity.json: capacity.per_core.hands_per_s: missing``): the wrong kind of
file, a missing or mistyped key, a capacity sweep that found no SLO capacity, one that never reached
its SLO (its capacity is a lower bound: refused unless the plan is told to extrapolate from it), or
a game in the schedule that the capacity run did not measure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tablestorm.services.fields import FieldError
from tablestorm.sim.capacity.command import DEFAULT_SCENARIO
from tablestorm.sim.capacity.knee import AT_LEAST, KINDS, NONE
from tablestorm.sim.inputs import document, number_at, value_at

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
CAPACITY_SCHEMA: Final = "tablestorm.capacity/2"
"""The schemas this reader knows (``tablestorm.sim.schedule.result.SCHEMA``; the capacity run's ``SCHEMA``)."""
PER_CORE_KEYS: Final = ("actions_per_s", "hands_per_s", "seated_players", "play_streams")
"""``capacity.per_core``: what one core of the table hosts carried at the SLO, by dimension."""


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
    kind: str
    """``knee`` (measured) or ``at_least`` (a lower bound, read only when the plan may extrapolate)."""
    headline: str
    """What the sweep measured, in its report's words."""
    scenario: Mapping[str, Any]
    """The load the sweep ran: ``name``, ``games`` (each ``game``, ``structure``, ``share`` of the
    tables), ``bot_mix``, ``think`` (a distribution as the scenario gives it)."""
    pinning: Mapping[str, Any]
    """capacity.json's ``pinning``: the cores the table hosts had."""

    @property
    def extrapolated(self) -> bool:
        """The sweep never reached its SLO: a plan from it divides by a load below the knee."""
        return self.kind == AT_LEAST


def read_schedule(path: Path, quantities: Sequence[str]) -> ScheduleDemand:
    """schedule.json, with every row holding p10/p50/p90 of each of ``quantities``."""
    data = document(path, SCHEDULE_SCHEMA)
    games = tuple(value_at(data, "games", path, list))
    rows = value_at(data, "minutes", path, list)
    if not rows:
        raise FieldError(f"{path}: minutes", "empty")
    for k, row in enumerate(rows):
        if not isinstance(row, dict) or row.get("minute") != k:
            raise FieldError(f"{path}: minutes[{k}].minute", f"expected {k}")
        for quantity in quantities:
            for percentile in ("p10", "p50", "p90"):
                number_at(row, f"{quantity}.{percentile}", path, where=f"minutes[{k}].")  # checked once, read after
    run = value_at(data, "run", path, dict)
    for key in ("schedule.file", "root_seed", "replications"):
        value_at(data, f"run.{key}", path)
    return ScheduleDemand(path, games, tuple(rows), run, tuple(value_at(data, "warnings", path, list)))


def read_capacity(path: Path, *, allow_extrapolated: bool = False) -> Capacity:
    """capacity.json, with an SLO capacity per core on every dimension: measured at a knee, or with
    ``allow_extrapolated`` a lower bound."""
    data = document(path, CAPACITY_SCHEMA)
    kind = value_at(data, "capacity.kind", path, str)
    headline = value_at(data, "capacity.headline", path, str)
    if kind not in KINDS:
        raise FieldError(f"{path}: capacity.kind", f"expected one of {', '.join(KINDS)}, got {kind!r}")
    if kind == NONE:
        reason = value_at(data, "capacity.reason", path, str)
        raise FieldError(f"{path}: capacity.kind", f"the sweep found no SLO capacity ({reason}): sweep lower")
    if kind == AT_LEAST and not allow_extrapolated:
        raise FieldError(f"{path}: capacity.kind", f"{headline}: its capacity was never measured, and a plan"
                         " from it would extrapolate; sweep larger steps (docs/capacity.md), or plan from the"
                         " lower bound with --allow-extrapolated")
    step = value_at(data, "capacity.slo_step", path, int)
    per_core = {key: number_at(data, f"capacity.per_core.{key}", path, positive=True) for key in PER_CORE_KEYS}
    games = tuple(value_at(g, "game", path, str) for g in value_at(data, "scenario_resolved.games", path, list))
    hosts = number_at(data, "capacity.hosts_cores_used", path)
    steps = [s for s in value_at(data, "steps", path, list) if isinstance(s, dict) and s.get("bots") == step]
    ratio = None
    if steps:
        host_cores = steps[0].get("hosts", {}).get("cores_used")
        fleet_cores = steps[0].get("fleets", {}).get("cores_used")
        if isinstance(host_cores, int | float) and isinstance(fleet_cores, int | float) and host_cores > 0:
            ratio = float(fleet_cores) / float(host_cores)
    run = value_at(data, "run", path, dict)
    return Capacity(
        path=path, per_core=per_core, games=games,
        machine_cores=int(number_at(data, "run.machine.cores", path, positive=True)),
        hosts_cores_used=hosts, fleet_cores_per_host_core=ratio, run=run,
        slo=tuple(value_at(data, "slo.expressions", path, list)),
        reason=str(value_at(data, "capacity.reason", path, str)),
        warnings=tuple(value_at(data, "warnings", path, list)),
        kind=kind, headline=headline, scenario=_scenario(data, path),
        pinning=value_at(data, "pinning", path, dict),
    )


def _scenario(data: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """The sweep's load as a plan names it: each game's share of the tables (its weight over the
    weights), the bot mix, the think time."""
    games = value_at(data, "scenario_resolved.games", path, list)
    total = sum(number_at(g, "weight", path, where="scenario_resolved.games[].") for g in games) or 1.0
    return {
        "name": value_at(data, "scenario", path, str),
        "games": [{"game": g["game"], "structure": value_at(g, "structure", path, str, "scenario_resolved.games[]."),
                   "share": round(g["weight"] / total, 4)} for g in games],
        "bot_mix": value_at(data, "scenario_resolved.bot_mix", path, dict),
        "think": value_at(data, "scenario_resolved.think", path, dict),
    }


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
