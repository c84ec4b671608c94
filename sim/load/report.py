"""The results of ``tablestorm load``: summary.json, history.csv and a self-contained report.html.

summary.json is what machines read (CI gates, dashboards, the thresholds); history.csv is the run
second by second for spreadsheets and notebooks; report.html is what people read: one file with
inline CSS and SVG charts drawn here, no scripts and nothing fetched, so it can be attached to a
ticket or opened from an artifact store years later and still render.
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
from tablestorm.sim.reporting.html import (
    FAIL_BADGE,
    PASS_BADGE,
    banner,
    card,
    empty,
    escape,
    figure,
    fmt,
    page,
    run_table,
    table,
    verdict,
)

__all__ = [
    "HISTORY_COLUMNS",
    "history_rows",
    "render_html",
    "write_history_csv",
    "write_report",
]

HISTORY_COLUMNS: Final = (
    "second", "bots_online", "hands", "actions", "errors", "unexpected_errors", "p50_ms", "p99_ms",
)
"""Columns of history.csv; ``bots_online`` only when the caller knows it."""

def history_rows(stats: RunStats, bots_online: Mapping[int, int] | None = None) -> list[dict[str, Any]]:
    """One row per second from 0 to the last second with data, quiet seconds included as zeros.

    Counts are per second (the last second of a run is usually partial); percentiles are None for
    a second without answered actions.
    """
    seconds = [*stats.series, *(bots_online or {})]
    rows: list[dict[str, Any]] = []
    for second in range(max(seconds) + 1 if seconds else 0):
        window = stats.window(second, second + 1)
        row: dict[str, Any] = {"second": second}
        if bots_online is not None:
            row["bots_online"] = bots_online.get(second)
        row.update(
            hands=window.hands,
            actions=window.actions,
            errors=window.errors_total,
            unexpected_errors=sum(window.unexpected_errors.values()),
            p50_ms=ms(window.latency.percentile(50)),
            p99_ms=ms(window.latency.percentile(99)),
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
_WIDTH, _HEIGHT = 560, 232
_LEFT, _RIGHT, _TOP, _BOTTOM = 62, 14, 12, 44
_BLUE, _ORANGE, _GREEN, _RED = "#2563eb", "#ea580c", "#16a34a", "#dc2626"
_PURPLE, _GREY = "#7c3aed", "#64748b"
_KIND_COLOURS: Final = (_RED, _ORANGE, _PURPLE, "#0891b2", "#ca8a04", _GREY)
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
            start, covered, window.hands, window.actions, _labelled_errors(window), window.latency,
            sum(online) / len(online) if online else None,
        ))
    return bins


def _step(span: float, count: int) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) that cuts ``span`` into at most ``count``
    intervals."""
    raw = span / count
    magnitude = 10.0 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 2.5, 5, 10) if span / (m * magnitude) <= count + 1e-9)


def _ticks(high: float, count: int = 5) -> list[float]:
    """Ticks from 0 to at least ``high``, the last one at or above it so the axis ends on a tick."""
    high = high if high > 0 else 1.0
    step = _step(high, count)
    return [i * step for i in range(math.ceil(high / step - 1e-9) + 1)]


def _num(value: float) -> str:
    """A short axis or table number: 1.5k, 2M, 0.25."""
    magnitude = abs(value)
    if magnitude >= 1e6:
        return f"{value / 1e6:.4g}M"
    if magnitude >= 1e4:
        return f"{value / 1e3:.4g}k"
    return f"{round(value, 6):.6g}"


def _time_axis(end_s: float) -> tuple[str, float]:
    """Unit and divisor for an axis of elapsed time: seconds, minutes or hours."""
    if end_s <= 900:
        return "s", 1.0
    if end_s <= 36_000:
        return "min", 60.0
    return "h", 3600.0


