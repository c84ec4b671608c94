"""tablestorm's Grafana dashboards as code: panels as data rows, written with grafana-foundation-sdk.

    .venv/bin/python deploy/grafana/generate.py            # rewrite deploy/grafana/dashboards/
    .venv/bin/python deploy/grafana/generate.py --out DIR  # somewhere else (the drift test)

Four dashboards for capacity planners, SREs and tournament operators: Load test (RED: rate,
errors, duration), Table hosts (USE: utilisation, saturation, errors, and the fleets driving the
load), Tournaments (the tournament servers' tournaments and the pace of their tables) and Capacity
(a plan's forecast against what the table hosts carry, their capacity per core and per byte).
Every query filters by the ``cluster`` variable and, where a panel is per host or game, by
``host`` and ``game`` (the Tournaments dashboard also by ``tournament``; a forecast is a whole
cluster's), and the datasource is itself a variable, so the JSON imports into any Grafana as it
is. tests/test_deploy_dashboards.py runs every panel's query against a real Prometheus scraping a
real load run and a plan's forecast exporter, and the Tournaments dashboard's against one
scraping a real tournament.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from grafana_foundation_sdk.builders import dashboard as builder
from grafana_foundation_sdk.builders import prometheus, stat, timeseries
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import dashboard as model

from tablestorm.sim.plan.forecast_metrics import BANDS

DASHBOARDS_DIR = Path(__file__).resolve().parent / "dashboards"
DATASOURCE = model.DataSourceRef(type_val="prometheus", uid="${datasource}")
RATE = "$__rate_interval"

# Label selectors, by what a panel may be narrowed to.
CLUSTER = 'cluster=~"$cluster"'
HOSTS = 'role="table_host", cluster=~"$cluster", instance=~"$host"'
GAMES = f'{HOSTS}, game=~"$game"'
FLEETS = 'role="fleet", cluster=~"$cluster"'
FLEET_GAMES = f'{FLEETS}, game=~"$game"'
CLUSTER_HOSTS = 'role="table_host", cluster=~"$cluster"'
"""Every table host of the selected clusters: what a cluster's forecast is drawn against."""
TOURNAMENT = 'cluster=~"$cluster", tournament=~"$tournament"'
"""A tournament server's per-tournament gauges (its metric names are its own: no role needed)."""
TOURNAMENT_GAMES = 'cluster=~"$cluster", game=~"$game"'
"""A tournament server's counters, which count by game."""
STALL_CLOCKS = 30
"""The TournamentStalled alert's N: it fires when a table has gone this many action clocks without
finishing a hand while dealing was allowed (deploy/prometheus/rules.yml; deploy/README.md says why)."""
SERVER_FAULTS = 'code=~"UNKNOWN|INTERNAL|UNAVAILABLE|DATA_LOSS|UNIMPLEMENTED|DEADLINE_EXCEEDED|RESOURCE_EXHAUSTED"'
"""The gRPC codes that are the server's fault (the 5xx of gRPC); the others answer the client's request."""


@dataclass(frozen=True, slots=True)
class Query:
    """One PromQL target, with its legend (Grafana's ``{{label}}`` template)."""

    expr: str
    legend: str = ""


@dataclass(frozen=True, slots=True)
class Chart:
    """One panel: a time series (or a single stat) of one or more queries."""

    title: str
    description: str
    queries: tuple[Query, ...]
    unit: str
    kind: Literal["timeseries", "stat"] = "timeseries"
    alarm: float | None = None
    """A stat turns red at this value (and green below it)."""


@dataclass(frozen=True, slots=True)
class Row:
    """A titled row of panels."""

    title: str
    charts: tuple[Chart, ...]


@dataclass(frozen=True, slots=True)
class Board:
    """One dashboard: its rows, under its variables (the datasource first)."""

    uid: str
    title: str
    description: str
    rows: tuple[Row, ...]
    variables: tuple[str, ...] = ("cluster", "host", "game")
    """Its query variables (of :data:`VARIABLE_QUERIES`), in the order each may depend on the ones before."""


