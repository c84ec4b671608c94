"""The Ray actors of a load run: the registry, table hosts and bot fleets.

A table host runs a real table service (grpc.aio inside an async actor, bound to its node's
address, ports chosen at start) and writes its ledger to the registry. A fleet runs hundreds to
thousands of bots as coroutines in one process: an actor costs ~80 MB here, a bot a few KB.
Both serve Prometheus metrics on ports they report, for the run's file_sd targets (or on the
node's fixed port, :data:`tablestorm.sim.cluster.nodes.METRICS_PORT_ENV`, which a Kubernetes PodMonitor scrapes).
"""

from __future__ import annotations

import asyncio
import os
import resource
import time
from typing import Any, Final

import ray

from tablestorm.services.rpc.gc_policy import tune_for_latency
from tablestorm.services.table.host import HostLimits, TableHost, TableSpec
from tablestorm.services.table.ledger import LedgerEntry, RecoveryPlan
from tablestorm.services.table.server import ServerConfig, TableServer
from tablestorm.services.websocket.server import PATH as WEBSOCKET_PATH
from tablestorm.services.websocket.server import WebSocketConfig
from tablestorm.sim.bots.client import Assignment, BotConfig
from tablestorm.sim.bots.fleet import Fleet
from tablestorm.sim.cluster.affinity import current, pin_process
from tablestorm.sim.cluster.nodes import metrics_port
from tablestorm.sim.load.batching import Batched
from tablestorm.sim.load.fleet_metrics import FleetMetrics
from tablestorm.sim.load.registry import BatchingLedger, Registry
from tablestorm.sim.load.summary import merge_buckets
from tablestorm.sim.rooms.registry import RoomChoice, room_class
from tablestorm.sim.rooms.websocket import WebSocketRoom

SERVICE_ACTOR: Final[dict[str, Any]] = {"num_cpus": 0, "max_restarts": 0, "enable_task_events": False}
"""The options of a run's long-lived actors (the registry, table hosts, fleets, the tournament
server and its player fleets): no CPU reserved (placement spreads them, not Ray's CPU count), no
restart (a lost one is rebuilt by the run), and no task events. Ray records every call's status
changes for its dashboard and state API, and that bookkeeping grows the process called: a test
actor grew 6 MiB over its first 10,000 calls with it and 0.6 MiB without, and the hosts and fleets,
called a few times a second for hours (ledger writes, the driver's collects and pings), drifted up
by as much in a soak. Ray Serve leaves them off for its replicas too."""


def node_ip() -> str:
    """This node's IP, where the actor's servers bind (Ray's helper is untyped)."""
    ip: str = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]
    return ip


def actor(name: str) -> Any:
    """A named actor's handle. Ray's handles are dynamic (``handle.method.remote(...)``), so they
    are ``Any`` at this boundary; the methods' own signatures are the typed contract."""
    return ray.get_actor(name)


def resident_bytes() -> int:
    """This process's resident memory now (RSS, from /proc: what a soak watches for growth)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


def _pinned(cpus: list[int] | None) -> list[int]:
    """Pin this actor's process to ``cpus`` (None: leave it be); the cores it may run on now, as it
    reports them (a capacity sweep records what the hosts had)."""
    if cpus is not None:
        pin_process(cpus)
    return list(current() or ())


def _cpu_reading() -> tuple[float, float]:
    """This process's CPU seconds so far (user and system, every thread: gRPC's included) and
    the wall clock when read (Unix seconds): two readings give the cores it used in between."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, time.time()


REGISTRY_ACTOR: Final[dict[str, Any]] = {**SERVICE_ACTOR, "max_restarts": -1, "max_task_retries": -1}
"""The registry's options: a service actor Ray restarts whenever its process dies, on the node its
scheduling strategy names (the driver's), with the arguments it was made with (its journal and its
key), and retries each call that met the death on the new process until it answers: the hosts'
ledger writes, the fleets' lookups and the driver's recovery wait out a restart instead of failing.
Every method is safe to run twice (see :class:`~tablestorm.sim.load.registry.Registry`). A handle
from ``ray.get_actor`` (the hosts' and fleets') retries as the creator's does: Ray keeps the
retries in the actor's creation spec. Order: one caller's calls to a synchronous actor run in
the order sent, but Ray does not keep that order across a retry; no caller here has two calls out
that depend on each other (a host's ledger batches go one at a time, the driver waits for each)."""


@ray.remote(**REGISTRY_ACTOR)
class RegistryActor(Registry):
    """The run's :class:`~tablestorm.sim.load.registry.Registry`, named per run so every node can reach it."""

    def ping(self) -> bool:
        return True

    def pid(self) -> int:
        """This registry's process (a restart is another): what the run's chaos kills."""
        return os.getpid()

    def node_id(self) -> str:
        """The Ray node this registry runs on."""
        node: str = ray.get_runtime_context().get_node_id()
        return node


