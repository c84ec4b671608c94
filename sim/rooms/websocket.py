"""The WebSocket room: table servers spoken to over their WebSocket front door (``tablestorm serve
--websocket PORT``, docs/websocket.md), the adapter registered as ``websocket`` in the
``tablestorm.rooms`` entry point group.

Each seat's line holds a connection of its own, logged in as the seat's player, as a browser holds
one (:class:`~.websocket_client.WsRoomClient`): the seat's requests are its requests, and the table
open on it as that seat is the seat's stream, read as neutral traffic by :mod:`.websocket_traffic`.
The connection is made when the line first needs it; a cancelled stream closes it (a drop, as a
browser's), and the next stream connects again and resumes by seq with the seat token. A request
that needs the seat held on the connection (stand up, sit out, ...) while no stream is open opens
the seat first, after the last event the line saw, and keeps what comes for the next stream.

An endpoint is ``HOST:PORT`` (the front door at ``ws://HOST:PORT`` + the ``path`` option) or a
whole ``ws://`` or ``wss://`` URL.

Options (a scenario's ``room:`` section):

* ``path``: the front door's URL path (default ``/ws``).

The front door opens no tables (``open_table`` is UNIMPLEMENTED): a room creates them over gRPC.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, Final, TypeVar

import aiohttp
import grpc

from tablestorm.services.engine import TableOptions
from tablestorm.services.fields import FieldError
from tablestorm.services.websocket import messages as ws
from tablestorm.services.websocket.server import PATH
from tablestorm.sim.bots.strategies import Action
from tablestorm.sim.rooms.base import Deliver, RoomError, Seated, TableInfo, known_options
from tablestorm.sim.rooms.traffic import Traffic
from tablestorm.sim.rooms.websocket_client import CLOSED, Incoming, WsRoomClient, status
from tablestorm.sim.rooms.websocket_traffic import traffic

__all__ = ["WebSocketLine", "WebSocketRoom", "WebSocketStream"]

OPTIONS: Final = ("path",)
LOBBY_TIMEOUT: Final = 10.0
"""Seconds a lobby call may take."""
LOBBY_PLAYER: Final = "tablestorm-lobby"
"""The player a lobby connection logs in as (it sits nowhere)."""
T = TypeVar("T")


async def _within(timeout: float, call: Coroutine[Any, Any, T]) -> T:
    """``call`` as a room call: out of time is DEADLINE_EXCEEDED, no connection UNAVAILABLE."""
    try:
        return await asyncio.wait_for(call, timeout)
    except TimeoutError:
        raise RoomError(grpc.StatusCode.DEADLINE_EXCEEDED, f"no answer within {timeout:g} s") from None
    except (OSError, aiohttp.ClientError) as exc:
        raise RoomError(grpc.StatusCode.UNAVAILABLE, str(exc) or type(exc).__name__) from None


def _observed(opening: asyncio.Future[None]) -> None:
    """A refused open is the stream's end (or the request's RoomError): never an unread exception."""
    if not opening.cancelled():
        opening.exception()


class WebSocketStream:
    """A seat's table open on its line's connection (see :class:`~tablestorm.sim.rooms.base.PlayStream`)."""

    __slots__ = ("_line", "ended")

    def __init__(self, line: WebSocketLine) -> None:
        self._line = line
        self.ended: asyncio.Future[grpc.StatusCode] = asyncio.get_running_loop().create_future()

    def act(self, action_id: str, action: Action, prompt_seq: int) -> Awaitable[None] | None:
        return self._line.act(action_id, action, prompt_seq)

    def cancel(self) -> bool:
        if self.ended.done():
            return False
        self._line.drop(grpc.StatusCode.CANCELLED)
        return True


class WebSocketLine:
    """One seat's connection (see :class:`~tablestorm.sim.rooms.base.SeatLine` and the module docstring)."""

    __slots__ = (
        "_client", "_deliver", "_discarding", "_early", "_early_after", "_generation", "_last_seq", "_lock",
        "_opening", "_room", "_stream", "endpoint", "player_id", "seat", "table_id", "token",
    )

    def __init__(
        self, room: WebSocketRoom, endpoint: str, table_id: str, seat: int, player_id: str, token: str
    ) -> None:
        self._room = room
        self.endpoint = endpoint
        self.table_id = table_id
        self.seat = seat
        self.player_id = player_id
        self.token = token
        self._client: WsRoomClient | None = None
        self._generation = 0
        """The connection's number: what an older connection still hands in is ignored."""
        self._lock = asyncio.Lock()
        """Held while connecting and opening the seat (a stream and a request may ask at once)."""
        self._opening: asyncio.Future[None] | None = None
        """An ``open`` (or ``sit``) sent, its ``snapshot`` not in yet."""
        self._discarding = False
        """The seat is opened again on the connection: what the replaced subscription still sends
        before the new ``snapshot`` goes."""
        self._early: list[Traffic] | None = None
        """What the seat's table sent while no stream was open (after a ``sit``, or an ``open`` for a
        request), for the next stream; None: the seat is not held on the connection."""
        self._early_after: int | None = None
        """The seq those were opened after (None: afresh, as after a sit)."""
        self._stream: WebSocketStream | None = None
        self._deliver: Deliver | None = None
        self._last_seq: int | None = None
        """The last event seq received: where a request's ``open`` resumes from."""

    # ----------------------------------------------------------------- the connection

    async def _connection(self) -> WsRoomClient:
        """The line's logged-in connection, made if there is none (OSError, aiohttp's errors or a
        RoomError when it cannot be)."""
        client = self._client
        if client is None or client.closed:
            self._generation += 1
            generation = self._generation

            def receive(incoming: Incoming) -> None:
                if generation == self._generation:
                    self._receive(incoming)

            client = self._client = await self._room.connect(self.endpoint, self.player_id, receive)
        return client

    def drop(self, code: grpc.StatusCode) -> None:
        """Close the connection (in the background); an open stream ends with ``code``."""
        self._generation += 1
        client, self._client = self._client, None
        if client is not None:
            self._room.discard(client)
        self._lost(code, "the connection was closed")

    def _lost(self, code: grpc.StatusCode, message: str) -> None:
        """The seat is no longer open on the connection: the stream ends with ``code``, an open
        awaited fails with it."""
        self._early = None
        self._discarding = False
        opening, self._opening = self._opening, None
        if opening is not None and not opening.done():
            opening.set_exception(RoomError(code, message))
        stream, self._stream, self._deliver = self._stream, None, None
        if stream is not None and not stream.ended.done():
            stream.ended.set_result(code)

    def _receive(self, incoming: Incoming) -> None:
        """One streamed message of the line's connection (see the module docstring)."""
        message = incoming.message
        read = traffic(message)
        if read is not None:
            if read.welcome is not None:
                self._discarding = False
                opening, self._opening = self._opening, None
                if opening is not None and not opening.done():
                    opening.set_result(None)
            elif self._discarding:
                return
            if read.events:
                self._last_seq = read.events[-1].seq
            deliver = self._deliver
            if deliver is not None:
                deliver(read)
            elif self._early is not None:
                self._early.append(read)
        elif incoming is CLOSED:
            client, self._client = self._client, None
            if client is not None:
                self._room.discard(client)
            self._lost(grpc.StatusCode.UNAVAILABLE, "the connection closed")
        elif isinstance(message, ws.Left | ws.Error):
            # The table ended the seat's subscription (stood up, replaced, ...), or refused its open.
            self._lost(status(message.code), message.message)

    async def _open(self, client: WsRoomClient, resume_after: int | None) -> asyncio.Future[None]:
        """Open the seat on the connection after ``resume_after``; a future set once its snapshot is in."""
        if self._opening is not None:  # an earlier one first: its snapshot must not pass for this one's
            await asyncio.gather(self._opening, return_exceptions=True)
        self._discarding = self._early is not None
        self._early, self._early_after = [], resume_after
        opening = self._opening = asyncio.get_running_loop().create_future()
        opening.add_done_callback(_observed)
        await client.open(self.table_id, self.seat, self.token, resume_after)
        return opening

    async def _held(self) -> WsRoomClient:
        """The connection with the seat open on it (opened after the last event seen if not)."""
        async with self._lock:
            client = await self._connection()
            if self._early is None and self._stream is None:
                await (await self._open(client, self._last_seq))
            return client

    # ----------------------------------------------------------------- the seat's calls

    async def sit(self, buy_in: int | None, timeout: float) -> Seated:
        async def sit() -> Seated:
            async with self._lock:
                client = await self._connection()
                # The seat's stream starts with the seat: its snapshot may be read before the reply is.
                self._early, self._early_after = [], None
                try:
                    seated = await client.sit(self.table_id, self.seat, buy_in or 0)
                except BaseException:
                    self._early = None
                    raise
                self.token = seated.seat_token
                return Seated(seated.seat_token, seated.stack)

        return await _within(timeout, sit())

    async def stand_up(self, timeout: float) -> int:
        async def stand_up() -> int:
            return (await (await self._held()).stand_up(self.table_id)).chips

        return await _within(timeout, stand_up())

    async def sit_out(self, timeout: float) -> None:
        async def sit_out() -> None:
            await (await self._held()).sit_out(self.table_id)

        await _within(timeout, sit_out())

    async def sit_in(self, timeout: float) -> None:
        async def sit_in() -> None:
            await (await self._held()).sit_in(self.table_id)

        await _within(timeout, sit_in())

    async def rebuy(self, timeout: float) -> int:
        async def rebuy() -> int:
            return int((await (await self._held()).rebuy(self.table_id)).seat["stack"])

        return await _within(timeout, rebuy())

    async def closing(self, timeout: float) -> bool:
        async def closing() -> bool:
            async with self._lock:
                client = await self._connection()
            found = await self._room.summary(client, self.table_id)
            return found is not None and bool(found["closing"])

        return await _within(timeout, closing())

    async def play(self, deliver: Deliver, resume_after: int | None) -> WebSocketStream:
        async with self._lock:
            try:
                client = await self._connection()
            except aiohttp.ClientError as exc:
                raise OSError(str(exc) or type(exc).__name__) from exc
            except RoomError as exc:  # the login refused: the stream ends with its status
                stream = WebSocketStream(self)
                stream.ended.set_result(exc.code)
                return stream
            replaced, self._stream, self._deliver = self._stream, None, None
            if replaced is not None and not replaced.ended.done():  # another stream of the seat: it ends
                replaced.ended.set_result(grpc.StatusCode.CANCELLED)
            kept = self._early is not None and replaced is None
            if not kept or (resume_after is not None and resume_after != self._early_after):
                await self._open(client, resume_after)
            stream = self._stream = WebSocketStream(self)
            # Delivered once the caller holds the stream (it may act on a prompt kept for it).
            asyncio.get_running_loop().call_soon(self._flush, stream, deliver)
            return stream

    def _flush(self, stream: WebSocketStream, deliver: Deliver) -> None:
        """Deliver what was kept for ``stream``, then everything as it comes."""
        if stream is not self._stream or self._early is None:
            return  # it ended already
        early, self._early = self._early, []
        for read in early:
            deliver(read)
        if stream is self._stream:
            self._deliver = deliver

    def act(self, action_id: str, action: Action, prompt_seq: int) -> Awaitable[None] | None:
        client = self._client
        if client is None:
            return None  # the stream ended: the referee settles the action as lost
        return self._act(client, action_id, action, prompt_seq)

    async def _act(self, client: WsRoomClient, action_id: str, action: Action, prompt_seq: int) -> None:
        with contextlib.suppress(ConnectionError):  # the connection closing: the stream's end says so
            await client.act(self.table_id, action_id, action.kind, action.amount, action.discard, prompt_seq)

    def move(self, endpoint: str) -> None:
        if endpoint != self.endpoint:
            self.drop(grpc.StatusCode.UNAVAILABLE)
            self.endpoint = endpoint

    def release(self) -> None:
        self.drop(grpc.StatusCode.CANCELLED)


