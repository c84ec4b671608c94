"""summary.json: the whole schema of a load run's summary, built in one place.

Two parts, both here. :func:`build_summary` counts what the fleets measured (:class:`RunStats`) and
checks the thresholds; :class:`LoadRunFacts` is what the driver knows beyond the stats (scenario,
recoveries, the wind-down, placements), added before the thresholds are checked. Keys:

- ``bots``, ``hosts``, ``fleets``, ``duration_s``; ``hands``, ``actions``, ``hands_per_s``,
  ``actions_per_s`` (over the load, the wind-down excluded); ``latency_ms``: the **action round
  trip**, what a player waits: from a bot's intended send time (its think over) to its action's
  result arriving, measured by the bots (p50/p90/p95/p99/p999/min/max/mean), every action sent
  (applied or not) and corrected for coordinated omission: what the thresholds check;
  ``latency_uncorrected_ms`` the same without the correction, and ``latency_correction`` the
  samples it filled in (``omitted``) and the actions timed that were not applied (``unapplied``)
  (:class:`~tablestorm.sim.load.stats.Timings`; docs/scenarios.md, Latency under a stall);
  ``next_prompt_ms`` and ``broadcast_ms`` (the same percentiles): what the other seats feel of an
  action, from its event's server time to the next seat's YourTurn arriving, and to each other
  seat receiving it (one-way across two clocks: docs/scenarios.md, Player latencies);
- ``server_processing_ms``: the **server's processing time** of an action (validate, apply, fan
  out), the part of the round trip spent inside the table service, from the hosts' Prometheus
  histogram ``tablestorm_action_processing_seconds`` (``p50``, ``p99``, ``count``; bucket
  interpolation as PromQL's ``histogram_quantile`` does it);
- ``errors`` by kind, ``errors_total``; of them ``chaos_errors`` (by kind; ``chaos_errors_total``),
  those the run's chaos caused, and ``unexpected_errors`` (``unexpected_errors_total``), the rest
  (:mod:`tablestorm.sim.bots.client.attribution`); ``protocol_violations``; ``timeouts``,
  ``timeouts_by_outcome`` (CLOCK-2), ``side_pots`` (BET-7), ``raise_caps`` (BET-2),
  ``hands_voided``; ``chips_start``, ``chips_end``, ``chips_conserved``; ``actions_by_kind``,
  ``actions_by_bot``; ``by_game``: each game's ``hands``, ``actions``, ``latency_ms``,
  ``latency_uncorrected_ms``, ``next_prompt_ms`` and ``broadcast_ms`` (``p50``, ``p99``),
  ``timeouts``, ``side_pots``, ``raise_caps``, ``hands_voided``, counted by the same bots at the
  same moments as the totals, so each sums over the games to its total (:class:`GameStats`);
- the run's facts (:class:`LoadRunFacts`): ``run`` (tablestorm version, command line, start time,
  machine: :func:`tablestorm.sim.reporting.meta.run_metadata`), ``scenario`` and ``scenario_resolved`` (every
  setting as it ran), ``stages_run``, ``warnings``, ``interrupted`` (the signal that stopped the
  run early, or None) and ``aborted`` (a second signal: no wind-down, chips not counted),
  ``kinds_acted``, ``hands_voided_by_faults``, ``hands_voided_at_end``, ``wind_down``
  (``seconds``, ``hands``, ``actions``, ``errors``, ``chips_left_at_tables``,
  ``seats_stood_up_by_hosts``, ``chips_paid_by_hosts``, ``budget_s``, ``within_budget``,
  ``fleets_late``; None when aborted),
  ``chaos_events``, ``recoveries``, ``fleet_recoveries``, ``servers_lost``, ``registry_restarts``
  (:mod:`tablestorm.sim.load.timeline`),
  ``table_servers`` and ``target`` (where the tables lived: :mod:`tablestorm.sim.load.table_sites`),
  ``chips_bought_by_bots``, ``nodes``, ``placements``,
  ``registry_node``, ``registry_journal_bytes`` (its journal's size at the end; None without a
  registry), ``protocol_violation_samples``, ``prometheus_url`` (None without
  ``--prometheus``), ``saturation`` (the first window past which more load bought no more
  throughput, only latency: :mod:`tablestorm.sim.load.saturation`; None if none);
- ``thresholds`` (each expression with its metric, value and verdict) and ``thresholds_ok``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from tablestorm.sim.load.stats import GameStats, LatencyHistogram, RunStats
from tablestorm.sim.load.thresholds import Threshold, all_ok, evaluate

_PERCENTILES: Final = (("p50", 50.0), ("p90", 90.0), ("p95", 95.0), ("p99", 99.0), ("p999", 99.9))


def ms(seconds: float | None) -> float | None:
    """Seconds to milliseconds, rounded to the microsecond (finer than the histogram's precision)."""
    return None if seconds is None else round(seconds * 1000.0, 3)


def latency_ms(hist: LatencyHistogram) -> dict[str, float | None]:
    latency = {name: ms(hist.percentile(q)) for name, q in _PERCENTILES}
    latency.update(min=ms(hist.min), max=ms(hist.max), mean=ms(hist.mean))
    return latency


def _p50_p99_ms(hist: LatencyHistogram) -> dict[str, float | None]:
    return {"p50": ms(hist.percentile(50.0)), "p99": ms(hist.percentile(99.0))}


def game_summary(game: GameStats) -> dict[str, Any]:
    """One game's entry of ``by_game``: what its tables did, counted as the run's totals are."""
    return {
        "hands": game.hands,
        "actions": game.actions,
        "latency_ms": _p50_p99_ms(game.corrected()),
        "latency_uncorrected_ms": _p50_p99_ms(game.measured()),
        "next_prompt_ms": _p50_p99_ms(game.next_prompt),
        "broadcast_ms": _p50_p99_ms(game.broadcast),
        "timeouts": game.timeouts,
        "side_pots": game.side_pots,
        "raise_caps": game.raise_caps,
        "hands_voided": game.hands_voided,
    }


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
    totals = stats.over_run()
    errors, chaos, unexpected = (
        dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
        for counts in (stats.errors, stats.chaos_errors, stats.unexpected_errors)
    )
    summary: dict[str, Any] = {
        "bots": bots,
        "hosts": hosts,
        "fleets": fleets,
        "duration_s": round(duration_s, 3),
        "hands": hands,
        "actions": actions,
        "hands_per_s": round(hands / duration_s, 3) if duration_s > 0 else 0.0,
        "actions_per_s": round(actions / duration_s, 3) if duration_s > 0 else 0.0,
        "latency_ms": latency_ms(totals.corrected()),
        "latency_uncorrected_ms": latency_ms(totals.measured()),
        "latency_correction": {"omitted": totals.omitted.count, "unapplied": totals.unapplied.count},
        "next_prompt_ms": latency_ms(totals.next_prompt),
        "broadcast_ms": latency_ms(totals.broadcast),
        "errors": errors,
        "errors_total": sum(errors.values()),
        "chaos_errors": chaos,
        "chaos_errors_total": sum(chaos.values()),
        "unexpected_errors": unexpected,
        "unexpected_errors_total": sum(unexpected.values()),
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
        "by_game": {name: game_summary(game) for name, game in sorted(stats.games.items())},
    }
    summary.update(run or {})
    results = evaluate(thresholds, summary)
    summary["thresholds"] = results
    summary["thresholds_ok"] = all_ok(results)
    return summary


def histogram_quantile(q: float, buckets: Iterable[tuple[float, float]]) -> float | None:
    """The ``q`` quantile (0..1) of a Prometheus histogram given as (upper bound, cumulative count)
    pairs, interpolated linearly inside the bucket as PromQL's ``histogram_quantile`` does; None
    without observations. A quantile in the ``+Inf`` bucket is the last finite bound."""
    ordered = sorted(buckets)
    if not ordered or ordered[-1][1] <= 0:
        return None
    rank = q * ordered[-1][1]
    lower, below = 0.0, 0.0
    for bound, count in ordered:
        if count >= rank:
            if bound == float("inf"):
                return lower
            return lower + (bound - lower) * ((rank - below) / (count - below) if count > below else 1.0)
        lower, below = bound, count
    return lower


def merge_buckets(histograms: Iterable[Iterable[tuple[float, float]]]) -> list[tuple[float, float]]:
    """Several servers' histograms of the same buckets as one (counts added bucket by bucket)."""
    total: dict[float, float] = {}
    for histogram in histograms:
        for bound, count in histogram:
            total[bound] = total.get(bound, 0.0) + count
    return sorted(total.items())


WIND_DOWN_GRACE_S: Final = 10.0
"""What the drain and the servers' cash-out may add to the wind-down's budget."""


@dataclass(frozen=True, slots=True)
class WindDown:
    """The end of a run: tables stop dealing, bots play their hand out and stand up, hosts drain."""

    seconds: float
    hands: int
    actions: int
    errors: Mapping[str, int]
    """By kind; already counted in the run's ``errors``."""
    chips_left_at_tables: int | None
    """Chips still on the tables at the very end: 0 unless a host died in the wind-down (None: a
    given server's table could not be read with its hands over)."""
    seats_stood_up_by_hosts: int = 0
    """Players the servers stood up because their bots had not by the end of the budget."""
    chips_paid_by_hosts: int = 0
    budget_s: float = 0.0
    fleets_late: int = 0
    """Fleets whose bots were still leaving when the budget ran out."""


@dataclass(frozen=True, slots=True)
class LoadRunFacts:
    """What a load run's driver knows beyond the fleets' stats (see the module docstring)."""

    run: Mapping[str, Any]
    scenario: str
    scenario_resolved: Mapping[str, Any]
    stages_run: tuple[int, ...]
    warnings: tuple[str, ...]
    interrupted: str | None
    aborted: bool
    kinds_acted: tuple[str, ...]
    hands_voided_by_faults: int
    hands_voided_at_end: int
    wind_down: WindDown | None
    recoveries: tuple[Mapping[str, Any], ...]
    chips_bought_by_bots: int
    nodes: int
    placements: Mapping[str, str]
    registry_node: str | None
    protocol_violation_samples: tuple[str, ...]
    prometheus_url: str | None
    chaos_events: tuple[Mapping[str, Any], ...] = ()
    fleet_recoveries: tuple[Mapping[str, Any], ...] = ()
    servers_lost: tuple[Mapping[str, Any], ...] = ()
    registry_restarts: tuple[Mapping[str, Any], ...] = ()
    """The faults of the run as :class:`~tablestorm.sim.load.timeline.Timeline` gives them (``recoveries`` too)."""
    registry_journal_bytes: int | None = None
    table_servers: tuple[Mapping[str, Any], ...] = ()
    target: Mapping[str, Any] | None = None
    """Where the tables lived (:class:`~tablestorm.sim.load.table_sites.SiteFacts`)."""
    processing: Sequence[tuple[float, float]] = ()
    """The hosts' merged processing-time histogram (see :func:`histogram_quantile`)."""
    saturation: Mapping[str, Any] | None = None
    """The first saturated window (:mod:`tablestorm.sim.load.saturation`), or None."""

    def to_dict(self) -> dict[str, Any]:
        wind_down = self.wind_down
        return {
            "run": dict(self.run),
            "scenario": self.scenario,
            "scenario_resolved": dict(self.scenario_resolved),
            "stages_run": list(self.stages_run),
            "warnings": list(self.warnings),
            "interrupted": self.interrupted,
            "aborted": self.aborted,
            "kinds_acted": sorted(self.kinds_acted),
            "hands_voided_by_faults": self.hands_voided_by_faults,
            "hands_voided_at_end": self.hands_voided_at_end,
            "wind_down": None if wind_down is None else {
                "seconds": round(wind_down.seconds, 2),
                "hands": wind_down.hands,
                "actions": wind_down.actions,
                "errors": dict(wind_down.errors),
                "chips_left_at_tables": wind_down.chips_left_at_tables,
                "seats_stood_up_by_hosts": wind_down.seats_stood_up_by_hosts,
                "chips_paid_by_hosts": wind_down.chips_paid_by_hosts,
                "budget_s": wind_down.budget_s,
                "within_budget": wind_down.seconds <= wind_down.budget_s + WIND_DOWN_GRACE_S,
                "fleets_late": wind_down.fleets_late,
            },
            "chaos_events": [dict(event) for event in self.chaos_events],
            "recoveries": [dict(recovery) for recovery in self.recoveries],
            "fleet_recoveries": [dict(recovery) for recovery in self.fleet_recoveries],
            "servers_lost": [dict(loss) for loss in self.servers_lost],
            "registry_restarts": [dict(restart) for restart in self.registry_restarts],
            "table_servers": [dict(server) for server in self.table_servers],
            "target": None if self.target is None else dict(self.target),
            "chips_bought_by_bots": self.chips_bought_by_bots,
            "nodes": self.nodes,
            "placements": dict(sorted(self.placements.items())),
            "registry_node": self.registry_node,
            "registry_journal_bytes": self.registry_journal_bytes,
            "protocol_violation_samples": list(self.protocol_violation_samples),
            "prometheus_url": self.prometheus_url,
            "server_processing_ms": {
                "p50": ms(histogram_quantile(0.5, self.processing)),
                "p99": ms(histogram_quantile(0.99, self.processing)),
                "count": int(self.processing[-1][1]) if self.processing else 0,
            },
            "saturation": None if self.saturation is None else dict(self.saturation),
        }
