"""Plots for reports, drawn by matplotlib and inlined as SVG (no scripts, nothing fetched).

Each function takes plain numbers and returns an ``<svg>`` element ready for
:func:`tablestorm.sim.reporting.html.figure`. The backend is Agg (no display needed), text stays text in the
SVG (searchable, small), and the output carries no date, so a report regenerated from the same data
is byte for byte the same.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import matplotlib

matplotlib.use("Agg")

from matplotlib import pyplot  # after the backend is chosen

BLUE: Final = "#2563eb"
ORANGE: Final = "#ea580c"
GREEN: Final = "#16a34a"
RED: Final = "#dc2626"
PURPLE: Final = "#7c3aed"
GREY: Final = "#64748b"
PALETTE: Final = (BLUE, ORANGE, GREEN, PURPLE, "#0891b2", "#ca8a04", RED, GREY)
"""Series colours in order; the same as the load report's hand-drawn charts."""

_SIZE: Final = (7.2, 3.0)
"""Inches: at the page's width a chart is about 560 px wide, like the load report's."""
_PROLOGUE = re.compile(r"^.*?(?=<svg)", re.S)

matplotlib.rcParams.update({
    "svg.fonttype": "none",
    "svg.hashsalt": "tablestorm",
    "font.size": 9,
    "axes.edgecolor": "#94a3b8",
    "axes.labelcolor": "#334155",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#eef2f7",
    "xtick.color": "#64748b",
    "ytick.color": "#64748b",
    "legend.frameon": False,
})


@dataclass(frozen=True, slots=True)
class Series:
    """One line: a name, y values over the chart's x values, and optionally a p10-p90 band."""

    name: str
    y: Sequence[float | None]
    low: Sequence[float] | None = None
    high: Sequence[float] | None = None
    colour: str | None = None
    dashed: bool = False


@dataclass(frozen=True, slots=True)
class Span:
    """One Gantt row: a label, its start, and its end as p10 / p50 / p90."""

    label: str
    start: float
    end_low: float
    end: float
    end_high: float


def _svg(figure: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    pyplot.close(figure)
    return _PROLOGUE.sub("", buffer.getvalue(), count=1)


def _axes(xlabel: str, ylabel: str, height: float = _SIZE[1]) -> tuple[Any, Any]:
    figure, axes = pyplot.subplots(figsize=(_SIZE[0], height))
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    return figure, axes


def lines(
    x: Sequence[float],
    series: Sequence[Series],
    *,
    xlabel: str,
    ylabel: str,
    hlines: Sequence[tuple[float, str]] = (),
    vlines: Sequence[tuple[float, str]] = (),
    log_y: bool = False,
    markers: bool = False,
    from_zero: bool = True,
    xlim: tuple[float, float] | None = None,
) -> str:
    """Lines over ``x``, each with its optional band; ``hlines``/``vlines`` mark levels and times
    (an SLO, a chaos event) with a label; ``markers`` dots each point (a few measured steps rather
    than a series over time); ``from_zero``: the y axis starts at 0 (not for a change, which may
    be negative); ``xlim``: the x axis's ends (a day's clock: 0 to 24 h, not a margin past it)."""
    figure, axes = _axes(xlabel, ylabel)
    for k, s in enumerate(series):
        colour = s.colour or PALETTE[k % len(PALETTE)]
        ys = [float("nan") if v is None else v for v in s.y]
        axes.plot(x, ys, color=colour, linewidth=1.6, linestyle="--" if s.dashed else "-", label=s.name,
                  marker="o" if markers else None, markersize=4)
        if s.low is not None and s.high is not None:
            axes.fill_between(x, s.low, s.high, color=colour, alpha=0.18, linewidth=0)
    for value, label in hlines:
        axes.axhline(value, color=RED, linewidth=1.0, linestyle=":")
        axes.annotate(label, (0.005, value), xycoords=("axes fraction", "data"), color=RED,
                      fontsize=8, va="bottom")
    for value, label in vlines:
        axes.axvline(value, color=GREY, linewidth=1.0, linestyle="--")
        axes.annotate(label, (value, 0.98), xycoords=("data", "axes fraction"), color=GREY,
                      fontsize=8, rotation=90, ha="right", va="top")
    if xlim is not None:
        axes.set_xlim(*xlim)
    if log_y:
        axes.set_yscale("log")
    if from_zero and not log_y:
        axes.set_ylim(bottom=0)
    if len(series) > 1:
        axes.legend(loc="best", fontsize=8)
    return _svg(figure)


def scatter_fit(
    x: Sequence[float],
    y: Sequence[float],
    fit_x: Sequence[float],
    fit_y: Sequence[float],
    *,
    xlabel: str,
    ylabel: str,
    point_label: str,
    fit_label: str,
    vlines: Sequence[tuple[float, str]] = (),
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
    for value, label in vlines:
        axes.axvline(value, color=GREY, linewidth=1.0, linestyle="--")
        axes.annotate(label, (value, 0.98), xycoords=("data", "axes fraction"), color=GREY,
                      fontsize=8, rotation=90, ha="right", va="top")
    axes.set_ylim(bottom=0)
    axes.legend(loc="best", fontsize=8)
    return _svg(figure)


def bars(labels: Sequence[str], values: Sequence[float], *, xlabel: str, ylabel: str) -> str:
    """One bar per label, in order."""
    figure, axes = _axes(xlabel, ylabel)
    axes.bar(range(len(values)), values, color=BLUE, width=0.8)
    step = max(1, len(labels) // 20)
    axes.set_xticks(range(0, len(labels), step), [labels[i] for i in range(0, len(labels), step)])
    return _svg(figure)


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


def gantt(spans: Sequence[Span], *, xlabel: str, period: float | None = None) -> str:
    """A row per span: a bar from its start to its p50 end, the p10-p90 spread of the end beside it;
    with ``period`` the axis is one period and what runs past its end goes on from its start (a
    day that recurs: an evening's events end in the small hours)."""
    height = max(_SIZE[1], 0.22 * len(spans) + 0.8)
    figure, axes = _axes(xlabel, "", height)
    wrapped = False
    for row, span in enumerate(spans):
        bars, ends = _laid(span.start, span.end, period), _laid(span.end_low, span.end_high, period)
        for left, right in bars:
            axes.barh(row, right - left, left=left, color=BLUE, height=0.6)
        for left, right in ends:
            axes.plot([left, right], [row, row], color=ORANGE, linewidth=2.4, solid_capstyle="butt")
        wrapped = wrapped or len(bars) > 1 or len(ends) > 1
    if wrapped:
        axes.set_xlim(0, period)
    axes.set_yticks(range(len(spans)), [s.label for s in spans], fontsize=7)
    axes.invert_yaxis()
    axes.grid(axis="y", visible=False)
    return _svg(figure)
