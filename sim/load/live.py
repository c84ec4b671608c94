"""What a running ``tablestorm load`` prints: a refreshing block on a terminal, log lines elsewhere.

The driver merges the fleets' stats and calls :meth:`LiveView.update` about once a second; the view
draws from that snapshot alone, with no threads or clocks of its own, so what it shows is exactly
what the final report will count. On a terminal the block is redrawn in place (ANSI cursor moves);
when output goes to a file or a CI log, which cannot be redrawn, one ``key=value`` line is written
every ``plain_every_s`` seconds of run time instead, so logs stay short and grep-able.

Rates and percentiles cover the last ``window_s`` whole seconds: the current second is still being
filled (and fleets ship with a delay), so including it would show a false dip. The percentiles are
corrected for coordinated omission (:class:`~tablestorm.sim.load.stats.Timings`); where the
uncorrected p99 differs, it is shown beside. Once measured, a line gives the p99s the other seats
feel: the next seat's prompt and the broadcast of an action.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import TextIO

from tablestorm.sim.load.stats import RunStats
from tablestorm.sim.reporting.terminal import redraws

__all__ = ["LiveSnapshot", "LiveView", "render_block", "render_line", "snapshot"]


@dataclass(frozen=True)
class LiveSnapshot:
    """The numbers one refresh shows. Rates and latencies are None before a whole second has passed."""

    elapsed_s: float
    duration_s: float | None
    bots_online: int | None
    window_s: int
    hands_per_s: float | None
    actions_per_s: float | None
    p50_ms: float | None
    p99_ms: float | None
    hands: int
    actions: int
    errors: dict[str, int]
    recent_errors: int
    timeouts: int
    saturated: bool = False
    """The last complete window looked saturated (see :mod:`tablestorm.sim.load.saturation`)."""
    p99_uncorrected_ms: float | None = None
    """The p99 without the correction for coordinated omission (None: the same as ``p99_ms``)."""
    next_prompt_p99_ms: float | None = None
    broadcast_p99_ms: float | None = None

    @property
    def errors_total(self) -> int:
        return sum(self.errors.values())


def snapshot(
    stats: RunStats,
    now: float,
    *,
    window_s: int = 5,
    bots_online: int | None = None,
    duration_s: float | None = None,
    saturated: bool = False,
) -> LiveSnapshot:
    """Compute what to show at ``now`` seconds into the run (on the clock that keys ``stats``)."""
    stop = max(int(now), 0)
    start = max(stop - window_s, 0)
    recent = stats.window(start, stop)
    span = stop - start
    corrected = recent.corrected()
    p50, p99 = corrected.percentile(50), corrected.percentile(99)
    uncorrected = recent.measured().percentile(99) if recent.omitted.count else p99
    errors = dict(sorted(stats.errors.items(), key=lambda item: (-item[1], item[0])))
    return LiveSnapshot(
        elapsed_s=now,
        duration_s=duration_s,
        bots_online=bots_online,
        window_s=window_s,
        hands_per_s=recent.hands / span if span else None,
        actions_per_s=recent.actions / span if span else None,
        p50_ms=None if p50 is None else p50 * 1000.0,
        p99_ms=None if p99 is None else p99 * 1000.0,
        hands=stats.hands,
        actions=stats.actions,
        errors=errors,
        recent_errors=recent.errors_total,
        timeouts=stats.timeouts,
        saturated=saturated,
        p99_uncorrected_ms=None if uncorrected is None or uncorrected == p99 else uncorrected * 1000.0,
        next_prompt_p99_ms=_ms(recent.next_prompt.percentile(99)),
        broadcast_p99_ms=_ms(recent.broadcast.percentile(99)),
    )


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else seconds * 1000.0


def _clock(seconds: float) -> str:
    """mm:ss, or h:mm:ss from an hour on."""
    whole = max(int(seconds), 0)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes:02}:{secs:02}"


def _rate(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:,.1f}" if value < 1000 else f"{value:,.0f}"


def _latency(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.2f} ms" if value < 100 else f"{value:,.0f} ms"


def render_block(snap: LiveSnapshot) -> list[str]:
    """The lines of the terminal view (no trailing newlines, no escape codes)."""
    head = f"tablestorm load  {_clock(snap.elapsed_s)}"
    if snap.duration_s is not None:
        remaining = max(snap.duration_s - snap.elapsed_s, 0.0)
        head += f" / {_clock(snap.duration_s)}  {_clock(remaining)} left"
    if snap.bots_online is not None:
        head += f"  bots online {snap.bots_online:,}"
    if snap.saturated:
        head += "  SATURATED: more load, no more throughput"
    errors = f"{snap.errors_total:,} ({snap.recent_errors:,} in last {snap.window_s} s)"
    if snap.errors:
        errors += "   " + ", ".join(f"{kind} {n:,}" for kind, n in snap.errors.items())
    return [
        head,
        f"  last {snap.window_s} s".ljust(13)
        + f"hands/s {_rate(snap.hands_per_s)}   actions/s {_rate(snap.actions_per_s)}   "
        f"p50 {_latency(snap.p50_ms)}   p99 {_latency(snap.p99_ms)}"
        + ("" if snap.p99_uncorrected_ms is None else f" (uncorrected {_latency(snap.p99_uncorrected_ms)})"),
        *(
            [f"  players    next prompt p99 {_latency(snap.next_prompt_p99_ms)}   "
             f"broadcast p99 {_latency(snap.broadcast_p99_ms)}"]
            if snap.next_prompt_p99_ms is not None or snap.broadcast_p99_ms is not None else []
        ),
        f"  totals     hands {snap.hands:,}   actions {snap.actions:,}   timeouts {snap.timeouts:,}",
        f"  errors     {errors}",
    ]


def _plain(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def render_line(snap: LiveSnapshot) -> str:
    """One ``key=value`` log line with the same numbers as the block."""
    clock = _clock(snap.elapsed_s) + ("" if snap.duration_s is None else "/" + _clock(snap.duration_s))
    fields = [
        f"[{clock}]",
        *([f"bots={snap.bots_online}"] if snap.bots_online is not None else []),
        f"hands/s={_plain(snap.hands_per_s, 1)}",
        f"actions/s={_plain(snap.actions_per_s, 1)}",
        f"p50_ms={_plain(snap.p50_ms, 2)}",
        f"p99_ms={_plain(snap.p99_ms, 2)}",
        *([f"p99_uncorrected_ms={_plain(snap.p99_uncorrected_ms, 2)}"] if snap.p99_uncorrected_ms is not None else []),
        *(
            [f"next_prompt_p99_ms={_plain(snap.next_prompt_p99_ms, 2)}",
             f"broadcast_p99_ms={_plain(snap.broadcast_p99_ms, 2)}"]
            if snap.next_prompt_p99_ms is not None or snap.broadcast_p99_ms is not None else []
        ),
        f"hands={snap.hands}",
        f"actions={snap.actions}",
        f"errors={snap.errors_total}",
        f"timeouts={snap.timeouts}",
        *(["SATURATED"] if snap.saturated else []),
    ]
    return " ".join(fields)


class LiveView:
    """Shows snapshots on ``stream``: redrawn in place on a terminal, as periodic lines otherwise.

    ``tty`` overrides the detection (:func:`~tablestorm.sim.reporting.terminal.redraws`); ``width`` overrides
    the terminal width, to which lines are cut so that none wraps and breaks the redraw. The redraw
    moves the cursor up over the previous block, so on a terminal nothing else should write to the
    stream between updates (log to stderr or a file instead).
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        duration_s: float | None = None,
        window_s: int = 5,
        plain_every_s: float = 10.0,
        tty: bool | None = None,
        width: int | None = None,
    ) -> None:
        self._stream = stream
        self._duration_s = duration_s
        self._window_s = window_s
        self._plain_every_s = plain_every_s
        self._tty = redraws(stream) if tty is None else tty
        self._width = width
        self._drawn_lines = 0
        self._last_line_at: float | None = None
        self._unprinted: LiveSnapshot | None = None

    def update(self, stats: RunStats, now: float, bots_online: int | None = None, saturated: bool = False) -> None:
        """Show the run as of ``now`` seconds since its start."""
        snap = snapshot(
            stats, now, window_s=self._window_s, bots_online=bots_online, duration_s=self._duration_s,
            saturated=saturated,
        )
        if self._tty:
            self._redraw(render_block(snap))
        elif self._last_line_at is None or now - self._last_line_at >= self._plain_every_s:
            self._write_line(snap)
        else:
            self._unprinted = snap

    def finish(self) -> None:
        """End the display: in line mode, print the latest snapshot if it has not been printed."""
        if self._unprinted is not None:
            self._write_line(self._unprinted)

    def _write_line(self, snap: LiveSnapshot) -> None:
        self._stream.write(render_line(snap) + "\n")
        self._stream.flush()
        self._last_line_at = snap.elapsed_s
        self._unprinted = None

    def _redraw(self, lines: list[str]) -> None:
        width = self._width or shutil.get_terminal_size(fallback=(100, 24)).columns
        # Back to the first line of the previous block (CSI n F), then clear to the end (CSI J).
        move = f"\x1b[{self._drawn_lines}F\x1b[J" if self._drawn_lines else ""
        self._stream.write(move + "".join(line[: width - 1] + "\n" for line in lines))
        self._stream.flush()
        self._drawn_lines = len(lines)
