"""`tablestorm load`: place the tables and the bot fleets, ramp the load, gather, report.

The driver owns the run's timeline, which starts once the tables and fleets are up. Every second it
moves the bot count toward the scenario's target (closed model; or a controller's, see ``target``)
or lets new players arrive (open model), fires chaos events that are due, checks that every table
server still answers (and has its outages dealt with), and merges the fleets' stats for the live
view; nothing in a tick waits for a hand to end (leaving bots stand up in their fleets). At the end
comes the wind-down: it stops the tables dealing (no new hand; the running one plays out), stops
the bots (each answers its turns at once and stands up when its hand is over), then ends the tables
(the run's own hosts drain, a hand still running, normally none, voided with an exact refund, and
stand up whoever is still seated: a bot that could not leave within the wind-down's budget, the
bots' ``stop_timeout`` plus :data:`WIND_DOWN_SLACK_S`), so every seat ends cashed out or refunded
even past the saturation point; it counts the chips and writes summary.json, history.csv and
report.html (a run that saturated says so: :mod:`tablestorm.sim.load.saturation`).

Where the tables live is one :class:`~tablestorm.sim.load.table_sites.TableSites`: the run's own table hosts on Ray
with the registry's ledger (:mod:`tablestorm.sim.load.own_hosts`), or servers it is given (``--target``:
:mod:`tablestorm.sim.load.given_servers`). The driver does the same with either; only they differ in how tables are
opened, what an outage does (a host's tables rebuilt elsewhere, or a server's lost) and how the
chips are counted (by the ledger, or from the servers' own tables).

Errors (``errors`` by kind, and the threshold on them) are every fault of the system under test, in
the load and in the wind-down alike; what the test does on purpose (bots told to stop, flaky
drops) and the rules working (late actions) are not. The exact list, and how the chaos's errors are
told apart: docs/scenarios.md#what-counts-as-an-error.

The parts: :mod:`~tablestorm.sim.cluster.deployment` (the registry, hosts and fleets on Ray, spread by
:mod:`~tablestorm.sim.cluster.placement`), :mod:`.table_sites` (where the tables live), :mod:`.seat_pool`
(the cash tables and who plays which seat), :mod:`.shaping` (bots joining and leaving by the scenario's
model), :mod:`.timeline` (the chaos, each recovery and lost server, and when the bots were back),
:mod:`.summary` (summary.json). A host or fleet Ray reports dead or unreachable is
killed and replaced (a fleet on another node when it can be; a host's tables on the surviving
hosts): losing a node loses no chip.
"""

from __future__ import annotations

import contextlib
import random
import sys
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from tablestorm.sim.bots.client import Assignment, Return
from tablestorm.sim.cluster import connection
from tablestorm.sim.cluster.affinity import Pinning
from tablestorm.sim.cluster.deployment import CALL_TIMEOUT, Deployment, within
from tablestorm.sim.cluster.interruption import Interruption, abort_in
from tablestorm.sim.load.chaos import ChaosEvent
from tablestorm.sim.load.given_servers import GivenServers, Target
from tablestorm.sim.load.live import LiveView
from tablestorm.sim.load.own_hosts import OwnHosts
from tablestorm.sim.load.recovery import CHAOS, LOST
from tablestorm.sim.load.report import write_report
from tablestorm.sim.load.saturation import SaturationWatch
from tablestorm.sim.load.scenario import Scenario
from tablestorm.sim.load.seat_pool import Occupant, SeatPool
from tablestorm.sim.load.shaping import LoadShape
from tablestorm.sim.load.stats import RunStats
from tablestorm.sim.load.summary import LoadRunFacts, WindDown, build_summary
from tablestorm.sim.load.table_sites import Outages, TableChips, TableSites
from tablestorm.sim.load.timeline import Timeline
from tablestorm.sim.reporting.meta import run_metadata
from tablestorm.sim.rooms.registry import RoomChoice

__all__ = ["LoadTest", "RunResult", "RunState"]

WIND_DOWN_SLACK_S = 15.0
"""The wind-down's budget beyond the bots' ``stop_timeout``: their fleets' last calls and replies."""


