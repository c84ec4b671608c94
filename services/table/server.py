"""The table server process: gRPC (grpc.aio), health, reflection, metrics, graceful shutdown.

One event loop runs every table; nothing blocks it. ``tablestorm serve`` calls :func:`run`, which
prints ``{"grpc_port": ..., "metrics_port": ...}`` (and each front door's ``<name>_port``) on
stdout once listening (so scripts can use port 0) and, on SIGTERM or SIGINT, stops taking tables
and seats, lets running hands finish until the drain deadline, voids the rest with an exact
refund, then stops.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Protocol

from tablestorm.services.rpc import process
from tablestorm.services.rpc.gc_policy import tune_for_latency
from tablestorm.services.rpc.process import Serving, until_signalled
from tablestorm.services.rpc.tls import ServerTls
from tablestorm.services.table.clock import Timers
from tablestorm.services.table.host import DrainReport, HostLimits, TableHost
from tablestorm.services.table.ledger import TableLedger
from tablestorm.services.table.metrics import Metrics
from tablestorm.services.table.service import HELLO_TIMEOUT, SERVICE_NAME, TableService, handlers

log = logging.getLogger(__name__)


class FrontDoor(Protocol):
    """Another way in to the server's tables, in its process and on its host (the WebSocket
    front door, :mod:`tablestorm.services.websocket`): opened once the host exists, stopped after
    the tables drained, so its clients get what was pending as the Play streams do."""

    name: str
    """Its port is printed as ``<name>_port``."""
    port: int

    async def stop(self) -> None:
        """Close every connection and the port."""


class FrontDoorConfig(Protocol):
    async def open(self, host: TableHost) -> FrontDoor:
        """Start serving ``host``'s tables (raises OSError when its port cannot be bound)."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything ``tablestorm serve`` (or an embedding process) starts a table server with."""

    host: str = "127.0.0.1"
    port: int = 50051
    """0: let the system pick (the chosen port is printed and in :attr:`TableServer.port`)."""
    metrics_port: int | None = None
    """Prometheus scrape port on ``host``; None: no HTTP endpoint (the registry still counts)."""
    tls: ServerTls | None = None
    """Serve TLS (and, with its ``client_ca``, require a client certificate on the whole port)."""
    director_name: str | None = None
    """The common name a director call's client certificate must carry (needs ``tls.client_ca``);
    None: any client holding the table's director token may direct it."""
    limits: HostLimits = field(default_factory=HostLimits)
    drain_seconds: float = 10.0
    """How long running hands may take to finish at shutdown before they are voided."""
    max_concurrent_streams: int = 1000
    """Per connection: a client with more bots opens more connections."""
    max_message_bytes: int = 64 * 1024
    """Largest request accepted; every legal request is far smaller."""
    hello_timeout: float = HELLO_TIMEOUT
    """Seconds a Play stream has to say Hello before it is closed (DEADLINE_EXCEEDED)."""
    ledger: TableLedger | None = None
    """Where seats and hand starts are recorded outside this process (a load run's registry)."""
    timers: Timers | None = None
    """What runs the action clocks; None: the event loop (a test passes one it runs out itself)."""
    front_doors: tuple[FrontDoorConfig, ...] = ()
    """Other protocols serving the same tables beside gRPC (``tablestorm serve --websocket``)."""


class TableServer:
    """A started server; :meth:`stop` is the graceful shutdown."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.metrics = Metrics()
        self.port = 0
        self.metrics_port: int | None = None
        self.host: TableHost | None = None
        self.doors: list[FrontDoor] = []
        self._serving: Serving | None = None

    async def start(self) -> None:
        config = self.config
        self.host = TableHost(config.limits, self.metrics, asyncio.get_running_loop(), config.ledger, config.timers)
        credentials = config.tls.credentials() if config.tls is not None else None
        serving = self._serving = await Serving.start(
            handlers(TableService(self.host, self.metrics, config.director_name, config.hello_timeout)),
            SERVICE_NAME,
            address=f"{config.host}:{config.port}",
            metrics=self.metrics,
            metrics_port=config.metrics_port,
            options=[
                ("grpc.max_receive_message_length", config.max_message_bytes),
                ("grpc.max_concurrent_streams", config.max_concurrent_streams),
            ],
            credentials=credentials,
        )
        self.port, self.metrics_port = serving.port, serving.metrics_port
        try:
            for door in config.front_doors:
                self.doors.append(await door.open(self.host))
        except BaseException:
            await self._close_doors()
            await serving.stop(grace=None)
            raise
        log.info("serving", extra=self.ports())

    def ports(self) -> dict[str, int | None]:
        """Every port served, by name: what ``tablestorm serve`` prints once listening."""
        return {
            "grpc_port": self.port,
            "metrics_port": self.metrics_port,
            **{f"{door.name}_port": door.port for door in self.doors},
        }

    async def _close_doors(self) -> None:
        for door in self.doors:
            await door.stop()
        self.doors = []

    async def stop(self, drain_seconds: float | None = None) -> DrainReport:
        """Drain the tables (see :meth:`TableHost.drain`), then close every call and the port."""
        assert self._serving is not None and self.host is not None
        await self._serving.health.enter_graceful_shutdown()
        deadline = self.config.drain_seconds if drain_seconds is None else drain_seconds
        report = await self.host.drain(deadline)
        # Streams were closed after their pending output; give the writers a moment to send it.
        await self._close_doors()
        await self._serving.stop(grace=min(2.0, deadline + 0.5))
        return report

    async def kill(self) -> None:
        """Stop at once, as if the process died: no drain and no refund, every call cancelled, the
        tables abandoned where they stand (:meth:`TableHost.abandon`). A replacement server
        rebuilds them from the ledger (``TableHost.restore_table``); recovery tests use this."""
        assert self._serving is not None and self.host is not None
        self.host.abandon()
        await self._close_doors()
        await self._serving.stop(grace=None)

    async def wait(self) -> None:
        assert self._serving is not None
        await self._serving.server.wait_for_termination()


async def serve(config: ServerConfig) -> int:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    server = TableServer(config)
    await server.start()
    tune_for_latency()  # this process is the service: no full-collection pauses (see gc_policy)
    await until_signalled(server.ports())
    log.info("shutting down", extra={"drain_seconds": config.drain_seconds})
    report = await server.stop()
    log.info("stopped", extra={"hands_finished": report.finished, "hands_voided": report.voided})
    return 0


def run(config: ServerConfig, log_level: str = "INFO") -> int:
    return process.run(serve(config), "serve", log_level)
