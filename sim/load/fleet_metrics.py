"""A bot fleet's Prometheus endpoint: what the clients saw, beside what the servers report.

The table hosts export server-side metrics; a fleet exports the client side (bots online, actions
answered, hands seen, errors by kind, and as histograms by game the action round trip, the next
prompt and the broadcast: docs/scenarios.md, Player latencies), fed from the
stats deltas the driver collects each second, and its own process's CPU, memory, GC pauses and
event-loop lag (:class:`~tablestorm.services.rpc.runtime_metrics.RuntimeMetrics`): a fleet whose loop lags
adds that lag to every round trip it measures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server
from prometheus_client.core import HistogramMetricFamily
from prometheus_client.registry import Collector

from tablestorm.services.rpc.runtime_metrics import RuntimeMetrics
from tablestorm.sim.load.stats import GameStats, LatencyHistogram, RunStats

ROUND_TRIP_BOUNDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _Latency(Collector):
    """Exports one of the fleet's latencies as a Prometheus histogram by game, from the merged
    histograms of each game's :class:`~tablestorm.sim.load.stats.GameStats`."""

    def __init__(self, name: str, documentation: str, part: Callable[[GameStats], LatencyHistogram]) -> None:
        self.name, self.documentation, self.part = name, documentation, part
        self.by_game: dict[str, LatencyHistogram] = {}

    def add(self, delta: RunStats) -> None:
        for game, counts in delta.games.items():
            self.by_game.setdefault(game, LatencyHistogram()).merge(self.part(counts))

    def collect(self) -> Iterator[HistogramMetricFamily]:
        family = HistogramMetricFamily(self.name, self.documentation, labels=["game"])
        for game, histogram in sorted(self.by_game.items()):
            buckets = [(str(bound), count) for bound, count in histogram.cumulative_buckets(ROUND_TRIP_BOUNDS)]
            buckets[-1] = ("+Inf", buckets[-1][1])
            family.add_metric([game], buckets, sum_value=histogram.sum_ns / 1e9)
        yield family


class FleetMetrics:
    """A fleet's registry and its /metrics endpoint on ``host:port`` (0: a free port)."""

    def __init__(self, host: str, port: int = 0) -> None:
        self.registry = CollectorRegistry()
        self.runtime = RuntimeMetrics(self.registry)
        """Started by the fleet's actor on its event loop."""
        self.online = Gauge("tablestorm_bots_online", "Bots connected and playing.", registry=self.registry)
        self.actions = Counter("tablestorm_bot_actions", "Actions answered.", registry=self.registry)
        self.hands = Counter("tablestorm_bot_hands", "Hands seen to their end.", registry=self.registry)
        self.errors = Counter(
            "tablestorm_bot_errors", "Errors by gRPC status or kind.", ["kind"], registry=self.registry
        )
        self.round_trip = _Latency(
            "tablestorm_bot_action_round_trip_seconds",
            "Action round trip seen by bots: the intended send time of an ActRequest to its ActResult "
            "received (the network, both event loops and the server's tablestorm_action_processing_seconds), "
            "every action sent, corrected for coordinated omission.",
            GameStats.corrected,
        )
        self.next_prompt = _Latency(
            "tablestorm_bot_next_prompt_seconds",
            "From an action applied (its event's server time) to the next seat's YourTurn arriving at its bot "
            "(one-way: the server's and the fleet's clocks' offset adds in).",
            lambda game: game.next_prompt,
        )
        self.broadcast = _Latency(
            "tablestorm_bot_broadcast_seconds",
            "From an action applied (its event's server time) to each other seat receiving it "
            "(one-way: the server's and the fleet's clocks' offset adds in).",
            lambda game: game.broadcast,
        )
        for collector in (self.round_trip, self.next_prompt, self.broadcast):
            self.registry.register(collector)
        server, _thread = start_http_server(port, host, registry=self.registry)
        self.port: int = server.server_port

    def update(self, delta: RunStats, online: int) -> None:
        self.online.set(online)
        self.actions.inc(delta.actions)
        self.hands.inc(delta.hands)
        for kind, count in delta.errors.items():
            self.errors.labels(kind).inc(count)
        for collector in (self.round_trip, self.next_prompt, self.broadcast):
            collector.add(delta)