@dataclass(slots=True)
class RunResult:
    summary: dict[str, Any]
    files: dict[str, Path]
    ok: bool


@dataclass(slots=True)
class RunState:
    """What a running load test has so far: what ``on_second`` callbacks and the end read."""

    scenario: Scenario
    deployment: Deployment
    sites: TableSites
    pool: SeatPool
    rng: random.Random
    start: float
    shape: LoadShape
    stats: RunStats = field(default_factory=RunStats)
    online: dict[str, int] = field(default_factory=dict)
    """fleet -> bots playing, as it last reported."""
    bought_at: dict[str, dict[str, int]] = field(default_factory=dict)
    """fleet -> table -> chips its bots paid there, as it last reported (dead fleets keep theirs)."""
    cashed_out_at: dict[str, dict[str, int]] = field(default_factory=dict)
    """fleet -> table -> chips its bots were paid there."""
    kinds_acted: set[str] = field(default_factory=set)
    bots_online_series: dict[int, int] = field(default_factory=dict)
    next_player: int = 0
    hands_voided_by_faults: int = 0
    timeline: Timeline = field(default_factory=Timeline)
    killed: list[str] = field(default_factory=list)
    """Endpoints the run's chaos killed, in order: every fleet is told (see :meth:`Fleet.chaos_killed`)."""
    notes: list[str] = field(default_factory=list)
    """Warnings the run found on its way (a lost fleet's seats left taken, say)."""
    violations: dict[str, list[str]] = field(default_factory=dict)
    """fleet -> the first protocol violations its bots described (the counts are in ``stats``)."""
    finishing: bool = False
    """The load is over: a fleet that dies now is not replaced (its players stay seated)."""
    load_stats: RunStats | None = None
    """The load's stats while the wind-down counts into ``stats`` apart."""
    processing: list[tuple[float, float]] = field(default_factory=list)
    """The servers' processing-time histogram at the end of the load (merged)."""
    saturation: SaturationWatch = field(default_factory=SaturationWatch)
    load_done: bool = False
    """Set by an ``on_second`` callback to end the load at that tick (before its duration is up);
    the wind-down and the report follow as they do at the end of the duration."""

    @property
    def bots_online(self) -> int:
        return sum(self.online.values())

    @property
    def games(self) -> dict[str, str]:
        """table -> game."""
        return self.pool.games

    @property
    def seated(self) -> dict[tuple[str, int], Occupant]:
        """(table, seat) -> the bot handed that seat and not removed."""
        return self.pool.seated

    @property
    def placements(self) -> dict[str, str]:
        """Every host and fleet ever started (dead ones included) -> the Ray node it ran on."""
        return self.deployment.placement.nodes

    @property
    def hosts(self) -> dict[str, Any]:
        """The live table hosts' actor handles by id (none with given servers)."""
        return self.deployment.hosts

    @property
    def fleets(self) -> dict[str, Any]:
        """The live bot fleets' actor handles by id."""
        return self.deployment.fleets

    def table_chips(self) -> dict[str, TableChips]:
        """table -> what every fleet's bots paid there and were paid."""
        tables = {t for paid in (*self.bought_at.values(), *self.cashed_out_at.values()) for t in paid}
        return {
            t: TableChips(
                sum(paid.get(t, 0) for paid in self.bought_at.values()),
                sum(paid.get(t, 0) for paid in self.cashed_out_at.values()),
            )
            for t in tables
        }