@ray.remote(**SERVICE_ACTOR)
class TableHostActor:
    def __init__(
        self, host_id: str, registry: str, limits: dict[str, Any], cpus: list[int] | None = None,
        room: RoomChoice | None = None,
    ) -> None:
        """``cpus``: the cores this host runs on (:mod:`tablestorm.sim.cluster.affinity`; None: any);
        ``room``: the room the run's bots talk through (None: gRPC), whose front door the host opens."""
        self.host_id = host_id
        self.limits = HostLimits(**limits)
        self.cpus = cpus
        self.websocket = room is not None and issubclass(room_class(room.name), WebSocketRoom)
        """The bots speak the WebSocket front door: the host opens it and is reached there."""
        self.server: TableServer | None = None
        self.registry = actor(registry)

    async def start(self) -> dict[str, Any]:
        """Start the table service on this node's address (pinned first, so that its threads are
        too); returns where it listens (``endpoint``: where the bots reach it, its WebSocket front
        door's URL when they speak that) and the cores it may run on."""
        cpus = _pinned(self.cpus)
        ip = node_ip()
        ledger = BatchingLedger(self.host_id, self._send)
        config = ServerConfig(
            host=ip, port=0, metrics_port=metrics_port(), limits=self.limits, ledger=ledger, drain_seconds=5.0,
            front_doors=(WebSocketConfig(ip, 0),) if self.websocket else (),
        )
        self.server = TableServer(config)
        await self.server.start()
        tune_for_latency()
        endpoint = f"{ip}:{self.server.port}"
        if self.websocket:
            endpoint = f"ws://{ip}:{self.server.doors[0].port}{WEBSOCKET_PATH}"
        info = {
            "host_id": self.host_id,
            "endpoint": endpoint,
            "metrics": f"{ip}:{self.server.metrics_port}",
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
            "cpus": cpus,
        }
        await self.registry.register_host.remote(
            self.host_id, info["endpoint"], info["metrics"], info["node_id"]
        )
        return info

    async def _send(self, host_id: str, batch: list[LedgerEntry]) -> None:
        await self.registry.record.remote(host_id, batch)

    def _host(self) -> TableHost:
        assert self.server is not None and self.server.host is not None, "start() first"
        return self.server.host

    async def create_tables(self, specs: list[TableSpec]) -> int:
        """Open tables; returns how many."""
        host = self._host()
        for spec in specs:
            await host.open_table(spec)
        return len(specs)

    async def restore_tables(self, plans: list[RecoveryPlan]) -> int:
        """Rebuild a dead host's tables here from the ledger; returns how many hands that voided."""
        host = self._host()
        for plan in plans:
            await host.restore_table(plan)
        return sum(plan.hand_voided for plan in plans)

    async def chips(self) -> dict[str, int]:
        """Chips at each table (stacks and any hand in progress)."""
        return self._host().chips_by_table()

    async def hands_running(self) -> int:
        """How many of this host's tables are in the middle of a hand (what losing it would void)."""
        return self._host().hands_running()

    async def close_tables(self) -> None:
        """CloseTable every table (the end of a run): no new hand is dealt, running hands play
        out, and each table leaves the host once its last player stands up (an empty one at once).
        Leaving players then wait for one hand at most, and no hand outlives them to be voided."""
        await self._host().close_all()

    async def cash_out_all(self) -> tuple[int, int]:
        """Stand up every player still seated (after :meth:`drain`); returns (seats, chips)."""
        return await self._host().cash_out_all()

    async def drain(self, seconds: float) -> tuple[int, int]:
        """Stop accepting seats, let hands finish for ``seconds``, void the rest (exact refunds)."""
        report = await self._host().drain(seconds)
        return report.finished, report.voided

    async def ping(self) -> float:
        return time.time()

    async def processing_histogram(self) -> list[tuple[float, float]]:
        """The server's action processing time histogram over every game: (bucket upper bound in
        seconds, cumulative count) pairs, ``+Inf`` last, as Prometheus exposes it."""
        assert self.server is not None, "start() first"
        buckets = [
            (float(sample.labels["le"]), sample.value)
            for metric in self.server.metrics.action_processing.collect()
            for sample in metric.samples
            if sample.name.endswith("_bucket")
        ]
        return merge_buckets([buckets])  # each game's series, added bound by bound

    async def cpu_seconds(self) -> tuple[float, float]:
        """(CPU seconds this host's process has used, the wall clock then): what a capacity
        sweep divides its throughput by."""
        return _cpu_reading()

    async def resident_bytes(self) -> int:
        """This host's resident memory (RSS) now."""
        return resident_bytes()

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop(0.0)


