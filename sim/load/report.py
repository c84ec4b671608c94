"""The results of ``tablestorm load``: summary.json, history.csv and a self-contained report.html.

summary.json is what machines read (CI gates, dashboards, the thresholds); history.csv is the run
second by second for spreadsheets and notebooks; report.html is what people read: one file with
inline CSS and SVG charts (:mod:`tablestorm.sim.reporting.plots`), no scripts and nothing fetched,
so it can be attached to a ticket or opened from an artifact store years later and still render.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tablestorm.sim.load.recovery import CHAOS
from tablestorm.sim.load.stats import RELATIVE_ERROR, SUB_BUCKETS, LatencyHistogram, RunStats, SecondStats
from tablestorm.sim.load.summary import ms
from tablestorm.sim.reporting import plots
from tablestorm.sim.reporting.html import (
    FAIL_BADGE,
    PASS_BADGE,
    banner,
    card,
    empty,
    escape,
    figure,
    fmt,
    game,
    page,
    run_table,
    table,
    verdict,
)
from tablestorm.sim.reporting.style import BLUE, CYAN, GREEN, GREY, ORANGE, PURPLE, RED, YELLOW

__all__ = [
    "HISTORY_COLUMNS",
    "history_rows",
    "render_html",
    "write_history_csv",
    "write_report",
]

HISTORY_COLUMNS: Final = (
    "second", "bots_online", "hands", "actions", "errors", "unexpected_errors", "p50_ms", "p99_ms",
    "p99_uncorrected_ms",
)
"""Columns of history.csv; ``bots_online`` only when the caller knows it. The percentiles are
corrected for coordinated omission, but for ``p99_uncorrected_ms``."""

def history_rows(stats: RunStats, bots_online: Mapping[int, int] | None = None) -> list[dict[str, Any]]:
    """One row per second from 0 to the last second with data, quiet seconds included as zeros.

    Counts are per second (the last second of a run is usually partial); percentiles are None for
    a second without answered actions.
    """
    seconds = [*stats.series, *(bots_online or {})]
    rows: list[dict[str, Any]] = []
    for second in range(max(seconds) + 1 if seconds else 0):
        window = stats.window(second, second + 1)
        corrected = window.corrected()
        row: dict[str, Any] = {"second": second}
        if bots_online is not None:
            row["bots_online"] = bots_online.get(second)
        row.update(
            hands=window.hands,
            actions=window.actions,
            errors=window.errors_total,
            unexpected_errors=sum(window.unexpected_errors.values()),
            p50_ms=ms(corrected.percentile(50)),
            p99_ms=ms(corrected.percentile(99)),
            p99_uncorrected_ms=ms(window.measured().percentile(99)),
        )
        rows.append(row)
    return rows


def write_history_csv(path: Path, stats: RunStats, bots_online: Mapping[int, int] | None = None) -> None:
    """Write :func:`history_rows` as CSV; unknown values are empty cells."""
    columns = [c for c in HISTORY_COLUMNS if bots_online is not None or c != "bots_online"]
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in history_rows(stats, bots_online):
            writer.writerow({key: "" if value is None else value for key, value in row.items()})


def write_report(
    out_dir: Path | str,
    summary: Mapping[str, Any],
    stats: RunStats,
    *,
    bots_online: Mapping[int, int] | None = None,
    title: str = "tablestorm load test",
) -> dict[str, Path]:
    """Write summary.json, history.csv and report.html into ``out_dir`` (created if missing).

    ``summary`` is :func:`tablestorm.sim.load.summary.build_summary`'s, complete: this is the one place summary.json
    is written.
    ``bots_online`` maps seconds since the start to bots connected then. Returns the paths by name.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"summary": out / "summary.json", "history": out / "history.csv", "report": out / "report.html"}
    paths["summary"].write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    write_history_csv(paths["history"], stats, bots_online)
    paths["report"].write_text(render_html(summary, stats, bots_online=bots_online, title=title), "utf-8")
    return paths


# --- charts -----------------------------------------------------------------------------------

