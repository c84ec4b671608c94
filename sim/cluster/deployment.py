"""The actors of a run on Ray: its registry, table hosts and bot fleets, started, watched, ended.

A load run and a live tournament deploy the same way: a registry on the driver's node (it holds the
ledger every recovery reads, so losing any other node never takes it along), table hosts and fleets
spread over the nodes by :class:`~tablestorm.sim.cluster.placement.Placement`, every metrics endpoint in the run's
Prometheus file_sd targets. What the run *does* with them (cash seats, a tournament) is its own;
recovering from a dead host is :mod:`tablestorm.sim.load.recovery`. A load against servers the run does not own
(``--target``) deploys fleets only: no registry, no hosts (:mod:`tablestorm.sim.load.given_servers`).

The registry keeps its journal (:mod:`tablestorm.sim.load.registry_journal`) in the run's output
directory, ``registry.db``, under a key the driver makes for the run: Ray restarts a dead registry
with the same path and key (:data:`~tablestorm.sim.load.actors.REGISTRY_ACTOR`), and it starts where
the dead one was. The output directory because it is on the driver's node, where the registry is
pinned, before and after a restart (a temporary directory would be too, but would not outlive the
run); because an operator finds the journal beside the run's report, as the tournament's
``journal.db``; and because once the run is over its seat tokens open for nobody (the key was only
ever in the driver's and the registry's memory, and Ray's). An earlier run's journal there is
replaced.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablestorm.sim.cluster.affinity import Pinning
from tablestorm.sim.cluster.placement import Placement
from tablestorm.sim.load.prometheus import write_targets
from tablestorm.sim.load.registry_journal import discard, journal_bytes
from tablestorm.sim.rooms.registry import RoomChoice

FLEET_START_TIMEOUT = 60.0
"""Seconds a new fleet may take to answer ``start``; past that it was placed on a dying node."""
START_TIMEOUT = 120.0
"""Seconds the registry and the table hosts may take to start (a cold node imports Ray and gRPC)."""
CALL_TIMEOUT = 60.0
"""Seconds any other call to the run's actors may take (opening thousands of tables included)."""
REGISTRY_JOURNAL = "registry.db"
"""The registry's journal, in the run's output directory."""
HOST_CHECK_TIMEOUT = 3.0
"""A host that takes longer to answer is slow, not dead: it is asked again next second."""
COLLECT_TIMEOUT = 5.0


def remote(actor_class: type) -> Any:
    """An ``@ray.remote`` class as Ray made it (with ``options`` and ``remote``): Ray's typing
    leaves the decorated class typed as the plain one."""
    return actor_class


class DeploymentError(RuntimeError):
    """A run's actor could not be started or reached in time; the message says which and what to try."""


def within(ray: Any, refs: Any, seconds: float, what: str) -> Any:
    """``ray.get(refs)`` bounded by ``seconds``; past that a :class:`DeploymentError` naming ``what``."""
    try:
        return ray.get(refs, timeout=seconds)
    except ray.exceptions.GetTimeoutError:
        raise DeploymentError(
            f"{what} did not answer within {seconds:g} s: is the cluster overloaded or short of "
            "resources? (`ray status` shows its nodes and resources)"
        ) from None


@dataclass(frozen=True, slots=True)
class ActorInfo:
    """What a started host or fleet reported: where it runs and where it serves."""

    actor_id: str
    node_id: str
    pid: int
    metrics: str
    """Its Prometheus endpoint, "host:port"."""
    endpoint: str = ""
    """Where the bots reach a table host: its gRPC endpoint, "host:port", or its WebSocket front
    door's URL when the run's room speaks that (fleets serve none)."""
    cpus: tuple[int, ...] = ()
    """The cores it may run on, as it reported them once started (:mod:`.affinity`)."""

    @classmethod
    def of(cls, report: Mapping[str, Any], actor_id: str) -> ActorInfo:
        return cls(actor_id, report["node_id"], report["pid"], report["metrics"], report.get("endpoint", ""),
                   tuple(report.get("cpus", ())))


@dataclass(frozen=True, slots=True)
class FleetReport:
    """One fleet's :meth:`FleetActor.collect` answer."""

    fleet_id: str
    report: dict[str, Any]