class _Plot:
    """One SVG chart: a frame with axes, ticks, grid and labels, into which marks are drawn."""

    def __init__(self, title: str, x_range: tuple[float, float], y_ticks: list[float], y_label: str) -> None:
        self.title = title
        self.x0, self.x1 = x_range
        if self.x1 <= self.x0:
            self.x1 = self.x0 + 1.0
        self.y_ticks = y_ticks
        self.y_label = y_label
        self.marks: list[str] = []
        self.width = _WIDTH - _LEFT - _RIGHT
        self.height = _HEIGHT - _TOP - _BOTTOM

    def x(self, value: float) -> float:
        return round(_LEFT + (value - self.x0) / (self.x1 - self.x0) * self.width, 2)

    def y(self, value: float) -> float:
        return round(_TOP + self.height - value / self.y_ticks[-1] * self.height, 2)

    def events(self, events: Sequence[tuple[float, str]]) -> None:
        """Mark each (time, label) with a dashed vertical line, labelled along it: the chaos and
        the outages of the run, over its data."""
        bottom = _TOP + self.height
        for at, label in events:
            if not self.x0 <= at <= self.x1:
                continue
            x = self.x(at)
            self.marks.append(
                f'<g class="event"><title>{escape(label)} at {at:g} s</title>'
                f'<line x1="{x}" x2="{x}" y1="{_TOP}" y2="{bottom}" stroke="{_GREY}" class="marker"/>'
                f'<text x="{x - 3}" y="{_TOP + 4}" class="tick halo" fill="{_GREY}" text-anchor="end" '
                f'transform="rotate(-90 {x - 3} {_TOP + 4})">{escape(label)}</text></g>'
            )

    def svg(self, x_ticks: Sequence[tuple[float, str]], x_label: str) -> str:
        parts = [
            f'<svg viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" aria-label="{escape(self.title)}" '
            f'xmlns="http://www.w3.org/2000/svg"><title>{escape(self.title)}</title>',
            f'<rect x="{_LEFT}" y="{_TOP}" width="{self.width}" height="{self.height}" class="plot"/>',
        ]
        for tick in self.y_ticks:
            y = self.y(tick)
            parts.append(f'<line x1="{_LEFT}" x2="{_LEFT + self.width}" y1="{y}" y2="{y}" class="grid"/>')
            parts.append(
                f'<text x="{_LEFT - 6}" y="{y + 4}" class="tick" text-anchor="end">{_num(tick)}</text>'
            )
        bottom = _TOP + self.height
        for value, label in x_ticks:
            x = self.x(value)
            parts.append(f'<line x1="{x}" x2="{x}" y1="{bottom}" y2="{bottom + 4}" class="axis"/>')
            parts.append(
                f'<text x="{x}" y="{bottom + 17}" class="tick" text-anchor="middle">{escape(label)}</text>'
            )
        parts.extend(self.marks)
        right = _LEFT + self.width
        parts.append(f'<line x1="{_LEFT}" x2="{right}" y1="{bottom}" y2="{bottom}" class="axis"/>')
        parts.append(
            f'<text x="{_LEFT + self.width / 2}" y="{_HEIGHT - 6}" class="label" text-anchor="middle">'
            f"{escape(x_label)}</text>"
        )
        middle = _TOP + self.height / 2
        parts.append(
            f'<text x="14" y="{middle}" class="label" text-anchor="middle" '
            f'transform="rotate(-90 14 {middle})">{escape(self.y_label)}</text>'
        )
        parts.append("</svg>")
        return "".join(parts)


def _time_ticks(end_s: float) -> tuple[list[tuple[float, str]], str]:
    unit, divisor = _time_axis(end_s)
    return [(t * divisor, _num(t)) for t in _ticks(end_s / divisor, 6) if t * divisor <= end_s + 1e-9], unit


def _line_chart(
    title: str, bins: Sequence[_Bin], end_s: float, y_label: str,
    lines: Sequence[tuple[str, str, Sequence[float | None]]],
    events: Sequence[tuple[float, str]] = (),
) -> tuple[str, list[tuple[str, str]]]:
    """Lines over elapsed time; a None value breaks its line (no data in that bin); ``events``
    are marked across them (see :meth:`_Plot.events`)."""
    values = [v for _, _, ys in lines for v in ys if v is not None]
    plot = _Plot(title, (0.0, end_s), _ticks(max(values, default=0.0)), y_label)
    for _, colour, ys in lines:
        runs: list[list[str]] = [[]]
        for b, v in zip(bins, ys, strict=True):
            if v is None:
                runs.append([])
            else:
                runs[-1].append(f"{plot.x(b.start + b.covered_s / 2)},{plot.y(v)}")
        for run in runs:
            if len(run) == 1:
                x, y = run[0].split(",")
                plot.marks.append(f'<circle cx="{x}" cy="{y}" r="2.5" fill="{colour}"/>')
            elif run:
                plot.marks.append(f'<polyline points="{" ".join(run)}" stroke="{colour}" class="line"/>')
    plot.events(events)
    x_ticks, unit = _time_ticks(end_s)
    return plot.svg(x_ticks, f"elapsed ({unit})"), [(label, colour) for label, colour, _ in lines]