_MAX_BINS: Final = 600
"""Charts merge seconds into at most this many bins so an all-day run still draws quickly."""
_KIND_COLOURS: Final = (RED, ORANGE, PURPLE, CYAN, YELLOW, GREY)
"""The errors chart's kinds, commonest first, and "other"."""
_DISTRIBUTION_BINS_PER_DECADE: Final = 20


@dataclass(frozen=True)
class _Bin:
    """Some consecutive seconds of the run merged, for one point or bar of a chart."""

    start: int
    covered_s: float
    hands: int
    actions: int
    errors: dict[str, int]
    """By :func:`_error_label`: the unexpected ones by kind, the chaos's marked so."""
    latency: LatencyHistogram
    bots_online: float | None


def _error_label(kind: str, chaos: bool) -> str:
    """An error kind as the charts tell the chaos's apart: ``UNAVAILABLE (chaos)``."""
    return f"{kind} (chaos)" if chaos else kind


def _labelled_errors(window: SecondStats) -> dict[str, int]:
    labelled = dict(window.unexpected_errors)
    labelled.update((_error_label(kind, True), n) for kind, n in window.chaos_errors.items() if n)
    return labelled


def _chart_end(stats: RunStats, duration_s: float, bots_online: Mapping[int, int] | None) -> int:
    """The whole seconds the charts cover: those with data, cut at the end of the run when it is
    known, so that a straggler counted after the end does not draw as a collapse of throughput."""
    seconds = [*stats.series, *(bots_online or {})]
    end = max(seconds) + 1 if seconds else 0
    return min(end, math.ceil(duration_s)) if duration_s > 0 else end


def _bin_width(end: int) -> int:
    """Seconds per chart bin: 1 up to _MAX_BINS seconds, more for longer runs."""
    return max(1, math.ceil(end / _MAX_BINS))


def _bins(stats: RunStats, duration_s: float, bots_online: Mapping[int, int] | None) -> list[_Bin]:
    """The run cut into at most _MAX_BINS equal bins; ``covered_s`` stops at the end of the run so
    that a last, partial second does not show as a drop in throughput either."""
    end = _chart_end(stats, duration_s, bots_online)
    width = _bin_width(end)
    bins = []
    for start in range(0, end, width):
        stop = min(start + width, end)
        window = stats.window(start, stop)
        covered = (duration_s if start < duration_s < stop else stop) - start
        online = [bots_online[s] for s in range(start, stop) if s in bots_online] if bots_online else []
        bins.append(_Bin(
            start, covered, window.hands, window.actions, _labelled_errors(window), window.corrected(),
            sum(online) / len(online) if online else None,
        ))
    return bins


@dataclass(frozen=True)
class _Timeline:
    """The x axis of the charts over time: elapsed seconds shown in s, min or h by the run's length,
    and the run's faults marked across it."""

    end_s: float
    events: Sequence[tuple[float, str]]

    @property
    def unit(self) -> tuple[str, float]:
        if self.end_s <= 900:
            return "s", 1.0
        if self.end_s <= 36_000:
            return "min", 60.0
        return "h", 3600.0

    def chart(self, title: str, bins: Sequence[_Bin], ylabel: str, series: Sequence[plots.Series],
              integer_y: bool = False) -> str:
        """Lines over time, a point per bin at its middle (a None value breaks its line)."""
        unit, divisor = self.unit
        return plots.lines([(b.start + b.covered_s / 2) / divisor for b in bins], series, title=title,
                           xlabel=f"elapsed ({unit})", ylabel=ylabel, vlines=self.marks(), integer_y=integer_y,
                           x_range=(0.0, self.end_s / divisor))

    def errors(self, bins: Sequence[_Bin], kinds: Sequence[str]) -> str:
        """Errors per second over time, stacked by kind as :func:`_error_label` names them (the five
        commonest, the rest as "other")."""
        shown, rest = list(kinds[:5]), set(kinds[5:])
        layers = [plots.Series(kind, [b.errors.get(kind, 0) / b.covered_s for b in bins], colour=colour)
                  for kind, colour in zip(shown, _KIND_COLOURS, strict=False)]
        if rest:
            layers.append(plots.Series(
                "other", [sum(n for k, n in b.errors.items() if k in rest) / b.covered_s for b in bins],
                colour=_KIND_COLOURS[-1],
            ))
        unit, divisor = self.unit
        edges = [b.start / divisor for b in bins] + [(bins[-1].start + bins[-1].covered_s) / divisor]
        return plots.stacked(edges, layers, title="Errors over time", xlabel=f"elapsed ({unit})",
                             ylabel="errors / s", vlines=self.marks())

    def marks(self) -> list[plots.Mark]:
        _, divisor = self.unit
        return [plots.Mark(at / divisor, label) for at, label in self.events]