def quantiles(metric: str, selector: str, by: str, legend: str) -> tuple[Query, ...]:
    """p50 and p99 of a histogram's rate, per ``by`` (le aside)."""
    group = f"{by}, le" if by else "le"
    return tuple(
        Query(
            f"histogram_quantile({q}, sum by ({group}) (rate({metric}_bucket{{{selector}}}[{RATE}])))",
            f"p{round(q * 100)} {legend}".strip(),
        )
        for q in (0.5, 0.99)
    )


def per_second(metric: str, selector: str, by: str) -> Query:
    return Query(f"sum by ({by}) (rate({metric}{{{selector}}}[{RATE}]))", "{{" + by + "}}")


def per_band(metric: str, legend: str = "forecast") -> tuple[Query, ...]:
    """A series of the plan's forecast (``tablestorm plan --serve-metrics``), or one derived from it,
    a line per band of the schedule (its ``quantile`` label: p50, p90)."""
    return tuple(Query(f'sum({metric}{{{CLUSTER}, quantile="{quantile}"}})', f"{legend} {band}")
                 for quantile, band in BANDS.items())


def per_tournament(metric: str, aggregate: str = "sum", legend: str = "") -> Query:
    """A tournament server's gauge, a line per tournament (``aggregate`` over servers sharing an id)."""
    return Query(f"{aggregate} by (tournament) ({metric}{{{TOURNAMENT}}})", f"{legend}{{{{tournament}}}}")


LOAD_TEST = Board(
    uid="tablestorm-load-test",
    title="tablestorm / Load test",
    description="RED of a load run: the rate of hands and actions, errors by status, and durations "
    "(the server's processing of an action and the bots' round trip), with the rules at work.",
    rows=(
        Row("Rate", (
            Chart("Hands per second by game", "Hands played to the end on the selected table hosts.",
                  (per_second("tablestorm_hands_completed_total", GAMES, "game"),), "suffix: hands/s"),
            Chart("Actions per second by kind", "Actions the servers applied; timeout: the clock acted (CLOCK-2).",
                  (per_second("tablestorm_actions_total", GAMES, "kind"),), "suffix: actions/s"),
            Chart("Bots online and their actions", "Client side: bots playing, actions they had answered.",
                  (Query(f"sum(tablestorm_bots_online{{{FLEETS}}})", "bots online"),
                   Query(f"sum(rate(tablestorm_bot_actions_total{{{FLEETS}}}[{RATE}]))", "actions answered/s")),
                  "short"),
        )),
        Row("Errors", (
            Chart("RPCs by status", "Every RPC the table servers finished, by gRPC status code.",
                  (per_second("tablestorm_grpc_requests_total", HOSTS, "code"),), "reqps"),
            Chart("Server-fault ratio", "RPCs ending in a code that is the server's fault "
                  "(UNKNOWN, INTERNAL, UNAVAILABLE, ...) over all RPCs.",
                  (Query(f"(sum(rate(tablestorm_grpc_requests_total{{{HOSTS}, {SERVER_FAULTS}}}[{RATE}])) or vector(0))"
                         f" / sum(rate(tablestorm_grpc_requests_total{{{HOSTS}}}[{RATE}]))", "server faults"),),
                  "percentunit"),
            Chart("Bot errors by kind", "Faults the bots met (gRPC status or kind, see sim/load/driver.py); "
                  "a kind's series starts with its first error, so none shows 0.",
                  (Query(f"sum by (kind) (rate(tablestorm_bot_errors_total{{{FLEETS}}}[{RATE}])) or on () vector(0)",
                         "{{kind}}"),), "short"),
            Chart("Streams closed for falling behind", "Play streams cut with RESOURCE_EXHAUSTED: a client "
                  "that does not read its events.",
                  (Query(f"sum(rate(tablestorm_stream_overflows_total{{{HOSTS}}}[{RATE}]))", "overflows/s"),),
                  "short"),
        )),
        Row("Duration", (
            Chart("Server processing of an action", "The table server's time to validate, apply and fan out "
                  "one action, by game (its share of the round trip).",
                  quantiles("tablestorm_action_processing_seconds", GAMES, "game", "{{game}}"), "s"),
            Chart("Bot action round trip", "What a bot waits from its intended send time to its action's result: "
                  "network, both event loops and the server's processing; every action sent, corrected for "
                  "coordinated omission.",
                  quantiles("tablestorm_bot_action_round_trip_seconds", FLEET_GAMES, "", ""), "s"),
            Chart("Next seat prompted", "From an action applied (its event's server time) to the next seat's "
                  "turn arriving, by game (one-way: the clocks' offset adds in).",
                  quantiles("tablestorm_bot_next_prompt_seconds", FLEET_GAMES, "game", "{{game}}"), "s"),
            Chart("Broadcast to the other seats", "From an action applied (its event's server time) to each "
                  "other seat receiving it, by game (one-way: the clocks' offset adds in).",
                  quantiles("tablestorm_bot_broadcast_seconds", FLEET_GAMES, "game", "{{game}}"), "s"),
        )),
        Row("The rules at work", (
            Chart("Timeouts by outcome", "What the action clock did for a player who let it run out (CLOCK-2).",
                  (per_second("tablestorm_timeouts_total", GAMES, "outcome"),), "suffix: timeouts/s"),
            Chart("Turns decided by the clock", "Timeouts over all actions, by game.",
                  (Query(f"sum by (game) (rate(tablestorm_timeouts_total{{{GAMES}}}[{RATE}]))"
                         f" / sum by (game) (rate(tablestorm_actions_total{{{GAMES}}}[{RATE}]))", "{{game}}"),),
                  "percentunit"),
            Chart("Side pots and capped rounds", "Side pots formed (BET-7) and betting rounds that reached the "
                  "cap (BET-2), per second by game.",
                  (Query(f"sum by (game) (rate(tablestorm_side_pots_total{{{GAMES}}}[{RATE}]))", "side pots {{game}}"),
                   Query(f"sum by (game) (rate(tablestorm_raise_caps_total{{{GAMES}}}[{RATE}]))", "caps {{game}}")),
                  "short"),
            Chart("Hands voided", "Hands cancelled with an exact refund in the time range (a drain deadline).",
                  (Query(f"sum(increase(tablestorm_hands_voided_total{{{GAMES}}}[$__range]))"),), "short",
                  kind="stat", alarm=1),
            Chart("Chip-conservation violations", "Hands after which a table's chips differed from buy-ins minus "
                  "cash-outs: must stay 0 (a bug otherwise; the ChipConservationViolated alert pages).",
                  (Query(f"sum(tablestorm_chip_conservation_violations_total{{{GAMES}}})"),), "short",
                  kind="stat", alarm=1),
        )),
    ),
)

