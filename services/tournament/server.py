"""The tournament server process: gRPC (grpc.aio), health, reflection, metrics, graceful shutdown.

It hosts many tournaments, each played on tournament tables of the table servers it was given
(:mod:`.servers`). ``tablestorm serve-tournaments`` calls :func:`run`, which prints
``{"grpc_port": ..., "metrics_port": ...}`` on stdout once listening and, on SIGTERM or SIGINT,
stops taking calls, pauses every tournament, lets running hands finish until the drain deadline,
closes their tables and ends every Watch stream UNAVAILABLE. Without a journal, tournaments live
in this process's memory and end with it; with one (``--journal``), every director input is
written there first, and a server started again on the same file rebuilds every tournament from
it, finds its tables and carries on (:meth:`TournamentLobby.restore`, docs/tournament_service.md).
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from tablestorm.services.rpc import process
from tablestorm.services.rpc.process import Serving, until_signalled
from tablestorm.services.rpc.tls import ClientTls, ServerTls
from tablestorm.services.tournament.journal import DEFAULT_SNAPSHOT_EVERY, Journal
from tablestorm.services.tournament.lobby import LobbyLimits, TournamentLobby
from tablestorm.services.tournament.metrics import TournamentMetrics
from tablestorm.services.tournament.remote import GrpcTableServer
from tablestorm.services.tournament.servers import FaultPolicy, TableServers
from tablestorm.services.tournament.service import SERVICE_NAME, TournamentService, handlers

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TournamentServerConfig:
    """Everything ``tablestorm serve-tournaments`` is started with."""

    tables: tuple[str, ...]
    """The table servers (``host:port``) the tournaments' tables are placed on."""
    host: str = "127.0.0.1"
    port: int = 50061
    """0: let the system pick (the chosen port is printed and in :attr:`TournamentServer.port`)."""
    metrics_port: int | None = None
    """Prometheus scrape port on ``host``; None: no HTTP endpoint (the registry still counts)."""
    operator_token: str | None = None
    """Required of CreateTournament, Start, Pause and Resume when set."""
    limits: LobbyLimits = field(default_factory=LobbyLimits)
    faults: FaultPolicy = field(default_factory=FaultPolicy)
    max_message_bytes: int = 256 * 1024
    """Largest request accepted (a structure of 1000 levels is far smaller)."""
    tls: ServerTls | None = None
    """Serve TLS on ``port``."""
    tables_tls: ClientTls | None = None
    """Reach the table servers over TLS (with a client certificate: mutual TLS)."""
    journal: Path | None = None
    """The journal file (created if missing, else every tournament in it is restored); None: none."""
    snapshot_every: int = DEFAULT_SNAPSHOT_EVERY
    """Inputs of a tournament between two snapshots of its director in the journal."""


class TournamentServer:
    """A started tournament server; :meth:`stop` is the graceful shutdown."""

    def __init__(self, config: TournamentServerConfig) -> None:
        self.config = config
        self.metrics = TournamentMetrics()
        self.port = 0
        self.metrics_port: int | None = None
        self.lobby: TournamentLobby | None = None
        self.journal: Journal | None = None
        self.restored = 0
        """Tournaments rebuilt from the journal at the start."""
        self._servers: TableServers | None = None
        self._serving: Serving | None = None

    async def start(self) -> None:
        config = self.config
        servers = self._servers = TableServers(
            config.tables, config.faults, functools.partial(GrpcTableServer, tls=config.tables_tls)
        )
        self._count_servers(servers)
        servers.listen(lambda endpoint, up: self._count_servers(servers))
        if config.journal is not None:
            self.journal = Journal(config.journal, snapshot_every=config.snapshot_every)
        self.lobby = TournamentLobby(servers, self.metrics, config.limits, self.journal)
        if self.journal is not None:
            began = time.perf_counter()
            self.restored = self.lobby.restore()
            log.info(
                "journal read",
                extra={"journal": str(config.journal), "tournaments": self.restored,
                       "seconds": round(time.perf_counter() - began, 3), "bytes": self.journal.size},
            )
        try:
            serving = self._serving = await Serving.start(
                handlers(TournamentService(self.lobby, config.operator_token)),
                SERVICE_NAME,
                address=f"{config.host}:{config.port}",
                metrics=self.metrics,
                metrics_port=config.metrics_port,
                options=[("grpc.max_receive_message_length", config.max_message_bytes)],
                credentials=config.tls.credentials() if config.tls is not None else None,
            )
        except OSError:
            await servers.close()
            if self.journal is not None:
                self.journal.close()
            raise
        servers.start()
        self.port, self.metrics_port = serving.port, serving.metrics_port
        log.info("serving", extra={"grpc_port": self.port, "metrics_port": self.metrics_port, "tables": config.tables})

    def _count_servers(self, servers: TableServers) -> None:
        up = sum(servers.is_up(endpoint) for endpoint in servers.endpoints)
        self.metrics.table_servers.labels("up").set(up)
        self.metrics.table_servers.labels("down").set(len(servers.endpoints) - up)

    async def stop(self) -> None:
        """Shut down gracefully (see :meth:`TournamentLobby.shutdown`), then close the port."""
        assert self._serving is not None and self.lobby is not None and self._servers is not None
        await self._serving.health.enter_graceful_shutdown()
        await self.lobby.shutdown()
        await self._serving.stop(grace=2.0)  # Watch streams were ended: let them write their last
        await self._servers.close()
        if self.journal is not None:
            self.journal.close()


    async def kill(self) -> None:
        """Stop at once, as if the process died (SIGKILL): no pause, no drain, no table closed, every
        call cancelled, the journal left as its last commit made it. A server started again on the
        journal carries on; restart tests run in one process use this."""
        assert self._serving is not None and self.lobby is not None and self._servers is not None
        self.lobby.abandon()
        if self.journal is not None:
            self.journal.close()
        await self._serving.stop(grace=None)
        await self._servers.close()


async def serve(config: TournamentServerConfig) -> int:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    server = TournamentServer(config)
    await server.start()
    await until_signalled({"grpc_port": server.port, "metrics_port": server.metrics_port})
    log.info("shutting down", extra={"drain_seconds": config.limits.drain_seconds})
    await server.stop()
    log.info("stopped")
    return 0


def run(config: TournamentServerConfig, log_level: str = "INFO") -> int:
    return process.run(serve(config), "serve-tournaments", log_level)
