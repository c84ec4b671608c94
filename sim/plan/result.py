"""plan.json: the cores and nodes for every minute of a forecast day, where the inputs came from,
and the KubeRay cluster for the peak.

The whole schema (``"schema": "tablestorm.plan/1"``):

- ``run``: the run's metadata (:func:`tablestorm.sim.reporting.meta.run_metadata`);
- ``inputs``: ``schedule`` (``file`` of schedule.json, the schedule ``file`` and ``name`` it
  simulated, ``root_seed``, ``replications``, ``started_at``, ``machine``) and ``capacity``
  (``file``, ``command_line``, ``started_at``, ``tablestorm_version``, ``machine`` (its
  ``cpu_model``, ``cores``, ``python``, ``ray``), ``pinning`` (the cores the table hosts had),
  ``scenario`` (``name``, ``games`` with each one's ``structure`` and ``share``, ``bot_mix``,
  ``think``), ``slo``, ``kind`` and ``headline`` (what the sweep measured:
  :mod:`tablestorm.sim.capacity.knee`), ``reason``: which step is the SLO capacity and why);
- ``extrapolated``: true when the capacity is a lower bound (its sweep never reached the SLO) and
  the plan was told to use it (``--allow-extrapolated``): the first warning says so too;
- ``settings``: ``headroom``, ``cores_per_node``, ``quantile``;
- ``capacity_per_core``: the capacity per host core at the SLO, by dimension (capacity.json's
  ``capacity.per_core``);
- ``minutes``: a row per minute of schedule.json: ``minute``, ``time``, ``demand`` (each
  dimension's demand at the quantile), ``cores_by_dimension`` (demand / capacity per core, before
  headroom), ``binding`` (the dimension needing the most), ``cores`` (whole, with the headroom)
  and ``nodes``;
- ``peak``: the row needing the most cores, and among those the one whose binding dimension
  needs the most before rounding (the first such minute);
- ``autoscaling``: spans of hours needing the same nodes (``from``, ``to`` as ``HH:MM``,
  ``nodes``, ``cores``), and ``smaller_than_peak``: the spans a smaller cluster carries;
- ``kuberay``: ``manifest`` (the file written beside plan.json), the ``table-hosts`` group's
  ``min_replicas`` (the quietest hour's nodes, at least 1) and ``max_replicas`` (the peak's), the
  ``bot-fleets`` group's ``replicas`` (to rehearse the day with bots; 0 when capacity.json gives
  no fleet CPU);
- ``warnings``: what a reader must not miss (an extrapolated capacity, a capacity measured by
  another tablestorm version, or on fewer cores than the plan extrapolates to, a rough quantile
  from few replications, the inputs' own warnings).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

import yaml

from tablestorm.sim.distributions import Distribution
from tablestorm.sim.plan.inputs import Capacity, ScheduleDemand
from tablestorm.sim.plan.kuberay import BOT_FLEETS_GROUP, TABLE_HOSTS_GROUP, raycluster
from tablestorm.sim.plan.sizing import DIMENSIONS, MinuteSize, Span, autoscaling, size, whole
from tablestorm.sim.schedule.spec import clock

__all__ = [
    "JSON_NAME", "MANIFEST_NAME", "QUANTITIES", "SCHEMA", "Settings", "build_plan", "capacity_lines", "minute_sizes",
    "write_plan",
]

SCHEMA: Final = "tablestorm.plan/1"
JSON_NAME: Final = "plan.json"
MANIFEST_NAME: Final = "raycluster-peak.yaml"
QUANTITIES: Final = tuple(dict.fromkeys(d.demand for d in DIMENSIONS))
"""The schedule quantities a plan reads."""
ROUGH_BELOW: Final = 10
"""Fewer replications than this give a rough p10 or p90."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The plan's flags."""

    headroom: float
    """Cores on top of the forecast's need, as a share of it (0.3: 30% more)."""
    cores_per_node: int
    quantile: str
    """Which band of the schedule to plan for: ``p10``, ``p50`` or ``p90``."""


