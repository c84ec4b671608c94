"""Play streams multiplexed on one HTTP/2 connection, delivered to their bots without a task switch.

A fleet drives thousands of seats from one process, and every one of them reads every public event
of its table: about eight stream messages per action at an eight-seat table. Over ``grpc.aio`` each
message read costs an operation of gRPC Core, a completion handed from its poller thread to the
event loop through a socket, a future and a task switch; measured (``benchmarks/fleet_cost.py``),
bots that did nothing but answer their turns cost as much CPU per action as the table host serving
them, so no amount of care in the bots could make the generator cheaper than what it measures.
grpclib and h2 (pure-Python HTTP/2) were measured too and cost 80-90 % and 50 % of that.

This module speaks the little of HTTP/2 (RFC 9113) that a gRPC client of bidirectional streams
needs, straight on an asyncio transport: one ``data_received`` parses every frame the socket had,
each complete gRPC message goes to its stream's ``deliver`` callback in place, and everything the
bots write in one turn of the loop leaves in one ``write``. The bots of a table receive its public
events as the same bytes (the server serializes an event once per visibility class), so a
connection decodes equal bytes once and hands every stream the same message: deliver callbacks
must not change what they are given. Header blocks are HPACK, done by the
``hpack`` library. Flow control is per the RFC: the receive windows are opened wide at the start
and topped up as they are consumed; a send waits for window when the server's runs out.

A connection is cleartext with prior knowledge (h2c), or TLS through an ``ssl.SSLContext`` that
offers ``h2`` by ALPN (``https`` then, and a server that picks anything else is refused).

Streams end with a gRPC status, as ``grpc.aio`` would report it: the trailers' ``grpc-status``, a
reset stream mapped as in gRPC's HTTP/2 spec (CANCEL is CANCELLED, REFUSED_STREAM is UNAVAILABLE,
the rest INTERNAL), and UNAVAILABLE for a stream cut by GOAWAY or a lost or refused connection.
Unary calls do not come here: they are rare, and the typed ``grpc.aio`` stub serves them.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import Callable
from typing import Any, Final, Generic, overload
from urllib.parse import unquote

import grpc
import hpack
from typing_extensions import TypeVar

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.rpc.errors import STATUS_BY_NUMBER

__all__ = ["ALPN", "PLAY_PATH", "Deliver", "PlayConnection", "PlayStream"]

log = logging.getLogger(__name__)
logging.getLogger("hpack").setLevel(logging.INFO)
"""hpack logs every header block it encodes or decodes at DEBUG (the seat tokens' among them):
whatever the process's level, its records start at INFO."""

_PLAY = pb.DESCRIPTOR.services_by_name["TableService"].methods_by_name["Play"]
PLAY_PATH: Final = "/{}/{}".format(*_PLAY.full_name.rsplit(".", 1))
"""``/tablestorm.v1.TableService/Play``, named by the service descriptor."""

M = TypeVar("M", default=pb.ServerMessage)
"""What a connection reads each message as: the ``ServerMessage`` itself, or what its ``read`` makes of it."""
Deliver = Callable[[M], None]
"""Called with each message of a stream, in order, as soon as its bytes are in."""

ALPN: Final = "h2"
"""HTTP/2 over TLS, as the connection must negotiate it (RFC 9113 §3.2)."""
PREFACE: Final = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM: Final = 0x1
ACK: Final = 0x1
END_HEADERS: Final = 0x4
PADDED: Final = 0x8
PRIORITY_FLAG: Final = 0x20
SETTINGS_ENABLE_PUSH: Final = 0x2
SETTINGS_INITIAL_WINDOW_SIZE: Final = 0x4
SETTINGS_MAX_FRAME_SIZE: Final = 0x5
NO_ERROR: Final = 0x0
PROTOCOL_ERROR: Final = 0x1
REFUSED_STREAM: Final = 0x7
CANCEL: Final = 0x8
ENHANCE_YOUR_CALM: Final = 0xB
MAX_WINDOW: Final = (1 << 31) - 1
"""The largest flow-control window, and the largest stream id."""
RECEIVE_WINDOW: Final = 1 << 24
"""Receive window of each stream (16 MiB) unless told otherwise; the connection's is MAX_WINDOW.
Each is topped up once half of it is used."""
DEFAULT_WINDOW: Final = 65_535
DEFAULT_MAX_FRAME: Final = 16_384
DECODED: Final = 2048
"""Messages a connection's decoding cache keeps per generation (two generations: the older one is
dropped whole when the newer fills). The streams of a table read equal bytes within milliseconds."""

_UNAVAILABLE: Final = grpc.StatusCode.UNAVAILABLE
_RESET_STATUS: Final = {
    CANCEL: grpc.StatusCode.CANCELLED,
    REFUSED_STREAM: _UNAVAILABLE,
    ENHANCE_YOUR_CALM: grpc.StatusCode.RESOURCE_EXHAUSTED,
}
"""RST_STREAM codes that are not INTERNAL (gRPC's PROTOCOL-HTTP2: CANCEL, REFUSED_STREAM, ENHANCE_YOUR_CALM)."""
_HTTP_STATUS: Final = {"400": "INTERNAL", "401": "UNAUTHENTICATED", "403": "PERMISSION_DENIED", "404": "UNIMPLEMENTED"}
"""A response without grpc-status is judged by its HTTP status (gRPC's http-grpc-status-mapping);
anything else but 200 is UNAVAILABLE or UNKNOWN."""


def _frame(kind: int, flags: int, stream_id: int, payload: bytes = b"") -> bytes:
    return len(payload).to_bytes(3, "big") + bytes((kind, flags)) + stream_id.to_bytes(4, "big") + payload


class PlayStream(Generic[M]):
    """One Play call: ``write`` messages (queued at once: they leave with the connection's next
    write), ``cancel`` it, await ``ended`` for its status.

    Messages arrive through the ``deliver`` callback, called from the connection's ``data_received``;
    an exception it raises ends the stream (reset, CANCEL) and is what ``ended`` raises.
    """

    __slots__ = ("_buffer", "_connection", "_deliver", "_headers", "_send_window", "details", "ended", "id")

    def __init__(
        self, connection: PlayConnection[M], stream_id: int, deliver: Deliver[M], send_window: int
    ) -> None:
        self._connection = connection
        self.id = stream_id
        self._deliver = deliver
        self._buffer = b""
        self._headers: dict[str, str] | None = None
        """The response headers once they came (trailers-only responses carry the status in them)."""
        self._send_window = send_window
        self.ended: asyncio.Future[grpc.StatusCode] = connection.loop.create_future()
        """The status the stream ended with: OK, or what the trailers, a reset or the connection said."""
        self.details = ""

    def write(self, message: pb.ClientMessage) -> None:
        """Queue ``message``; ignored once the stream ended (the reader learns of it from ``ended``).

        Synchronous: a write made while the connection hands out messages leaves with the one
        write that ends that batch, together with every other bot's answer to it."""
        if not self.ended.done():
            body = message.SerializeToString()
            self._connection.send_data(self, b"\0" + len(body).to_bytes(4, "big") + body)

    def cancel(self) -> bool:
        """Reset the stream (CANCEL) and end it CANCELLED; False if it had ended already."""
        if self.ended.done():
            return False
        self._connection.reset(self, CANCEL)
        self._end(grpc.StatusCode.CANCELLED, "cancelled by the client")
        return True

    def _end(self, code: grpc.StatusCode, details: str = "") -> None:
        if not self.ended.done():
            self.details = details
            self.ended.set_result(code)
            self._connection.forget(self)

    def _fail(self, error: BaseException) -> None:
        if not self.ended.done():
            self.ended.set_exception(error)
            self._connection.reset(self, CANCEL)
            self._connection.forget(self)

    def _data(self, data: bytes) -> None:
        """Length-prefixed gRPC messages, split anywhere across DATA frames."""
        buffer = self._buffer + data if self._buffer else data
        deliver, parse = self._deliver, self._connection.decode
        start, size = 0, len(buffer)
        while size - start >= 5:
            if buffer[start]:
                self._connection.reset(self, CANCEL)
                self._end(grpc.StatusCode.INTERNAL, "compressed messages are not supported")
                return
            stop = start + 5 + int.from_bytes(buffer[start + 1 : start + 5], "big")
            if stop > size:
                break
            try:
                deliver(parse(buffer[start + 5 : stop]))
            except Exception as exc:  # the bot's bug: its stream ends with it, the others go on
                self._fail(exc)
                return
            if self.ended.done():  # the bot cancelled its own stream while handling the message
                return
            start = stop
        self._buffer = buffer[start:] if start < size else b""

    def _headers_in(self, headers: dict[str, str], end_stream: bool) -> None:
        if self._headers is None and not end_stream:
            self._headers = headers
            return
        status = headers.get("grpc-status")
        if status is not None:
            code = STATUS_BY_NUMBER.get(int(status), grpc.StatusCode.UNKNOWN)
            self._end(code, unquote(headers.get("grpc-message", "")))
            return
        http = (self._headers or headers).get(":status", "")
        name = _HTTP_STATUS.get(http, "UNKNOWN" if http == "200" else "UNAVAILABLE")
        self._end(grpc.StatusCode[name], f"HTTP status {http} without grpc-status")


class PlayConnection(asyncio.Protocol, Generic[M]):
    """One HTTP/2 connection carrying Play streams to one server: cleartext with prior knowledge
    (h2c), or TLS that negotiated ``h2`` by ALPN. Its streams are handed each message as ``read``
    makes it of the message's bytes (once per distinct bytes: see :meth:`decode`)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        authority: str,
        read: Callable[[bytes], M],
        receive_window: int = RECEIVE_WINDOW,
        *,
        scheme: str = "http",
    ) -> None:
        self.loop = loop
        self._read = read
        self._authority = authority
        self._scheme = scheme
        self._receive_window = receive_window
        self._transport: asyncio.Transport | None = None
        self._out = bytearray()
        self._flush_due = False
        """A flush is scheduled for the next turn of the loop (for writes made outside data_received)."""
        self._encoder = hpack.Encoder()
        self._decoder = hpack.Decoder()
        self._streams: dict[int, PlayStream[M]] = {}
        self._next_id = 1
        self._inbox = b""
        self._block = bytearray()
        """A header block still waiting for its CONTINUATION frames."""
        self._block_stream = 0
        self._block_end = False
        self._peer_window = DEFAULT_WINDOW
        """What the server still lets the connection send (its flow-control window)."""
        self._peer_initial = DEFAULT_WINDOW
        self._peer_max_frame = DEFAULT_MAX_FRAME
        self._blocked: list[tuple[PlayStream[M], bytes]] = []
        """DATA waiting for window, oldest first."""
        self._consumed = 0
        self._stream_consumed: dict[int, int] = {}
        self._decoded: dict[bytes, M] = {}
        self._decoded_before: dict[bytes, M] = {}
        self.closed = False
        """Lost, told GOAWAY, or out of stream ids: it opens no more streams (its client makes a new
        connection for the next)."""

    @overload
    @classmethod
    async def connect(
        cls, endpoint: str, *, receive_window: int = RECEIVE_WINDOW, tls: ssl.SSLContext | None = None
    ) -> PlayConnection[pb.ServerMessage]: ...

    @overload
    @classmethod
    async def connect(
        cls,
        endpoint: str,
        *,
        read: Callable[[bytes], M],
        receive_window: int = RECEIVE_WINDOW,
        tls: ssl.SSLContext | None = None,
    ) -> PlayConnection[M]: ...

    @classmethod
    async def connect(
        cls,
        endpoint: str,
        *,
        read: Callable[[bytes], Any] = pb.ServerMessage.FromString,
        receive_window: int = RECEIVE_WINDOW,
        tls: ssl.SSLContext | None = None,
    ) -> PlayConnection[Any]:
        """A connection to ``endpoint`` ("host:port"), over TLS with ``tls`` (whose ALPN protocols
        must offer ``h2``: see :class:`~.transport.Tls`), reading messages with ``read`` (default:
        as ``ServerMessage``); OSError if it cannot be made, including a failed handshake
        (ssl.SSLError) and a server that did not choose ``h2``."""
        if not 1 <= receive_window <= MAX_WINDOW:
            raise ValueError(f"receive_window: must be 1..{MAX_WINDOW} bytes, got {receive_window}")
        loop = asyncio.get_running_loop()
        host, _, port = endpoint.rpartition(":")
        host = host.strip("[]")
        scheme = "http" if tls is None else "https"
        transport, connection = await loop.create_connection(
            lambda: cls(loop, endpoint, read, receive_window, scheme=scheme), host, int(port),
            ssl=tls, server_hostname=None if tls is None else host,
        )
        if tls is not None:
            chosen = transport.get_extra_info("ssl_object").selected_alpn_protocol()
            if chosen != ALPN:
                transport.close()
                raise ConnectionError(f"{endpoint} did not choose HTTP/2 over TLS (ALPN {ALPN!r}; it chose {chosen!r})")
        return connection

    @property
    def streams(self) -> int:
        return len(self._streams)

    def decode(self, raw: bytes) -> M:
        """The message ``raw`` holds, read once for every stream that receives the same bytes."""
        message = self._decoded.get(raw)
        if message is None:
            message = self._decoded_before.get(raw)
            if message is None:
                message = self._read(raw)
            self._decoded[raw] = message
            if len(self._decoded) >= DECODED:
                self._decoded_before, self._decoded = self._decoded, {}
        return message

    # ----------------------------------------------------------------- the asyncio protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        settings = b"".join(
            key.to_bytes(2, "big") + value.to_bytes(4, "big")
            for key, value in ((SETTINGS_ENABLE_PUSH, 0), (SETTINGS_INITIAL_WINDOW_SIZE, self._receive_window))
        )
        increment = (MAX_WINDOW - DEFAULT_WINDOW).to_bytes(4, "big")
        transport.write(PREFACE + _frame(SETTINGS, 0, 0, settings) + _frame(WINDOW_UPDATE, 0, 0, increment))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._transport = None
        for stream in list(self._streams.values()):
            stream._end(_UNAVAILABLE, f"connection lost: {exc}" if exc else "connection closed")
        self._streams.clear()
        self._blocked.clear()

    def data_received(self, data: bytes) -> None:
        inbox = self._inbox + data if self._inbox else data
        start, size = 0, len(inbox)
        try:
            while size - start >= 9:
                length = int.from_bytes(inbox[start : start + 3], "big")
                stop = start + 9 + length
                if stop > size:
                    break
                kind, flags = inbox[start + 3], inbox[start + 4]
                stream_id = int.from_bytes(inbox[start + 5 : start + 9], "big") & MAX_WINDOW
                payload = inbox[start + 9 : stop]
                start = stop
                if kind == DATA:
                    self._on_data(stream_id, flags, payload)
                else:
                    self._on_control(kind, flags, stream_id, payload)
        except _ProtocolError as exc:
            log.warning("HTTP/2 protocol error from %s: %s", self._authority, exc)
            self._goaway(PROTOCOL_ERROR)
            return
        self._inbox = inbox[start:] if start < size else b""
        self._flush()  # the acknowledgements and every answer the bots wrote while handling

    # ----------------------------------------------------------------- streams

    def open(self, metadata: tuple[tuple[str, str], ...], deliver: Deliver[M]) -> PlayStream[M]:
        """Start a Play call with ``metadata`` (the request headers leave with the next flush)."""
        if self.closed:
            raise ConnectionError(f"the connection to {self._authority} is closed")
        stream_id = self._next_id
        self._next_id += 2
        if self._next_id > MAX_WINDOW:
            self.closed = True  # that was the last stream id: the streams open on it play on
        stream = PlayStream(self, stream_id, deliver, self._peer_initial)
        self._streams[stream_id] = stream
        headers: list[tuple[bytes | str, bytes | str]] = [
            (":method", "POST"),
            (":scheme", self._scheme),
            (":path", PLAY_PATH),
            (":authority", self._authority),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
            # Never indexed (RFC 7541 7.1.3): the seat token stays out of both HPACK tables.
            *(hpack.NeverIndexedHeaderTuple(name, value) for name, value in metadata),
        ]
        self._send_block(stream_id, self._encoder.encode(headers))
        return stream

    def send_data(self, stream: PlayStream[M], data: bytes) -> None:
        if self._blocked or len(data) > min(self._peer_window, stream._send_window):
            self._blocked.append((stream, data))
            return
        self._put_data(stream, data)

    def _put_data(self, stream: PlayStream[M], data: bytes) -> None:
        self._peer_window -= len(data)
        stream._send_window -= len(data)
        size = self._peer_max_frame
        for start in range(0, len(data), size):
            self._out += _frame(DATA, 0, stream.id, data[start : start + size])
        self._schedule_flush()

    def reset(self, stream: PlayStream[M], code: int) -> None:
        if stream.id in self._streams and self._transport is not None:
            self._out += _frame(RST_STREAM, 0, stream.id, code.to_bytes(4, "big"))
            self._schedule_flush()

    def forget(self, stream: PlayStream[M]) -> None:
        self._streams.pop(stream.id, None)
        self._stream_consumed.pop(stream.id, None)
        if self._blocked:
            self._blocked = [(s, data) for s, data in self._blocked if s is not stream]

    def close(self) -> None:
        """End every stream (CANCELLED) and the connection."""
        for stream in list(self._streams.values()):
            stream.cancel()
        self._flush()
        self.closed = True
        if self._transport is not None:
            self._transport.close()

    # ----------------------------------------------------------------- frames in

    def _on_data(self, stream_id: int, flags: int, payload: bytes) -> None:
        length = len(payload)
        if flags & PADDED:
            if not payload or payload[0] >= length:
                raise _ProtocolError("DATA padding longer than the frame")
            payload = payload[1 : length - payload[0]]
        self._consumed += length
        if self._consumed >= MAX_WINDOW // 2:
            self._out += _frame(WINDOW_UPDATE, 0, 0, self._consumed.to_bytes(4, "big"))
            self._consumed = 0
        stream = self._streams.get(stream_id)
        if stream is None:
            return  # a stream reset or forgotten here while this frame was on its way
        consumed = self._stream_consumed.get(stream_id, 0) + length
        if consumed >= self._receive_window // 2:
            self._out += _frame(WINDOW_UPDATE, 0, stream_id, consumed.to_bytes(4, "big"))
            consumed = 0
        self._stream_consumed[stream_id] = consumed
        if payload:
            stream._data(payload)
        if flags & END_STREAM and not stream.ended.done():
            self.reset(stream, NO_ERROR)
            stream._end(grpc.StatusCode.INTERNAL, "the server ended the stream without trailers")

    def _on_control(self, kind: int, flags: int, stream_id: int, payload: bytes) -> None:
        if self._block and kind != CONTINUATION:
            raise _ProtocolError("a header block was interrupted")
        if kind == HEADERS:
            if flags & PADDED:
                payload = payload[1 : len(payload) - payload[0]]
            if flags & PRIORITY_FLAG:
                payload = payload[5:]
            self._block_stream, self._block_end = stream_id, bool(flags & END_STREAM)
            self._block += payload
            if flags & END_HEADERS:
                self._headers_done()
        elif kind == CONTINUATION:
            if stream_id != self._block_stream:
                raise _ProtocolError("CONTINUATION of another stream's header block")
            self._block += payload
            if flags & END_HEADERS:
                self._headers_done()
        elif kind == SETTINGS:
            if not flags & ACK:
                self._on_settings(payload)
        elif kind == WINDOW_UPDATE:
            self._on_window_update(stream_id, int.from_bytes(payload[:4], "big") & MAX_WINDOW)
        elif kind == PING:
            if not flags & ACK:
                self._out += _frame(PING, ACK, 0, payload)
        elif kind == RST_STREAM:
            stream = self._streams.get(stream_id)
            if stream is not None:
                code = int.from_bytes(payload[:4], "big")
                stream._end(_RESET_STATUS.get(code, grpc.StatusCode.INTERNAL), f"stream reset by the server ({code})")
        elif kind == GOAWAY:
            last = int.from_bytes(payload[:4], "big") & MAX_WINDOW
            self.closed = True
            for other_id, stream in list(self._streams.items()):
                if other_id > last:
                    stream._end(_UNAVAILABLE, "the server is going away (GOAWAY)")
        elif kind == PUSH_PROMISE:
            raise _ProtocolError("PUSH_PROMISE after SETTINGS_ENABLE_PUSH = 0")
        # PRIORITY and unknown frame types are ignored, as the RFC says.

    def _headers_done(self) -> None:
        block, self._block = bytes(self._block), bytearray()
        try:
            headers = {name.decode(): value.decode() for name, value in self._decoder.decode(block, raw=True)}
        except hpack.HPACKError as exc:
            raise _ProtocolError(f"bad header block: {exc}") from exc
        stream = self._streams.get(self._block_stream)
        if stream is not None:
            if self._block_end:  # the server ended its side: end ours (a stream left open holds a slot)
                self.reset(stream, NO_ERROR)
            stream._headers_in(headers, self._block_end)

    def _on_settings(self, payload: bytes) -> None:
        for start in range(0, len(payload) - 5, 6):
            key = int.from_bytes(payload[start : start + 2], "big")
            value = int.from_bytes(payload[start + 2 : start + 6], "big")
            if key == SETTINGS_INITIAL_WINDOW_SIZE:
                delta, self._peer_initial = value - self._peer_initial, value
                for stream in self._streams.values():
                    stream._send_window += delta
            elif key == SETTINGS_MAX_FRAME_SIZE:
                self._peer_max_frame = value
        self._out += _frame(SETTINGS, ACK, 0)
        self._unblock()

    def _on_window_update(self, stream_id: int, increment: int) -> None:
        if stream_id == 0:
            self._peer_window += increment
        else:
            stream = self._streams.get(stream_id)
            if stream is not None:
                stream._send_window += increment
        self._unblock()

    def _unblock(self) -> None:
        blocked, self._blocked = self._blocked, []
        for index, (stream, data) in enumerate(blocked):
            if len(data) > min(self._peer_window, stream._send_window):
                self._blocked = blocked[index:]
                return
            self._put_data(stream, data)

    # ----------------------------------------------------------------- frames out

    def _send_block(self, stream_id: int, block: bytes) -> None:
        size = self._peer_max_frame
        first, rest = block[:size], block[size:]
        self._out += _frame(HEADERS, 0 if rest else END_HEADERS, stream_id, first)
        while rest:
            chunk, rest = rest[:size], rest[size:]
            self._out += _frame(CONTINUATION, 0 if rest else END_HEADERS, stream_id, chunk)
        self._schedule_flush()

    def _goaway(self, code: int) -> None:
        """End the connection for ``code`` (the last stream id is 0: a server opens no streams here)."""
        self._out += _frame(GOAWAY, 0, 0, (0).to_bytes(4, "big") + code.to_bytes(4, "big"))
        self._flush()
        if self._transport is not None:
            self._transport.close()

    def _schedule_flush(self) -> None:
        if not self._flush_due:
            self._flush_due = True
            self.loop.call_soon(self._flush)

    def _flush(self) -> None:
        """Everything queued in this turn of the loop, in one write."""
        self._flush_due = False
        if self._out and self._transport is not None:
            self._transport.write(bytes(self._out))
        self._out.clear()


class _ProtocolError(Exception):
    """The server broke HTTP/2: the connection ends (GOAWAY), its streams UNAVAILABLE."""
