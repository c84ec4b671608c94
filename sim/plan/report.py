"""plan.html: the cores and nodes over the day, the binding dimension, the autoscaling spans, and
where the two inputs came from. Read from plan.json alone, built from :mod:`tablestorm.sim.reporting`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from tablestorm.sim.plan.kuberay import BOT_FLEETS_GROUP, TABLE_HOSTS_GROUP
from tablestorm.sim.plan.result import capacity_lines
from tablestorm.sim.plan.sizing import DIMENSIONS
from tablestorm.sim.reporting import plots
from tablestorm.sim.reporting.html import banner, card, cards, escape, figure, fmt, key_values, page, section, table
from tablestorm.sim.reporting.style import BLUE, PALETTE

__all__ = ["HTML_NAME", "render_plan_html", "write_plan_html"]

HTML_NAME: Final = "plan.html"


_LABELS: Final = {d.name: d.label for d in DIMENSIONS}


def _cores_chart(rows: Sequence[Mapping[str, Any]], headroom: float) -> str:
    hours = [r["minute"] / 60 for r in rows]
    series = [plots.Series(f"cores needed (with {headroom:.0%} headroom)", [r["cores"] for r in rows], colour=BLUE)]
    series += [
        plots.Series(f"{d.label} alone (before headroom)", [r["cores_by_dimension"][d.name] for r in rows],
                     colour=PALETTE[1 + k], dashed=True)
        for k, d in enumerate(DIMENSIONS)
    ]
    title = "Cores over the day, and what each dimension alone needs"
    return figure(title, plots.lines(hours, series, title=title, xlabel="time of day", ylabel="cores", clock=True))


def _nodes_chart(rows: Sequence[Mapping[str, Any]], cores_per_node: int) -> str:
    title = "Nodes over the day"
    return figure(title, plots.lines(
        [r["minute"] / 60 for r in rows], [plots.Series("nodes", [r["nodes"] for r in rows])], title=title,
        xlabel="time of day", ylabel=f"nodes of {cores_per_node} cores", integer_y=True, clock=True,
    ))


def _inputs(inputs: Mapping[str, Any]) -> str:
    schedule, capacity = inputs["schedule"], inputs["capacity"]
    s_machine = schedule.get("machine") or {}
    return key_values("schedule (demand)", {
        "file": schedule["file"], "simulated": schedule["schedule_file"], "root seed": schedule["root_seed"],
        "replications": schedule["replications"], "run at": schedule["started_at"],
        "machine": f"{s_machine.get('hostname')} ({s_machine.get('cores')} cores)",
    }) + key_values("capacity (per core at the SLO)", {
        "file": capacity["file"], "command": capacity["command_line"], "run at": capacity["started_at"],
        **capacity_lines(capacity), "SLO": ", ".join(capacity["slo"]), "capacity step": capacity["reason"],
    })


def _spans(spans: Sequence[Mapping[str, Any]], peak_nodes: int) -> str:
    rows = [[escape(f"{s['from']}–{s['to']}"), fmt(s["nodes"]), fmt(s["cores"]),
             "peak" if s["nodes"] == peak_nodes else escape(f"{peak_nodes - s['nodes']} fewer")]
            for s in spans]
    return table(["hours", "nodes", "cores (busiest minute)", "vs the peak"], rows)


def render_plan_html(plan: Mapping[str, Any]) -> str:
    settings, peak, rows = plan["settings"], plan["peak"], plan["minutes"]
    hosts, fleets = plan["kuberay"][TABLE_HOSTS_GROUP], plan["kuberay"][BOT_FLEETS_GROUP]
    meta = (f"{plan['inputs']['schedule']['name']} at {settings['quantile']} · headroom {settings['headroom']:.0%} · "
            f"{settings['cores_per_node']}-core nodes · {plan['run']['started_at']}")
    body = [banner(w) for w in plan["warnings"]]
    body.append(cards([
        card("peak minute", peak["time"]),
        card("cores at the peak", peak["cores"]),
        card("nodes at the peak", peak["nodes"]),
        card("binding at the peak", _LABELS[peak["binding"]]),
        card(f"{TABLE_HOSTS_GROUP} min replicas", hosts["min_replicas"]),
        card(f"{TABLE_HOSTS_GROUP} max replicas", hosts["max_replicas"]),
        card(f"{BOT_FLEETS_GROUP} to rehearse", fleets["replicas"]),
    ]))
    body.append(section("Where the inputs came from", _inputs(plan["inputs"]), "tables"))
    busy = plots.busy_hours(rows, lambda row: row["cores"] > 0)
    body.append(section("Over the day", _cores_chart(busy, settings["headroom"])
                        + _nodes_chart(busy, settings["cores_per_node"]), "charts"))
    per_core = {f"{d.label} per core": plan["capacity_per_core"][d.capacity] for d in DIMENSIONS}
    peak_demand = {f"{_LABELS[name]} at the peak": value for name, value in peak["demand"].items()}
    body.append(section("Autoscaling schedule", _spans(plan["autoscaling"]["spans"], peak["nodes"])
                        + key_values("capacity and the peak's demand", {**per_core, **peak_demand}), "tables"))
    nodes = f"{peak['nodes']} node{'' if peak['nodes'] == 1 else 's'}"
    badge = (f'<span class="verdict caution">{escape(nodes)} at the peak · EXTRAPOLATED</span>' if plan["extrapolated"]
             else f'<span class="verdict pass">{escape(nodes)} at the peak</span>')
    return page(f"Plan: {plan['inputs']['schedule']['name']}", meta, badge, body,
                footer=f"KubeRay manifest for the peak: {escape(plan['kuberay']['manifest'])} (tablestorm plan).")


def write_plan_html(plan: Mapping[str, Any], out: Path) -> Path:
    path = out / HTML_NAME
    path.write_text(render_plan_html(plan))
    return path
