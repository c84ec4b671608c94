"""A client of the WebSocket front door (docs/websocket.md): what a room adapter for it wraps.

One connection, logged in as one player: requests that have a reply (:meth:`WsRoomClient.list_tables`,
:meth:`~WsRoomClient.sit`, :meth:`~WsRoomClient.stand_up`, ...) are awaited by their ``rid``; what
the tables stream (``snapshot``, ``events``, ``your_turn``, ``ack``, ``reject``, ``left``,
``pong``) arrives on :meth:`~WsRoomClient.messages` as the front door's typed messages, each
stamped with when it was read, and an action is sent with its request id without waiting
(:meth:`~WsRoomClient.act`), its ``ack`` or ``reject`` arriving in order after the events it
caused. The schema is the server's own (:mod:`tablestorm.services.websocket.messages`), so the
client and the server cannot disagree on a field.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Sequence
from typing import NamedTuple, TypeVar

import aiohttp
import msgspec

from tablestorm.services.websocket import messages as ws

__all__ = ["Incoming", "RoomError", "WsRoomClient"]

R = TypeVar("R", bound=ws.Reply)


class RoomError(Exception):
    """The room refused a request: its error ``code`` (``not_found``, ...) and message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Incoming(NamedTuple):
    message: ws.ServerMessage
    received_ns: int
    """``time.perf_counter_ns()`` when the frame was read (for round trips and prompt latencies)."""


_END = Incoming(ws.Error(code="closed", message="the connection closed"), 0)
"""Put on the stream when the connection ends (never yielded)."""


class WsRoomClient:
    """A logged-in connection to ``ws://HOST:PORT/ws``."""

    def __init__(self, session: aiohttp.ClientSession, connection: aiohttp.ClientWebSocketResponse) -> None:
        self._session = session
        self._ws = connection
        self._decoder = msgspec.json.Decoder(ws.AnyServerMessage)
        self._replies: dict[str, asyncio.Future[ws.Reply]] = {}
        self._stream: asyncio.Queue[Incoming] = asyncio.Queue()
        self._ids = itertools.count(1)
        self.logged_in: ws.LoggedIn | None = None
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(cls, url: str, player_id: str) -> WsRoomClient:
        """Connect to ``url`` (``ws://HOST:PORT/ws``) and log in as ``player_id``
        (:class:`RoomError` when refused, OSError/aiohttp's errors when unreachable)."""
        session = aiohttp.ClientSession()
        try:
            client = cls(session, await session.ws_connect(url, compress=0, autoping=True))
        except BaseException:
            await session.close()
            raise
        try:
            client.logged_in = await client._request(ws.LoggedIn, ws.Login(rid=client._rid(), player_id=player_id))
        except BaseException:
            await client.close()
            raise
        return client

    async def _read(self) -> None:
        try:
            while (frame := await self._ws.receive()).type is aiohttp.WSMsgType.TEXT:
                received = time.perf_counter_ns()
                message = self._decoder.decode(frame.data)
                if isinstance(message, ws.Reply) and (waiting := self._replies.pop(message.rid, None)):
                    waiting.set_result(message)
                else:
                    self._stream.put_nowait(Incoming(message, received))
        finally:
            for waiting in self._replies.values():
                waiting.set_exception(RoomError("closed", f"the connection closed ({self._ws.close_code})"))
            self._replies.clear()
            self._stream.put_nowait(_END)

    def _rid(self) -> str:
        return f"c{next(self._ids)}"

    async def _request(self, reply: type[R], request: ws.Request) -> R:
        """Send a request (with a fresh ``rid``); its reply, or :class:`RoomError` for its ``error``."""
        waiting: asyncio.Future[ws.Reply] = asyncio.get_running_loop().create_future()
        self._replies[request.rid] = waiting
        await self._send(request)
        answer = await waiting
        if isinstance(answer, ws.Error):
            raise RoomError(answer.code, answer.message)
        assert isinstance(answer, reply), answer
        return answer

    # ----------------------------------------------------------------- requests

    async def list_tables(self, game: str = "", page_size: int = 0, page_token: str = "") -> ws.Tables:
        request = ws.ListTables(rid=self._rid(), game=game, page_size=page_size, page_token=page_token)
        return await self._request(ws.Tables, request)

    async def sit(self, table_id: str, seat: int, buy_in: int = 0) -> ws.Seated:
        """Take a seat; the table's ``snapshot`` and stream follow on :meth:`messages`."""
        return await self._request(ws.Seated, ws.Sit(rid=self._rid(), table_id=table_id, seat=seat, buy_in=buy_in))

    async def open(
        self, table_id: str, seat: int = 0, seat_token: str = "", resume_after_seq: int | None = None
    ) -> None:
        """Watch a table, or stream (resume) a seat with its token; the ``snapshot`` (or an
        ``error`` with :class:`RoomError`'s code) arrives on :meth:`messages`."""
        await self._send(
            ws.Open(table_id=table_id, seat=seat, seat_token=seat_token, resume_after_seq=resume_after_seq)
        )

    async def stand_up(self, table_id: str) -> ws.StoodUp:
        return await self._request(ws.StoodUp, ws.StandUp(rid=self._rid(), table_id=table_id))

    async def sit_in(self, table_id: str) -> ws.SeatUpdated:
        return await self._request(ws.SeatUpdated, ws.SitIn(rid=self._rid(), table_id=table_id))

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
        (by ``action_id``) arrives on :meth:`messages`."""
        action = ws.Act(
            table_id=table_id, action_id=action_id, kind=kind, amount=amount, discard=list(discard), turn_seq=turn_seq
        )
        sent = time.perf_counter_ns()
        await self._send(action)
        return sent

    async def ping(self, nonce: int) -> None:
        await self._send(ws.Ping(nonce=nonce))

    async def _send(self, message: ws.ClientMessage) -> None:
        await self._ws.send_frame(msgspec.json.encode(message), aiohttp.WSMsgType.TEXT)

    # ----------------------------------------------------------------- the stream

    async def messages(self) -> AsyncIterator[Incoming]:
        """What the tables send, in order, until the connection closes."""
        while (incoming := await self._stream.get()) is not _END:
            yield incoming

    @property
    def close_code(self) -> int | None:
        return self._ws.close_code

    async def close(self) -> None:
        await self._ws.close()
        await asyncio.gather(self._reader, return_exceptions=True)
        await self._session.close()
