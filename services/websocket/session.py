"""One WebSocket connection: a logged-in player's requests applied to the table host, and the
tables it has open streamed to it.

A session is the front door's Play stream and unary calls in one. Every request goes to the same
:class:`~tablestorm.services.table.host.TableHost` call the gRPC service makes (lobby, take_seat,
subscribe, seat authorization by seat token, ``LiveTable.answer`` for an action, leave_seat), so
the rules, the checks and their messages, the seat tokens and the limits are the service's own; a
refusal's code is the gRPC status the service would answer, in lowercase (``failed_precondition``).

Each open table is a hub subscription whose outbox reads the table's JSON wire (:mod:`.codec`): a
writer task per table sends its frames in order, and an action's ``ack`` or ``reject`` goes
through the same outbox, after the events it caused. When the table ends the subscription (stand
up, a newer connection for the seat, falling too far behind, shutdown) the writer sends what was
pending and then ``left`` with the reason.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import grpc

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.rpc.errors import STATUS_BY_NUMBER, ServiceError, failed
from tablestorm.services.table import convert
from tablestorm.services.table import validation as check
from tablestorm.services.table.auth import SeatKey
from tablestorm.services.table.host import AnyLiveTable, TableHost
from tablestorm.services.table.hub import SPECTATOR, Outbox
from tablestorm.services.table.service import HELLO_TIMEOUT
from tablestorm.services.websocket.codec import Wires, proto_to_json
from tablestorm.services.websocket.messages import (
    Ack,
    Act,
    Error,
    Leave,
    Left,
    ListTables,
    LoggedIn,
    Login,
    Open,
    Ping,
    Pong,
    Rebuy,
    Refused,
    Reject,
    Request,
    Seated,
    SeatUpdated,
    ServerMessage,
    Sit,
    SitIn,
    SitOut,
    StandUp,
    StoodUp,
    Tables,
    decode,
    encode,
)

log = logging.getLogger(__name__)

Send = Callable[[bytes], Awaitable[None]]
"""Sends one text frame (the JSON's UTF-8 bytes) on the connection."""

ACTION_KINDS = {kind.value: number for kind, number in convert.KIND_TO_PB.items()}
"""An ``act``'s ``kind`` by name (``timeout`` among them: the table service refuses it, as on gRPC)."""


@dataclass(frozen=True, slots=True)
class SessionLimits:
    """What one connection may do: the gRPC service's limits, where it has them."""

    max_frame_bytes: int = 64 * 1024
    """Largest client frame (the gRPC service's largest request); a larger one closes the
    connection (1009)."""
    max_tables: int = 1000
    """Tables open on one connection at once (the gRPC service's streams per connection)."""
    login_timeout: float = HELLO_TIMEOUT
    """Seconds a new connection has to log in (a Play stream's to say Hello)."""
    heartbeat_seconds: float = 10.0
    """How often a client is asked to ping."""
    idle_timeout: float = 30.0
    """A connection that sends nothing for this long is closed (three missed heartbeats)."""


def code_name(code: grpc.StatusCode) -> str:
    """A refusal's ``code`` on the wire: the gRPC status the service answers, in lowercase."""
    return str(code.name).lower()


class Subscription:
    """One table open on the connection: as a seat (with its token) or as a spectator."""

    __slots__ = ("key", "live", "outbox", "seat", "table_id", "token", "writer")

    def __init__(self, live: AnyLiveTable, key: SeatKey | None, token: str | None, outbox: Outbox) -> None:
        self.live = live
        self.table_id = live.table_id
        self.key = key
        """The seat occupancy the token authorized when the table was opened (None: watching)."""
        self.seat = key.seat if key is not None else SPECTATOR
        self.token = token
        self.outbox = outbox
        self.writer: asyncio.Task[None] | None = None


class Session:
    """The requests of one connection, in order; the frames of its open tables, each in order."""

    def __init__(self, host: TableHost, wires: Wires, limits: SessionLimits, send: Send) -> None:
        self._host = host
        self._wires = wires
        self._limits = limits
        self._send_frame = send
        self.player_id: str | None = None
        self._tables: dict[str, Subscription] = {}

    async def _send(self, message: ServerMessage) -> None:
        await self._send_frame(encode(message))

    async def refuse(self, message: str, rid: str = "") -> None:
        """Answer a frame that is not a request with an ``error`` (the connection stays open)."""
        await self._send(Error(rid=rid, code=code_name(grpc.StatusCode.INVALID_ARGUMENT), message=message))

    async def receive(self, frame: str | bytes) -> None:
        """Apply one client frame; a refusal is answered, never raised."""
        try:
            message = decode(frame)
        except Refused as exc:
            await self.refuse(exc.message)
            return
        rid = message.rid if isinstance(message, Request) else ""
        try:
            if isinstance(message, Act):
                await self._act(message)
            else:
                await self._dispatch(message)
        except ServiceError as exc:
            await self._send(Error(rid=rid, code=code_name(exc.code), message=exc.message))
        except (ConnectionError, asyncio.CancelledError):
            raise
        except Exception:  # a bug: answered INTERNAL, as the gRPC handlers answer one, and logged
            log.exception("websocket request failed", extra={"type": type(message).__name__})
            await self._send(Error(rid=rid, code=code_name(grpc.StatusCode.INTERNAL), message="internal error"))

    async def _dispatch(self, message: object) -> None:
        host = self._host
        match message:
            case Ping(nonce=nonce):
                await self._send(Pong(nonce=nonce, server_time_us=time.time_ns() // 1000))
            case Login():
                await self._login(message)
            case _ if self.player_id is None:
                raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "log in first: send a login")
            case ListTables():
                page, next_page_token = host.lobby(message.game, message.page_size, message.page_token)
                tables = [proto_to_json(live.summary()) for live in page]
                await self._send(Tables(rid=message.rid, tables=tables, next_page_token=next_page_token))
            case Sit():
                await self._sit(message, self.player_id)
            case Open():
                self._open(message.table_id, message.seat, message.resume_after_seq, message.seat_token or None)
            case StandUp():
                held = self._seat_at(message.table_id)
                chips = await host.leave_seat(held.token, held.table_id, held.seat)
                await self._send(StoodUp(rid=message.rid, table_id=held.table_id, seat=held.seat, chips=chips))
            case SitOut() | SitIn() | Rebuy():
                held = self._seat_at(message.table_id)
                state = await self._seat_change(message, held)
                await self._send(SeatUpdated(rid=message.rid, table_id=held.table_id, seat=proto_to_json(state)))
            case Leave():
                gone = self._tables.pop(message.table_id, None)
                if gone is None:
                    raise failed(f"table_id: {message.table_id!r} is not open on this connection")
                self._drop(gone)
                left = Left(rid=message.rid, table_id=gone.table_id, seat=gone.seat, code="ok", message="left")
                await self._send(left)

    async def _login(self, message: Login) -> None:
        if self.player_id is not None:
            raise failed(f"already logged in as {self.player_id!r}")
        self.player_id = check.player_id(message.player_id)
        limits = self._limits
        await self._send(
            LoggedIn(
                rid=message.rid,
                player_id=self.player_id,
                heartbeat_seconds=limits.heartbeat_seconds,
                idle_timeout_seconds=limits.idle_timeout,
                max_frame_bytes=limits.max_frame_bytes,
                server_time_us=time.time_ns() // 1000,
            )
        )

    async def _sit(self, message: Sit, player_id: str) -> None:
        """SitDown as the logged-in player, then the seat's stream from the sit-down on."""
        self._room_for(message.table_id)
        _, response = await self._host.take_seat(
            message.table_id, message.seat, player_id, message.buy_in, message.post_to_play
        )
        await self._send(
            Seated(
                rid=message.rid,
                table_id=message.table_id,
                seat=message.seat,
                seat_token=response.seat_token,
                stack=response.seat.stack,
                resume_after_seq=response.resume_after_seq,
            )
        )
        self._open(message.table_id, message.seat, response.resume_after_seq, response.seat_token)

    async def _seat_change(self, message: SitOut | SitIn | Rebuy, held: Subscription) -> pb.SeatState:
        host = self._host
        if isinstance(message, Rebuy):
            return await host.rebuy_seat(held.token, held.table_id, held.seat)
        live, key = host.seat(held.token, held.table_id, held.seat)
        return live.sit_out(key) if isinstance(message, SitOut) else live.sit_in(key, message.post_to_play)

    def _room_for(self, table_id: str) -> None:
        if table_id not in self._tables and len(self._tables) >= self._limits.max_tables:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"this connection has its maximum of {self._limits.max_tables} tables open",
            )

    def _open(self, table_id: str, seat: int, resume_after: int | None, token: str | None) -> None:
        """Subscribe to a table (a seat with its token, or seat 0 to watch), replacing what this
        connection had open there: a snapshot, then its events and turns."""
        self._room_for(table_id)
        live, key, outbox = self._host.subscribe(table_id, seat, resume_after, token, self._wires.of(table_id))
        previous = self._tables.pop(live.table_id, None)
        if previous is not None:
            self._drop(previous)
        held = self._tables[live.table_id] = Subscription(live, key, token if key is not None else None, outbox)
        held.writer = asyncio.get_running_loop().create_task(self._write(held))

    def _seat_at(self, table_id: str) -> Subscription:
        held = self._tables.get(table_id)
        if held is None or held.token is None:
            raise failed(
                f"table_id: this connection holds no seat at {table_id!r} (sit, or open it with the seat token)"
            )
        return held

    async def _act(self, message: Act) -> None:
        """An action, answered with ``ack`` or ``reject`` after the events it caused."""
        held = self._tables.get(message.table_id)
        if held is None:
            await self._send(
                Reject(
                    table_id=message.table_id,
                    action_id=message.action_id,
                    code=code_name(grpc.StatusCode.FAILED_PRECONDITION),
                    message=f"table_id: {message.table_id!r} is not open on this connection",
                )
            )
            return
        kind = ACTION_KINDS.get(message.kind)
        if kind is None:
            known = ", ".join(ACTION_KINDS)
            result = pb.ActResult(
                action_id=message.action_id,
                code=grpc.StatusCode.INVALID_ARGUMENT.value[0],
                message=f"kind: unknown action {message.kind[:64]!r}; one of {known}",
            )
        else:
            request = pb.ActRequest(
                action_id=message.action_id,
                kind=kind,
                amount=message.amount,
                discard=message.discard,
                table_id=held.table_id,
                seat=held.seat,
                turn_seq=message.turn_seq,
            )
            result = held.live.answer(held.key, request)
        answer: ServerMessage
        if result.code:
            code = code_name(STATUS_BY_NUMBER[result.code])
            answer = Reject(table_id=held.table_id, action_id=message.action_id, code=code, message=result.message)
        else:
            answer = Ack(table_id=held.table_id, action_id=message.action_id)
        if held.outbox.closed:
            await self._send(answer)
        else:
            held.outbox.push(encode(answer))

    async def _write(self, held: Subscription) -> None:
        """Send the table's frames in order until the table ends the subscription, then ``left``."""
        outbox = held.outbox
        send = self._send_frame
        try:
            while (chunks := await outbox.next_chunks()) is not None:
                for chunk in chunks:
                    await send(chunk)
            if self._tables.get(held.table_id) is held:
                del self._tables[held.table_id]
            held.live.unsubscribe(outbox)
            code = "ok" if outbox.close_code is None else code_name(outbox.close_code)
            await self._send(Left(table_id=held.table_id, seat=held.seat, code=code, message=outbox.close_message))
        except ConnectionError:
            pass  # the client went away; the connection's end stops its tables (close)

    def _drop(self, held: Subscription) -> None:
        """Stop streaming a table to this connection (the seat stays taken)."""
        if held.writer is not None:
            held.writer.cancel()
        held.live.unsubscribe(held.outbox)

    async def finish(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the writers of tables that ended (shutdown) to send
        what was pending."""
        writers = [held.writer for held in self._tables.values() if held.writer is not None and held.outbox.closed]
        if writers:
            await asyncio.wait(writers, timeout=timeout)

    def close(self) -> None:
        """The connection is gone: stop every table's stream (seats stay taken, as after a
        dropped Play stream; the client may resume with its seat token)."""
        for held in self._tables.values():
            self._drop(held)
        self._tables.clear()
