"""Prometheus metrics of one tournament server, named ``tablestorm_tournament_*``.

Each server owns its registry (tests run several servers in one process). Labels are bounded
sets: a tournament's status, its game, the state of a table server, and ``tournament`` (the id of
a tournament that has not finished: at most the server's ``max_tournaments`` series, removed when
the tournament ends). Never a table, player or entry id.

The stall alert ("no hand finished on a table for N action clocks") reads
``tablestorm_tournament_last_hand_age_seconds`` against ``tablestorm_tournament_clock_seconds``:
the first is, over the tournament's open tables, the longest a table has gone without finishing a
hand while dealing was allowed (0 while paused, on a break, or not running).
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge

from tablestorm.services.rpc.runtime_metrics import RuntimeMetrics


class TournamentMetrics:
    """Every metric the tournament service exports."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.runtime = RuntimeMetrics(r)
        """CPU, memory, GC pauses and event-loop lag of the process (as a table server's)."""
        self.tournaments = Gauge(
            "tablestorm_tournament_tournaments",
            "Tournaments on this server, by status (registering, running, paused, finished).",
            ["status"],
            registry=r,
        )
        self.entries = Gauge(
            "tablestorm_tournament_entries", "Entries of a tournament, re-entries included.", ["tournament"], registry=r
        )
        self.players_left = Gauge(
            "tablestorm_tournament_players_left", "Players still in a tournament.", ["tournament"], registry=r
        )
        self.tables = Gauge("tablestorm_tournament_tables", "A tournament's open tables.", ["tournament"], registry=r)
        self.level = Gauge(
            "tablestorm_tournament_level",
            "The play level in force (from 1; the last one played during a break).",
            ["tournament"],
            registry=r,
        )
        self.level_time_left = Gauge(
            "tablestorm_tournament_level_time_left_seconds",
            "Seconds left in the level in force, a break included (the whole first level before the"
            " start; the clock stands while paused; +Inf in the last level, which lasts to the end).",
            ["tournament"],
            registry=r,
        )
        self.hand_for_hand = Gauge(
            "tablestorm_tournament_hand_for_hand", "1 while a tournament plays hand-for-hand (TOURN-5).",
            ["tournament"], registry=r,
        )
        self.clock_seconds = Gauge(
            "tablestorm_tournament_clock_seconds", "A tournament's action clock (CLOCK-1).", ["tournament"], registry=r
        )
        self.last_hand_age = Gauge(
            "tablestorm_tournament_last_hand_age_seconds",
            "Over a tournament's open tables, the longest any has gone without finishing a hand while"
            " dealing was allowed (0 while paused, on a break or not running): a stalled table.",
            ["tournament"],
            registry=r,
        )
        self.hands = Counter(
            "tablestorm_tournament_hands",
            "Hands played to the end on tournament tables, by game.",
            ["game"],
            registry=r,
        )
        self.hands_voided = Counter(
            "tablestorm_tournament_hands_voided",
            "Hands voided because their table was lost (TOURN-11: every stack back to its start), by game.",
            ["game"],
            registry=r,
        )
        self.eliminations = Counter(
            "tablestorm_tournament_eliminations", "Entries eliminated, by game.", ["game"], registry=r
        )
        self.tables_lost = Counter(
            "tablestorm_tournament_tables_lost",
            "Tournament tables lost with their table server (or refused by it) and rebuilt elsewhere.",
            registry=r,
        )
        self.table_servers = Gauge(
            "tablestorm_tournament_table_servers", "Table servers given, by state (up, down).", ["state"], registry=r
        )
        self.grpc_requests = Counter(
            "tablestorm_tournament_grpc_requests",
            "RPCs finished, by method and status code.",
            ["method", "code"],
            registry=r,
        )
        self.per_tournament = (
            self.entries, self.players_left, self.tables, self.level, self.level_time_left, self.hand_for_hand,
            self.clock_seconds, self.last_hand_age,
        )
        """The gauges labelled by tournament (their series go when the tournament ends)."""