def _errors_chart(
    bins: Sequence[_Bin], end_s: float, kinds: Sequence[str], events: Sequence[tuple[float, str]] = ()
) -> tuple[str, list[tuple[str, str]]]:
    """Errors per second over time, stacked by kind as :func:`_error_label` names them (the five
    commonest, the rest as "other"), ``events`` marked across them."""
    shown = list(kinds[:5])
    rest = set(kinds[5:])
    legend = [*shown, *(["other"] if rest else [])]
    stacks = [
        [b.errors.get(kind, 0) / b.covered_s for kind in shown]
        + ([sum(n for k, n in b.errors.items() if k in rest) / b.covered_s] if rest else [])
        for b in bins
    ]
    plot = _Plot("Errors over time", (0.0, end_s), _ticks(max((sum(s) for s in stacks), default=0.0)),
                 "errors / s")
    for b, stack in zip(bins, stacks, strict=True):
        x, right = plot.x(b.start), plot.x(b.start + b.covered_s)
        base = 0.0
        for value, colour in zip(stack, _KIND_COLOURS, strict=False):
            if value:
                top, bottom = plot.y(base + value), plot.y(base)
                plot.marks.append(
                    f'<rect x="{x}" y="{top}" width="{max(right - x, 0.8):.2f}" height="{bottom - top:.2f}" '
                    f'fill="{colour}"/>'
                )
                base += value
    plot.events(events)
    x_ticks, unit = _time_ticks(end_s)
    return plot.svg(x_ticks, f"elapsed ({unit})"), list(zip(legend, _KIND_COLOURS, strict=False))