TABLE_HOSTS = Board(
    uid="tablestorm-table-hosts",
    title="tablestorm / Table hosts",
    description="USE of the table hosts: CPU, memory and capacity per core; the saturation of their one "
    "event loop (lag, GC pauses, streams, tables); errors; and the bot fleets that drive the load.",
    rows=(
        Row("Utilisation", (
            Chart("CPU per host", "CPU cores each table host process uses (all its threads).",
                  (Query(f"sum by (instance) (rate(process_cpu_seconds_total{{{HOSTS}}}[{RATE}]))", "{{instance}}"),),
                  "short"),
            Chart("Resident memory per host", "", (Query(f"process_resident_memory_bytes{{{HOSTS}}}", "{{instance}}"),),
                  "bytes"),
            Chart("Hands per second per core", "Hands completed per CPU-second the host spent: its capacity.",
                  (Query(f"sum by (instance) (rate(tablestorm_hands_completed_total{{{HOSTS}}}[{RATE}]))"
                         f" / sum by (instance) (rate(process_cpu_seconds_total{{{HOSTS}}}[{RATE}]))",
                         "{{instance}}"),), "short"),
        )),
        Row("Saturation", (
            Chart("Event-loop lag (p99)", "How late each host's loop runs a timer: the wait every table on it "
                  "has on top of its own work.",
                  (Query(f"histogram_quantile(0.99, sum by (instance, le) "
                         f"(rate(tablestorm_event_loop_lag_seconds_bucket{{{HOSTS}}}[{RATE}])))", "{{instance}}"),),
                  "s"),
            Chart("GC pauses (p99) by generation", "Full collections (generation 2) are off in service "
                  "processes (services/rpc/gc_policy.py): that line should stay empty.",
                  (Query(f"histogram_quantile(0.99, sum by (generation, le) "
                         f"(rate(tablestorm_gc_pause_seconds_bucket{{{HOSTS}}}[{RATE}])))", "gen {{generation}}"),),
                  "s"),
            Chart("Time paused by the GC", "Share of wall time each host spent in garbage collections.",
                  (Query(f"sum by (instance) (rate(tablestorm_gc_pause_seconds_sum{{{HOSTS}}}[{RATE}]))",
                         "{{instance}}"),), "percentunit"),
            Chart("Open Play streams", "", (Query(f"tablestorm_streams_live{{{HOSTS}}}", "{{instance}}"),), "short"),
            Chart("Tables by game", "", (Query(f"sum by (game) (tablestorm_tables_live{{{GAMES}}})", "{{game}}"),),
                  "short"),
            Chart("Seats taken by game", "", (Query(f"sum by (game) (tablestorm_seats_live{{{GAMES}}})", "{{game}}"),),
                  "short"),
            Chart("Open file descriptors", "", (Query(f"process_open_fds{{{HOSTS}}}", "{{instance}}"),), "short"),
        )),
        Row("Errors", (
            Chart("Hosts answering scrapes", "1: scraped; 0: down (the TableHostDown alert pages after 30 s).",
                  (Query(f"up{{{HOSTS}}}", "{{instance}}"),), "short"),
            Chart("Stream messages per second", "Play stream messages in (client to server) and out.",
                  (per_second("tablestorm_stream_messages_total", HOSTS, "direction"),), "short"),
        )),
        Row("Bot fleets", (
            Chart("CPU per fleet", "A fleet near one core measures its own queueing, not the servers'.",
                  (Query(f"sum by (instance) (rate(process_cpu_seconds_total{{{FLEETS}}}[{RATE}]))", "{{instance}}"),),
                  "short"),
            Chart("Fleet event-loop lag (p99)", "Added to every round trip the fleet measures.",
                  (Query(f"histogram_quantile(0.99, sum by (instance, le) "
                         f"(rate(tablestorm_event_loop_lag_seconds_bucket{{{FLEETS}}}[{RATE}])))", "{{instance}}"),),
                  "s"),
            Chart("Bots online per fleet", "", (Query(f"tablestorm_bots_online{{{FLEETS}}}", "{{instance}}"),),
                  "short"),
        )),
    ),
)

