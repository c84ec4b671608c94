"""The table servers a tournament server was given: where tables go, and which servers are down.

Every tournament of the server places its tables here, least loaded first (the fewest tables this
server has placed there, ties in the order the servers were given). A server is *down* once a
call to it went unanswered (:class:`~.remote.TableServerDown`, reported by the driver) or its
health check failed :attr:`FaultPolicy.failures` times in a row; the tournaments hear of it and
rebuild its tables elsewhere (``Director.table_lost``). A down server whose health check passes
again is *up* again, for new tables only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tablestorm.services.tournament.remote import GrpcTableServer, RemoteTables

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FaultPolicy:
    """How table servers are watched."""

    interval_s: float = 1.0
    """Seconds between two health checks of every server."""
    timeout_s: float = 2.0
    """A health check unanswered this long has failed."""
    failures: int = 2
    """Health checks failed in a row that make a server down (a dropped call does at once)."""


@dataclass(slots=True)
class _Backend:
    """One table server: its client, the tables placed there, and whether it is up."""

    client: RemoteTables
    tables: int = 0
    up: bool = True
    failed_checks: int = 0


Listener = Callable[[str, bool], None]
"""Told ``(endpoint, up)`` each time a server goes down (False) or comes back (True)."""


class TableServers:
    """The table servers, their load and their health."""

    def __init__(
        self,
        endpoints: Sequence[str],
        policy: FaultPolicy = FaultPolicy(),
        connect: Callable[[str], RemoteTables] = GrpcTableServer,
    ) -> None:
        if not endpoints:
            raise ValueError("endpoints: at least one table server is needed")
        self.policy = policy
        self._backends = {endpoint: _Backend(connect(endpoint)) for endpoint in endpoints}
        self._listeners: list[Listener] = []
        self._watch: asyncio.Task[None] | None = None

    @property
    def endpoints(self) -> tuple[str, ...]:
        return tuple(self._backends)

    def is_up(self, endpoint: str) -> bool:
        return self._backends[endpoint].up

    def client(self, endpoint: str) -> RemoteTables:
        return self._backends[endpoint].client

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Hear of servers going down and coming back; returns the call that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    # ----------------------------------------------------------------- placement

    def candidates(self) -> list[RemoteTables]:
        """The servers up, least loaded first: where to try a new table, in order."""
        up = [b for b in self._backends.values() if b.up]
        return [b.client for b in sorted(up, key=lambda b: b.tables)]  # sorted() is stable: given order

    def placed(self, endpoint: str) -> None:
        self._backends[endpoint].tables += 1

    def released(self, endpoint: str) -> None:
        self._backends[endpoint].tables -= 1

    # ----------------------------------------------------------------- health

    def report_down(self, endpoint: str, reason: str) -> None:
        """A call to ``endpoint`` went unanswered: it is down from now on (until it checks healthy)."""
        backend = self._backends[endpoint]
        backend.failed_checks = self.policy.failures
        self._mark(endpoint, backend, up=False, reason=reason)

    def _mark(self, endpoint: str, backend: _Backend, *, up: bool, reason: str) -> None:
        if backend.up == up:
            return
        backend.up = up
        log.warning("table server up" if up else "table server down", extra={"endpoint": endpoint, "reason": reason})
        for listener in list(self._listeners):
            listener(endpoint, up)

    async def check(self) -> None:
        """One health check of every server, all at once."""
        clients = [(endpoint, backend) for endpoint, backend in self._backends.items()]
        results = await asyncio.gather(*(b.client.healthy(self.policy.timeout_s) for _, b in clients))
        for (endpoint, backend), healthy in zip(clients, results, strict=True):
            if healthy:
                backend.failed_checks = 0
                self._mark(endpoint, backend, up=True, reason="health check passed")
                continue
            backend.failed_checks += 1
            if backend.failed_checks >= self.policy.failures:
                self._mark(endpoint, backend, up=False, reason=f"{backend.failed_checks} health checks failed")

    def start(self) -> None:
        """Check every server every :attr:`FaultPolicy.interval_s` seconds until :meth:`close`."""
        self._watch = asyncio.get_running_loop().create_task(self._checking())

    async def _checking(self) -> None:
        while True:
            await asyncio.sleep(self.policy.interval_s)
            await self.check()

    async def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        await asyncio.gather(*(b.client.close() for b in self._backends.values()))