def _distribution_chart(
    hist: LatencyHistogram, summary_latency: Mapping[str, Any]
) -> tuple[str, list[tuple[str, str]]]:
    """Share of actions by latency on a log axis, percentiles marked.

    The 32-per-octave buckets are resampled into 20 equal bins per decade (each bucket's count shared
    by log-overlap), so that bars have equal widths and the shape reads without a saw-tooth.
    """
    buckets = [(math.log10(lo * 1000), math.log10(hi * 1000), n) for lo, hi, n in hist.buckets()]
    per = _DISTRIBUTION_BINS_PER_DECADE
    first = math.floor(buckets[0][0] * per)
    shares = [0.0] * (math.ceil(buckets[-1][1] * per) - first)
    for lo, hi, n in buckets:
        for b in range(math.floor(lo * per), math.ceil(hi * per)):
            overlap = min(hi, (b + 1) / per) - max(lo, b / per)
            if overlap > 0:
                shares[b - first] += 100.0 * n * overlap / (hi - lo) / hist.count
    lo_decade, hi_decade = first / per, (first + len(shares)) / per
    lo_decade, hi_decade = math.floor(lo_decade * 2) / 2, math.ceil(hi_decade * 2) / 2
    plot = _Plot("Latency distribution", (lo_decade, hi_decade), _ticks(max(shares)), "% of actions")
    for i, share in enumerate(shares):
        if share > 0:
            x, right, top = plot.x((first + i) / per), plot.x((first + i + 1) / per), plot.y(share)
            plot.marks.append(
                f'<rect x="{x}" y="{top}" width="{max(right - x - 0.6, 0.6):.2f}" '
                f'height="{_TOP + plot.height - top:.2f}" fill="{_BLUE}" opacity="0.85"/>'
            )
    for row, (name, colour) in enumerate((("p50", _GREEN), ("p95", _PURPLE), ("p99", _ORANGE))):
        value = summary_latency.get(name)
        if isinstance(value, int | float) and value > 0:
            x = plot.x(math.log10(value))
            plot.marks.append(
                f'<line x1="{x}" x2="{x}" y1="{_TOP}" y2="{_TOP + plot.height}" stroke="{colour}" '
                f'class="marker"/><text x="{x + 3}" y="{_TOP + 11 + 13 * row}" class="tick halo" '
                f'fill="{colour}">{name}</text>'
            )
    decades = hi_decade - lo_decade
    mantissas = (1,) if decades > 4 else (1, 2, 5) if decades > 1.5 else (1, 1.5, 2, 3, 5, 7)
    x_ticks = [
        (math.log10(m * 10.0**d), _num(m * 10.0**d))
        for d in range(math.floor(lo_decade), math.ceil(hi_decade) + 1)
        for m in mantissas
        if lo_decade <= math.log10(m * 10.0**d) <= hi_decade
    ]
    return plot.svg(x_ticks, "latency (ms, log scale)"), [("p50", _GREEN), ("p95", _PURPLE), ("p99", _ORANGE)]


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
    if bins:
        seconds = [b.covered_s for b in bins]
        charts.append(figure("Actions per second", *_line_chart(
            "Actions per second", bins, end, "actions / s",
            [("actions/s", _BLUE, [b.actions / s for b, s in zip(bins, seconds, strict=True)])], events,
        )))
        charts.append(figure("Hands per second", *_line_chart(
            "Hands per second", bins, end, "hands / s",
            [("hands/s", _GREEN, [b.hands / s for b, s in zip(bins, seconds, strict=True)])], events,
        )))
        charts.append(figure("Latency over time", *_line_chart(
            "Action latency over time", bins, end, "latency (ms)",
            [(name, colour, [ms(b.latency.percentile(q)) for b in bins])
             for name, q, colour in (("p50", 50.0, _GREEN), ("p99", 99.0, _ORANGE))], events,
        )))
    else:
        charts.append(empty("Throughput", "No data was recorded."))
    hist = stats.latency()
    if hist.count:
        charts.append(figure("Latency distribution", *_distribution_chart(hist, latency)))
    else:
        charts.append(empty("Latency distribution", "No action was answered."))
    errors: Mapping[str, int] = summary.get("errors", {})
    if errors and bins:
        kinds = [*summary.get("unexpected_errors", {}),
                 *(_error_label(kind, True) for kind in summary.get("chaos_errors", {}))]
        charts.append(figure("Errors over time", *_errors_chart(bins, end, kinds, events)))
    else:
        charts.append(empty("Errors over time", "No errors during the run."))
    if bots_online and bins:
        charts.append(figure("Bots online", *_line_chart(
            "Bots online", bins, end, "bots", [("bots online", _PURPLE, [b.bots_online for b in bins])],
            events,
        )))

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
    latency_rows += [
        [f"server time {name}", fmt(processing.get(name), "ms")] for name in ("p50", "p99") if name in processing
    ]
    by_game = summary.get("by_game", {})
    game_rows = (
        [escape(name), fmt(g["hands"]), fmt(g["actions"]), fmt(g["latency_ms"]["p50"], "ms"),
         fmt(g["latency_ms"]["p99"], "ms"), fmt(g["timeouts"]), fmt(g["side_pots"]), fmt(g["raise_caps"]),
         fmt(g["hands_voided"])]
        for name, g in by_game.items()
    )
    tables = [
        table(["run", ""], overview_rows),
        table(["action round trip", ""], latency_rows),
        table(["game", "hands", "actions", "p50", "p99", "timeouts", "side pots", "raise caps", "voided"], game_rows)
        if by_game else "",
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

    footer = f"""<b>Action round trip</b>: from a bot writing an action to its result arriving,
what a player waits (measured by the bots). <b>Server time</b>: the table service's own processing
of an action (validate, apply, fan out), from its Prometheus histogram: the part of the round trip
spent in the server. Round-trip percentiles come from logarithmic histograms with {SUB_BUCKETS} buckets per power
of two: each is within {RELATIVE_ERROR * 100:.2f}&#8239;% of the exact value. Charts show bins of
{_bin_width(_chart_end(stats, duration, bots_online))} s. Per-second data: history.csv;
machine-readable summary: summary.json."""
    return page(title, meta, verdict(thresholds, interrupted=bool(summary.get("interrupted"))), [
        *banners,
        f'<section class="cards">{cards}</section>',
        f"<h2>Thresholds</h2>{threshold_html}",
        f'<h2>Over time</h2><section class="charts">{"".join(charts)}</section>',
        _faults_section(summary),
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
    lost = summary.get("servers_lost", ())
    if not (recoveries or fleets or lost):
        return ""
    parts = []
    if recoveries or fleets:
        rows = [
            (r["at_s"], [fmt(r["at_s"], "s"), f"{escape(r['host'])} ({escape(r['server'])}): tables rebuilt elsewhere",
                         escape(r["cause"]), fmt(r["tables"]), fmt(r["voided"]), fmt(r["chips_refunded"]),
                         f"{r['bots_back']:,} of {r['bots']:,}", fmt(r["back_s"], "s")])
            for r in recoveries
        ] + [
            (f["at_s"], [fmt(f["at_s"], "s"), f"{escape(f['fleet'])}: seats handed to a new fleet",
                         escape(f["cause"]), "–", "–", "–", f"{f['seats']:,}", fmt(f["back_s"], "s")])
            for f in fleets
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