TOURNAMENTS = Board(
    uid="tablestorm-tournaments",
    title="tablestorm / Tournaments",
    description="For tournament operators and SREs: the tournament servers' tournaments (players left, "
    "tables, the level and its time, hand-for-hand, eliminations, stalled tables) and the pace of their "
    "tables on the table hosts, which a tournament's forecast rests on.",
    rows=(
        Row("Tournaments", (
            Chart("Tournaments by status", "Tournaments on the tournament servers: registering, running, "
                  "paused (by an operator) and finished.",
                  (Query(f"sum by (status) (tablestorm_tournament_tournaments{{{CLUSTER}}})", "{{status}}"),),
                  "short"),
            Chart("Players left", "Players still in each tournament, and its entries (re-entries included).",
                  (per_tournament("tablestorm_tournament_players_left"),
                   per_tournament("tablestorm_tournament_entries", legend="entries ")),
                  "short"),
            Chart("Tables", "Each tournament's open tables: they break as players go (TOURN-3).",
                  (per_tournament("tablestorm_tournament_tables"),),
                  "short"),
            Chart("Level", "The play level in force, from 1 (during a break, the last one played).",
                  (per_tournament("tablestorm_tournament_level", "max"),),
                  "short"),
            Chart("Time left in the level", "Until the next level or break (TOURN-1); it stands while the "
                  "tournament is paused, and is infinite in the last level, which lasts to the end.",
                  (per_tournament("tablestorm_tournament_level_time_left_seconds", "min"),), "s"),
            Chart("Hand-for-hand", "1 from the bubble until the money is reached (TOURN-5): every table "
                  "deals one hand and waits for the others.",
                  (per_tournament("tablestorm_tournament_hand_for_hand", "max"),), "short"),
            Chart("Eliminations per minute", "Entries eliminated, by game: how fast the field shrinks.",
                  (Query(f"60 * sum by (game) (rate(tablestorm_tournament_eliminations_total{{{TOURNAMENT_GAMES}}}"
                         f"[{RATE}]))", "{{game}}"),), "short"),
        )),
        Row("Stalls and faults", (
            Chart("Longest wait for a hand, in clocks", "Over each tournament's tables, the longest any has "
                  "gone without finishing a hand while dealing was allowed, in action clocks (0 paused or on "
                  f"a break); the TournamentStalled alert pages above {STALL_CLOCKS}.",
                  (Query(f"max by (tournament) (tablestorm_tournament_last_hand_age_seconds{{{TOURNAMENT}}}"
                         f" / tablestorm_tournament_clock_seconds{{{TOURNAMENT}}})", "{{tournament}}"),),
                  "short"),
            Chart("Table servers by state", "The table servers the tournament servers were given, up or down "
                  "(a down server's tables are rebuilt on the others).",
                  (Query(f"sum by (state) (tablestorm_tournament_table_servers{{{CLUSTER}}})", "{{state}}"),),
                  "short"),
            Chart("Tables rebuilt", "Tournament tables rebuilt in the time range after their table server was "
                  "lost (or refused them): their running hands were voided (TOURN-11).",
                  (Query(f"sum(increase(tablestorm_tournament_tables_lost_total{{{CLUSTER}}}[$__range]))"),),
                  "short", kind="stat", alarm=1),
        )),
        Row("Tables", (
            Chart("Tables by game", "On the table hosts, tournament and cash tables.",
                  (Query(f"sum by (game) (tablestorm_tables_live{{{GAMES}}})", "{{game}}"),), "short"),
            Chart("Players seated by game", "", (Query(f"sum by (game) (tablestorm_seats_live{{{GAMES}}})",
                                                       "{{game}}"),), "short"),
            Chart("Players per table", "Seated players over tables, by game: short tables play faster hands.",
                  (Query(f"sum by (game) (tablestorm_seats_live{{{GAMES}}})"
                         f" / sum by (game) (tablestorm_tables_live{{{GAMES}}})", "{{game}}"),), "short"),
        )),
        Row("Pace", (
            Chart("Hands per table per hour", "What a level's length buys: the hands each table deals in an hour.",
                  (Query(f"3600 * sum by (game) (rate(tablestorm_hands_completed_total{{{GAMES}}}[{RATE}]))"
                         f" / sum by (game) (tablestorm_tables_live{{{GAMES}}})", "{{game}}"),), "short"),
            Chart("Clock decisions per hand", "Timeouts per hand by game: away players are dealt in, post and "
                  "fold on the clock (TOURN-7), which slows every hand they are in.",
                  (Query(f"sum by (game) (rate(tablestorm_timeouts_total{{{GAMES}}}[{RATE}]))"
                         f" / sum by (game) (rate(tablestorm_hands_completed_total{{{GAMES}}}[{RATE}]))",
                         "{{game}}"),), "short"),
            Chart("Hands voided", "Tournament hands voided in the time range because their table was lost: "
                  "every stack back to the hand's start (TOURN-11).",
                  (Query(f"sum by (game) (increase(tablestorm_tournament_hands_voided_total{{{TOURNAMENT_GAMES}}}"
                         f"[$__range]))", "{{game}}"),), "short"),
        )),
    ),
    variables=("cluster", "host", "game", "tournament"),
)

