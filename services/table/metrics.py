"""Prometheus metrics of one table server.

Each server owns its :class:`~prometheus_client.CollectorRegistry` (never the global one), so tests
and benchmarks can run several servers in one process. Labels are bounded sets (game, table kind,
action kind, timeout outcome, RPC method and code, stream direction): never a table or player id,
whose cardinality would grow with the load being measured.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, GCCollector, Histogram, ProcessCollector

from services.engine import ActionKind, TimeoutOutcome

LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
"""Server-side action handling takes tens of microseconds; the buckets resolve that range."""


class Metrics:
    """Every metric the table service exports, with the hot label children bound once."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        # CPU, memory and garbage-collector pauses: what a capacity test needs next to the counts.
        ProcessCollector(registry=r)
        GCCollector(registry=r)
        self.hands_completed = Counter(
            "tablestorm_hands_completed", "Hands played to the end, by game.", ["game"], registry=r
        )
        self.hands_voided = Counter(
            "tablestorm_hands_voided", "Hands cancelled with an exact refund (shutdown).", registry=r
        )
        self.actions = Counter("tablestorm_actions", "Actions applied, by kind.", ["kind"], registry=r)
        self.action_latency = Histogram(
            "tablestorm_action_latency_seconds",
            "Server time to validate, apply and fan out one action.",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.timeouts = Counter(
            "tablestorm_timeouts",
            "Action clocks that ran out (CLOCK-2), by outcome.",
            ["outcome"],
            registry=r,
        )
        self.side_pots = Counter("tablestorm_side_pots", "Side pots formed (BET-7).", registry=r)
        self.raise_caps = Counter(
            "tablestorm_raise_caps", "Betting rounds that reached the cap (BET-2).", registry=r
        )
        self.hands_by_kind = Counter(
            "tablestorm_hands_by_kind",
            "Hands played to the end, by table kind (cash, tournament).",
            ["kind"],
            registry=r,
        )
        self.tables_live = Gauge("tablestorm_tables_live", "Tables hosted.", registry=r)
        self.tables_by_kind = Gauge(
            "tablestorm_tables_by_kind", "Tables hosted, by kind (cash, tournament).", ["kind"], registry=r
        )
        self.seats_live = Gauge("tablestorm_seats_live", "Occupied seats.", registry=r)
        self.streams_live = Gauge("tablestorm_streams_live", "Open Play streams.", registry=r)
        self.stream_messages = Counter(
            "tablestorm_stream_messages",
            "Play stream messages, by direction (in, out).",
            ["direction"],
            registry=r,
        )
        self.stream_overflows = Counter(
            "tablestorm_stream_overflows",
            "Play streams closed with RESOURCE_EXHAUSTED because the client fell behind.",
            registry=r,
        )
        self.grpc_requests = Counter(
            "tablestorm_grpc_requests",
            "RPCs finished, by method and status code.",
            ["method", "code"],
            registry=r,
        )
        self.chip_conservation_violations = Counter(
            "tablestorm_chip_conservation_violations",
            "Hands after which the chips on a table differed from buy-ins minus cash-outs.",
            registry=r,
        )
        self.messages_in = self.stream_messages.labels("in")
        self.messages_out = self.stream_messages.labels("out")
        self.action_kinds = {kind: self.actions.labels(kind.value) for kind in ActionKind}
        self.timeout_outcomes = {o: self.timeouts.labels(o.value) for o in TimeoutOutcome}
