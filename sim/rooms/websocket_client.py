"""A client of the WebSocket front door (docs/websocket.md): one connection, logged in as one player.

Requests that have a reply (:meth:`WsRoomClient.list_tables`, :meth:`~WsRoomClient.sit`,
:meth:`~WsRoomClient.stand_up`, ...) are awaited by their ``rid``; what the tables stream
(``snapshot``, ``events``, ``your_turn``, ``ack``, ``reject``, ``left``, ``pong``) is handed to the
connection's ``receive`` callback as the front door's typed messages, each stamped with when it was
read (without one, it is queued for :meth:`~WsRoomClient.messages`), and :data:`CLOSED` once the
connection is gone. An action is sent with its request id without waiting
(:meth:`~WsRoomClient.act`), its ``ack`` or ``reject`` arriving in order after the events it caused.
The schema is the server's own (:mod:`tablestorm.services.websocket.messages`), so the client and
the server cannot disagree on a field; a refusal is the room interface's
:class:`~tablestorm.sim.rooms.base.RoomError`, its code read through :data:`STATUS_BY_CODE`.

The client keeps the connection alive the way the front door asks: a ``ping`` whenever it has sent
nothing for ``heartbeat_seconds`` (``logged_in`` says how long), so a seat that sits out for minutes
is not closed as idle.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Final, NamedTuple, TypeVar

import aiohttp
import grpc
import msgspec

from tablestorm.services.websocket import messages as ws
from tablestorm.sim.rooms.base import RoomError

__all__ = ["CLOSED", "STATUS_BY_CODE", "Incoming", "WsRoomClient", "status"]

R = TypeVar("R", bound=ws.Reply)

STATUS_BY_CODE: Final = {code.name.lower(): code for code in grpc.StatusCode}
"""The front door's error codes (``reject``, ``error``, ``left``) as the gRPC statuses they name:
the one table between its vocabulary and the room interface's (docs/websocket.md, Error codes)."""


def status(code: str) -> grpc.StatusCode:
    """The gRPC status of a front door's error ``code`` (UNKNOWN for a code it does not define)."""
    return STATUS_BY_CODE.get(code, grpc.StatusCode.UNKNOWN)


class Incoming(NamedTuple):
    message: ws.ServerMessage
    received_ns: int
    """``time.perf_counter_ns()`` when the frame was read (for round trips and prompt latencies)."""


CLOSED: Final = Incoming(ws.Error(code="unavailable", message="the connection closed"), 0)
"""Received last, once the connection has ended (whoever closed it)."""

Receive = Callable[[Incoming], None]