class LoadTest:
    """One `tablestorm load` run against a Ray cluster (started here when ``address`` is None)."""

    def __init__(
        self,
        scenario: Scenario,
        out_dir: Path,
        *,
        address: str | None = None,
        servers: Target | None = None,
        chaos: tuple[ChaosEvent, ...] = (),
        prometheus: bool = False,
        stream: TextIO = sys.stderr,
        host_limits: dict[str, Any] | None = None,
        bot_config: dict[str, Any] | None = None,
        on_second: Callable[[int, RunState], None] | None = None,
        target: Callable[[float], int] | None = None,
        interruption: Interruption | None = None,
        command: Sequence[str] = (),
        replace_dead_hosts: bool = False,
        spared_hosts: Collection[str] = (),
        pinning: Pinning | None = None,
    ) -> None:
        """``servers``: load these table servers (``--target``) instead of table hosts of the run's
        own; ``target``: the closed model's bot count at each second of the run, in place of the
        scenario's (see :class:`~tablestorm.sim.load.shaping.LoadShape`); ``interruption``: the signals of a
        command-line run (see :mod:`tablestorm.sim.cluster.interruption`); ``command``: its argv, for the report's
        metadata; ``spared_hosts``: hosts a ``kill-host`` event never picks (a soak's reference host,
        whose memory it judges over the whole run); ``pinning``: the cores the hosts and the fleets
        run on (:mod:`tablestorm.sim.cluster.affinity`; the caller pins its own process)."""
        self.scenario = scenario
        self.out_dir = out_dir
        self.address = address
        self.servers = servers
        self.chaos = sorted(chaos, key=lambda e: e.at)
        self.prometheus = prometheus
        self.stream = stream
        self.host_limits = {"max_tables": 5000, **(host_limits or {})}
        self.bot_config = {"stop_timeout": 30.0, **(bot_config or {})}
        self.on_second = on_second
        self.target = target
        self.interruption = interruption or Interruption(stream)
        self.command = tuple(command)
        self.replace_dead_hosts = replace_dead_hosts
        self.spared_hosts = frozenset(spared_hosts)
        self.pinning = pinning
        self.prometheus_url: str | None = None
        self.prometheus_server: Any = None
        """The run's :class:`~tablestorm.sim.load.prometheus.PrometheusServer` while it runs (with ``prometheus``)."""
        self.registry: Any = None
        """The run's registry actor while it runs (None with given servers: no ledger)."""

    def _room(self) -> RoomChoice:
        """The scenario's room, with ``--tls-ca``'s CA for the gRPC room of given servers."""
        room, given = self.scenario.room, self.servers
        if given is None or given.tls_ca is None:
            return room
        return replace(room, options={**room.options, "tls_ca": given.tls_ca.decode("ascii")})

    # ----------------------------------------------------------------- the run

    def run(self) -> RunResult:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        info = connection.connect(self.address)
        prom = None
        deployment: Deployment | None = None
        try:
            import ray

            self._ray = ray
            with contextlib.ExitStack() as closing:
                given = self.servers
                deployment = Deployment(
                    ray, self.out_dir, host_limits=self.host_limits, bot_config=self.bot_config, start=time.time(),
                    registry=given is None, room=self._room(), pinning=self.pinning,
                )
                self.registry = deployment.registry
                sites: TableSites = (
                    OwnHosts(deployment, self.scenario.hosts, replace=self.replace_dead_hosts) if given is None
                    else closing.enter_context(GivenServers(given))
                )
                if self.prometheus:  # started first: it comes up while the actors do
                    from tablestorm.sim.load.prometheus import PrometheusServer

                    prom = self.prometheus_server = PrometheusServer(self.out_dir)
                pool = SeatPool()
                sites.open(self.scenario, pool)
                state = RunState(
                    self.scenario, deployment, sites, pool, random.Random(self.scenario.seed), time.time(),
                    LoadShape(self.scenario, self.target),
                )
                for _ in range(self.scenario.fleets):
                    self._start_fleet(state)
                deployment.write_targets()
                if prom is not None:
                    prom.wait_ready()
                    self.prometheus_url = prom.url
                    print(f"prometheus: {prom.url}", file=self.stream, flush=True)
                # The timeline (duration, stages, chaos times, rates) starts now that everything is
                # up: setting up thousands of tables must not eat into the seconds of load asked for.
                state.start = time.time()
                deployment.begin(state.start)
                with self.interruption.running():
                    try:
                        self._loop(state)
                        summary, files = self._finish(state)
                    except Exception as exc:  # the Abort itself, or wrapped by the native code it interrupted
                        if abort_in(exc) is None:
                            raise
                        with self.interruption.shielded():
                            summary, files = self._report(state, time.time() - state.start, aborted=True)
            return RunResult(summary, files, bool(summary.get("thresholds_ok", True)))
        finally:
            with self.interruption.shielded("stopping the run's processes"):
                if prom is not None:
                    prom.stop()
                    self.prometheus_server = None
                if deployment is not None:
                    deployment.kill_all()
                if info.started_here:
                    connection.disconnect()

    def _start_fleet(self, state: RunState, avoid: frozenset[str] = frozenset()) -> str:
        deployment = state.deployment
        fleet_id = deployment.start_fleet(avoid)
        state.online[fleet_id] = 0
        for endpoint in state.killed:  # what the other fleets were told before each kill
            within(self._ray, deployment.fleets[fleet_id].chaos_killed.remote(endpoint), CALL_TIMEOUT, fleet_id)
        return fleet_id

    def _now(self, state: RunState) -> float:
        """Seconds since the load began, as the summary and the report give times."""
        return round(time.time() - state.start, 1)

    # ----------------------------------------------------------------- each second

    def _loop(self, state: RunState) -> None:
        live = LiveView(self.stream, duration_s=self.scenario.duration_s)
        chaos = deque(self.chaos)
        second = 0
        while not self.interruption.requested.is_set():
            elapsed = time.time() - state.start
            if elapsed >= self.scenario.duration_s:
                break
            step = state.shape.step(elapsed, {f: state.online[f] for f in state.deployment.fleets})
            for fleet_id, count in step.remove.items():
                self._remove(state, fleet_id, count)
            self._add(state, step.add, elapsed)
            while chaos and chaos[0].at <= elapsed:
                self._inject(state, chaos.popleft())
            self._watch(state)
            self._collect(state)
            # By the second of the run, not by this loop's count: an overloaded run's loop takes longer
            # than a second, and the saturation windows and the report's charts are in seconds of the run.
            state.bots_online_series[int(elapsed)] = state.bots_online
            state.saturation.update(state.stats, state.bots_online_series, elapsed)
            live.update(state.stats, elapsed, bots_online=state.bots_online, saturated=state.saturation.now)
            if self.on_second is not None:
                self.on_second(second, state)
            second += 1
            if state.load_done:
                break
            pause = state.start + second - time.time()
            if pause > 0:  # the run's one-second tick (a timeline, not a wait for state); a signal ends it
                self.interruption.requested.wait(pause)
        live.finish()

    def _add(self, state: RunState, count: int, elapsed: float) -> None:
        fleets = state.deployment.fleets
        count = min(count, len(state.pool.free))
        if count <= 0 or not fleets:
            return
        scenario, rng = self.scenario, state.rng
        kinds = scenario.bot_kinds(count, rng)
        fleet_ids = list(fleets)
        per_fleet: dict[str, list[Assignment]] = {f: [] for f in fleet_ids}
        seats = state.pool.take(count)
        endpoints = {t: state.sites.where(t) for t in {s.table_id for s in seats}}
        for k, seat in enumerate(seats):
            endpoint = endpoints.get(seat.table_id)
            if endpoint is None:
                state.pool.give_back(seat)
                continue
            fleet_id = fleet_ids[(state.next_player + k) % len(fleet_ids)]
            player_id = f"p{state.next_player + k}"
            state.pool.occupy(seat, Occupant(fleet_id, player_id))
            per_fleet[fleet_id].append(Assignment(
                endpoint=endpoint,
                table_id=seat.table_id,
                seat=seat.seat,
                player_id=player_id,
                bot_kind=kinds[k],
                think=scenario.think,
                seed=rng.randrange(1 << 30),
            ))
            state.shape.joined(elapsed, fleet_id, rng)
        state.next_player += count
        refs = {f: fleets[f].add.remote(a) for f, a in per_fleet.items() if a}
        for fleet_id, ref in refs.items():
            try:
                state.online[fleet_id] += self._ray.get(ref)
            except self._ray.exceptions.RayActorError:
                self._fleet_died(state, fleet_id, LOST)  # its new seats are free again or played anew

    def _remove(self, state: RunState, fleet_id: str, count: int) -> None:
        """Stop ``count`` bots of a fleet; their seats come back free (see :meth:`_collect`) once
        they have stood up, which waits for their hands to end: the timeline does not."""
        try:
            leaving: int = self._ray.get(state.deployment.fleets[fleet_id].remove.remote(count))
        except self._ray.exceptions.RayActorError:
            self._fleet_died(state, fleet_id, LOST)
            return
        state.online[fleet_id] = max(0, state.online[fleet_id] - leaving)

    def _collect(self, state: RunState) -> None:
        reports, dead = state.deployment.collect()
        for fleet in reports:
            fleet_id, report = fleet.fleet_id, fleet.report
            state.stats.merge(RunStats.from_dict(report["stats"]))
            state.online[fleet_id] = report["online"]
            state.bought_at[fleet_id] = report["bought_at"]
            state.cashed_out_at[fleet_id] = report["cashed_out_at"]
            state.kinds_acted.update(report["kinds_acted"])
            state.violations[fleet_id] = report["violations"]
            state.pool.freed(fleet_id, report["freed"])
            state.timeline.returned(Return(*back) for back in report["returns"])
        for fleet_id in dead:
            self._fleet_died(state, fleet_id, LOST)

    # ----------------------------------------------------------------- faults

    def _inject(self, state: RunState, event: ChaosEvent) -> None:
        deployment, at = state.deployment, self._now(state)
        victims = state.sites.killable()
        candidates = sorted(set(victims) - self.spared_hosts)
        if event.action == "kill-host" and len(victims) > 1 and candidates:
            victim = state.rng.choice(candidates)
            print(f"chaos: killing {victim} at {at:.1f}s", file=self.stream, flush=True)
            state.timeline.chaos(at, event.action, victim)
            # Before the kill, so that every bot can tell the failures it causes from others.
            state.killed.append(victims[victim])
            deployment.broadcast(deployment.fleets, "chaos_killed", victims[victim])
            self._outages(state, state.sites.kill(victim, at))
        elif event.action == "kill-fleet" and deployment.fleets:
            victim = state.rng.choice(sorted(deployment.fleets))
            print(f"chaos: killing {victim} at {at:.1f}s", file=self.stream, flush=True)
            state.timeline.chaos(at, event.action, victim)
            self._ray.kill(deployment.fleets[victim], no_restart=True)
            self._fleet_died(state, victim, CHAOS)
        elif event.action == "kill-registry" and deployment.registry is not None:
            print(f"chaos: killing the registry at {at:.1f}s", file=self.stream, flush=True)
            state.timeline.chaos(at, event.action, "registry")
            restart_s = deployment.kill_registry()
            journal = deployment.registry_journal_bytes() or 0
            print(f"restarted: the registry answered again {restart_s:.2f}s after the kill, from its journal "
                  f"({journal:,} bytes)", file=self.stream, flush=True)
            state.timeline.registry_restarted(at, CHAOS, restart_s, journal)

    def _watch(self, state: RunState) -> None:
        self._outages(state, state.sites.watch(self._now(state), state.table_chips()))

    def _outages(self, state: RunState, outages: Outages) -> None:
        """Count what the servers' outages cost: a host's voided hands (its tables are back
        elsewhere), a lost server's tables and the bots that sat at them (told to stop there)."""
        for recovery in outages.recoveries:
            print(f"rebuilt: {recovery.host} ({recovery.endpoint}) on node {recovery.node_address}, lost at "
                  f"{recovery.at_s:.1f}s: {len(recovery.tables)} tables on the other hosts, {recovery.voided} hand"
                  f"{'' if recovery.voided == 1 else 's'} voided", file=self.stream, flush=True)
            state.hands_voided_by_faults += recovery.voided
            for table_id in recovery.voided_tables:
                state.stats.hand_voided(state.games[table_id])
            moved = set(recovery.tables)
            state.timeline.host_recovered(recovery, [key for key in state.seated if key[0] in moved])
        deployment = state.deployment
        for loss in outages.losses:
            print(f"lost: {loss.server} stopped answering at {loss.at_s:.1f}s", file=self.stream, flush=True)
            held = state.pool.drop_tables(loss.tables)
            state.timeline.server_lost(loss, [(seat.table_id, seat.seat) for seat, _ in held])
            deployment.broadcast(deployment.fleets, "abandon", list(loss.tables))

    def _fleet_died(self, state: RunState, fleet_id: str, cause: str) -> None:
        """A dead fleet's players keep their seats and chips; a new fleet plays those seats again
        with the tokens the ledger holds (a seat whose player never sat down is free again).
        Without a ledger (given servers) nobody holds the tokens: the seats stay taken."""
        ray, deployment = self._ray, state.deployment
        deployment.remove_fleet(fleet_id)
        state.online.pop(fleet_id, None)
        if state.finishing:
            return
        at = self._now(state)
        lost_node = state.placements.get(fleet_id)
        where = ("", "") if lost_node is None else (lost_node, deployment.node_address(lost_node))
        replacement = self._start_fleet(state, frozenset({lost_node} if lost_node else ()))
        deployment.write_targets()
        orphans = state.pool.held_by(fleet_id)
        tokens = state.sites.seat_tokens([(seat.table_id, seat.seat, occupant.player_id) for seat, occupant in orphans])
        if tokens is None:
            for seat, _ in orphans:
                state.pool.lose(seat)
            state.notes.append(f"{fleet_id} was lost at {at:.1f} s: its {len(orphans)} seats stay taken at their "
                               "servers (no ledger holds their tokens)")
            state.timeline.fleet_recovered(fleet_id, at, cause, 0, None, where)
            return
        assignments = []
        for (seat, occupant), token in zip(orphans, tokens, strict=True):
            endpoint = state.sites.where(seat.table_id)
            if token is None or endpoint is None:
                state.pool.vacate(seat)
                continue
            state.pool.reassign(seat, replacement)
            assignments.append(Assignment(
                endpoint=endpoint, table_id=seat.table_id, seat=seat.seat, player_id=occupant.player_id,
                bot_kind=self.scenario.bot_kinds(1, state.rng)[0], think=self.scenario.think,
                seed=state.rng.randrange(1 << 30), seat_token=token,
            ))
        back = 0
        if assignments:
            try:
                back = ray.get(deployment.fleets[replacement].add.remote(assignments))
            except ray.exceptions.RayActorError:
                self._fleet_died(state, replacement, LOST)
            else:
                state.online[replacement] += back
        back_s = time.time() - state.start - at if back == len(assignments) else None
        if back_s is not None:  # a node lost with a host and a fleet: the seats at its moved tables are back
            state.timeline.returned(Return(a.table_id, a.seat, at + back_s) for a in assignments)
        state.timeline.fleet_recovered(fleet_id, at, cause, len(assignments), back_s, where)

    # ----------------------------------------------------------------- the end

    def _finish(self, state: RunState) -> tuple[dict[str, Any], dict[str, Path]]:
        """The wind-down, then the report. First the tables stop dealing, then the bots leave, then
        the tables end: a table that dealt on would keep its leaving players in hand after hand
        (they act at once, so hands race and starve their StandUp calls), and a drain before they
        left would cut their streams and void their hands. A dead host or fleet is found on the
        way; the ledger refunds its hands."""
        deployment, sites = state.deployment, state.sites
        duration = time.time() - state.start
        state.finishing = True
        self._collect(state)  # everything up to the end of the load
        self._watch(state)
        state.processing = sites.processing()
        # The wind-down's hands and actions are counted apart: they must not swell the rates
        # measured over the load's duration. Its errors are faults all the same (see the module's
        # docstring) and count with the run's.
        state.load_stats, state.stats = state.stats, RunStats()
        wind_down_started = time.time()
        budget = self.bot_config["stop_timeout"] + WIND_DOWN_SLACK_S
        sites.stop_dealing()
        left = len(deployment.fleets) - len(deployment.broadcast(deployment.fleets, "stop_all", timeout=budget))
        self._collect(state)
        self._watch(state)
        ended = sites.finish()
        wind_down, state.stats, state.load_stats = state.stats, state.load_stats, None
        state.stats.merge_faults(wind_down)
        chips = sites.chips(state.table_chips())
        end = WindDown(
            seconds=time.time() - wind_down_started,
            hands=wind_down.hands,
            actions=wind_down.actions,
            errors=wind_down.errors,
            chips_left_at_tables=chips.left_on_tables,
            seats_stood_up_by_hosts=ended.seats_stood_up,
            chips_paid_by_hosts=ended.chips_paid,
            budget_s=budget,
            fleets_late=left,
        )
        with self.interruption.shielded():
            return self._report(state, duration, wind_down=end, voided_at_end=ended.voided,
                                chips=(chips.start, chips.end))

    def _report(
        self,
        state: RunState,
        duration: float,
        *,
        aborted: bool = False,
        wind_down: WindDown | None = None,
        voided_at_end: int = 0,
        chips: tuple[int | None, int | None] = (None, None),
    ) -> tuple[dict[str, Any], dict[str, Path]]:
        """Write summary.json, history.csv and report.html for the run as far as it went; without
        ``chips`` (an aborted run never counts them) chip conservation is unknown. Called shielded
        from signals: the report is what an interrupted run keeps."""
        deployment = state.deployment
        stats = state.stats if state.load_stats is None else state.load_stats
        scenario = self.scenario
        stages = tuple(scenario.stages_run(duration))
        warnings = []
        if scenario.stages and len(stages) < len(scenario.stages):
            warnings.append(
                f"the ramp was cut short: {len(scenario.stages) - len(stages)} of {len(scenario.stages)}"
                f" stages never ran (duration_s {scenario.duration_s:g} < the stages'"
                f" {sum(st.duration_s for st in scenario.stages):g} s)"
            )
        interrupted = self.interruption.signal_name
        if interrupted:
            warnings.append(f"interrupted by {interrupted} after {duration:.1f} of {scenario.duration_s:g} s")
        if aborted:
            warnings.append("stopped at once by a second signal: no wind-down, chips not counted")
        warnings += state.notes
        saturation = state.saturation.first
        if saturation is not None:
            warnings.append(saturation.describe())
        sites = state.sites.describe()
        timeline = state.timeline.to_summary()
        facts = LoadRunFacts(
            run=run_metadata(self.command or ("tablestorm", "load", scenario.name), state.start),
            scenario=scenario.name,
            scenario_resolved=scenario.resolved(),
            stages_run=stages,
            warnings=tuple(warnings),
            interrupted=interrupted,
            aborted=aborted,
            kinds_acted=tuple(state.kinds_acted),
            hands_voided_by_faults=state.hands_voided_by_faults,
            hands_voided_at_end=voided_at_end,
            wind_down=wind_down,
            chaos_events=tuple(timeline["chaos_events"]),
            recoveries=tuple(timeline["recoveries"]),
            fleet_recoveries=tuple(timeline["fleet_recoveries"]),
            servers_lost=tuple(timeline["servers_lost"]),
            registry_restarts=tuple(timeline["registry_restarts"]),
            chips_bought_by_bots=sum(chips.bought for chips in state.table_chips().values()),
            nodes=sites.nodes,
            table_servers=sites.servers,
            target=sites.target,
            placements=state.placements,
            registry_node=deployment.registry_node,
            registry_journal_bytes=deployment.registry_journal_bytes(),
            protocol_violation_samples=tuple(v for f in sorted(state.violations) for v in state.violations[f])[:50],
            prometheus_url=self.prometheus_url,
            processing=state.processing,
            saturation=None if saturation is None else saturation.to_dict(),
        )
        summary = build_summary(
            stats,
            bots=max(state.bots_online_series.values(), default=0),
            duration_s=round(duration, 2),
            chips_start=chips[0],
            chips_end=chips[1],
            hosts=sites.hosts,
            fleets=scenario.fleets,
            thresholds=scenario.thresholds,
            run=facts.to_dict(),
        )
        files = write_report(self.out_dir, summary, stats, bots_online=state.bots_online_series,
                             title=f"tablestorm load: {scenario.name}")
        return summary, files