def minute_sizes(schedule: ScheduleDemand, capacity: Capacity, settings: Settings, quantile: str) -> list[MinuteSize]:
    """Every minute's size at ``quantile`` (the plan's, or another for the forecast gauges)."""
    return [
        size({d.name: schedule.value(m, d.demand, quantile) for d in DIMENSIONS}, capacity.per_core,
             headroom=settings.headroom, cores_per_node=settings.cores_per_node)
        for m in range(len(schedule.minutes))
    ]


def _span(span: Span) -> dict[str, Any]:
    return {"from": clock(60 * span.start_hour), "to": clock(60 * span.stop_hour), "nodes": span.nodes,
            "cores": span.cores}


def _extrapolated(capacity: Capacity) -> str:
    return (f"EXTRAPOLATED: {capacity.path}: {capacity.headline}, so its capacity was never measured: this plan"
            " (--allow-extrapolated) divides the demand by per-core figures of a load below the knee, where the"
            " table service's contention had not set in; its nodes are not a measured sizing: sweep larger steps")


def _warnings(schedule: ScheduleDemand, capacity: Capacity, peak_cores: int, settings: Settings,
              version: str) -> list[str]:
    warnings = [_extrapolated(capacity)] if capacity.extrapolated else []
    measured_by = capacity.run.get("tablestorm_version")
    if measured_by != version:
        warnings.append(f"the capacity was measured by tablestorm {measured_by} and this plan is tablestorm {version}:"
                        " a change in between may have moved what a core carries; sweep again with this version")
    if capacity.machine_cores < peak_cores:
        warnings.append(
            f"the capacity was measured on a {capacity.machine_cores}-core machine (its table hosts used"
            f" {capacity.hosts_cores_used:g} cores at the SLO step) and this plan extrapolates it linearly to"
            f" {peak_cores} cores at the peak: contention and coherency costs (the USL's σ and κ) grow with scale;"
            f" measure capacity on a node of the planned size ({settings.cores_per_node} cores) before relying on it"
        )
    replications = int(schedule.run["replications"])
    if settings.quantile != "p50" and replications < ROUGH_BELOW:
        warnings.append(f"the {settings.quantile} of {replications} replications is rough: simulate at least"
                        f" {ROUGH_BELOW} (tablestorm schedule --replications)")
    warnings += [f"{schedule.path}: {w}" for w in schedule.warnings]
    warnings += [f"{capacity.path}: {w}" for w in capacity.warnings]
    return warnings


def _provenance(schedule: ScheduleDemand, capacity: Capacity) -> dict[str, Any]:
    run, cap = schedule.run, capacity.run
    return {
        "schedule": {
            "file": str(schedule.path), "schedule_file": run["schedule"]["file"],
            "name": run["schedule"].get("name"), "root_seed": run["root_seed"], "replications": run["replications"],
            "started_at": run.get("started_at"), "machine": run.get("machine"),
        },
        "capacity": {
            "file": str(capacity.path), "command_line": cap.get("command_line"), "started_at": cap.get("started_at"),
            "tablestorm_version": cap.get("tablestorm_version"), "machine": cap.get("machine"),
            "pinning": {k: capacity.pinning.get(k) for k in ("requested", "hosts_cpus", "hosts_cores",
                                                             "shared_with_fleets")},
            "scenario": dict(capacity.scenario), "slo": list(capacity.slo), "kind": capacity.kind,
            "headline": capacity.headline, "reason": capacity.reason,
        },
    }


def _cpus(cpus: list[int]) -> str:
    return f"CPU {','.join(map(str, cpus))}"


