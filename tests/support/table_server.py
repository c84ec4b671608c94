"""A table server under test: started in-process on 127.0.0.1 (port 0), with the ledger and the
action clocks the test holds, and read back through its metrics."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.table.clock import Timers
from tablestorm.services.table.host import HostLimits
from tablestorm.services.table.ledger import LedgerEntry
from tablestorm.services.table.server import ServerConfig, TableServer


class GateLedger:
    """A TableLedger kept in memory that holds each table's first deal until the test opens it.

    A hand starts as soon as two players sit; holding the first deal (the server awaits the ledger
    before it deals) lets a test seat everyone first, so every player is dealt into hand 1 and an
    engine replay of the table starts from the same seats.
    """

    def __init__(self) -> None:
        self.entries: list[LedgerEntry] = []
        self._gates: dict[str, asyncio.Event] = {}
        self._held: dict[str, asyncio.Event] = {}

    def gate(self, table_id: str) -> asyncio.Event:
        """Set it to let the table's first deal go on."""
        return self._gates.setdefault(table_id, asyncio.Event())

    def held(self, table_id: str) -> asyncio.Event:
        """Set once the table's first deal is waiting at the gate."""
        return self._held.setdefault(table_id, asyncio.Event())

    async def record(self, entry: LedgerEntry) -> None:
        self.entries.append(entry)  # in call order, as a real ledger stores them
        if entry.kind == "hand_started" and entry.hand_number == 1:
            self.held(entry.table_id).set()
            await self.gate(entry.table_id).wait()

    def note(self, entry: LedgerEntry) -> None:
        self.entries.append(entry)

    def of(self, table_id: str, kind: str) -> list[LedgerEntry]:
        return [e for e in self.entries if e.table_id == table_id and e.kind == kind]


@dataclass
class _Armed:
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """The server's action clocks (``ServerConfig.timers``), run out only when the test says.

    With the event loop's timers a player who means to act must answer within the clock, which a
    loaded machine can make it miss; here a turn's clock runs out at the moment the test picks (a
    silent player's turn, once it has arrived), and never before a player who acts has acted.
    """

    def __init__(self) -> None:
        self._armed: list[_Armed] = []

    def __call__(self, seconds: float, callback: Callable[[], None]) -> _Armed:
        self._armed = [armed for armed in self._armed if not armed.cancelled]
        armed = _Armed(callback)
        self._armed.append(armed)
        return armed

    def run_out(self) -> None:
        """The clock of the turn being played runs out now, as the loop would run it at its deadline."""
        live = [armed for armed in self._armed if not armed.cancelled]
        assert len(live) == 1, f"{len(live)} action clocks running, not one"
        self._armed = []  # the expiry arms the next turn's clock
        live[0].callback()


@asynccontextmanager
async def serving(
    ledger: GateLedger | None = None, metrics_http: bool = False, timers: Timers | None = None, **limits: Any
) -> AsyncIterator[tuple[TableServer, rpc.TableServiceStub]]:
    """A started server on 127.0.0.1 and a stub. With ``metrics_http`` it serves /metrics too
    (stopping that takes up to half a second: its serve loop polls for shutdown); ``timers`` run its
    action clocks (a :class:`ManualClock`; None: the event loop)."""
    config = ServerConfig(
        port=0,
        metrics_port=0 if metrics_http else None,
        limits=HostLimits(**limits),
        drain_seconds=5,
        ledger=ledger,
        timers=timers,
    )
    server = TableServer(config)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    try:
        yield server, rpc.TableServiceStub(channel)
    finally:
        if server.host is not None and server.host.accepting:
            await server.stop(drain_seconds=0)
        await channel.close()


def exported(server: TableServer, name: str, **labels: str) -> float:
    """The server's metric as Prometheus reads it (from the exposition text): the sum of the
    samples ``name`` whose labels include ``labels`` (all games, say, when no game is named)."""
    text = generate_latest(server.metrics.registry).decode()
    found = [
        float(sample.value)
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name and labels.items() <= sample.labels.items()
    ]
    if not found:
        raise KeyError(f"the server exports no sample {name}{labels or ''}")
    return sum(found)


def stud_options(**overrides: Any) -> pb.TableOptions:
    fields: dict[str, Any] = {"game": "7stud", "stakes": pb.Stakes(small_bet=4)}
    return pb.TableOptions(**(fields | overrides))


def token(seat_token: str) -> tuple[tuple[str, str]]:
    return (("x-seat-token", seat_token),)


def narrow_channel(port: int) -> grpc.aio.Channel:
    """A channel of its own whose connection accepts almost nothing (a 1 KiB window) until read."""
    return grpc.aio.insecure_channel(
        f"127.0.0.1:{port}",
        options=[
            ("grpc.http2.lookahead_bytes", 1024),
            ("grpc.http2.bdp_probe", 0),
            ("grpc.use_local_subchannel_pool", 1),
        ],
    )