def _distribution_chart(hist: LatencyHistogram, summary_latency: Mapping[str, Any]) -> str:
    """Share of actions by latency on a log axis, percentiles marked.

    The 32-per-octave buckets are resampled into 20 equal bins per decade (each bucket's count shared
    by log-overlap), so that bars have equal widths and the shape reads without a saw-tooth; the
    axis runs from and to a half decade.
    """
    buckets = [(math.log10(lo * 1000), math.log10(hi * 1000), n) for lo, hi, n in hist.buckets()]
    per = _DISTRIBUTION_BINS_PER_DECADE
    first = math.floor(buckets[0][0] * 2) * per // 2
    shares = [0.0] * (math.ceil(buckets[-1][1] * 2) * per // 2 - first)
    for lo, hi, n in buckets:
        for b in range(math.floor(lo * per), math.ceil(hi * per)):
            overlap = min(hi, (b + 1) / per) - max(lo, b / per)
            if overlap > 0:
                shares[b - first] += 100.0 * n * overlap / (hi - lo) / hist.count
    edges = [10.0 ** ((first + i) / per) for i in range(len(shares) + 1)]
    marks = [
        plots.Mark(value, name, colour)
        for name, colour in (("p50", GREEN), ("p95", PURPLE), ("p99", ORANGE))
        if isinstance(value := summary_latency.get(name), int | float) and value > 0
    ]
    return plots.histogram(edges, shares, title="Latency distribution", xlabel="latency (ms, log scale)",
                           ylabel="% of actions", log_x=True, vlines=marks)


# --- HTML -------------------------------------------------------------------------------------


def render_html(
    summary: Mapping[str, Any],
    stats: RunStats,
    *,
    bots_online: Mapping[int, int] | None = None,
    title: str = "tablestorm load test",
) -> str:
    """The report page: verdict, headline numbers, thresholds, charts and the full summary."""
    latency = summary.get("latency_ms", {})
    thresholds = summary.get("thresholds", [])
    duration = float(summary.get("duration_s", 0.0))
    bins = _bins(stats, duration, bots_online)
    end = max(duration, max((b.start + b.covered_s for b in bins), default=0.0), 1.0)
    events = _events(summary)

    target = summary.get("target")
    meta = " · ".join(
        f"{summary.get(key, 0):,} {key if summary.get(key) != 1 else key[:-1]}"
        for key in ("bots", "fleets", "hosts")
        if target is None or key != "hosts"
    ) + f" · {duration:,g} s"
    if target is not None:
        meta += f" · against {', '.join(target['servers'])}"

    cards = "".join([
        card("hands / s", summary.get("hands_per_s")),
        card("actions / s", summary.get("actions_per_s")),
        card("p50 round trip", latency.get("p50"), "ms", 2),
        card("p99 round trip", latency.get("p99"), "ms", 2),
        card("p99 uncorrected", summary.get("latency_uncorrected_ms", {}).get("p99"), "ms", 2),
        card("p99 next prompt", summary.get("next_prompt_ms", {}).get("p99"), "ms", 2),
        card("p99 broadcast", summary.get("broadcast_ms", {}).get("p99"), "ms", 2),
        card("p99 server time", summary.get("server_processing_ms", {}).get("p99"), "ms", 3),
        card("errors", summary.get("errors_total")),
        card("unexpected errors", summary.get("unexpected_errors_total")),
        card("chips conserved", summary.get("chips_conserved")),
    ])

    threshold_html = (
        table(
            ["threshold", "value", "result"],
            (
                [
                    f"<code>{escape(t['expression'])}</code>",
                    fmt(t["value"]),
                    PASS_BADGE if t["ok"] else FAIL_BADGE,
                ]
                for t in thresholds
            ),
        )
        if thresholds
        else '<p class="meta">No thresholds were set for this run.</p>'
    )

    charts = []
    timeline = _Timeline(end, events)
    if bins:
        seconds = [b.covered_s for b in bins]
        charts.append(figure("Actions per second", timeline.chart("Actions per second", bins, "actions / s", [
            plots.Series("actions/s", [b.actions / s for b, s in zip(bins, seconds, strict=True)], colour=BLUE)])))
        charts.append(figure("Hands per second", timeline.chart("Hands per second", bins, "hands / s", [
            plots.Series("hands/s", [b.hands / s for b, s in zip(bins, seconds, strict=True)], colour=GREEN)])))
        charts.append(figure("Latency over time", timeline.chart("Action latency over time", bins, "latency (ms)", [
            plots.Series(name, [ms(b.latency.percentile(q)) for b in bins], colour=colour)
            for name, q, colour in (("p50", 50.0, GREEN), ("p99", 99.0, ORANGE))])))
    else:
        charts.append(empty("Throughput", "No data was recorded."))
    hist = stats.latency()
    if hist.count:
        charts.append(figure("Latency distribution", _distribution_chart(hist, latency)))
    else:
        charts.append(empty("Latency distribution", "No action was answered."))
    errors: Mapping[str, int] = summary.get("errors", {})
    if errors and bins:
        kinds = [*summary.get("unexpected_errors", {}),
                 *(_error_label(kind, True) for kind in summary.get("chaos_errors", {}))]
        charts.append(figure("Errors over time", timeline.errors(bins, kinds)))
    else:
        charts.append(empty("Errors over time", "No errors during the run."))
    if bots_online and bins:
        charts.append(figure("Bots online", timeline.chart("Bots online", bins, "bots", [
            plots.Series("bots online", [b.bots_online for b in bins], colour=PURPLE)], integer_y=True)))

    overview_rows = [
        ["duration", fmt(duration, "s")],
        ["hands", fmt(summary.get("hands"))],
        ["actions", fmt(summary.get("actions"))],
        ["hands per second", fmt(summary.get("hands_per_s"))],
        ["actions per second", fmt(summary.get("actions_per_s"))],
        ["errors", fmt(summary.get("errors_total"))],
        ["of them caused by the chaos", fmt(summary.get("chaos_errors_total"))],
        ["unexpected errors", fmt(summary.get("unexpected_errors_total"))],
        ["protocol violations", fmt(summary.get("protocol_violations"))],
        ["action-clock timeouts", fmt(summary.get("timeouts"))],
        ["side pots", fmt(summary.get("side_pots"))],
        ["raise caps reached", fmt(summary.get("raise_caps"))],
        ["hands voided", fmt(summary.get("hands_voided"))],
        ["chips at start", fmt(summary.get("chips_start"))],
        ["chips at end", fmt(summary.get("chips_end"))],
        ["chips conserved", fmt(summary.get("chips_conserved"))],
    ]
    processing = summary.get("server_processing_ms", {})
    latency_rows = [[name, fmt(latency.get(key), "ms")] for key, name in (
        ("min", "min"), ("p50", "p50"), ("p90", "p90"), ("p95", "p95"), ("p99", "p99"), ("p999", "p99.9"),
        ("max", "max"), ("mean", "mean"),
    ) if key in latency]
    uncorrected = summary.get("latency_uncorrected_ms", {})
    latency_rows += [[f"{name} uncorrected", fmt(uncorrected.get(name), "ms")] for name in ("p99", "max")
                     if name in uncorrected]
    latency_rows += [
        [f"server time {name}", fmt(processing.get(name), "ms")] for name in ("p50", "p99") if name in processing
    ]
    seats_rows = [
        [f"{name} {key}", fmt(summary.get(part, {}).get(key), "ms")]
        for part, name in (("next_prompt_ms", "next prompt"), ("broadcast_ms", "broadcast"))
        for key in ("p50", "p99", "max")
    ]
    by_game = summary.get("by_game", {})
    game_rows = (
        [game(code), fmt(g["hands"]), fmt(g["actions"]), fmt(g["latency_ms"]["p50"], "ms"),
         fmt(g["latency_ms"]["p99"], "ms"), fmt(g["next_prompt_ms"]["p99"], "ms"), fmt(g["broadcast_ms"]["p99"], "ms"),
         fmt(g["timeouts"]), fmt(g["side_pots"]), fmt(g["raise_caps"]), fmt(g["hands_voided"])]
        for code, g in by_game.items()
    )
    by_game_html = "<h2>By game</h2>" + table(
        ["game", "hands", "actions", "p50", "p99", "p99 next prompt", "p99 broadcast", "timeouts", "side pots",
         "raise caps", "voided"], game_rows,
    ) if by_game else ""
    tables = [
        table(["run", ""], overview_rows),
        table(["action round trip", ""], latency_rows),
        table(["what the other seats feel", ""], seats_rows),
        table(["error kind", "count", "by the chaos"],
              ([escape(k), fmt(n), fmt(summary.get("chaos_errors", {}).get(k, 0))] for k, n in errors.items()))
        if errors else table(["error kind", "count"], [["none", "0"]]),
        _servers_table(summary.get("table_servers", ())),
        table(["timeout outcome (CLOCK-2)", "count"],
               ([escape(k), fmt(n)] for k, n in summary.get("timeouts_by_outcome", {}).items())),
        table(["actions by bot", "count"],
               ([escape(k), fmt(n)] for k, n in summary.get("actions_by_bot", {}).items())),
        table(["actions by kind", "count"],
               ([escape(k), fmt(n)] for k, n in summary.get("actions_by_kind", {}).items())),
        run_table(summary.get("run", {})),
    ]
    banners = [
        banner(text, "stop" if summary.get("interrupted") or summary.get("aborted") else "warn")
        for text in summary.get("warnings", ())
    ]

    footer = f"""<b>Action round trip</b>: from a bot's intended send time (its think over) to its
action's result arriving, what a player waits (measured by the bots), every action sent timed, and
corrected for coordinated omission: a bot blocked on an action fills in the samples it would have
taken at its table's pace (its mean think time), as HdrHistogram does; <i>uncorrected</i> figures
leave them out. Thresholds check the corrected ones. <b>Next prompt</b>: from an action applied
(its event's server time) to the next seat's turn arriving; <b>broadcast</b>: to each other seat
receiving it; both one-way, across the server's and the bots' clocks, so their skew adds in.
<b>Server time</b>: the table service's own processing of an action (validate, apply, fan out),
from its Prometheus histogram: the part of the round trip spent in the server. Percentiles come
from logarithmic histograms with {SUB_BUCKETS} buckets per power of two: each is within
{RELATIVE_ERROR * 100:.2f}&#8239;% of the exact value. Charts show bins of
{_bin_width(_chart_end(stats, duration, bots_online))} s. Per-second data: history.csv;
machine-readable summary: summary.json."""
    return page(title, meta, verdict(thresholds, interrupted=bool(summary.get("interrupted"))), [
        *banners,
        f'<section class="cards">{cards}</section>',
        f"<h2>Thresholds</h2>{threshold_html}",
        f'<h2>Over time</h2><section class="charts">{"".join(charts)}</section>',
        _faults_section(summary),
        by_game_html,
        f'<h2>Details</h2><section class="tables">{"".join(tables)}</section>',
    ], footer)


def _events(summary: Mapping[str, Any]) -> list[tuple[float, str]]:
    """The run's faults as (time, label) markers for the charts: each chaos event, and each loss
    nobody planned (a loss the chaos caused is marked once, by its event)."""
    marks = [(e["at_s"], f"{e['action']} {e['victim']}") for e in summary.get("chaos_events", ())]
    marks += [(r["at_s"], f"{r['host']} lost") for r in summary.get("recoveries", ()) if r["cause"] != CHAOS]
    marks += [(f["at_s"], f"{f['fleet']} lost") for f in summary.get("fleet_recoveries", ()) if f["cause"] != CHAOS]
    marks += [(s["at_s"], f"{s['server']} lost") for s in summary.get("servers_lost", ())]
    return sorted(marks)


def _faults_section(summary: Mapping[str, Any]) -> str:
    """The chaos and the outages of the run, each with what it cost and how long until the bots
    were back; empty for a run without any."""
    recoveries, fleets = summary.get("recoveries", ()), summary.get("fleet_recoveries", ())
    lost, registry = summary.get("servers_lost", ()), summary.get("registry_restarts", ())
    if not (recoveries or fleets or lost or registry):
        return ""
    parts = []
    if recoveries or fleets or registry:
        rows = [
            (r["at_s"], [fmt(r["at_s"], "s"), f"{escape(r['host'])} ({escape(r['server'])}{_on_node(r)}): tables "
                         "rebuilt elsewhere",
                         escape(r["cause"]), fmt(r["tables"]), fmt(r["voided"]), fmt(r["chips_refunded"]),
                         f"{r['bots_back']:,} of {r['bots']:,}", fmt(r["back_s"], "s")])
            for r in recoveries
        ] + [
            (f["at_s"], [fmt(f["at_s"], "s"), f"{escape(f['fleet'])}{_on_node(f)}: seats handed to a new fleet",
                         escape(f["cause"]), "–", "–", "–", f"{f['seats']:,}", fmt(f["back_s"], "s")])
            for f in fleets
        ] + [
            (r["at_s"], [fmt(r["at_s"], "s"), f"registry: restarted from its journal ({fmt(r['journal_bytes'])} bytes)",
                         escape(r["cause"]), "–", "–", "–", "–", fmt(r["restart_s"], "s")])
            for r in registry
        ]
        parts.append(table(["at", "recovery", "cause", "tables", "hands voided", "chips refunded", "bots back",
                            "back after"], (row for _, row in sorted(rows, key=lambda pair: pair[0])), numeric_from=3))
    if lost:
        parts.append(table(
            ["at", "server lost", "tables", "chips last seen", "bots' seats"],
            ([fmt(s["at_s"], "s"), escape(s["server"]), fmt(len(s["tables"])), fmt(s["chips_last_seen"]),
              escape(", ".join(s["seats"]) or "none")] for s in lost),
            numeric_from=2,
        ))
    return f"<h2>Faults and recoveries</h2>{''.join(parts)}"


def _on_node(recovery: Mapping[str, Any]) -> str:
    """The node a lost host or fleet was lost with, as ``on node ADDRESS (ID)`` with the first 8
    digits of its id (several nodes may share an address); empty when the summary does not say."""
    address, node_id = recovery.get("node_address"), recovery.get("node_id")
    if not address:
        return ""
    return f" on node {escape(address)}" + (f" ({escape(node_id[:8])})" if node_id else "")


def _servers_table(servers: Sequence[Mapping[str, Any]]) -> str:
    """Where the tables lived: each table server measured (with its chips, for given servers)."""
    if not servers:
        return ""
    given = "chips_start" in servers[0]
    headers = ["table server", "tables", "lost at", "chips start", "chips end", "conserved"] if given else [
        "table server", "host", "lost at"]
    rows = (
        [escape(s["server"]), fmt(s["tables"]), fmt(s["lost_at_s"], "s"), fmt(s["chips_start"]), fmt(s["chips_end"]),
         fmt(s["chips_conserved"])] if given else [escape(s["server"]), escape(s["host"]), fmt(s["lost_at_s"], "s")]
        for s in servers
    )
    return table(headers, rows, numeric_from=1 if given else 2)