@ray.remote(**SERVICE_ACTOR)
class FleetActor:
    """Hundreds to thousands of bots as coroutines of one process (see :class:`tablestorm.sim.bots.Fleet`)."""

    def __init__(
        self, fleet_id: str, registry: str | None, start: float, config: dict[str, Any], room: RoomChoice,
        cpus: list[int] | None = None,
    ) -> None:
        """``registry``: the run's registry, which says where a moved table lives now (None: the
        tables never move); ``room``: the room adapter the bots talk through, made in the fleet's
        process; ``cpus``: the cores this fleet runs on (None: any)."""
        self.fleet_id = fleet_id
        self.cpus = cpus
        self.start_time = start
        self.config = BotConfig(**config)
        self.registry = None if registry is None else actor(registry)
        self._where: Batched[str, str | None] = Batched(self._where_many)
        """Where tables live, asked of the registry in batches (every bot of a lost host's tables
        asks at once, at each step of its backoff)."""
        self.room = room
        self.fleet: Fleet | None = None
        self.metrics: FleetMetrics | None = None
        self._leaving: set[asyncio.Task[None]] = set()
        self._freed: list[tuple[str, int]] = []
        """Seats whose bots stood up since the last collect (free for others again)."""

    async def start(self) -> dict[str, Any]:
        """Create the fleet in this actor's event loop and serve its metrics; returns where, and the
        cores it may run on."""
        cpus = _pinned(self.cpus)
        resolve = None if self.registry is None else self._resolve
        self.fleet = Fleet(start=self.start_time, config=self.config, resolve=resolve, room=self.room.make())
        ip = node_ip()
        self.metrics = FleetMetrics(ip, metrics_port())
        self.metrics.runtime.start(asyncio.get_running_loop())
        tune_for_latency()
        return {
            "fleet_id": self.fleet_id,
            "metrics": f"{ip}:{self.metrics.port}",
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
            "cpus": cpus,
        }

    async def begin(self, start: float) -> None:
        """The run's timeline starts at ``start`` (Unix seconds): stats count seconds from there."""
        self.start_time = start
        self._fleet().start = start

    async def _resolve(self, table_id: str) -> str | None:
        return await self._where.ask(table_id)

    async def _where_many(self, table_ids: list[str]) -> list[str | None]:
        assert self.registry is not None
        endpoints: list[str | None] = await self.registry.where_many.remote(table_ids)
        return endpoints

    def _fleet(self) -> Fleet:
        assert self.fleet is not None, "start() first"
        return self.fleet

    async def add(self, assignments: list[Assignment]) -> int:
        return len(await self._fleet().add(assignments))

    async def remove(self, count: int) -> int:
        """Start stopping the ``count`` newest playing bots; returns how many are leaving.

        Returns at once: a bot in a hand stands up only when the hand is over, which can take
        many action clocks, and the driver's one-second timeline must not wait for that. Their
        seats are reported free by :meth:`collect` once they have stood up.
        """
        fleet = self._fleet()
        leaving: list[tuple[str, int]] = []

        async def stand_up() -> None:
            # The bots Fleet.remove takes, found in the same step (nothing can run in between).
            playing = [bot for bot in fleet.bots if bot.running]
            leaving.extend((bot.table_id, bot.seat) for bot in playing[max(0, len(playing) - count) :])
            await fleet.remove(count)
            self._freed.extend(leaving)

        task = asyncio.ensure_future(stand_up())
        self._leaving.add(task)
        task.add_done_callback(self._leaving.discard)
        await asyncio.sleep(0)  # it starts now: they leave the fleet's playing bots at once
        return len(leaving)

    async def collect(self) -> dict[str, Any]:
        """What happened since the last call (stats delta) and the fleet's running totals."""
        fleet = self._fleet()
        delta = fleet.stats.take()
        assert self.metrics is not None
        self.metrics.update(delta, fleet.online)
        tally = fleet.tally
        return {
            "stats": delta.to_dict(),
            "online": fleet.online,
            "bought_at": dict(tally.bought_at),
            "cashed_out_at": dict(tally.cashed_out_at),
            "kinds_acted": sorted(fleet.kinds_acted),
            "violations": list(tally.violations),
            "freed": self._take_freed(),
            "returns": [tuple(r) for r in tally.take_returns()],
        }

    def _take_freed(self) -> list[tuple[str, int]]:
        freed, self._freed = self._freed, []
        return freed

    async def cpu_seconds(self) -> tuple[float, float]:
        """(CPU seconds this fleet's process has used, the wall clock then): what driving the
        load cost beside the hosts."""
        return _cpu_reading()

    async def resident_bytes(self) -> int:
        """This fleet's resident memory (RSS) now."""
        return resident_bytes()

    async def chaos_killed(self, endpoint: str) -> None:
        """See :meth:`Fleet.chaos_killed` (called before the kill)."""
        self._fleet().chaos_killed(endpoint)

    async def abandon(self, table_ids: list[str]) -> int:
        """See :meth:`Fleet.abandon`: the bots of a lost server's tables stop where they sit."""
        return await self._fleet().abandon(table_ids)

    async def stop_all(self) -> int:
        """Stop every bot (standing up once its hand is over), those already leaving included;
        returns chips cashed out by the bots stopped here."""
        chips = await self._fleet().stop_all(stand_up=True)
        await asyncio.gather(*self._leaving, return_exceptions=True)
        return chips

    async def ping(self) -> float:
        return time.time()
