"""Prometheus metrics of one table server.

Each server owns its :class:`~prometheus_client.CollectorRegistry` (never the global one), so tests
and benchmarks can run several servers in one process. Labels are bounded sets (game, table kind,
action kind, timeout outcome, RPC method and code, stream direction, GC generation): never a table or player
id, whose cardinality would grow with the load being measured. Every series of a game appears, at
zero, when the server opens its first table of that game, so a dashboard or an alert reads 0, not
"no data", for what has not happened yet. The process, GC and event-loop metrics are
:class:`~tablestorm.services.rpc.runtime_metrics.RuntimeMetrics`; ``deploy/README.md`` lists every metric.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from tablestorm.services.engine import ActionKind, TimeoutOutcome
from tablestorm.services.rpc.runtime_metrics import RuntimeMetrics

PROCESSING_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
"""Server-side action processing takes tens of microseconds; the buckets resolve that range."""


class GameMetrics:
    """The series of one game, bound once: a table counts into these without a label lookup."""

    __slots__ = (
        "actions",
        "chip_conservation_violations",
        "hands_completed",
        "hands_voided",
        "processing",
        "raise_caps",
        "seats_live",
        "side_pots",
        "tables_live",
        "timeouts",
    )

    def __init__(self, metrics: Metrics, game: str) -> None:
        self.hands_completed = metrics.hands_completed.labels(game)
        self.hands_voided = metrics.hands_voided.labels(game)
        self.actions = {kind: metrics.actions.labels(game, kind.value) for kind in ActionKind}
        self.processing = metrics.action_processing.labels(game)
        self.timeouts = {outcome: metrics.timeouts.labels(game, outcome.value) for outcome in TimeoutOutcome}
        self.side_pots = metrics.side_pots.labels(game)
        self.raise_caps = metrics.raise_caps.labels(game)
        self.chip_conservation_violations = metrics.chip_conservation_violations.labels(game)
        self.tables_live = metrics.tables_live.labels(game)
        self.seats_live = metrics.seats_live.labels(game)


class Metrics:
    """Every metric the table service exports; per-game series through :meth:`game`."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.runtime = RuntimeMetrics(r)
        """CPU, memory, GC pauses and event-loop lag: what a capacity test needs next to the counts."""
        self.hands_completed = Counter(
            "tablestorm_hands_completed", "Hands played to the end, by game.", ["game"], registry=r
        )
        self.hands_voided = Counter(
            "tablestorm_hands_voided",
            "Hands cancelled with an exact refund (a shutdown's drain deadline), by game.",
            ["game"],
            registry=r,
        )
        self.actions = Counter(
            "tablestorm_actions",
            "Actions applied, by game and kind (timeout: the action clock acted, CLOCK-2).",
            ["game", "kind"],
            registry=r,
        )
        self.action_processing = Histogram(
            "tablestorm_action_processing_seconds",
            "Server time to validate, apply and fan out one action a client sent, by game: the "
            "server's share of a bot's action round trip (tablestorm_bot_action_round_trip_seconds).",
            ["game"],
            buckets=PROCESSING_BUCKETS,
            registry=r,
        )
        self.timeouts = Counter(
            "tablestorm_timeouts",
            "Action clocks that ran out (CLOCK-2), by game and what the clock did.",
            ["game", "outcome"],
            registry=r,
        )
        self.side_pots = Counter("tablestorm_side_pots", "Side pots formed (BET-7), by game.", ["game"], registry=r)
        self.raise_caps = Counter(
            "tablestorm_raise_caps", "Betting rounds that reached the cap (BET-2), by game.", ["game"], registry=r
        )
        self.chip_conservation_violations = Counter(
            "tablestorm_chip_conservation_violations",
            "Hands after which the chips on a table differed from buy-ins minus cash-outs, by game.",
            ["game"],
            registry=r,
        )
        self.tables_live = Gauge("tablestorm_tables_live", "Tables hosted, by game.", ["game"], registry=r)
        self.tables_by_kind = Gauge(
            "tablestorm_tables_by_kind", "Tables hosted, by kind (cash, tournament).", ["kind"], registry=r
        )
        self.hands_by_kind = Counter(
            "tablestorm_hands_by_kind",
            "Hands played to the end, by table kind (cash, tournament).",
            ["kind"],
            registry=r,
        )
        self.seats_live = Gauge("tablestorm_seats_live", "Occupied seats, by game.", ["game"], registry=r)
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
        self.messages_in = self.stream_messages.labels("in")
        self.messages_out = self.stream_messages.labels("out")
        self._games: dict[str, GameMetrics] = {}

    def game(self, code: str) -> GameMetrics:
        """The series of the game ``code`` (a variant code), created at zero on first use."""
        bound = self._games.get(code)
        if bound is None:
            bound = self._games[code] = GameMetrics(self, code)
        return bound
