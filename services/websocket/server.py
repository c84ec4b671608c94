"""The WebSocket front door's listener: ``ws://HOST:PORT/ws`` (aiohttp), one :class:`.Session`
per connection, in the table server's process and event loop.

aiohttp was chosen on measurement (``benchmarks/websocket_libraries.py``: as a server it sends
1.4x the broadcast frames of ``websockets`` to the same clients, and Ray already installs it). The listener
holds what is per connection and not per request: the connection limit, the frame size limit
(aiohttp closes a connection whose frame is larger, 1009), the login and idle timeouts (1008),
text frames only, and the close at shutdown (1001) once the tables drained and each open table's
pending frames and ``left`` went out.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass, field

from aiohttp import WSCloseCode, WSMsgType, web

from tablestorm.services.table.host import TableHost
from tablestorm.services.websocket.codec import Wires
from tablestorm.services.websocket.session import Session, SessionLimits

log = logging.getLogger(__name__)

PATH = "/ws"
SHUTDOWN_GRACE = 2.0
"""Seconds the connections get at shutdown to send what their tables had pending."""


@dataclass(frozen=True, slots=True)
class WebSocketConfig:
    """The front door ``tablestorm serve --websocket PORT`` opens (a
    :class:`~tablestorm.services.table.server.FrontDoorConfig`)."""

    host: str = "127.0.0.1"
    port: int = 0
    """0: let the system pick (printed as ``websocket_port``)."""
    max_connections: int = 10_000
    """Connections at once; one more is closed at once (1013, try again later)."""
    limits: SessionLimits = field(default_factory=SessionLimits)

    async def open(self, host: TableHost) -> WebSocketDoor:
        door = WebSocketDoor(self, host)
        await door.start()
        return door


class WebSocketDoor:
    """A listening front door (a :class:`~tablestorm.services.table.server.FrontDoor`)."""

    name = "websocket"

    def __init__(self, config: WebSocketConfig, host: TableHost) -> None:
        self.config = config
        self.port = 0
        self._host = host
        self._wires = Wires()
        self._sessions: dict[Session, web.WebSocketResponse] = {}
        app = web.Application()
        app.router.add_get(PATH, self._connection)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=SHUTDOWN_GRACE)

    @property
    def connections(self) -> int:
        return len(self._sessions)

    async def start(self) -> None:
        config = self.config
        await self._runner.setup()
        site = web.TCPSite(self._runner, config.host, config.port)
        try:
            await site.start()
        except OSError as exc:
            await self._runner.cleanup()
            raise OSError(f"cannot serve websockets on {config.host}:{config.port}: {exc.strerror}") from exc
        self.port = self._runner.addresses[0][1]
        log.info("websocket serving", extra={"websocket_port": self.port})

    async def stop(self) -> None:
        sessions = list(self._sessions.items())
        await asyncio.gather(*(session.finish(SHUTDOWN_GRACE) for session, _ in sessions))
        going = b"the server is shutting down"
        await asyncio.gather(*(ws.close(code=WSCloseCode.GOING_AWAY, message=going) for _, ws in sessions))
        await self._runner.cleanup()

    async def _connection(self, request: web.Request) -> web.WebSocketResponse:
        limits = self.config.limits
        ws = web.WebSocketResponse(max_msg_size=limits.max_frame_bytes, compress=False)
        await ws.prepare(request)
        if len(self._sessions) >= self.config.max_connections:
            reason = f"this server has its maximum of {self.config.max_connections} connections"
            await ws.close(code=WSCloseCode.TRY_AGAIN_LATER, message=reason.encode())
            return ws
        session = Session(self._host, self._wires, limits, functools.partial(ws.send_frame, opcode=WSMsgType.TEXT))
        self._sessions[session] = ws
        try:
            await self._converse(ws, session)
        except ConnectionError:
            pass  # the client went away mid-answer
        finally:
            session.close()
            del self._sessions[session]
        return ws

    async def _converse(self, ws: web.WebSocketResponse, session: Session) -> None:
        """Apply the client's frames until it closes, breaks a limit, or falls silent."""
        limits = self.config.limits
        while not ws.closed:
            logged_in = session.player_id is not None
            timeout = limits.idle_timeout if logged_in else limits.login_timeout
            try:
                message = await ws.receive(timeout)
            except TimeoutError:
                reason = (
                    f"idle: nothing received for {timeout:g} s (ping every heartbeat_seconds)"
                    if logged_in
                    else f"login: none within {timeout:g} s"
                )
                await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=reason.encode())
                return
            if message.type is WSMsgType.TEXT:
                await session.receive(message.data)
            elif message.type is WSMsgType.BINARY:
                await session.refuse("frame: the front door reads text frames of JSON, not binary frames")
            else:  # closed by the client, or by aiohttp for a frame over max_frame_bytes (1009)
                return