class WebSocketRoom:
    """Table servers' WebSocket front doors (see the module docstring for the options)."""

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        given = known_options(options or {}, OPTIONS)
        path = given.get("path", PATH)
        if not isinstance(path, str) or not path.startswith("/"):
            raise FieldError("path", f"expected a URL path starting with /, got {path!r}")
        self.path = path
        self._session: aiohttp.ClientSession | None = None
        self._clients: set[WsRoomClient] = set()
        self._closing: set[asyncio.Task[None]] = set()

    def url(self, endpoint: str) -> str:
        """The front door's URL at ``endpoint`` (see the module docstring)."""
        return endpoint if endpoint.startswith(("ws://", "wss://")) else f"ws://{endpoint}{self.path}"

    async def connect(
        self, endpoint: str, player_id: str, receive: Callable[[Incoming], None] | None = None
    ) -> WsRoomClient:
        """A connection to ``endpoint`` logged in as ``player_id``, counted in :attr:`connections`
        until :meth:`discard`."""
        if self._session is None:  # one session (and connector, unbounded) for every connection
            self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        client = await WsRoomClient.connect(self.url(endpoint), player_id, receive, self._session)
        self._clients.add(client)
        return client

    def discard(self, client: WsRoomClient) -> None:
        """Close ``client`` in the background (:meth:`close` waits for it)."""
        if client in self._clients:
            self._clients.discard(client)
            task = asyncio.ensure_future(client.close())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    def line(self, endpoint: str, table_id: str, seat: int, player_id: str, token: str = "") -> WebSocketLine:
        return WebSocketLine(self, endpoint, table_id, seat, player_id, token)

    async def summary(self, client: WsRoomClient, table_id: str, game: str = "") -> dict[str, Any] | None:
        """The lobby's summary of ``table_id`` (None: not listed), paged through on ``client``."""
        async for table in self._listed(client, game):
            if table["table_id"] == table_id:
                found: dict[str, Any] = table
                return found
        return None

    async def _listed(self, client: WsRoomClient, game: str) -> Any:
        page = ""
        while True:
            reply = await client.list_tables(game=game, page_size=1000, page_token=page)
            for table in reply.tables:
                yield table
            page = reply.next_page_token
            if not page:
                return

    async def tables(self, endpoint: str, game: str = "") -> list[TableInfo]:
        async def listed() -> list[TableInfo]:
            client = await self.connect(endpoint, LOBBY_PLAYER)
            try:
                return [
                    TableInfo(t["table_id"], t["game"], t["max_seats"], t["seats_taken"])
                    async for t in self._listed(client, game)
                ]
            finally:
                self.discard(client)

        return await _within(LOBBY_TIMEOUT, listed())

    async def open_table(self, endpoint: str, table_id: str, options: TableOptions, seed: int | None = None) -> str:
        raise RoomError(grpc.StatusCode.UNIMPLEMENTED, "the WebSocket front door opens no tables (CreateTable, gRPC)")

    @property
    def connections(self) -> int:
        return len(self._clients)

    async def close(self) -> None:
        for client in list(self._clients):
            self.discard(client)
        await asyncio.gather(*self._closing, return_exceptions=True)
        if self._session is not None:
            await self._session.close()
            self._session = None
