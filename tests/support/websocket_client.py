"""Players on the WebSocket front door: a table server with the door open on 127.0.0.1, and a real
WebSocket client (aiohttp) read in the background, on which tests wait for what they expect."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import grpc

from support.table_server import ManualClock
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.table.server import ServerConfig, TableServer
from tablestorm.services.websocket.server import WebSocketConfig, WebSocketDoor
from tablestorm.services.websocket.session import SessionLimits

TIMEOUT = 10.0
"""How long a client waits for what a test expects of it."""
PASSIVE = ("check", "call", "bring_in", "draw")
"""The actions a passive player takes, the first one offered."""

Frame = dict[str, Any]


@asynccontextmanager
async def door_serving(
    clock: ManualClock | None = None, max_connections: int = 10_000, **limits: Any
) -> AsyncIterator[tuple[TableServer, WebSocketDoor, rpc.TableServiceStub]]:
    """A table server on 127.0.0.1 with its WebSocket front door (ports 0), and a gRPC stub;
    ``limits`` are the door's :class:`SessionLimits`, ``clock`` runs the action clocks."""
    door_config = WebSocketConfig(port=0, max_connections=max_connections, limits=SessionLimits(**limits))
    server = TableServer(ServerConfig(port=0, drain_seconds=5, timers=clock, front_doors=(door_config,)))
    await server.start()
    door = server.doors[0]
    assert isinstance(door, WebSocketDoor)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
    try:
        yield server, door, rpc.TableServiceStub(channel)
    finally:
        if server.host is not None and server.host.accepting:
            await server.stop(drain_seconds=0)
        await channel.close()


class WsClient:
    """One connection to ``ws://127.0.0.1:PORT/ws``; every frame it receives is kept in order."""

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._session = session
        self.ws = ws
        self.frames: list[Frame] = []
        self.turns: dict[str, Frame | None] = {}
        """The last ``your_turn`` per table, until this client acts on it."""
        self.close_code: int | None = None
        self.close_reason = ""
        self.ended = False
        self._changed = asyncio.Condition()
        self._ids = itertools.count(1)
        self._task = asyncio.ensure_future(self._pump())

    @classmethod
    async def connect(cls, port: int) -> WsClient:
        session = aiohttp.ClientSession()
        try:
            ws = await session.ws_connect(f"ws://127.0.0.1:{port}/ws", autoping=True, max_msg_size=0)
        except BaseException:
            await session.close()
            raise
        return cls(session, ws)

    async def _pump(self) -> None:
        try:
            while (message := await self.ws.receive()).type is aiohttp.WSMsgType.TEXT:
                frame = json.loads(message.data)
                self.frames.append(frame)
                if frame["type"] == "your_turn":
                    self.turns[frame["table_id"]] = frame
                async with self._changed:
                    self._changed.notify_all()
            if message.type is aiohttp.WSMsgType.CLOSE:
                self.close_reason = str(message.extra or "")
        finally:
            self.close_code = self.ws.close_code
            self.ended = True
            async with self._changed:
                self._changed.notify_all()

    # ----------------------------------------------------------------- waiting

    async def until(self, predicate: Callable[[], bool], timeout: float = TIMEOUT) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: predicate() or self.ended), timeout)
        assert predicate(), f"connection closed first ({self.close_code}: {self.close_reason})"

    async def until_closed(self, timeout: float = TIMEOUT) -> int | None:
        """Wait for the server to close the connection; its close code."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: self.ended), timeout)
        return self.close_code

    def of(self, kind: str, **fields: Any) -> list[Frame]:
        """The frames of ``kind`` received so far whose ``fields`` are as given."""
        return [f for f in self.frames if f["type"] == kind and fields.items() <= f.items()]

    async def first(self, kind: str, **fields: Any) -> Frame:
        """The first frame of ``kind`` (with ``fields``) received, once there is one."""
        await self.until(lambda: bool(self.of(kind, **fields)))
        return self.of(kind, **fields)[0]

    def events(self, table_id: str) -> list[Frame]:
        """Every event of ``table_id`` received (from snapshots and ``events``), in order."""
        return [e for f in self.frames if f["type"] in ("snapshot", "events") and f["table_id"] == table_id
                for e in f["events"]]

    # ----------------------------------------------------------------- sending

    async def send(self, **message: Any) -> None:
        await self.ws.send_str(json.dumps(message))

    async def request(self, kind: str, **fields: Any) -> Frame:
        """Send a request with a fresh ``rid`` and wait for its reply (or its ``error``)."""
        rid = f"r{next(self._ids)}"
        start = len(self.frames)
        await self.send(type=kind, rid=rid, **fields)
        await self.until(lambda: any(f.get("rid") == rid for f in self.frames[start:]))
        return next(f for f in self.frames[start:] if f.get("rid") == rid)

    async def login(self, player_id: str) -> Frame:
        reply = await self.request("login", player_id=player_id)
        assert reply["type"] == "logged_in", reply
        return reply

    async def open(self, table_id: str, **fields: Any) -> Frame:
        """Open a table; its ``snapshot`` (or the ``error``)."""
        rid = f"r{next(self._ids)}"
        start = len(self.frames)
        await self.send(type="open", rid=rid, table_id=table_id, **fields)

        def answered() -> Frame | None:
            return next((f for f in self.frames[start:] if f.get("rid") == rid
                         or (f["type"] == "snapshot" and f["table_id"] == table_id)), None)

        await self.until(lambda: answered() is not None)
        found = answered()
        assert found is not None
        return found

    async def act(self, table_id: str, kind: str, amount: int = 0, **fields: Any) -> Frame:
        """Send an action and wait for its ``ack`` or ``reject``."""
        action_id = f"a{next(self._ids)}"
        self.turns[table_id] = None
        start = len(self.frames)
        await self.send(type="act", table_id=table_id, action_id=action_id, kind=kind, amount=amount, **fields)
        await self.until(lambda: any(f.get("action_id") == action_id for f in self.frames[start:]))
        return next(f for f in self.frames[start:] if f.get("action_id") == action_id)

    async def play_turn(self, table_id: str) -> Frame:
        """Act on the table's current turn with the first passive action offered."""
        turn = self.turns.get(table_id)
        assert turn is not None, "not this seat's turn"
        legal = {a["kind"]: a for a in turn["legal"]}
        kind = next(k for k in PASSIVE if k in legal)
        answer = await self.act(table_id, kind, legal[kind]["min"], turn_seq=turn["turn_seq"])
        assert answer["type"] == "ack", answer
        return answer

    async def close(self) -> None:
        await self.ws.close()
        await asyncio.gather(self._task, return_exceptions=True)
        await self._session.close()
