"""`tablestorm load`: place table hosts and bot fleets on Ray, ramp the load, gather, report.

The driver owns the run's timeline, which starts once the hosts, tables and fleets are up. Every
second it moves the bot count toward the scenario's target (closed model) or lets new players
arrive (open model), fires chaos events that are due, checks that every host still answers and
rebuilds dead hosts' tables elsewhere from the ledger, and merges the fleets' stats for the live
view; nothing in a tick waits for a hand to end (leaving bots stand up in their fleets). At the end
comes the wind-down: it closes every table (no new hand is dealt; the running one plays out), stops
the bots (each answers its turns at once and stands up when its hand is over), then drains the
hosts (a hand still running, normally none, is voided with an exact refund); it counts the chips by
the ledger and writes summary.json, history.csv and report.html.

What counts as an error (``errors`` by kind, ``errors_total``, the ``errors==0`` threshold): every
fault of the system under test, in the load and in the wind-down alike. That is a call that fails,
by gRPC status name (a SitDown, an action refused for another reason than coming too late, a Rebuy,
a SitIn, a stream that breaks, e.g. UNAVAILABLE when a host dies, a leaving bot's StandUp or
SitOut); a bot that gets no Welcome within ``rpc_timeout`` or cannot stand up within
``stop_timeout`` (DEADLINE_EXCEEDED); PROTOCOL_VIOLATION (see :mod:`sim.bots.client`); BOT_CRASHED;
RESOLVE_FAILED. Not errors, because they are the test's own doing or the rules working: a bot
closing its own stream and calls because it was told to stop (CANCELLED), a flaky bot dropping its
stream on purpose, a stream the server ends with OK (after StandUp, or a closed table), an action
that came after the clock or the hand's end (``late_actions``), a Rebuy refused at a closing table,
and a leaving bot's call waiting its turn (at its fleet's leave gate or a busy host) within
``stop_timeout``.

``wind_down`` in summary.json: its ``seconds``, the ``hands`` and ``actions`` played out after the
load (kept out of the load's rates), its ``errors`` (already in ``errors``), and
``chips_left_at_tables``: chips of players who did not stand up. ``hands_voided_at_end`` counts the
hands the drain voided. A clean end has all three at zero: no error, nobody left seated, nothing
voided.

Hosts and fleets are spread evenly over the nodes that offer CPUs; the registry (which holds the
ledger) stays on the driver's node. A host or fleet Ray reports dead or unreachable is killed and
replaced (a fleet on another node when it can be; a host's tables on the surviving hosts):
losing a node loses no chip.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import re
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from services.table import convert

from . import cluster
from .bots.client import Assignment
from .live import LiveView
from .report import build_summary, write_report
from .scenario import GameSpec, Scenario
from .stats import RunStats


@dataclass(frozen=True, slots=True)
class ChaosEvent:
    """Kill one actor ``at`` seconds into the run: ``kill-host`` or ``kill-fleet``."""

    action: str
    at: float

    @classmethod
    def parse(cls, text: str) -> ChaosEvent:
        """``kill-host@20s`` or ``kill-fleet@7.5``: the time is required (an event "at 0 s" by
        omission would fire before the load has started)."""
        match = re.fullmatch(r"(kill-host|kill-fleet)@(\d+(?:\.\d+)?)s?", text.strip())
        if match is None:
            raise ValueError(f"--chaos: expected kill-host@SECONDS or kill-fleet@SECONDS (e.g. kill-host@20s), "
                             f"got {text!r}")
        return cls(match.group(1), float(match.group(2)))


@dataclass(slots=True)
class RunResult:
    summary: dict[str, Any]
    files: dict[str, Path]
    ok: bool


@dataclass(slots=True)
class _Seat:
    table_id: str
    seat: int
    game: str


@dataclass(slots=True)
class _Run:
    """Mutable state of one run (hosts, fleets, seats, stats)."""

    scenario: Scenario
    rng: random.Random
    start: float
    hosts: dict[str, Any] = field(default_factory=dict)
    host_info: dict[str, dict[str, Any]] = field(default_factory=dict)
    fleets: dict[str, Any] = field(default_factory=dict)
    fleet_info: dict[str, dict[str, Any]] = field(default_factory=dict)
    free: deque[_Seat] = field(default_factory=deque)
    seated: dict[tuple[str, int], tuple[str, str]] = field(default_factory=dict)
    """(table, seat) -> (fleet, player) for every bot handed a seat and not removed."""
    games: dict[str, str] = field(default_factory=dict)
    """table -> game."""
    stats: RunStats = field(default_factory=RunStats)
    online: dict[str, int] = field(default_factory=dict)
    bought: dict[str, int] = field(default_factory=dict)
    cashed: dict[str, int] = field(default_factory=dict)
    kinds_acted: set[str] = field(default_factory=set)
    bots_online_series: dict[int, int] = field(default_factory=dict)
    next_player: int = 0
    next_fleet: int = 0
    hands_voided_by_faults: int = 0
    recoveries: list[dict[str, Any]] = field(default_factory=list)
    arrivals_due: float = 0.0
    sessions: list[tuple[float, str]] = field(default_factory=list)
    host_hands: dict[str, dict[str, int]] = field(default_factory=dict)
    """host -> hands it completed by game, as it last reported (dead hosts keep their last report)."""
    placements: dict[str, str] = field(default_factory=dict)
    """Every host and fleet ever started (dead ones included) -> the Ray node it ran on."""
    placing: list[str] = field(default_factory=list)
    """Nodes chosen for actors being started now (not in ``placements`` yet)."""
    violations: dict[str, list[str]] = field(default_factory=dict)
    """fleet -> the first protocol violations its bots described (the counts are in ``stats``)."""
    finishing: bool = False
    """The load is over: a fleet that dies now is not replaced (its players stay seated)."""

    @property
    def bots_online(self) -> int:
        return sum(self.online.values())


class LoadTest:
    """One `tablestorm load` run against a Ray cluster (started here when ``address`` is None)."""

    def __init__(
        self,
        scenario: Scenario,
        out_dir: Path,
        *,
        address: str | None = None,
        chaos: tuple[ChaosEvent, ...] = (),
        prometheus: bool = False,
        stream: TextIO = sys.stderr,
        host_limits: dict[str, Any] | None = None,
        bot_config: dict[str, Any] | None = None,
        on_second: Callable[[int, _Run], None] | None = None,
    ) -> None:
        self.scenario = scenario
        self.out_dir = out_dir
        self.address = address
        self.chaos = sorted(chaos, key=lambda e: e.at)
        self.prometheus = prometheus
        self.stream = stream
        self.host_limits = {"max_tables": 5000, **(host_limits or {})}
        self.bot_config = {"stop_timeout": 30.0, **(bot_config or {})}
        self.on_second = on_second
        self.prometheus_url: str | None = None
        self.prometheus_server: Any = None
        """The run's :class:`~sim.prometheus.PrometheusServer` while it runs (with ``prometheus``)."""

    # ----------------------------------------------------------------- the run

    def run(self) -> RunResult:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        info = cluster.connect(self.address)
        prom = None
        try:
            import ray
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            from .actors import FleetActor, RegistryActor, TableHostActor

            self._ray = ray
            self._actors = (FleetActor, TableHostActor)
            self.registry_name = f"tablestorm-registry-{os.getpid()}-{time.time_ns()}"
            # The registry holds the ledger every recovery reads: it lives on the driver's node, so
            # losing any other node (with the hosts and fleets on it) never takes it along.
            here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
            registry = RegistryActor.options(name=self.registry_name, scheduling_strategy=here).remote()
            self.registry_node: str = ray.get(registry.node_id.remote())
            self.registry = registry
            if self.prometheus:  # started first: it comes up while the actors do
                from .prometheus import PrometheusServer

                prom = self.prometheus_server = PrometheusServer(self.out_dir)
            state = self._state = _Run(self.scenario, random.Random(self.scenario.seed), time.time())
            self._start_hosts(state)
            self._open_tables(state)
            for _ in range(self.scenario.fleets):
                self._start_fleet(state)
            self._write_targets(state)
            if prom is not None:
                prom.wait_ready()
                self.prometheus_url = prom.url
                print(f"prometheus: {prom.url}", file=self.stream, flush=True)
            # The timeline (duration, stages, chaos times, rates) starts now that everything is up:
            # setting up thousands of tables must not eat into the seconds of load asked for.
            state.start = time.time()
            ray.get([fleet.begin.remote(state.start) for fleet in state.fleets.values()])
            self._loop(state)
            summary, files = self._finish(state)
            if prom is not None:
                summary["prometheus_url"] = prom.url
            return RunResult(summary, files, bool(summary.get("thresholds_ok", True)))
        finally:
            if prom is not None:
                prom.stop()
                self.prometheus_server = None
            self._kill_all()
            if info.started_here:
                cluster.disconnect()

    def _start_hosts(self, state: _Run) -> None:
        ray = self._ray
        _, host_cls = self._actors
        handles = {
            f"host-{k}": host_cls.options(scheduling_strategy=self._placement(state)).remote(
                f"host-{k}", self.registry_name, self.host_limits
            )
            for k in range(self.scenario.hosts)
        }
        infos = ray.get([h.start.remote() for h in handles.values()])
        state.placing.clear()
        state.hosts.update(handles)
        state.host_info.update({i["host_id"]: i for i in infos})
        state.placements.update({i["host_id"]: i["node_id"] for i in infos})

    def _start_fleet(self, state: _Run, avoid: frozenset[str] = frozenset()) -> str:
        """Start a fleet (see :meth:`_placement`); a replacement goes to a live node other than
        ``avoid`` (the node of the actor it replaces, which may be gone before Ray's health checks
        say so)."""
        ray = self._ray
        fleet_cls, _ = self._actors
        for _attempt in range(3):
            fleet_id = f"fleet-{state.next_fleet}"
            state.next_fleet += 1
            handle = fleet_cls.options(scheduling_strategy=self._placement(state, avoid)).remote(
                fleet_id, self.registry_name, state.start, self.bot_config
            )
            chosen = frozenset(state.placing)
            try:
                info = ray.get(handle.start.remote(), timeout=60.0)
            except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
                self._end(handle)  # placed on a node that was dying: try again elsewhere
                avoid |= chosen
                continue
            finally:
                state.placing.clear()
            state.fleet_info[fleet_id] = info
            state.placements[fleet_id] = info["node_id"]
            state.fleets[fleet_id] = handle
            state.online[fleet_id] = 0
            return fleet_id
        raise RuntimeError("could not start a bot fleet in three tries")

    def _placement(self, state: _Run, avoid: frozenset[str] = frozenset()) -> Any:
        """Where the next host or fleet goes: the live node running fewest of this run's actors
        (ties in node order), among the nodes that offer CPUs (a head node started with no CPUs
        for workloads keeps none), never one in ``avoid``.

        Ray's own SPREAD is best effort and, for actors that reserve no CPU as these, can put two
        hosts on one node of three; so can a soft node affinity. The actor is pinned (hard
        affinity) and counting keeps the spread exact; a start that fails on a node that was dying
        is retried elsewhere (``avoid``: Ray may believe a lost node alive for seconds).
        """
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        nodes: list[dict[str, Any]] = self._ray.nodes()  # type: ignore[no-untyped-call]
        alive = [n for n in nodes if n.get("Alive") and n["NodeID"] not in avoid]
        working = [n for n in alive if n.get("Resources", {}).get("CPU", 0) > 0] or alive
        if not working:
            return "SPREAD"
        running = [state.placements[a] for a in (*state.hosts, *state.fleets) if a in state.placements]
        running += state.placing
        node = min(sorted(n["NodeID"] for n in working), key=running.count)
        state.placing.append(node)
        return NodeAffinitySchedulingStrategy(node, soft=False)

    def _end(self, handle: Any) -> None:
        """Kill an actor taken for dead: one that is only unreachable must not play on beside its
        replacement (a RayActorError may mean "unavailable for now" as well as "died")."""
        with contextlib.suppress(Exception):
            self._ray.kill(handle, no_restart=True)

    def _open_tables(self, state: _Run) -> None:
        """Enough tables for the peak, split by the game mix's weights, spread over the hosts.

        Bots take free seats in order, a table at a time, so the order of the tables is the order
        in which games fill: they are interleaved by weight (the game with the fewest seats queued
        per unit of weight comes next), so that at any bot count, during a ramp or as players
        arrive, the games are played in the mix's proportions, not one game after another.
        """
        scenario = self.scenario
        games = [g for g in scenario.games if g.weight > 0]
        total_weight = sum(g.weight for g in games)
        queue: list[tuple[float, int, int, GameSpec, int, bytes]] = []
        for index, spec in enumerate(games):
            options = spec.table_options(scenario.clock_seconds)
            seats = options.seats
            tables = max(1, math.ceil(scenario.peak_bots * spec.weight / total_weight / seats))
            message = convert.options_to_proto(options).SerializeToString()
            queue += [(k * seats / spec.weight, index, k, spec, seats, message) for k in range(tables)]
        specs_by_host: dict[str, list[tuple[str, bytes, int | None]]] = {h: [] for h in state.hosts}
        hosts = list(state.hosts)
        for number, (_, _, _, spec, seats, message) in enumerate(sorted(queue, key=lambda t: t[:3])):
            table_id = f"{spec.game}-{number}"
            seed = None if scenario.seed is None else scenario.seed + number
            specs_by_host[hosts[number % len(hosts)]].append((table_id, message, seed))
            state.free.extend(_Seat(table_id, s, spec.game) for s in range(1, seats + 1))
            state.games[table_id] = spec.game
        self._ray.get([state.hosts[h].create_tables.remote(specs) for h, specs in specs_by_host.items()])

    # ----------------------------------------------------------------- each second

    def _loop(self, state: _Run) -> None:
        live = LiveView(self.stream, duration_s=self.scenario.duration_s)
        chaos = deque(self.chaos)
        second = 0
        while True:
            elapsed = time.time() - state.start
            if elapsed >= self.scenario.duration_s:
                break
            self._steer(state, elapsed)
            while chaos and chaos[0].at <= elapsed:
                self._inject(state, chaos.popleft())
            self._check_hosts(state)
            self._collect(state)
            state.bots_online_series[second] = state.bots_online
            live.update(state.stats, elapsed, bots_online=state.bots_online)
            if self.on_second is not None:
                self.on_second(second, state)
            second += 1
            pause = state.start + second - time.time()
            if pause > 0:
                time.sleep(pause)  # the run's one-second tick: a timeline, not a wait for state
        live.finish()

    def _steer(self, state: _Run, elapsed: float) -> None:
        scenario = self.scenario
        if scenario.open_model:
            state.arrivals_due += scenario.arrival_rate
            arriving = int(state.arrivals_due)
            state.arrivals_due -= arriving
            leaving = [fleet for until, fleet in state.sessions if until <= elapsed]
            state.sessions = [(u, f) for u, f in state.sessions if u > elapsed]
            for fleet_id in set(leaving):
                self._remove(state, fleet_id, leaving.count(fleet_id))
            self._add(state, arriving, elapsed)
            return
        target = scenario.target_bots(elapsed)
        if target > state.bots_online:
            self._add(state, target - state.bots_online, elapsed)
        elif target < state.bots_online:
            excess = state.bots_online - target
            for fleet_id in list(state.fleets):
                take = min(excess, state.online[fleet_id])
                if take:
                    self._remove(state, fleet_id, take)
                    excess -= take

    def _add(self, state: _Run, count: int, elapsed: float) -> None:
        count = min(count, len(state.free))
        if count <= 0 or not state.fleets:
            return
        scenario = self.scenario
        kinds = scenario.bot_kinds(count, state.rng)
        per_fleet: dict[str, list[Assignment]] = {f: [] for f in state.fleets}
        fleet_ids = list(state.fleets)
        endpoints = {t: self._where(t) for t in {s.table_id for s in list(state.free)[:count]}}
        for k in range(count):
            seat = state.free.popleft()
            endpoint = endpoints.get(seat.table_id)
            if endpoint is None:
                state.free.append(seat)
                continue
            fleet_id = fleet_ids[(state.next_player + k) % len(fleet_ids)]
            player_id = f"p{state.next_player + k}"
            state.seated[(seat.table_id, seat.seat)] = (fleet_id, player_id)
            per_fleet[fleet_id].append(Assignment(
                endpoint=endpoint,
                table_id=seat.table_id,
                seat=seat.seat,
                player_id=player_id,
                bot_kind=kinds[k],
                think=scenario.think,
                seed=state.rng.randrange(1 << 30),
            ))
            if scenario.open_model:
                state.sessions.append((elapsed + scenario.session.sample(state.rng), fleet_id))
        state.next_player += count
        refs = {f: state.fleets[f].add.remote(a) for f, a in per_fleet.items() if a}
        for fleet_id, ref in refs.items():
            try:
                state.online[fleet_id] += self._ray.get(ref)
            except self._ray.exceptions.RayActorError:
                self._fleet_died(state, fleet_id)  # its new seats are free again or played anew

    def _remove(self, state: _Run, fleet_id: str, count: int) -> None:
        """Stop ``count`` bots of a fleet; their seats come back free (see :meth:`_collect`) once
        they have stood up, which waits for their hands to end: the timeline does not."""
        try:
            leaving: int = self._ray.get(state.fleets[fleet_id].remove.remote(count))
        except self._ray.exceptions.RayActorError:
            self._fleet_died(state, fleet_id)
            return
        state.online[fleet_id] = max(0, state.online[fleet_id] - leaving)

    def _where(self, table_id: str) -> str | None:
        endpoint: str | None = self._ray.get(self.registry.where.remote(table_id))
        return endpoint

    def _collect(self, state: _Run) -> None:
        ray = self._ray
        fleet_ids = list(state.fleets)
        refs = [state.fleets[f].collect.remote() for f in fleet_ids]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=5.0)
        for fleet_id, ref in zip(fleet_ids, refs, strict=True):
            if ref not in ready:
                continue
            try:
                report = ray.get(ref)
            except ray.exceptions.RayActorError:
                self._fleet_died(state, fleet_id)
                continue
            state.stats.merge(RunStats.from_dict(report["stats"]))
            state.online[fleet_id] = report["online"]
            state.bought[fleet_id] = report["chips_bought"]
            state.cashed[fleet_id] = report["chips_cashed_out"]
            state.kinds_acted.update(report["kinds_acted"])
            state.violations[fleet_id] = report["violations"]
            for table_id, seat in report["freed"]:
                if state.seated.get((table_id, seat), ("",))[0] == fleet_id:
                    del state.seated[(table_id, seat)]
                    state.free.append(_Seat(table_id, seat, state.games[table_id]))

    # ----------------------------------------------------------------- faults

    def _inject(self, state: _Run, event: ChaosEvent) -> None:
        ray = self._ray
        if event.action == "kill-host" and len(state.hosts) > 1:
            victim = state.rng.choice(sorted(state.hosts))
            print(f"chaos: killing {victim} at {time.time() - state.start:.1f}s", file=self.stream, flush=True)
            ray.kill(state.hosts[victim], no_restart=True)
            self._hosts_died(state, [victim])
        elif event.action == "kill-fleet" and state.fleets:
            victim = state.rng.choice(sorted(state.fleets))
            print(f"chaos: killing {victim} at {time.time() - state.start:.1f}s", file=self.stream, flush=True)
            ray.kill(state.fleets[victim], no_restart=True)
            self._fleet_died(state, victim)

    def _check_hosts(self, state: _Run) -> None:
        ray = self._ray
        ids = list(state.hosts)
        refs = [state.hosts[h].hands_by_game.remote() for h in ids]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=3.0)
        dead = []
        for host_id, ref in zip(ids, refs, strict=True):
            if ref not in ready:
                continue  # slow, not dead: asked again next second
            try:
                state.host_hands[host_id] = ray.get(ref)
            except ray.exceptions.RayActorError:
                dead.append(host_id)
        if dead:
            self._hosts_died(state, dead)

    def _hosts_died(self, state: _Run, dead: list[str]) -> None:
        """Rebuild dead hosts' tables on the surviving hosts from the ledger (exact refunds).

        Several hosts go at once when a node is lost, and one chosen to rebuild on may turn out to
        be dead as well (on the same node, not yet noticed): its tables, those it was given
        included, are then rebuilt again on the others.
        """
        ray = self._ray
        pending = list(dead)
        while pending:
            tables: list[tuple[str, str]] = []
            for host_id in pending:
                handle = state.hosts.pop(host_id, None)
                if handle is not None:
                    self._end(handle)
                state.host_info.pop(host_id, None)
                tables += [(host_id, t) for t in ray.get(self.registry.mark_dead.remote(host_id))]
            if not state.hosts:
                raise RuntimeError("every table host died: nothing left to rebuild the tables on")
            survivors = sorted(state.hosts)
            plans: dict[str, list[Any]] = {h: [] for h in survivors}
            origin: dict[str, list[str]] = {h: [] for h in survivors}
            for k, (host_id, table_id) in enumerate(tables):
                target = survivors[k % len(survivors)]
                ray.get(self.registry.move.remote(table_id, target))
                plans[target].append(ray.get(self.registry.plan.remote(table_id)))
                origin[target].append(host_id)
            refs = {h: state.hosts[h].restore_tables.remote(p) for h, p in plans.items() if p}
            voided_from = dict.fromkeys(pending, 0)
            pending = []
            for target, ref in refs.items():
                try:
                    ray.get(ref)
                except ray.exceptions.RayActorError:
                    pending.append(target)  # dead too: these tables move again with its own
                    continue
                for plan, host_id in zip(plans[target], origin[target], strict=True):
                    voided_from[host_id] += plan.hand_voided
            now = round(time.time() - state.start, 1)
            for host_id, voided in voided_from.items():
                state.hands_voided_by_faults += voided
                for _ in range(voided):
                    state.stats.hand_voided()
                moved = sum(1 for h, _ in tables if h == host_id)
                state.recoveries.append({"host": host_id, "at_s": now, "tables": moved, "voided": voided})
        self._write_targets(state)

    def _fleet_died(self, state: _Run, fleet_id: str) -> None:
        """A dead fleet's players keep their seats and chips; a new fleet plays those seats again
        with the tokens the ledger holds (a seat whose player never sat down is free again)."""
        ray = self._ray
        handle = state.fleets.pop(fleet_id, None)
        if handle is not None:
            self._end(handle)
        state.fleet_info.pop(fleet_id, None)
        state.online.pop(fleet_id, None)
        if state.finishing:
            return
        lost_node = state.placements.get(fleet_id)
        replacement = self._start_fleet(state, frozenset({lost_node} if lost_node else ()))
        self._write_targets(state)
        orphans = [(key, player) for key, (owner, player) in state.seated.items() if owner == fleet_id]
        tokens = ray.get([self.registry.seat_token.remote(t, s, p) for (t, s), p in orphans])
        assignments = []
        for ((table_id, seat), player_id), token in zip(orphans, tokens, strict=True):
            endpoint = self._where(table_id)
            if token is None or endpoint is None:
                state.seated.pop((table_id, seat))
                state.free.append(_Seat(table_id, seat, state.games[table_id]))
                continue
            state.seated[(table_id, seat)] = (replacement, player_id)
            assignments.append(Assignment(
                endpoint=endpoint, table_id=table_id, seat=seat, player_id=player_id,
                bot_kind=self.scenario.bot_kinds(1, state.rng)[0], think=self.scenario.think,
                seed=state.rng.randrange(1 << 30), seat_token=token,
            ))
        if assignments:
            try:
                state.online[replacement] += ray.get(state.fleets[replacement].add.remote(assignments))
            except ray.exceptions.RayActorError:
                self._fleet_died(state, replacement)

    def _write_targets(self, state: _Run) -> None:
        from .prometheus import write_targets

        write_targets(self.out_dir / "prometheus" / "targets", {
            "table_host": [i["metrics"] for i in state.host_info.values()],
            "fleet": [i["metrics"] for i in state.fleet_info.values()],
        })

    # ----------------------------------------------------------------- the end

    def _finish(self, state: _Run) -> tuple[dict[str, Any], dict[str, Path]]:
        ray = self._ray
        duration = time.time() - state.start
        state.finishing = True
        self._collect(state)  # everything up to the end of the load
        self._check_hosts(state)
        hands_by_game: dict[str, int] = {}
        for counts in state.host_hands.values():
            for game, hands in counts.items():
                hands_by_game[game] = hands_by_game.get(game, 0) + hands
        # The wind-down (bots playing out their hands, then standing up) is counted apart: hands
        # and actions after the end must not swell the rates measured over the load's duration.
        # Its errors are faults all the same (see the module's docstring) and count with the run's.
        load, state.stats = state.stats, RunStats()
        wind_down_started = time.time()
        # First the tables stop dealing, then the bots leave, then the hosts drain: a table that
        # dealt on would keep its leaving players in hand after hand (they act at once, so hands
        # race and starve their StandUp calls), and a drain before they left would cut their
        # streams and void their hands.
        for ref in [h.close_tables.remote() for h in state.hosts.values()]:
            with contextlib.suppress(ray.exceptions.RayActorError):  # found dead below
                ray.get(ref)
        for ref in [f.stop_all.remote() for f in state.fleets.values()]:
            with contextlib.suppress(ray.exceptions.RayActorError):  # its players stay seated
                ray.get(ref)
        self._collect(state)
        self._check_hosts(state)
        drained = []
        for ref in [h.drain.remote(0.0) for h in state.hosts.values()]:
            with contextlib.suppress(ray.exceptions.RayActorError):  # the ledger refunds its hands
                drained.append(ray.get(ref))
        wind_down, state.stats = state.stats, load
        for second, counts in wind_down.series.items():
            for kind, count in counts.errors.items():
                for _ in range(count):
                    load.error(kind, float(second))
        for _ in range(wind_down.hands_voided):
            load.hand_voided()
        chips = ray.get(self.registry.chips.remote())
        summary = build_summary(
            state.stats,
            bots=max(state.bots_online_series.values(), default=0),
            duration_s=round(duration, 2),
            chips_start=chips.bought,
            chips_end=chips.on_tables + chips.cashed_out,
            hosts=self.scenario.hosts,
            fleets=self.scenario.fleets,
            thresholds=self.scenario.thresholds,
        )
        summary["scenario"] = self.scenario.name
        summary["kinds_acted"] = sorted(state.kinds_acted)
        summary["hands_voided_by_faults"] = state.hands_voided_by_faults
        summary["hands_voided_at_end"] = sum(v for _, v in drained)
        summary["wind_down"] = {
            "seconds": round(time.time() - wind_down_started, 2),
            "hands": wind_down.hands,
            "actions": wind_down.actions,
            "errors": wind_down.errors,
            "chips_left_at_tables": chips.on_tables,
        }
        summary["recoveries"] = state.recoveries
        summary["chips_bought_by_bots"] = sum(state.bought.values())
        summary["nodes"] = len({i["node_id"] for i in state.host_info.values()})
        summary["hands_by_game"] = dict(sorted(hands_by_game.items()))
        summary["placements"] = dict(sorted(state.placements.items()))
        summary["registry_node"] = self.registry_node
        summary["protocol_violation_samples"] = [v for f in sorted(state.violations) for v in state.violations[f]][:50]
        files = write_report(self.out_dir, summary, state.stats, bots_online=state.bots_online_series,
                             title=f"tablestorm load: {self.scenario.name}")
        (self.out_dir / "summary.json").write_text(json.dumps(summary, indent=1, default=str) + "\n")
        return summary, files

    def _kill_all(self) -> None:
        """End every actor of this run (a joined cluster outlives the run; its actors must not)."""
        ray = getattr(self, "_ray", None)
        state: _Run | None = getattr(self, "_state", None)
        if ray is None or not ray.is_initialized():
            return
        handles = [*state.hosts.values(), *state.fleets.values()] if state is not None else []
        if hasattr(self, "registry"):
            handles.append(self.registry)
        for handle in handles:
            try:
                ray.kill(handle, no_restart=True)
            except Exception:  # already dead: nothing to end
                continue
