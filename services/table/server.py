"""The table server process: gRPC (grpc.aio), health, reflection, metrics, graceful shutdown.

One event loop runs every table; nothing blocks it. ``tablestorm serve`` calls :func:`run`, which
prints ``{"grpc_port": ..., "metrics_port": ...}`` on stdout once listening (so scripts can use
port 0) and, on SIGTERM or SIGINT, stops taking tables and seats, lets running hands finish until
the drain deadline, voids the rest with an exact refund, then stops.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from threading import Thread
from wsgiref.simple_server import WSGIServer

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from prometheus_client import start_http_server

from . import jsonlog, reflection
from .gc_policy import tune_for_latency
from .host import DrainReport, HostLimits, TableHost
from .interceptors import MetricsInterceptor
from .ledger import TableLedger
from .metrics import Metrics
from .service import SERVICE_NAME, TableService, handlers

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 50051
    """0: let the system pick (the chosen port is printed and in :attr:`TableServer.port`)."""
    metrics_port: int | None = None
    """Prometheus scrape port on ``host``; None: no HTTP endpoint (the registry still counts)."""
    tls_cert: Path | None = None
    tls_key: Path | None = None
    limits: HostLimits = field(default_factory=HostLimits)
    drain_seconds: float = 10.0
    """How long running hands may take to finish at shutdown before they are voided."""
    max_concurrent_streams: int = 1000
    """Per connection: a client with more bots opens more connections."""
    max_message_bytes: int = 64 * 1024
    """Largest request accepted; every legal request is far smaller."""
    ledger: TableLedger | None = None
    """Where seats and hand starts are recorded outside this process (a load run's registry)."""


class TableServer:
    """A started server; :meth:`stop` is the graceful shutdown."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.metrics = Metrics()
        self.port = 0
        self.metrics_port: int | None = None
        self.host: TableHost | None = None
        self._server: grpc.aio.Server | None = None
        self._health = health.aio.HealthServicer()
        self._http: tuple[WSGIServer, Thread] | None = None

    async def start(self) -> None:
        config = self.config
        loop = asyncio.get_running_loop()
        self.host = TableHost(config.limits, self.metrics, loop, config.ledger)
        server = self._server = grpc.aio.server(
            interceptors=[MetricsInterceptor(self.metrics)],
            options=[
                ("grpc.max_receive_message_length", config.max_message_bytes),
                ("grpc.max_concurrent_streams", config.max_concurrent_streams),
                ("grpc.so_reuseport", 0),
            ],
        )
        server.add_generic_rpc_handlers((handlers(TableService(self.host, self.metrics)),))
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable(server, (SERVICE_NAME, health.SERVICE_NAME))
        address = f"{config.host}:{config.port}"
        try:
            if config.tls_cert is not None and config.tls_key is not None:
                credentials = grpc.ssl_server_credentials(
                    [(config.tls_key.read_bytes(), config.tls_cert.read_bytes())]
                )
                self.port = server.add_secure_port(address, credentials)
            else:
                self.port = server.add_insecure_port(address)
        except RuntimeError as exc:  # grpc's "Failed to bind": in use, or not this machine's address
            raise OSError(f"cannot listen on {address}") from exc
        if not self.port:
            raise OSError(f"cannot listen on {address}")
        await server.start()
        await self._health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        await self._health.set("", health_pb2.HealthCheckResponse.SERVING)
        self.metrics.runtime.start(loop)
        if config.metrics_port is not None:
            try:
                self._http = start_http_server(config.metrics_port, config.host, registry=self.metrics.registry)
            except OSError as exc:
                await server.stop(grace=None)  # no half-started server left behind
                raise OSError(f"cannot serve metrics on {config.host}:{config.metrics_port}: {exc.strerror}") from exc
            self.metrics_port = self._http[0].server_port
        log.info("serving", extra={"grpc_port": self.port, "metrics_port": self.metrics_port})

    async def stop(self, drain_seconds: float | None = None) -> DrainReport:
        """Drain the tables (see :meth:`TableHost.drain`), then close every call and the port."""
        assert self._server is not None and self.host is not None
        await self._health.enter_graceful_shutdown()
        deadline = self.config.drain_seconds if drain_seconds is None else drain_seconds
        report = await self.host.drain(deadline)
        # Streams were closed after their pending output; give the writers a moment to send it.
        await self._server.stop(grace=min(2.0, deadline + 0.5))
        await self._stop_metrics()
        return report

    async def kill(self) -> None:
        """Stop at once, as if the process died: no drain and no refund, every call cancelled, the
        tables abandoned where they stand (:meth:`TableHost.abandon`). A replacement server
        rebuilds them from the ledger (``TableHost.restore_table``); recovery tests use this."""
        assert self._server is not None and self.host is not None
        self.host.abandon()
        await self._server.stop(grace=None)
        await self._stop_metrics()

    async def _stop_metrics(self) -> None:
        self.metrics.runtime.stop()
        if self._http is not None:
            http = self._http[0]
            self._http = None
            # shutdown() waits for the serve loop's next poll (up to half a second): not on the loop.
            await asyncio.to_thread(http.shutdown)
            http.server_close()

    async def wait(self) -> None:
        assert self._server is not None
        await self._server.wait_for_termination()


async def serve(config: ServerConfig) -> int:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    server = TableServer(config)
    await server.start()
    tune_for_latency()  # this process is the service: no full-collection pauses (see gc_policy)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    # Printed once SIGTERM is handled: a script may read the ports and stop the server at once.
    print(json.dumps({"grpc_port": server.port, "metrics_port": server.metrics_port}), flush=True)
    await stop.wait()
    log.info("shutting down", extra={"drain_seconds": config.drain_seconds})
    report = await server.stop()
    log.info("stopped", extra={"hands_finished": report.finished, "hands_voided": report.voided})
    return 0


def run(config: ServerConfig, log_level: str = "INFO") -> int:
    jsonlog.configure(log_level)
    try:
        return asyncio.run(serve(config))
    except OSError as exc:
        log.error("cannot start", extra={"error": str(exc)})
        print(f"tablestorm serve: {exc}", file=sys.stderr)
        return 2  # did not start (tablestorm's exit statuses: sim/cli.py)
