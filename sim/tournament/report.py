"""``tournament.html``: one tournament's page, from ``tournament.json`` alone.

The same page for both modes: what the director recorded (the field over time, the level timeline,
the stacks in big bets, the prizes) reads alike whether the tables were in-process on a virtual
clock or on table servers on Ray, so an operator compares a forecast and a live run side by side.
A live run adds what only it measures (faults, the start burst, move latency).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tablestorm.sim.reporting import html as h
from tablestorm.sim.reporting import plots
from tablestorm.sim.reporting.style import game_colour, game_name
from tablestorm.sim.tournament.terminal import hms

__all__ = ["render_tournament_html"]

FINISHERS_SHOWN = 30
"""Rows of the finishing order on the page (tournament.json and the CSV hold every entry)."""


def _field_figures(doc: Mapping[str, Any]) -> list[str]:
    timeline = doc["timeline"]
    if len(timeline) < 2:
        return [h.empty("Players and tables over time", "the tournament lasted under a minute")]
    minutes = [row["minute"] for row in timeline]
    colour = game_colour(doc["game"])
    return [
        h.figure(title, plots.lines(minutes, [plots.Series(name, [row[name] for row in timeline], colour=colour)],
                                    title=title, xlabel="minute", ylabel=ylabel, integer_y=True))
        for name, title, ylabel in (("players", "Players left", "players left"),
                                    ("tables", "Tables open", "tables open"))
    ]


def _unit(doc: Mapping[str, Any]) -> str:
    """What ``average_stack_bb`` counts: big bets where the stakes have one (fixed limit), big blinds
    in pot and no limit (summary.py's unit)."""
    stakes: Mapping[str, Any] = next((lv["stakes"] for lv in doc["levels"] if not lv["break"]), {})
    return "big bets" if stakes.get("big_bet") else "big blinds"


def _stack_figure(doc: Mapping[str, Any]) -> str:
    levels = [lv for lv in doc["levels"] if not lv["break"] and lv["average_stack_bb"] is not None]
    unit = _unit(doc)
    if not levels:
        return h.empty(f"Average stack in {unit}", "no level was played")
    title = f"Average stack in {unit}, as each level began"
    return h.figure(title, plots.bars(
        [str(lv["play_level"]) for lv in levels], [lv["average_stack_bb"] for lv in levels], title=title,
        xlabel="level", ylabel=unit, colour=game_colour(doc["game"]),
    ))


def _payout_figure(doc: Mapping[str, Any]) -> str:
    paid = [p for p in doc["finishing_order"] if p["prize"]]
    if not paid:
        return h.empty("Payouts", "no prize settled")
    title = f"Payouts: {len(paid)} places paid of {doc['entries']} entries"
    return h.figure(title, plots.bars([str(p["place"]) for p in paid], [p["prize"] for p in paid], title=title,
                                      xlabel="place", ylabel="prize", colour=game_colour(doc["game"])))


def _level_rows(doc: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    for lv in doc["levels"]:
        stakes = lv["stakes"]
        what = "break" if lv["break"] else ", ".join(
            f"{name.replace('_', ' ')} {amount}" for name, amount in stakes.items() if amount
        )
        rows.append([
            h.escape("break" if lv["break"] else lv["play_level"]), h.escape(what), h.escape(hms(lv["start_s"])),
            h.fmt(lv["end_s"] - lv["start_s"], digits=0), h.fmt(lv["average_stack_bb"], digits=1),
        ])
    return rows


def _field_section(field: Mapping[str, Any]) -> str:
    """The field the run assumed: who entered, when, what they bought (rates as shares)."""
    values = {
        "entrants": field["entrants"],
        "registered late": field["late_entrants"],
        "late share": f"{field['late_share']:.0%}",
        "re-entry rate": f"{field['reentry_rate']:.0%}",
        "rebuy rate": f"{field['rebuy_rate']:.0%}",
        "add-on rate": f"{field['addon_rate']:.0%}",
    }
    return h.section("The field assumed", h.key_values("who entered and what they bought", values), "tables")


def _live_section(live: Mapping[str, Any]) -> str:
    values = {
        "table hosts": live.get("hosts"),
        "player fleets": live.get("fleets"),
        "nodes": live.get("nodes"),
        "nodes lost": ", ".join(f"{n['address']} ({n['node_id'][:8]})" for n in live.get("nodes_lost", ())) or "none",
        "hosts killed": len(live.get("hosts_killed", [])),
        "tournament server restarts": len(live.get("tournament_servers_killed", [])),
        "tables lost (rebuilt)": live.get("tables_lost"),
        "hands voided (TOURN-11)": live.get("hands_voided"),
        "start burst (s)": live.get("start_burst_s"),
        "move latency p50 (ms)": live.get("move_latency_ms", {}).get("p50"),
        "move latency p99 (ms)": live.get("move_latency_ms", {}).get("p99"),
        "moves measured": live.get("move_latency_ms", {}).get("count"),
        "bot errors": sum(live.get("errors", {}).values()),
        "protocol violations": live.get("protocol_violations"),
    }
    return h.section("The live run", h.key_values("on Ray", values), "tables")


def render_tournament_html(doc: Mapping[str, Any]) -> str:
    """The page of one ``tournament.json`` document."""
    finished = doc["finished"]
    conserved = doc["chips_conserved"]
    flags = doc.get("sanity", [])
    if finished and conserved:
        badge = (f'<span class="verdict caution">IMPLAUSIBLE · {len(flags)} FLAG{"S" if len(flags) > 1 else ""}</span>'
                 if flags else '<span class="verdict pass">FINISHED · CHIPS CONSERVED</span>')
    elif doc.get("interrupted") and not finished:
        badge = h.INTERRUPTED
    else:
        badge = f'<span class="verdict fail">{"CHIPS NOT CONSERVED" if finished else "NOT FINISHED"}</span>'
    banners = [h.banner(f"Not like a real event: {flag['message']} (docs/calibration.md).") for flag in flags]
    if doc.get("interrupted"):
        banners.append(h.banner("Interrupted: the tournament stopped before its winner; this is as far as it got."))
    elif not finished:
        banners.append(h.banner("The tournament did not finish.", "stop"))
    if finished and not conserved:
        banners.append(h.banner("Chips were not conserved (TOURN-11): the tables and the director disagree.", "stop"))
    winner = doc["finishing_order"][0]["player"] if finished and doc["finishing_order"] else None
    hfh = doc["hand_for_hand"]
    bubble = doc["bubble"]
    body = [
        *banners,
        h.cards([
            h.card("entries", doc["entries"]),
            h.card("winner", winner),
            h.card("prize pool", doc["prize_pool"]),
            h.card("places paid", doc["places_paid"]),
            h.card("hands", doc["hands"]),
            h.card("duration", hms(doc["duration_s"])),
            h.card("hands / hour / table", doc["hands_per_hour_per_table"], digits=1),
            h.card("rebuys · add-ons · re-entries", f"{doc['rebuys']} · {doc['add_ons']} · {doc['reentries']}"),
        ]),
        h.section("The field", "".join([*_field_figures(doc), _stack_figure(doc), _payout_figure(doc)]), "charts"),
        h.section("Levels", h.table(["level", "stakes", "starts", "lasted (s)", f"avg stack ({_unit(doc)})"],
                                    _level_rows(doc), numeric_from=2)),
        h.section("The bubble and hand-for-hand", h.key_values("TOURN-5", {
            "bubble (out one place from the money)": None if bubble is None else
            f"{bubble['player']} at {hms(bubble['t'])}",
            "hand-for-hand spans": len(hfh),
            "hand-for-hand from": None if not hfh else hms(hfh[0]["start_s"]),
            "hand-for-hand until": None if not hfh else hms(hfh[-1]["end_s"]),
        }), "tables"),
        h.section(f"Finishing order (first {FINISHERS_SHOWN})", h.table(
            ["place", "player", "entry", "prize"],
            ([h.fmt(p["place"]), h.escape(p["player"]), h.escape(p["entry"]), h.fmt(p["prize"])]
             for p in doc["finishing_order"][:FINISHERS_SHOWN]),
            numeric_from=3,
        )),
    ]
    if doc.get("field"):
        body.append(_field_section(doc["field"]))
    if doc.get("live"):
        body.append(_live_section(doc["live"]))
    run = doc.get("run", {})
    body.append(h.section("Run", h.run_table(run), "tables"))
    meta = f"{game_name(doc['game'])} · {doc['mode']} · seed {doc['seed']} · {doc['entries']} entries"
    version = h.escape(run.get("tablestorm_version", ""))
    return h.page(f"Tournament: {doc['name']}", meta, badge, body,
                  footer=f"tablestorm {version} · tournament.json holds every value")