CAPACITY = Board(
    uid="tablestorm-capacity",
    title="tablestorm / Capacity",
    description="For capacity planners: the plan's forecast for this minute of the day (tablestorm plan "
    "--serve-metrics) against what the table hosts carry, and the cores it needs against the cores present; "
    "then capacity per core and per byte, from the recording rules in deploy/prometheus/rules.yml (cheap "
    "over long ranges).",
    rows=(
        Row("Forecast against measured", (
            Chart("Tables: forecast and live", "The schedule's tables for this minute (its p50 and p90 over the "
                  "replications) against the tables the table hosts hold, by kind: a schedule forecasts "
                  "tournament tables, cash tables come on top. The whole cluster: a forecast has no host or game.",
                  (*per_band("tablestorm_forecast_tables"),
                   Query(f"sum by (kind) (tablestorm_tables_by_kind{{{CLUSTER_HOSTS}}})", "live {{kind}}")),
                  "short"),
            Chart("Seated players: forecast and measured", "The schedule's seated players against the seats "
                  "taken and the Play streams open (each seated player holds one).",
                  (*per_band("tablestorm_forecast_seated_players"),
                   Query(f"sum(tablestorm_seats_live{{{CLUSTER_HOSTS}}})", "seats taken"),
                   Query(f"sum(tablestorm_streams_live{{{CLUSTER_HOSTS}}})", "Play streams")),
                  "short"),
            Chart("Hands per second: forecast and measured", "The schedule's hands/s against the hands the "
                  "table hosts complete, by table kind.",
                  (*per_band("tablestorm_forecast_hands_per_second"),
                   Query(f"sum by (kind) (rate(tablestorm_hands_by_kind_total{{{CLUSTER_HOSTS}}}[{RATE}]))",
                         "measured {{kind}}")),
                  "suffix: hands/s"),
            Chart("Table-host cores: needed, present, used", "The plan's cores for this minute at each band "
                  "(its headroom included) against the cores present: the table hosts answering scrapes, one "
                  "core each (a table host is one event loop, the plan's unit; a host down is a core missing). "
                  "Used: the CPU the hosts spend.",
                  (*per_band("tablestorm_forecast_cores_needed"),
                   Query(f"sum(cluster:tablestorm_table_hosts_up:sum{{{CLUSTER}}})", "present"),
                   Query(f'sum(cluster_role:process_cpu_seconds:rate1m{{{CLUSTER}, role="table_host"}})', "used")),
                  "short"),
            Chart("Spare cores against the forecast", "Cores present minus the plan's cores at each band, on "
                  "top of the plan's own headroom: below 0 the cluster is short of what the plan sizes for "
                  "this minute (add table hosts or nodes before the forecast arrives).",
                  per_band("cluster_quantile:tablestorm_forecast_cores_spare:difference", "against"),
                  "short"),
        )),
        Row("Per core", (
            Chart("Hands per CPU-second", "Cluster-wide: hands completed over the table hosts' CPU.",
                  (Query(f"cluster:tablestorm_hands_completed_per_cpu_second:rate1m{{{CLUSTER}}}", "{{cluster}}"),),
                  "short"),
            Chart("Actions per CPU-second", "",
                  (Query(f"cluster:tablestorm_actions_per_cpu_second:rate1m{{{CLUSTER}}}", "{{cluster}}"),), "short"),
            Chart("Hands per CPU-second by host", "",
                  (Query(f'instance:tablestorm_hands_completed_per_cpu_second:rate1m{{{CLUSTER}, instance=~"$host"}}',
                         "{{instance}}"),), "short"),
            Chart("Cores used by role", "Table hosts and bot fleets: what a run of this size needs.",
                  (Query(f"cluster_role:process_cpu_seconds:rate1m{{{CLUSTER}}}", "{{cluster}} {{role}}"),), "short"),
            Chart("Bots per fleet core", "", (Query(f"cluster:tablestorm_bots_online_per_fleet_cpu:ratio{{{CLUSTER}}}",
                                                    "{{cluster}}"),), "short"),
        )),
        Row("Per byte", (
            Chart("Memory per table", "Table hosts' resident memory over the tables they hold.",
                  (Query(f"cluster:process_resident_memory_bytes_per_table:ratio{{{CLUSTER}}}", "{{cluster}}"),),
                  "bytes"),
            Chart("Memory per seat", "",
                  (Query(f"cluster:process_resident_memory_bytes_per_seat:ratio{{{CLUSTER}}}", "{{cluster}}"),),
                  "bytes"),
        )),
        Row("Headroom", (
            Chart("Throughput by game", "",
                  (Query(f'cluster_game:tablestorm_hands_completed:rate1m{{{CLUSTER}, game=~"$game"}}', "{{game}}"),),
                  "suffix: hands/s"),
            Chart("p99 against the SLOs", "Server processing (SLO 10 ms) and the bots' round trip (SLO 250 ms); "
                  "the ActionProcessingSlow and BotActionRoundTripSlow alerts fire above them.",
                  (Query(f'cluster_game:tablestorm_action_processing_seconds:p99_1m{{{CLUSTER}, game=~"$game"}}',
                         "processing {{game}}"),
                   Query(f"cluster:tablestorm_bot_action_round_trip_seconds:p99_1m{{{CLUSTER}}}", "round trip")),
                  "s"),
            Chart("Event-loop lag (p99)", "Hosts and fleets (EventLoopLagHigh fires above 100 ms).",
                  (Query(f"instance:tablestorm_event_loop_lag_seconds:p99_1m{{{CLUSTER}}}", "{{role}} {{instance}}"),),
                  "s"),
            Chart("Turns decided by the clock", "",
                  (Query(f'cluster_game:tablestorm_timeouts_per_action:ratio_rate1m{{{CLUSTER}, game=~"$game"}}',
                         "{{game}}"),), "percentunit"),
        )),
    ),
)

