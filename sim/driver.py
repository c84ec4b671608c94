"""`tablestorm load`: place table hosts and bot fleets on Ray, ramp the load, gather, report.

The driver owns the run's timeline. Every second it moves the bot count toward the scenario's
target (closed model) or lets new players arrive (open model), fires chaos events that are due,
checks that every host still answers and rebuilds dead hosts' tables elsewhere from the ledger,
and merges the fleets' stats for the live view. At the end it stops the bots (each stands up once
its hand is over), drains the hosts (hands still running are voided with an exact refund), counts
the chips by the ledger, and writes summary.json, history.csv and report.html.
"""

from __future__ import annotations

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
from .scenario import Scenario
from .stats import RunStats


@dataclass(frozen=True, slots=True)
class ChaosEvent:
    """Kill one actor ``at`` seconds into the run: ``kill-host`` or ``kill-fleet``."""

    action: str
    at: float

    @classmethod
    def parse(cls, text: str) -> ChaosEvent:
        match = re.fullmatch(r"(kill-host|kill-fleet)(?:@(\d+(?:\.\d+)?)s?)?", text.strip())
        if match is None:
            raise ValueError(f"--chaos: expected kill-host@SECONDS or kill-fleet@SECONDS, got {text!r}")
        return cls(match.group(1), float(match.group(2) or 0.0))


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

    # ----------------------------------------------------------------- the run

    def run(self) -> RunResult:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        info = cluster.connect(self.address)
        prom = None
        try:
            import ray

            from .actors import FleetActor, RegistryActor, TableHostActor

            self._ray = ray
            self._actors = (FleetActor, TableHostActor)
            self.registry_name = f"tablestorm-registry-{os.getpid()}-{time.time_ns()}"
            registry = RegistryActor.options(name=self.registry_name).remote()
            ray.get(registry.ping.remote())
            self.registry = registry
            state = self._state = _Run(self.scenario, random.Random(self.scenario.seed), time.time())
            self._start_hosts(state)
            self._open_tables(state)
            for _ in range(self.scenario.fleets):
                self._start_fleet(state)
            if self.prometheus:
                from .prometheus import PrometheusServer

                prom = PrometheusServer(self.out_dir)
                self.prometheus_url = prom.url
                print(f"prometheus: {prom.url}", file=self.stream, flush=True)
            self._write_targets(state)
            self._loop(state)
            summary, files = self._finish(state)
            if prom is not None:
                summary["prometheus_url"] = prom.url
            return RunResult(summary, files, bool(summary.get("thresholds_ok", True)))
        finally:
            if prom is not None:
                prom.stop()
            self._kill_all()
            if info.started_here:
                cluster.disconnect()

    def _start_hosts(self, state: _Run) -> None:
        ray = self._ray
        _, host_cls = self._actors
        handles = {
            f"host-{k}": host_cls.options(scheduling_strategy="SPREAD").remote(
                f"host-{k}", self.registry_name, self.host_limits
            )
            for k in range(self.scenario.hosts)
        }
        infos = ray.get([h.start.remote() for h in handles.values()])
        state.hosts.update(handles)
        state.host_info.update({i["host_id"]: i for i in infos})

    def _start_fleet(self, state: _Run) -> str:
        ray = self._ray
        fleet_cls, _ = self._actors
        fleet_id = f"fleet-{state.next_fleet}"
        state.next_fleet += 1
        handle = fleet_cls.options(scheduling_strategy="SPREAD").remote(
            fleet_id, self.registry_name, state.start, self.bot_config
        )
        state.fleet_info[fleet_id] = ray.get(handle.start.remote())
        state.fleets[fleet_id] = handle
        state.online[fleet_id] = 0
        return fleet_id

    def _open_tables(self, state: _Run) -> None:
        """Enough tables for the peak, split by the game mix's weights, spread over the hosts."""
        scenario = self.scenario
        total_weight = sum(g.weight for g in scenario.games)
        specs_by_host: dict[str, list[tuple[str, bytes, int | None]]] = {h: [] for h in state.hosts}
        hosts = list(state.hosts)
        number = 0
        for spec in scenario.games:
            options = spec.table_options(scenario.clock_seconds)
            seats = options.seats
            bots = scenario.peak_bots * spec.weight / total_weight
            tables = max(1, math.ceil(bots / seats))
            message = convert.options_to_proto(options).SerializeToString()
            for _ in range(tables):
                table_id = f"{spec.game}-{number}"
                seed = None if scenario.seed is None else scenario.seed + number
                specs_by_host[hosts[number % len(hosts)]].append((table_id, message, seed))
                state.free.extend(_Seat(table_id, s, spec.game) for s in range(1, seats + 1))
                state.games[table_id] = spec.game
                number += 1
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
        joined = self._ray.get([state.fleets[f].add.remote(a) for f, a in per_fleet.items() if a])
        for (fleet_id, _), n in zip([(f, a) for f, a in per_fleet.items() if a], joined, strict=True):
            state.online[fleet_id] += n

    def _remove(self, state: _Run, fleet_id: str, count: int) -> None:
        """Stop ``count`` bots of a fleet; their seats come back free once they have stood up."""
        for table_id, seat in self._ray.get(state.fleets[fleet_id].remove.remote(count)):
            state.seated.pop((table_id, seat), None)
            state.free.append(_Seat(table_id, seat, state.games[table_id]))
        state.online[fleet_id] = max(0, state.online[fleet_id] - count)

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

    # ----------------------------------------------------------------- faults

    def _inject(self, state: _Run, event: ChaosEvent) -> None:
        ray = self._ray
        if event.action == "kill-host" and len(state.hosts) > 1:
            victim = state.rng.choice(sorted(state.hosts))
            print(f"chaos: killing {victim} at {time.time() - state.start:.1f}s", file=self.stream, flush=True)
            ray.kill(state.hosts[victim], no_restart=True)
            self._host_died(state, victim)
        elif event.action == "kill-fleet" and state.fleets:
            victim = state.rng.choice(sorted(state.fleets))
            print(f"chaos: killing {victim} at {time.time() - state.start:.1f}s", file=self.stream, flush=True)
            ray.kill(state.fleets[victim], no_restart=True)
            self._fleet_died(state, victim)

    def _check_hosts(self, state: _Run) -> None:
        ray = self._ray
        ids = list(state.hosts)
        refs = [state.hosts[h].ping.remote() for h in ids]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=3.0)
        for host_id, ref in zip(ids, refs, strict=True):
            if ref not in ready:
                continue  # slow, not dead: asked again next second
            try:
                ray.get(ref)
            except ray.exceptions.RayActorError:
                self._host_died(state, host_id)

    def _host_died(self, state: _Run, host_id: str) -> None:
        """Rebuild the dead host's tables on the surviving hosts from the ledger (exact refunds)."""
        ray = self._ray
        state.hosts.pop(host_id, None)
        state.host_info.pop(host_id, None)
        tables = ray.get(self.registry.mark_dead.remote(host_id))
        if not state.hosts:
            raise RuntimeError("every table host died: nothing left to rebuild the tables on")
        survivors = sorted(state.hosts)
        plans: dict[str, list[Any]] = {h: [] for h in survivors}
        for k, table_id in enumerate(tables):
            target = survivors[k % len(survivors)]
            ray.get(self.registry.move.remote(table_id, target))
            plans[target].append(ray.get(self.registry.plan.remote(table_id)))
        voided = sum(ray.get([state.hosts[h].restore_tables.remote(p) for h, p in plans.items() if p]))
        state.hands_voided_by_faults += voided
        for _ in range(voided):
            state.stats.hand_voided()
        state.recoveries.append({
            "host": host_id, "at_s": round(time.time() - state.start, 1), "tables": len(tables), "voided": voided,
        })
        self._write_targets(state)

    def _fleet_died(self, state: _Run, fleet_id: str) -> None:
        """A dead fleet's players keep their seats and chips; a new fleet plays those seats again
        with the tokens the ledger holds (a seat whose player never sat down is free again)."""
        ray = self._ray
        state.fleets.pop(fleet_id, None)
        state.fleet_info.pop(fleet_id, None)
        state.online.pop(fleet_id, None)
        replacement = self._start_fleet(state)
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
            state.online[replacement] += ray.get(state.fleets[replacement].add.remote(assignments))

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
        ray.get([f.stop_all.remote() for f in state.fleets.values()])
        self._collect(state)
        drained = ray.get([h.drain.remote(0.0) for h in state.hosts.values()])
        chips = ray.get(self.registry.chips.remote())
        summary = build_summary(
            state.stats,
            bots=self.scenario.peak_bots if self.scenario.open_model else max(state.bots_online_series.values(),
                                                                              default=0),
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
        summary["recoveries"] = state.recoveries
        summary["chips_bought_by_bots"] = sum(state.bought.values())
        summary["nodes"] = len({i["node_id"] for i in state.host_info.values()})
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