class Deployment:
    """A run's registry, hosts and fleets; ``start`` is the run's clock for the fleets' stats."""

    def __init__(
        self,
        ray: Any,
        out_dir: Path,
        *,
        host_limits: Mapping[str, Any],
        bot_config: Mapping[str, Any],
        start: float,
        registry: bool = True,
        room: RoomChoice | None = None,
        pinning: Pinning | None = None,
    ) -> None:
        """``registry``: start the run's registry, which hosts need (their ledger) and fleets ask
        where a moved table lives; without it there are fleets only. ``room``: what each fleet's
        bots talk through (default: the gRPC room, in plaintext), and so the front door the hosts
        open. ``pinning``: the cores the hosts and the
        fleets run on (None: any)."""
        from cryptography.fernet import Fernet
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        from tablestorm.sim.load.actors import RegistryActor

        self.ray = ray
        self.out_dir = out_dir
        self.host_limits = dict(host_limits)
        self.bot_config = dict(bot_config)
        self.start = start
        self.room = RoomChoice() if room is None else room
        self.pinning = pinning
        self.placement = Placement(ray)
        self.hosts: dict[str, Any] = {}
        self.fleets: dict[str, Any] = {}
        self.info: dict[str, ActorInfo] = {}
        """Live hosts and fleets by id."""
        self._next_host = 0
        self._next_fleet = 0
        self.registry_name: str | None = None
        self.registry: Any = None
        self.registry_node: str | None = None
        self.registry_journal: Path | None = None
        """The registry's journal (absolute: the registry's process has a working directory of its own)."""
        if registry:
            self.registry_name = f"tablestorm-registry-{os.getpid()}-{time.time_ns()}"
            here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
            out_dir.mkdir(parents=True, exist_ok=True)
            self.registry_journal = (out_dir / REGISTRY_JOURNAL).resolve()
            discard(self.registry_journal)
            self.registry = remote(RegistryActor).options(name=self.registry_name, scheduling_strategy=here).remote(
                str(self.registry_journal), Fernet.generate_key()
            )
            self.registry_node = within(ray, self.registry.node_id.remote(), START_TIMEOUT, "the run's registry")

    @property
    def running(self) -> Iterator[str]:
        """Every live host and fleet id."""
        yield from self.hosts
        yield from self.fleets

    # ----------------------------------------------------------------- starting

    def start_hosts(self, count: int) -> list[str]:
        """Start ``count`` table hosts, one per node as far as the nodes go; returns their ids."""
        from tablestorm.sim.load.actors import TableHostActor

        assert self.registry_name is not None, "table hosts write their ledger to the registry"
        cpus = None if self.pinning is None else list(self.pinning.hosts)
        handles = {}
        for _ in range(count):
            host_id = f"host-{self._next_host}"
            self._next_host += 1
            handles[host_id] = remote(TableHostActor).options(
                scheduling_strategy=self.placement.strategy(self.running)
            ).remote(host_id, self.registry_name, self.host_limits, cpus, self.room)
        reports = within(self.ray, [h.start.remote() for h in handles.values()], START_TIMEOUT,
                         f"{len(handles)} table host(s) starting")
        infos = [ActorInfo.of(r, r["host_id"]) for r in reports]
        self.placement.placed({i.actor_id: i.node_id for i in infos})
        self.hosts.update(handles)
        self.info.update({i.actor_id: i for i in infos})
        return list(handles)

    def start_fleet(self, avoid: Collection[str] = ()) -> str:
        """Start a fleet on the least loaded live node not in ``avoid`` (the node of the actor it
        replaces, which may be gone before Ray's health checks say so); returns its id."""
        from tablestorm.sim.load.actors import FleetActor

        ray = self.ray
        avoiding = frozenset(avoid)
        cpus = None if self.pinning is None else list(self.pinning.others)
        for _attempt in range(3):
            fleet_id = f"fleet-{self._next_fleet}"
            self._next_fleet += 1
            handle = remote(FleetActor).options(
                scheduling_strategy=self.placement.strategy(self.running, avoiding)
            ).remote(fleet_id, self.registry_name, self.start, self.bot_config, self.room, cpus)
            chosen = self.placement.choosing()
            try:
                info = ActorInfo.of(ray.get(handle.start.remote(), timeout=FLEET_START_TIMEOUT), fleet_id)
            except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
                self.placement.abandoned()
                self.end(handle)  # placed on a node that was dying: try again elsewhere
                avoiding |= chosen
                continue
            self.placement.placed({fleet_id: info.node_id})
            self.info[fleet_id] = info
            self.fleets[fleet_id] = handle
            return fleet_id
        raise RuntimeError("could not start a bot fleet in three tries")

    def begin(self, start: float) -> None:
        """The run's timeline starts at ``start`` (Unix seconds) for every fleet."""
        self.start = start
        within(self.ray, [fleet.begin.remote(start) for fleet in self.fleets.values()], CALL_TIMEOUT, "the fleets")

    # ----------------------------------------------------------------- watching

    def poll(self, actors: Mapping[str, Any], method: str, timeout: float) -> tuple[dict[str, Any], list[str]]:
        """Call ``method`` on every actor of ``actors``: the answers that came within ``timeout``
        seconds by actor id, and the actors Ray reports dead. One that did not answer in time is
        slow, not dead: it is in neither (asked again next second)."""
        ray = self.ray
        ids = list(actors)
        refs = [getattr(actors[a], method).remote() for a in ids]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout)
        answers: dict[str, Any] = {}
        dead = []
        for actor_id, ref in zip(ids, refs, strict=True):
            if ref not in ready:
                continue
            try:
                answers[actor_id] = ray.get(ref)
            except ray.exceptions.RayActorError:
                dead.append(actor_id)
        return answers, dead

    def node_address(self, node_id: str) -> str:
        """The address of a Ray node of the run, a lost one included ("" once Ray has forgotten it):
        what names a lost node where several share one address, with its id."""
        return next((n["NodeManagerAddress"] for n in self.ray.nodes() if n["NodeID"] == node_id), "")

    def check_hosts(self) -> list[str]:
        """Ping every host: the hosts Ray reports dead."""
        return self.poll(self.hosts, "ping", HOST_CHECK_TIMEOUT)[1]

    def collect(self) -> tuple[list[FleetReport], list[str]]:
        """Every fleet's stats since the last call, and the fleets Ray reports dead."""
        reports, dead = self.poll(self.fleets, "collect", COLLECT_TIMEOUT)
        return [FleetReport(fleet_id, report) for fleet_id, report in reports.items()], dead

    def broadcast(
        self, actors: Mapping[str, Any], method: str, *args: Any, timeout: float = CALL_TIMEOUT
    ) -> list[Any]:
        """Call ``method`` on every actor of ``actors`` and return the answers of those alive and
        done within ``timeout`` seconds (the others are left to finish unattended)."""
        ray = self.ray
        refs = [getattr(handle, method).remote(*args) for handle in actors.values()]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout)
        answers = []
        for ref in ready:
            with contextlib.suppress(ray.exceptions.RayActorError):  # the dead are found elsewhere
                answers.append(ray.get(ref))
        return answers

    def write_targets(self) -> None:
        """List every live host's and fleet's metrics endpoint for Prometheus (file_sd)."""
        write_targets(self.out_dir / "prometheus" / "targets", {
            "table_host": [self.info[h].metrics for h in self.hosts],
            "fleet": [self.info[f].metrics for f in self.fleets],
        })

    def kill_registry(self) -> float:
        """Chaos: SIGKILL the registry's process (on this node: it is pinned here) and wait for the
        process Ray starts in its place, from its journal, to answer; returns the seconds from the
        kill to that answer. Calls made meanwhile (a host's ledger write, a fleet's lookup) wait
        for it too, and are then answered by the new process."""
        assert self.registry is not None, "a run with a registry"
        pid = within(self.ray, self.registry.pid.remote(), CALL_TIMEOUT, "the run's registry")
        began = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        within(self.ray, self.registry.pid.remote(), START_TIMEOUT, "the run's registry restarting")
        return time.monotonic() - began

    def registry_journal_bytes(self) -> int | None:
        """The registry's journal's size now (None: no registry)."""
        return None if self.registry_journal is None else journal_bytes(self.registry_journal)

    # ----------------------------------------------------------------- ending

    def end(self, handle: Any) -> None:
        """Kill an actor taken for dead: one that is only unreachable must not play on beside its
        replacement (a RayActorError may mean "unavailable for now" as well as "died")."""
        with contextlib.suppress(Exception):
            self.ray.kill(handle, no_restart=True)

    def remove_host(self, host_id: str) -> None:
        handle = self.hosts.pop(host_id, None)
        if handle is not None:
            self.end(handle)
        self.info.pop(host_id, None)

    def remove_fleet(self, fleet_id: str) -> None:
        handle = self.fleets.pop(fleet_id, None)
        if handle is not None:
            self.end(handle)
        self.info.pop(fleet_id, None)

    def kill_all(self) -> None:
        """End every actor of this run (a joined cluster outlives the run; its actors must not)."""
        if not self.ray.is_initialized():
            return
        registry = [] if self.registry is None else [self.registry]
        for handle in [*self.hosts.values(), *self.fleets.values(), *registry]:
            self.end(handle)
