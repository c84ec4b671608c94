"""The typed transport: a client per connection to a table server, and the pool that shares them.

Unary calls go through the stub generated from the proto (``TableServiceStub`` on a ``grpc.aio``
channel, typed as ``TableServiceAsyncStub`` by ``table_service_pb2_grpc.pyi``): every call and its
messages are typed by the service, with no hand-kept copy of the RPC list. Play streams, which
carry nearly all the traffic, go over a :class:`~.play.PlayConnection` to the same endpoint. With
:class:`Tls` both are TLS connections that trust the given CA certificates.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Generic

import grpc

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api.table_service_pb2_grpc import TableServiceStub
from tablestorm.services.table.auth import SEAT_METADATA_KEY
from tablestorm.sim.bots.client.play import ALPN, Deliver, M, PlayConnection, PlayStream

if TYPE_CHECKING:
    from tablestorm.services.api.table_service_pb2_grpc import TableServiceAsyncStub

__all__ = ["ChannelPool", "TableClient", "Tls", "token_metadata"]

_CHANNEL_OPTIONS: Final = [("grpc.use_local_subchannel_pool", 1)]


def token_metadata(token: str) -> tuple[tuple[str, str]]:
    """The metadata of a seat call: the seat token."""
    return ((SEAT_METADATA_KEY, token),)


@dataclass(frozen=True, slots=True)
class Tls:
    """TLS to the table servers, trusting the CA certificates of ``ca_pem`` (PEM): the servers'
    certificates must be signed by one of them and name the address connected to."""

    ca_pem: bytes

    def credentials(self) -> grpc.ChannelCredentials:
        """For a gRPC channel (the unary calls)."""
        return grpc.ssl_channel_credentials(self.ca_pem)

    def context(self) -> ssl.SSLContext:
        """For the Play streams' HTTP/2 connections: the CA, hostname checks, and ALPN ``h2``
        (gRPC servers refuse TLS connections that do not negotiate it)."""
        context = ssl.create_default_context(cadata=self.ca_pem.decode("ascii"))
        context.set_alpn_protocols([ALPN])
        return context


_READ_MESSAGE: Final = pb.ServerMessage.FromString


class TableClient(Generic[M]):
    """The calls of one table server on one connection: ``stub`` for unary calls, :meth:`play` for
    streams, whose messages are what ``read`` makes of their bytes (default: ``ServerMessage``).
    ``streams`` counts the Play streams the pool has placed on this client. With ``credentials``
    and ``context`` (see :class:`Tls`) both kinds of connection are TLS."""

    __slots__ = ("_connecting", "_context", "_plays", "_read", "channel", "endpoint", "streams", "stub")

    def __init__(
        self,
        endpoint: str,
        credentials: grpc.ChannelCredentials | None = None,
        context: ssl.SSLContext | None = None,
        read: Callable[[bytes], M] = _READ_MESSAGE,  # type: ignore[assignment]  # M's default
    ) -> None:
        self.endpoint = endpoint
        self._read = read
        self.channel = (
            grpc.aio.insecure_channel(endpoint, options=_CHANNEL_OPTIONS)
            if credentials is None
            else grpc.aio.secure_channel(endpoint, credentials, options=_CHANNEL_OPTIONS)
        )
        self.stub: TableServiceAsyncStub = TableServiceStub(self.channel)
        self.streams = 0
        self._context = context
        self._plays: PlayConnection[M] | None = None
        self._connecting: asyncio.Lock | None = None

    async def play(self, token: str, deliver: Deliver[M]) -> PlayStream[M]:
        """Open a Play stream for the seat of ``token``; its messages go to ``deliver``.

        The connection is made on first use and again after it was lost or told GOAWAY; failing
        to connect raises ConnectionError (OSError), which the caller takes as UNAVAILABLE.
        """
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._plays is None or self._plays.closed:
                self._plays = await PlayConnection.connect(self.endpoint, read=self._read, tls=self._context)
        return self._plays.open(token_metadata(token), deliver)

    async def close(self) -> None:
        if self._plays is not None:
            self._plays.close()
        await self.channel.close()


class ChannelPool(Generic[M]):
    """Clients per endpoint, each carrying at most ``streams_per_channel`` Play streams (whose
    messages are what ``read`` makes of them, as for :class:`TableClient`).

    A server caps concurrent streams per connection (1,000 by default), and one HTTP/2 connection
    is one socket and one set of flow-control windows; past a few hundred busy streams a second
    connection spreads the load. Each client's gRPC channel gets a local subchannel pool, so clients
    of the same address really are separate connections.
    """

    __slots__ = ("_clients", "_closing", "_context", "_credentials", "_read", "streams_per_channel")

    def __init__(
        self,
        streams_per_channel: int = 500,
        tls: Tls | None = None,
        read: Callable[[bytes], M] = _READ_MESSAGE,  # type: ignore[assignment]  # M's default
    ) -> None:
        if streams_per_channel < 1:
            raise ValueError("streams_per_channel must be at least 1")
        self.streams_per_channel = streams_per_channel
        self._read = read
        self._clients: dict[str, list[TableClient[M]]] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._credentials = None if tls is None else tls.credentials()
        self._context = None if tls is None else tls.context()

    def acquire(self, endpoint: str) -> TableClient[M]:
        """A client for ``endpoint`` with room for one more stream (making one if needed)."""
        clients = self._clients.setdefault(endpoint, [])
        for client in clients:
            if client.streams < self.streams_per_channel:
                client.streams += 1
                return client
        client = TableClient(endpoint, self._credentials, self._context, self._read)
        client.streams = 1
        clients.append(client)
        return client

    def release(self, client: TableClient[M]) -> None:
        """One stream fewer on ``client``; the last one closes it. A client nobody uses is closed
        rather than kept: after a server is lost its bots move to the table's new address, and the
        old connection (its HTTP/2 state for every stream it carried, a gRPC channel retrying a dead
        address) would otherwise stay for the rest of the run, each host kill leaking more (the soak
        measured ~5 MB per fleet per kill)."""
        client.streams -= 1
        if client.streams > 0:
            return
        clients = self._clients.get(client.endpoint, [])
        if client in clients:
            clients.remove(client)
            if not clients:
                del self._clients[client.endpoint]
        closing = asyncio.get_running_loop().create_task(client.close())
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    @property
    def channels(self) -> int:
        return sum(len(clients) for clients in self._clients.values())

    async def close(self) -> None:
        clients = [client for group in self._clients.values() for client in group]
        self._clients.clear()
        await asyncio.gather(*(client.close() for client in clients), *self._closing)