BOARDS = (LOAD_TEST, TABLE_HOSTS, TOURNAMENTS, CAPACITY)

VARIABLE_QUERIES = {
    "cluster": ("Cluster", 'label_values(up{role=~"table_host|fleet"}, cluster)'),
    "host": ("Table host", 'label_values(up{role="table_host", cluster=~"$cluster"}, instance)'),
    "game": ("Game", 'label_values(tablestorm_tables_live{cluster=~"$cluster"}, game)'),
    "tournament": ("Tournament", 'label_values(tablestorm_tournament_players_left{cluster=~"$cluster"}, tournament)'),
}
"""Each variable's label and query; every one offers All (any value: ``.*``) and several values.
A tournament's series last while it is not finished: the variable offers those of the time range."""


def _variable(name: str) -> builder.QueryVariable:
    label, query = VARIABLE_QUERIES[name]
    return (
        builder.QueryVariable(name)
        .label(label)
        .datasource(DATASOURCE)
        .query(query)
        .refresh(model.VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(model.VariableSort.ALPHABETICAL_ASC)
        .include_all(True)
        .all_value(".*")
        .multi(True)
        .current(model.VariableOption(selected=True, text="All", value="$__all"))
    )


def _panel(chart: Chart, panel_id: int) -> timeseries.Panel | stat.Panel:
    panel: timeseries.Panel | stat.Panel
    if chart.kind == "stat":
        panel = stat.Panel().height(6).span(6)
        if chart.alarm is not None:
            steps = [model.Threshold(None, "green"), model.Threshold(chart.alarm, "red")]
            panel = panel.thresholds(builder.ThresholdsConfig().mode(model.ThresholdsMode.ABSOLUTE).steps(steps))
    else:
        panel = timeseries.Panel().height(8).span(8)
    panel = panel.id(panel_id).title(chart.title).datasource(DATASOURCE).unit(chart.unit)
    if chart.description:
        panel = panel.description(chart.description)
    for ref, query in zip("ABCDEFGH", chart.queries, strict=False):
        target = prometheus.Dataquery().ref_id(ref).expr(query.expr).datasource(DATASOURCE)
        if query.legend:
            target = target.legend_format(query.legend)
        panel = panel.with_target(target.instant() if chart.kind == "stat" else target.range())
    return panel


def build(board: Board) -> builder.Dashboard:
    dashboard = (
        builder.Dashboard(board.title)
        .uid(board.uid)
        .description(board.description)
        .tags(["tablestorm"])
        .editable()
        .refresh("10s")
        .time("now-30m", "now")
        .tooltip(model.DashboardCursorSync.CROSSHAIR)
        .with_variable(builder.DatasourceVariable("datasource").label("Data source").type("prometheus"))
    )
    for name in board.variables:
        dashboard = dashboard.with_variable(_variable(name))
    panel_id = 0
    for row in board.rows:
        panel_id += 1
        dashboard = dashboard.with_row(builder.Row(row.title).id(panel_id))
        for chart in row.charts:
            panel_id += 1
            dashboard = dashboard.with_panel(_panel(chart, panel_id))
    return dashboard


def render(board: Board) -> str:
    """The dashboard's JSON as committed: sorted keys, two-space indents, a final newline."""
    return json.dumps(build(board).build(), cls=JSONEncoder, indent=2, sort_keys=True) + "\n"


def write(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for board in BOARDS:
        path = directory / f"{board.uid}.json"
        path.write_text(render(board))
        paths.append(path)
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DASHBOARDS_DIR, help="directory for the JSON files")
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"argument --out: {args.out} is not a directory")
    for path in write(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