def capacity_lines(entry: Mapping[str, Any]) -> dict[str, str]:
    """plan.json's ``inputs.capacity`` in words, as the terminal and plan.html give them: what was
    measured, on what machine and software, under what load."""
    machine, pinning, scenario = entry.get("machine") or {}, entry["pinning"], entry["scenario"]
    had = pinning["hosts_cores"]
    if pinning["hosts_cpus"] is not None:
        hosts = f"the table hosts pinned to {had} of them ({_cpus(pinning['hosts_cpus'])})"
    elif pinning["shared_with_fleets"]:
        hosts = "the table hosts not pinned: they shared the cores with the bot fleets"
    else:
        hosts = f"the table hosts on {'unknown' if had is None else had} cores of their own"
    games = ", ".join(f"{g['game']} {g['share']:.0%} ({g['structure'].replace('_', ' ')})" for g in scenario["games"])
    think = Distribution(**scenario["think"])
    bots = ", ".join(f"{kind} {weight:g}" for kind, weight in scenario["bot_mix"].items() if weight)
    return {
        "measured": entry["headline"],
        "machine": f"{machine.get('hostname')}: {machine.get('cpu_model') or 'CPU model unknown'},"
                   f" {machine.get('cores')} cores, {hosts}",
        "software": f"tablestorm {entry.get('tablestorm_version')}, Python {machine.get('python')},"
                    f" Ray {machine.get('ray')}",
        "scenario": f"{scenario['name']}: {games}; think {think.mean:g} s on average ({think.kind}); bots {bots}",
    }


def build_plan(
    schedule: ScheduleDemand, capacity: Capacity, settings: Settings, metadata: Mapping[str, Any], *, image: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """plan.json's contents and the KubeRay manifest for the peak."""
    sizes = minute_sizes(schedule, capacity, settings, settings.quantile)
    rows: list[dict[str, Any]] = [
        {
            "minute": m, "time": clock(m),
            "demand": {d.name: schedule.value(m, d.demand, settings.quantile) for d in DIMENSIONS},
            "cores_by_dimension": {k: round(v, 4) for k, v in s.cores_by_dimension.items()},
            "binding": s.binding, "cores": s.cores, "nodes": s.nodes,
        }
        for m, s in enumerate(sizes)
    ]
    # The most cores, and among equals (a small day may need one core all day) the greatest need.
    peak = max(rows, key=lambda r: (r["cores"], max(r["cores_by_dimension"].values())))
    spans = autoscaling(sizes)
    minimum = max(1, min(s.nodes for s in spans))
    ratio = capacity.fleet_cores_per_host_core
    fleet_nodes = 0 if ratio is None else whole(whole(peak["cores"] * ratio) / settings.cores_per_node)
    table_nodes = max(1, peak["nodes"])
    manifest = raycluster(name="tablestorm", table_nodes=table_nodes, min_table_nodes=minimum,
                          fleet_nodes=fleet_nodes, cores_per_node=settings.cores_per_node, image=image)
    plan = {
        "schema": SCHEMA,
        "run": dict(metadata),
        "inputs": _provenance(schedule, capacity),
        "settings": asdict(settings),
        "capacity_per_core": dict(capacity.per_core),
        "minutes": rows,
        "peak": peak,
        "autoscaling": {
            "spans": [_span(s) for s in spans],
            "smaller_than_peak": [_span(s) for s in spans if s.nodes < peak["nodes"]],
        },
        "kuberay": {
            "manifest": MANIFEST_NAME,
            TABLE_HOSTS_GROUP: {"replicas": table_nodes, "min_replicas": minimum, "max_replicas": table_nodes},
            BOT_FLEETS_GROUP: {"replicas": fleet_nodes, "fleet_cores_per_host_core": ratio},
        },
        "extrapolated": capacity.extrapolated,
        "warnings": _warnings(schedule, capacity, peak["cores"], settings, str(metadata.get("tablestorm_version"))),
    }
    return plan, manifest


def write_plan(plan: Mapping[str, Any], manifest: Mapping[str, Any], out: Path) -> dict[str, Path]:
    """plan.json and the manifest in ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / JSON_NAME, "manifest": out / MANIFEST_NAME}
    paths["json"].write_text(json.dumps(plan, indent=1) + "\n")
    header = (f"# The RayCluster for the peak of {plan['inputs']['schedule']['name']} ({plan['peak']['time']}:"
              f" {plan['peak']['cores']} cores at {plan['settings']['quantile']}), written by tablestorm plan.\n")
    if plan["extrapolated"]:
        header += "# EXTRAPOLATED from a capacity sweep that never reached its SLO: not a measured sizing.\n"
    paths["manifest"].write_text(header + yaml.safe_dump(dict(manifest), sort_keys=False, width=120))
    return paths

