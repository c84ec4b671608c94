"""summary.json: the whole schema of a load run's summary, built in one place.

Two parts, both here. :func:`build_summary` counts what the fleets measured (:class:`RunStats`) and
checks the thresholds; :class:`LoadRunFacts` is what the driver knows beyond the stats (scenario,
recoveries, the wind-down, placements), added before the thresholds are checked. Keys:

- ``bots``, ``hosts``, ``fleets``, ``duration_s``; ``hands``, ``actions``, ``hands_per_s``,
  ``actions_per_s`` (over the load, the wind-down excluded); ``latency_ms`` (the bot's action round
  trip: p50/p90/p95/p99/p999/min/max/mean);
- ``errors`` by kind, ``errors_total``, ``protocol_violations``; ``timeouts``,
  ``timeouts_by_outcome`` (CLOCK-2), ``side_pots`` (BET-7), ``raise_caps`` (BET-2),
  ``hands_voided``; ``chips_start``, ``chips_end``, ``chips_conserved``; ``actions_by_kind``,
  ``actions_by_bot``;
- the run's facts (:class:`LoadRunFacts`): ``scenario``, ``kinds_acted``, ``hands_voided_by_faults``,
  ``hands_voided_at_end``, ``wind_down`` (``seconds``, ``hands``, ``actions``, ``errors``,
  ``chips_left_at_tables``), ``recoveries``, ``chips_bought_by_bots``, ``nodes``,
  ``hands_by_game``, ``placements``, ``registry_node``, ``protocol_violation_samples``,
  ``prometheus_url`` (None without ``--prometheus``);
- ``thresholds`` (each expression with its metric, value and verdict) and ``thresholds_ok``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from sim.stats import LatencyHistogram, RunStats
from sim.thresholds import Threshold, all_ok, evaluate

_PERCENTILES: Final = (("p50", 50.0), ("p90", 90.0), ("p95", 95.0), ("p99", 99.0), ("p999", 99.9))


def ms(seconds: float | None) -> float | None:
    """Seconds to milliseconds, rounded to the microsecond (finer than the histogram's precision)."""
    return None if seconds is None else round(seconds * 1000.0, 3)


def latency_ms(hist: LatencyHistogram) -> dict[str, float | None]:
    latency = {name: ms(hist.percentile(q)) for name, q in _PERCENTILES}
    latency.update(min=ms(hist.min), max=ms(hist.max), mean=ms(hist.mean))
    return latency


def build_summary(
    stats: RunStats,
    *,
    bots: int,
    duration_s: float,
    chips_start: int | None,
    chips_end: int | None,
    hosts: int,
    fleets: int,
    thresholds: Iterable[str | Threshold] = (),
    run: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The run in one JSON-safe dict (the contents of summary.json), thresholds checked against it.

    ``run`` adds the driver's sections (a :meth:`LoadRunFacts.to_dict`) before the thresholds are
    checked, so a threshold may name any key of the complete summary.

    ``duration_s`` is the measured length of the run, which the rates divide by. Latencies are in
    milliseconds (None when no action was answered). ``chips_conserved`` is None when either chip
    count is unknown, so a ``chips_conserved==true`` threshold then fails rather than passes.
    """
    hands, actions = stats.hands, stats.actions
    errors = dict(sorted(stats.errors.items(), key=lambda item: (-item[1], item[0])))
    summary: dict[str, Any] = {
        "bots": bots,
        "hosts": hosts,
        "fleets": fleets,
        "duration_s": round(duration_s, 3),
        "hands": hands,
        "actions": actions,
        "hands_per_s": round(hands / duration_s, 3) if duration_s > 0 else 0.0,
        "actions_per_s": round(actions / duration_s, 3) if duration_s > 0 else 0.0,
        "latency_ms": latency_ms(stats.latency()),
        "errors": errors,
        "errors_total": sum(errors.values()),
        "protocol_violations": stats.protocol_violations,
        "timeouts": stats.timeouts,
        "timeouts_by_outcome": dict(stats.timeouts_by_outcome),
        "side_pots": stats.side_pots,
        "raise_caps": stats.raise_caps,
        "hands_voided": stats.hands_voided,
        "chips_start": chips_start,
        "chips_end": chips_end,
        "chips_conserved": None if chips_start is None or chips_end is None else chips_start == chips_end,
        "actions_by_kind": dict(sorted(stats.actions_by_kind.items())),
        "actions_by_bot": dict(sorted(stats.actions_by_bot.items())),
    }
    summary.update(run or {})
    results = evaluate(thresholds, summary)
    summary["thresholds"] = results
    summary["thresholds_ok"] = all_ok(results)
    return summary


@dataclass(frozen=True, slots=True)
class WindDown:
    """The end of a run: tables stop dealing, bots play their hand out and stand up, hosts drain."""

    seconds: float
    hands: int
    actions: int
    errors: Mapping[str, int]
    """By kind; already counted in the run's ``errors``."""
    chips_left_at_tables: int
    """Chips of players who did not stand up."""


@dataclass(frozen=True, slots=True)
class LoadRunFacts:
    """What a load run's driver knows beyond the fleets' stats (see the module docstring)."""

    scenario: str
    kinds_acted: tuple[str, ...]
    hands_voided_by_faults: int
    hands_voided_at_end: int
    wind_down: WindDown
    recoveries: tuple[dict[str, Any], ...]
    chips_bought_by_bots: int
    nodes: int
    hands_by_game: Mapping[str, int]
    placements: Mapping[str, str]
    registry_node: str
    protocol_violation_samples: tuple[str, ...]
    prometheus_url: str | None

    def to_dict(self) -> dict[str, Any]:
        wind_down = self.wind_down
        return {
            "scenario": self.scenario,
            "kinds_acted": sorted(self.kinds_acted),
            "hands_voided_by_faults": self.hands_voided_by_faults,
            "hands_voided_at_end": self.hands_voided_at_end,
            "wind_down": {
                "seconds": round(wind_down.seconds, 2),
                "hands": wind_down.hands,
                "actions": wind_down.actions,
                "errors": dict(wind_down.errors),
                "chips_left_at_tables": wind_down.chips_left_at_tables,
            },
            "recoveries": list(self.recoveries),
            "chips_bought_by_bots": self.chips_bought_by_bots,
            "nodes": self.nodes,
            "hands_by_game": dict(sorted(self.hands_by_game.items())),
            "placements": dict(sorted(self.placements.items())),
            "registry_node": self.registry_node,
            "protocol_violation_samples": list(self.protocol_violation_samples),
            "prometheus_url": self.prometheus_url,
        }
