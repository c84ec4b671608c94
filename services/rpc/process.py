"""What a service process of the project does around its gRPC server, the same for each
(``tablestorm serve``, ``tablestorm serve-tournaments``): bind the port, health and reflection,
the per-RPC counter, the metrics over HTTP, print the ports, wait for SIGTERM or SIGINT, and exit
2 with one line when it cannot start.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from collections.abc import Coroutine, Sequence
from threading import Thread
from typing import Any, Protocol
from wsgiref.simple_server import WSGIServer

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from prometheus_client import CollectorRegistry, Counter, start_http_server

from tablestorm.services.rpc import jsonlog, reflection
from tablestorm.services.rpc.interceptors import MetricsInterceptor
from tablestorm.services.rpc.runtime_metrics import RuntimeMetrics

log = logging.getLogger(__name__)


def bind(server: grpc.aio.Server, address: str, credentials: grpc.ServerCredentials | None = None) -> int:
    """Listen on ``address``; returns the port (OSError when it cannot: in use, not this machine's)."""
    try:
        if credentials is None:
            port = server.add_insecure_port(address)
        else:
            port = server.add_secure_port(address, credentials)
    except RuntimeError as exc:  # grpc's "Failed to bind"
        raise OSError(f"cannot listen on {address}") from exc
    if not port:
        raise OSError(f"cannot listen on {address}")
    return port


class MetricsEndpoint:
    """``/metrics`` of one registry over HTTP, on its own thread (prometheus_client's server)."""

    def __init__(self, registry: CollectorRegistry, host: str, port: int) -> None:
        try:
            self._http: tuple[WSGIServer, Thread] | None = start_http_server(port, host, registry=registry)
        except OSError as exc:
            raise OSError(f"cannot serve metrics on {host}:{port}: {exc.strerror}") from exc
        self.port: int = self._http[0].server_port

    async def stop(self) -> None:
        if self._http is None:
            return
        http = self._http[0]
        self._http = None
        # shutdown() waits for the serve loop's next poll (up to half a second): not on the loop.
        await asyncio.to_thread(http.shutdown)
        http.server_close()


class ServiceMetrics(Protocol):
    """What :class:`Serving` needs of a service's metrics (the table and the tournament servers' own)."""

    registry: CollectorRegistry
    runtime: RuntimeMetrics
    grpc_requests: Counter


class Serving:
    """A started gRPC server of one service: its handlers, health (SERVING), reflection, the
    per-RPC counter, and ``/metrics`` over HTTP when a metrics port is given."""

    def __init__(
        self,
        server: grpc.aio.Server,
        port: int,
        servicer: health.aio.HealthServicer,
        runtime: RuntimeMetrics,
        http: MetricsEndpoint | None,
    ) -> None:
        self.server = server
        self.port = port
        self.health = servicer
        self._runtime = runtime
        self._http = http
        self.metrics_port = http.port if http is not None else None

    @classmethod
    async def start(
        cls,
        handler: grpc.GenericRpcHandler,
        service_name: str,
        *,
        address: str,
        metrics: ServiceMetrics,
        metrics_port: int | None,
        options: Sequence[tuple[str, Any]] = (),
        credentials: grpc.ServerCredentials | None = None,
    ) -> Serving:
        """Listen on ``address`` (OSError when it cannot), count every RPC and measure the loop's
        and the process's health into ``metrics``, and serve them on ``metrics_port`` of the same
        host."""
        runtime = metrics.runtime
        server = grpc.aio.server(
            interceptors=[MetricsInterceptor(metrics.grpc_requests)], options=[*options, ("grpc.so_reuseport", 0)]
        )
        server.add_generic_rpc_handlers((handler,))
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        reflection.enable(server, (service_name, health.SERVICE_NAME))
        port = bind(server, address, credentials)
        await server.start()
        await health_servicer.set(service_name, health_pb2.HealthCheckResponse.SERVING)
        await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
        runtime.start(asyncio.get_running_loop())
        http = None
        if metrics_port is not None:
            try:
                http = MetricsEndpoint(metrics.registry, address.rsplit(":", 1)[0], metrics_port)
            except OSError:
                runtime.stop()
                await server.stop(grace=None)  # no half-started server left behind
                raise
        return cls(server, port, health_servicer, runtime, http)

    async def stop(self, grace: float | None) -> None:
        """Close every call (after ``grace`` seconds for the running ones; None: at once) and both
        ports."""
        await self.server.stop(grace=grace)
        self._runtime.stop()
        if self._http is not None:
            await self._http.stop()


async def until_signalled(ports: dict[str, int | None]) -> None:
    """Print ``ports`` as one JSON line once SIGTERM and SIGINT are handled (a script may read
    them and stop the process at once), then wait for either."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(json.dumps(ports), flush=True)
    await stop.wait()


def run(main: Coroutine[Any, Any, int], command: str, log_level: str) -> int:
    """Run a service's main coroutine with JSON logs; 2 when it cannot start (an OSError)."""
    jsonlog.configure(log_level)
    try:
        return asyncio.run(main)
    except OSError as exc:
        log.error("cannot start", extra={"error": str(exc)})
        print(f"tablestorm {command}: {exc}", file=sys.stderr)
        return 2  # did not start (tablestorm's exit statuses: sim/cli.py)
