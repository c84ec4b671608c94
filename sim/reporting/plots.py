"""Every chart of every report, drawn by matplotlib and inlined as SVG (no scripts, nothing fetched).

Each function takes plain numbers and returns an ``<svg>`` element, titled, ready for
:func:`tablestorm.sim.reporting.html.figure`. The backend is Agg (no display needed), text stays text in the
SVG (searchable, small), and the output carries no date, so a report regenerated from the same data
is byte for byte the same. A chart of several series carries its one legend, above its plot and
never over the data, in as many columns as fit its width; colours come from
:mod:`tablestorm.sim.reporting.style`.
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import matplotlib

matplotlib.use("Agg")

from matplotlib import pyplot, ticker  # after the backend is chosen

from tablestorm.sim.reporting.style import BLUE, GREY, ORANGE, PALETTE

__all__ = ["Mark", "Series", "Span", "bars", "busy_hours", "gantt", "histogram", "lines", "scatter_fit", "stacked"]

_SIZE: Final = (7.2, 3.0)
"""Inches: at the page's width a chart is about 560 px wide."""
_SVG_OPEN: Final = re.compile(r"^.*?(<svg\b[^>]*>)", re.S)
_Row = TypeVar("_Row")
_HALO: Final = {"boxstyle": "square,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.8}
"""Behind a mark's label, so that it reads over the lines it crosses."""

matplotlib.rcParams.update({
    "svg.fonttype": "none",
    "svg.hashsalt": "tablestorm",
    "font.size": 9,
    "axes.edgecolor": "#94a3b8",
    "axes.labelcolor": "#334155",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#eef2f7",
    "xtick.color": "#64748b",
    "ytick.color": "#64748b",
    "legend.frameon": False,
})


@dataclass(frozen=True, slots=True)
class Series:
    """One line (or layer): a name, y values over the chart's x values, and optionally a p10-p90 band.
    A None value breaks a line; a value between two breaks is drawn as a dot."""

    name: str
    y: Sequence[float | None]
    low: Sequence[float] | None = None
    high: Sequence[float] | None = None
    colour: str | None = None
    dashed: bool = False


@dataclass(frozen=True, slots=True)
class Mark:
    """A level or a moment marked across a chart (an SLO, a chaos event, a percentile), labelled along it."""

    at: float
    label: str
    colour: str = GREY


@dataclass(frozen=True, slots=True)
class Span:
    """One Gantt row: a label, its start, and its end as p10 / p50 / p90."""

    label: str
    start: float
    end_low: float
    end: float
    end_high: float


def busy_hours(rows: Sequence[_Row], busy: Callable[[_Row], bool]) -> Sequence[_Row]:
    """Rows of a day, one a minute: those from the hour of the first busy one to the end of the hour
    of the last (all of them when none is busy), so that a day's chart shows its day, not a spike."""
    minutes = [m for m, row in enumerate(rows) if busy(row)]
    if not minutes:
        return rows
    return rows[60 * (minutes[0] // 60) : 60 * (minutes[-1] // 60 + 1)]


def _colour(series: Series, k: int) -> str:
    return series.colour or PALETTE[k % len(PALETTE)]


def _svg(figure: Any, axes: Any, title: str) -> str:
    """The figure as an ``<svg>`` element titled ``title``, its legend laid out first."""
    _legend(figure, axes)
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight",
                   metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    pyplot.close(figure)
    return _SVG_OPEN.sub(lambda m: f"{m.group(1)}<title>{html.escape(title)}</title>", buffer.getvalue(), count=1)


def _legend(figure: Any, axes: Any) -> None:
    """One legend for two or more labelled artists: above the plot, in as many columns as fit the
    plot's width (names of any length wrap onto more rows rather than shrink the chart)."""
    handles, labels = axes.get_legend_handles_labels()
    if len(labels) < 2:
        return
    renderer = figure.canvas.get_renderer()
    width = axes.get_window_extent(renderer).width
    for columns in range(len(labels), 0, -1):
        legend = axes.legend(handles, labels, loc="lower left", bbox_to_anchor=(0.0, 1.02), ncol=columns,
                             borderaxespad=0.0, fontsize=8, handlelength=1.8, columnspacing=1.4)
        if legend.get_window_extent(renderer).width <= width:
            return


def _axes(xlabel: str, ylabel: str, size: tuple[float, float] = _SIZE) -> tuple[Any, Any]:
    figure, axes = pyplot.subplots(figsize=size)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    return figure, axes


def _mark(axes: Any, hlines: Sequence[Mark], vlines: Sequence[Mark], *, in_legend: bool = False) -> None:
    """Draw the marks, each labelled along its line, or ``in_legend`` (marks that may coincide,
    such as percentiles, whose labels would overlap)."""
    for mark in hlines:
        axes.axhline(mark.at, color=mark.colour, linewidth=1.0, linestyle=":")
        axes.annotate(mark.label, (0.005, mark.at), xycoords=("axes fraction", "data"), color=mark.colour,
                      fontsize=8, va="bottom", bbox=_HALO)
    for mark in vlines:
        axes.axvline(mark.at, color=mark.colour, linewidth=1.0, linestyle="--", label=mark.label if in_legend else None)
        if not in_legend:
            axes.annotate(mark.label, (mark.at, 0.98), xycoords=("data", "axes fraction"), color=mark.colour,
                          fontsize=8, rotation=90, ha="right", va="top", bbox=_HALO)


def _clock(hours: float, _: object = None, *, period: float | None = None) -> str:
    minutes = round((hours % period if period else hours) * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _clock_axis(axes: Any, x: Sequence[float], period: float | None = None) -> None:
    """An x axis of hours of the day, ticked on round times and labelled as a clock (12:30); with
    ``period`` the labels wrap (a recurring day's axis ends at 00:00, not 24:00)."""
    span = max(x) - min(x) if x else 0.0
    step = next((s for s in (0.25, 0.5, 1.0, 2.0, 3.0) if span / s <= 8), 6.0)
    axes.xaxis.set_major_locator(ticker.MultipleLocator(step))
    axes.xaxis.set_major_formatter(ticker.FuncFormatter(lambda h, _: _clock(h, period=period)))


def _lone(ys: Sequence[float]) -> list[int]:
    """Indices of values with no value either side: a line cannot show them, a dot does."""
    def gap(i: int) -> bool:
        return i < 0 or i >= len(ys) or math.isnan(ys[i])
    return [i for i, v in enumerate(ys) if not math.isnan(v) and gap(i - 1) and gap(i + 1)]


def lines(
    x: Sequence[float],
    series: Sequence[Series],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    hlines: Sequence[Mark] = (),
    vlines: Sequence[Mark] = (),
    log_y: bool = False,
    markers: bool = False,
    from_zero: bool = True,
    integer_y: bool = False,
    clock: bool = False,
    x_range: tuple[float, float] | None = None,
) -> str:
    """Lines over ``x``, each with its optional band; ``hlines``/``vlines`` mark levels and times;
    ``markers`` dots each point (a few measured steps rather than a series over time);
    ``from_zero``: the y axis starts at 0 (not for a change, which may be negative);
    ``integer_y``: ticks on whole numbers only (nodes, players); ``clock``: ``x`` is hours of the day;
    ``x_range``: the x axis's ends, where the data's would mislead (a run from its start to its end)."""
    figure, axes = _axes(xlabel, ylabel)
    for k, s in enumerate(series):
        colour = _colour(s, k)
        ys = [float("nan") if v is None else float(v) for v in s.y]
        lone = None if markers else _lone(ys)
        axes.plot(x, ys, color=colour, linewidth=1.6, linestyle="--" if s.dashed else "-", label=s.name,
                  marker="o" if markers or lone else None, markersize=4, markevery=lone)
        if s.low is not None and s.high is not None:
            axes.fill_between(x, s.low, s.high, color=colour, alpha=0.18, linewidth=0)
    _mark(axes, hlines, vlines)
    if log_y:
        axes.set_yscale("log")
    if from_zero and not log_y:
        axes.set_ylim(bottom=0)
    if integer_y:
        axes.yaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    if clock:
        _clock_axis(axes, x)
    if x_range is not None:
        axes.set_xlim(*x_range)
    return _svg(figure, axes, title)


def stacked(
    edges: Sequence[float],
    layers: Sequence[Series],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    vlines: Sequence[Mark] = (),
) -> str:
    """Layers stacked over consecutive intervals (``edges`` bound them: one more than the values),
    each constant over its interval: counts per bin of time, by kind."""
    figure, axes = _axes(xlabel, ylabel)
    base = [0.0] * (len(edges) - 1)
    for k, layer in enumerate(layers):
        top = [b + (v or 0.0) for b, v in zip(base, layer.y, strict=True)]
        axes.stairs(top, edges, baseline=base, fill=True, color=_colour(layer, k), linewidth=0, label=layer.name)
        base = top
    _mark(axes, (), vlines)
    axes.set_xlim(edges[0], edges[-1])
    axes.set_ylim(bottom=0)
    return _svg(figure, axes, title)


def histogram(
    edges: Sequence[float],
    values: Sequence[float],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    log_x: bool = False,
    vlines: Sequence[Mark] = (),
) -> str:
    """A distribution: ``values`` over the bins that ``edges`` bound, ``vlines`` keyed in the legend;
    ``log_x`` ticks the axis on round numbers (1, 2, 5 per decade, as many as its span allows)."""
    figure, axes = _axes(xlabel, ylabel)
    axes.stairs(values, edges, fill=True, color=BLUE, alpha=0.85, linewidth=0)
    _mark(axes, (), vlines, in_legend=True)
    if log_x:
        axes.set_xscale("log")
        decades = math.log10(edges[-1] / edges[0])
        subs = (1.0,) if decades > 4 else (1.0, 2.0, 5.0) if decades > 1.5 else (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
        axes.xaxis.set_major_locator(ticker.LogLocator(subs=subs))
        axes.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        axes.xaxis.set_minor_formatter(ticker.NullFormatter())
    axes.set_xlim(edges[0], edges[-1])
    axes.set_ylim(bottom=0)
    return _svg(figure, axes, title)


def scatter_fit(
    x: Sequence[float],
    y: Sequence[float],
    fit_x: Sequence[float],
    fit_y: Sequence[float],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    point_label: str,
    fit_label: str,
    vlines: Sequence[Mark] = (),
    more_points: Sequence[Series] = (),
) -> str:
    """Measured points with a fitted curve through them (e.g. throughput against load);
    ``more_points`` are further measurements at the same ``x``, drawn as smaller points (e.g.
    goodput beside throughput)."""
    figure, axes = _axes(xlabel, ylabel)
    axes.plot(fit_x, fit_y, color=ORANGE, linewidth=1.6, label=fit_label)
    axes.scatter(x, y, color=BLUE, zorder=3, s=22, label=point_label)
    for k, s in enumerate(more_points):
        ys = [float("nan") if v is None else v for v in s.y]
        axes.scatter(x, ys, color=s.colour or PALETTE[(k + 2) % len(PALETTE)], zorder=4, s=12, marker="D",
                     label=s.name)
    _mark(axes, (), vlines)
    axes.set_ylim(bottom=0)
    return _svg(figure, axes, title)


def bars(
    labels: Sequence[str], values: Sequence[float], *, title: str, xlabel: str, ylabel: str, colour: str = BLUE,
) -> str:
    """One bar per label, in order."""
    figure, axes = _axes(xlabel, ylabel)
    axes.bar(range(len(values)), values, color=colour, width=0.8)
    step = max(1, len(labels) // 20)
    axes.set_xticks(range(0, len(labels), step), [labels[i] for i in range(0, len(labels), step)])
    return _svg(figure, axes, title)


def _laid(start: float, end: float, period: float | None) -> list[tuple[float, float]]:
    """``[start, end]`` as it falls on an axis of one ``period`` (cut where it wraps), or as it is."""
    if period is None:
        return [(start, end)]
    pieces = []
    while True:
        base = start // period * period
        stop = min(end, base + period)
        pieces.append((start - base, stop - base))
        if stop >= end:
            return pieces
        start = stop


def gantt(spans: Sequence[Span], *, title: str, xlabel: str, clock: bool = False,
          period: float | None = None) -> str:
    """A row per span: a bar from its start to its p50 end, the p10-p90 spread of the end beside it;
    ``clock``: the times are hours of the day; with ``period`` the axis is one period and what runs
    past its end goes on from its start (a day that recurs: an evening's events end in the small
    hours). Twice a chart's width: it takes the page's."""
    figure, axes = _axes(xlabel, "", (2 * _SIZE[0], 0.3 * len(spans) + 1.0))
    wrapped = False
    for row, span in enumerate(spans):
        bars, ends = _laid(span.start, span.end, period), _laid(span.end_low, span.end_high, period)
        for k, (left, right) in enumerate(bars):
            axes.barh(row, right - left, left=left, color=BLUE, height=0.6,
                      label="start to p50 end" if row == 0 and k == 0 else None)
        for k, (left, right) in enumerate(ends):
            axes.plot([left, right], [row, row], color=ORANGE, linewidth=2.4, solid_capstyle="butt",
                      label="p10-p90 end" if row == 0 and k == 0 else None)
        wrapped = wrapped or len(bars) > 1 or len(ends) > 1
    axes.set_yticks(range(len(spans)), [s.label for s in spans])
    axes.invert_yaxis()
    axes.grid(axis="y", visible=False)
    if clock:
        laid = [t for s in spans for piece in _laid(s.start, s.end_high, period) for t in piece]
        _clock_axis(axes, laid, period)
    if wrapped and period is not None:
        axes.set_xlim(0, period)
    return _svg(figure, axes, title)