class WsRoomClient:
    """A logged-in connection to ``ws://HOST:PORT/ws`` (see the module docstring)."""

    def __init__(
        self,
        session: aiohttp.ClientSession | None,
        connection: aiohttp.ClientWebSocketResponse,
        receive: Receive | None,
    ) -> None:
        self._session = session
        """The session this client made for itself (None: its caller's, which the caller closes)."""
        self._ws = connection
        self._decoder = msgspec.json.Decoder(ws.AnyServerMessage)
        self._replies: dict[str, asyncio.Future[ws.Reply]] = {}
        self._queue: asyncio.Queue[Incoming] | None = None
        if receive is None:
            self._queue = asyncio.Queue()
            receive = self._queue.put_nowait
        self._receive = receive
        self._ids = itertools.count(1)
        self._sent = time.monotonic()
        self.logged_in: ws.LoggedIn | None = None
        loop = asyncio.get_running_loop()
        self._reader = loop.create_task(self._read())
        self._heartbeat: asyncio.Task[None] | None = None

    @classmethod
    async def connect(
        cls, url: str, player_id: str, receive: Receive | None = None, session: aiohttp.ClientSession | None = None
    ) -> WsRoomClient:
        """Connect to ``url`` (``ws://HOST:PORT/ws``) and log in as ``player_id``. ``receive``: called
        with each streamed message (None: they queue for :meth:`messages`); ``session``: the aiohttp
        session to connect through (None: one of its own). :class:`RoomError` when the login is
        refused; OSError or aiohttp's errors when the room is unreachable."""
        own = session is None
        through = aiohttp.ClientSession() if session is None else session
        try:
            client = cls(through if own else None, await through.ws_connect(url, compress=0, autoping=True), receive)
        except BaseException:
            if own:
                await through.close()
            raise
        try:
            logged_in = await client._request(ws.LoggedIn, ws.Login(rid=client._rid(), player_id=player_id))
        except BaseException:
            await client.close()
            raise
        client.logged_in = logged_in
        client._heartbeat = asyncio.get_running_loop().create_task(client._beat(logged_in.heartbeat_seconds))
        return client

    async def _read(self) -> None:
        receive = self._receive
        try:
            while (frame := await self._ws.receive()).type is aiohttp.WSMsgType.TEXT:
                received = time.perf_counter_ns()
                message = self._decoder.decode(frame.data)
                if isinstance(message, ws.Reply) and (waiting := self._replies.pop(message.rid, None)):
                    waiting.set_result(message)
                else:
                    receive(Incoming(message, received))
        finally:
            closed = RoomError(grpc.StatusCode.UNAVAILABLE, f"the connection closed ({self._ws.close_code})")
            for waiting in self._replies.values():
                if not waiting.done():
                    waiting.set_exception(closed)
            self._replies.clear()
            if self._heartbeat is not None:
                self._heartbeat.cancel()
            receive(CLOSED)

    async def _beat(self, seconds: float) -> None:
        """Ping whenever nothing was sent for ``seconds``."""
        with contextlib.suppress(ConnectionError):
            while True:
                await asyncio.sleep(self._sent + seconds - time.monotonic())
                if time.monotonic() - self._sent >= seconds:
                    await self.ping(0)

    def _rid(self) -> str:
        return f"c{next(self._ids)}"

    async def _request(self, reply: type[R], request: ws.Request) -> R:
        """Send a request (with a fresh ``rid``); its reply, or :class:`RoomError` for its ``error``."""
        waiting: asyncio.Future[ws.Reply] = asyncio.get_running_loop().create_future()
        self._replies[request.rid] = waiting
        try:
            await self._send(request)
            answer = await waiting
        finally:
            self._replies.pop(request.rid, None)
        if isinstance(answer, ws.Error):
            raise RoomError(status(answer.code), answer.message)
        assert isinstance(answer, reply), answer
        return answer

    # ----------------------------------------------------------------- requests

    async def list_tables(self, game: str = "", page_size: int = 0, page_token: str = "") -> ws.Tables:
        request = ws.ListTables(rid=self._rid(), game=game, page_size=page_size, page_token=page_token)
        return await self._request(ws.Tables, request)

    async def sit(self, table_id: str, seat: int, buy_in: int = 0) -> ws.Seated:
        """Take a seat; the table's ``snapshot`` and stream follow on the stream."""
        return await self._request(ws.Seated, ws.Sit(rid=self._rid(), table_id=table_id, seat=seat, buy_in=buy_in))

    async def open(
        self, table_id: str, seat: int = 0, seat_token: str = "", resume_after_seq: int | None = None
    ) -> None:
        """Watch a table, or stream (resume) a seat with its token; the ``snapshot`` (or an
        ``error`` with its code) arrives on the stream."""
        await self._send(
            ws.Open(table_id=table_id, seat=seat, seat_token=seat_token, resume_after_seq=resume_after_seq)
        )

    async def stand_up(self, table_id: str) -> ws.StoodUp:
        return await self._request(ws.StoodUp, ws.StandUp(rid=self._rid(), table_id=table_id))

    async def sit_out(self, table_id: str) -> ws.SeatUpdated:
        return await self._request(ws.SeatUpdated, ws.SitOut(rid=self._rid(), table_id=table_id))

    async def sit_in(self, table_id: str) -> ws.SeatUpdated:
        return await self._request(ws.SeatUpdated, ws.SitIn(rid=self._rid(), table_id=table_id))

    async def rebuy(self, table_id: str) -> ws.SeatUpdated:
        return await self._request(ws.SeatUpdated, ws.Rebuy(rid=self._rid(), table_id=table_id))

    async def act(
        self,
        table_id: str,
        action_id: str,
        kind: str,
        amount: int = 0,
        discard: Sequence[int] = (),
        turn_seq: int | None = None,
    ) -> int:
        """Send an action; ``time.perf_counter_ns()`` when it was sent. Its ``ack`` or ``reject``
        (by ``action_id``) arrives on the stream."""
        action = ws.Act(
            table_id=table_id, action_id=action_id, kind=kind, amount=amount, discard=list(discard), turn_seq=turn_seq
        )
        sent = time.perf_counter_ns()
        await self._send(action)
        return sent

    async def ping(self, nonce: int) -> None:
        await self._send(ws.Ping(nonce=nonce))

    async def _send(self, message: ws.ClientMessage) -> None:
        self._sent = time.monotonic()
        await self._ws.send_frame(msgspec.json.encode(message), aiohttp.WSMsgType.TEXT)

    # ----------------------------------------------------------------- the stream

    async def messages(self) -> AsyncIterator[Incoming]:
        """What the tables send, in order, until the connection closes (a client made without
        ``receive``)."""
        assert self._queue is not None, "this client hands its messages to its receive callback"
        while (incoming := await self._queue.get()) is not CLOSED:
            yield incoming

    @property
    def closed(self) -> bool:
        """Whether the connection has ended."""
        return self._reader.done()

    @property
    def close_code(self) -> int | None:
        return self._ws.close_code

    async def close(self) -> None:
        await self._ws.close()
        await asyncio.gather(self._reader, return_exceptions=True)
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            await asyncio.gather(self._heartbeat, return_exceptions=True)
        if self._session is not None:
            await self._session.close()
