"""Fan-out: the event log a stream resumes from, and what each Play stream still has to write.

Every event is converted and serialized once per visibility class, not once per subscriber: a
:class:`LogEntry` holds the public bytes and, for the few events with face-down cards, the bytes
its owner may see. A serialized ``ServerMessage`` is a sequence of fields, and concatenating two of
them parses as one message whose repeated fields hold both parts in order; so the bytes of one
subscriber's next message are just the concatenation of what is pending for it. An
:class:`Outbox` exploits that: whatever piled up while its stream was writing goes out as one
message, which is how a slow subscriber catches up with fewer writes instead of falling behind.

A subscriber that reads another encoding than the Play stream's protobuf (the WebSocket front
door's JSON) has a :class:`Wire` on its outbox: each of its chunks is then one message in that
encoding, and :meth:`Subscribers.broadcast` encodes each visibility class once per wire, not once
per subscriber, as it serializes once for the Play streams.

An outbox is bounded in bytes; a subscriber that does not read lets it fill and is disconnected
(RESOURCE_EXHAUSTED); it can come back and resume from the last sequence number it saw, as long
as the log still holds it (the current and the previous hand).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import NamedTuple, Protocol

import grpc
from google.protobuf.message import Message

SPECTATOR = 0
"""The owner key of a subscriber who owns no cards."""


# ServerMessage field numbers (proto/tablestorm/v1/table_service.proto).
EVENTS, RESULTS, YOUR_TURN, PONGS, WELCOME = 1, 2, 3, 4, 5


def frame(field: int, message: Message) -> bytes:
    """``message`` as field ``field`` of a ServerMessage, serialized: tag, length, bytes.

    Equal to ``ServerMessage(<field>=[message]).SerializeToString()`` without building the wrapper.
    """
    body = message.SerializeToString()
    n = len(body)
    head = bytearray(((field << 3) | 2,))  # wire type 2: length-delimited
    while n > 0x7F:
        head.append((n & 0x7F) | 0x80)
        n >>= 7
    head.append(n)
    return bytes(head) + body


class Wire(Protocol):
    """Another encoding of a table's stream: one object per table and encoding (hashable by
    identity), so that a broadcast encodes each visibility class once for all its subscribers."""

    def encode(self, message: bytes) -> bytes:
        """A serialized ``ServerMessage`` (a welcome with its events, events, or a turn) as one
        message of this encoding."""
        ...


class LogEntry(NamedTuple):
    seq: int
    public: bytes
    """The event as everyone but its owner sees it, serialized as a one-event ServerMessage."""
    owner: int
    """The seat occupancy that sees ``private`` instead (0: the event has nothing private)."""
    private: bytes


class EventLog:
    """The events of the current and the previous hand, for streams resuming by sequence number."""

    __slots__ = ("_entries", "_hand_starts", "last_seq")

    def __init__(self) -> None:
        self._entries: list[LogEntry] = []
        self._hand_starts: list[int] = []
        self.last_seq = 0

    def append(self, entry: LogEntry, *, hand_start: bool = False) -> None:
        if hand_start:
            if len(self._hand_starts) == 2:
                keep_from = self._hand_starts[1]  # the hand ending now becomes "the previous one"
                del self._entries[: self._index(keep_from)]
                self._hand_starts = [keep_from]
            self._hand_starts.append(entry.seq)
        self._entries.append(entry)
        self.last_seq = entry.seq

    def _index(self, seq: int) -> int:
        return seq - self._entries[0].seq if self._entries else 0

    def after(self, seq: int) -> tuple[list[LogEntry], bool]:
        """Entries after ``seq``, and whether some of them were already dropped (a gap)."""
        if not self._entries:
            return [], seq < self.last_seq
        first = self._entries[0].seq
        return self._entries[max(0, seq + 1 - first) :], seq + 1 < first

    def current_hand(self) -> list[LogEntry]:
        """Entries from the start of the latest hand (what a newcomer needs to follow it)."""
        if not self._hand_starts:
            return []
        return self._entries[self._index(self._hand_starts[-1]) :]


class Turn:
    """A YourTurn prompt, valid until the table moves on; its bytes are built on first use."""

    __slots__ = ("_build", "_payload", "live", "seat")

    def __init__(self, seat: int, build: Callable[[], bytes]) -> None:
        self.seat = seat
        self.live = True
        self._build = build
        self._payload: bytes | None = None

    @property
    def payload(self) -> bytes:
        if self._payload is None:
            self._payload = self._build()
        return self._payload


class Outbox:
    """One Play stream's pending output, drained by its writer as a single message per write."""

    __slots__ = (
        "_chunks",
        "_ready",
        "_size",
        "close_code",
        "close_message",
        "closed",
        "flush",
        "limit",
        "on_close",
        "owner",
        "seat",
        "turn",
        "wire",
    )

    def __init__(self, seat: int, owner: int, limit: int, wire: Wire | None = None) -> None:
        """``wire``: the encoding the subscriber reads (None: the Play stream's protobuf)."""
        self.seat = seat
        self.owner = owner
        self.limit = limit
        self.wire = wire
        self._chunks: list[bytes] = []
        self._size = 0
        self._ready = asyncio.Event()
        self.turn: Turn | None = None
        self.closed = False
        self.flush = False
        self.close_code: grpc.StatusCode | None = None
        self.close_message = ""
        self.on_close: Callable[[], object] | None = None
        """Called when the outbox is closed with an error, to interrupt a blocked writer."""

    def push(self, chunk: bytes) -> None:
        """Queue serialized ServerMessage fields; overflowing the bound closes the outbox.

        A chunk into an empty outbox is always taken, so the bound limits how far a subscriber
        may fall behind, never the size of one message.
        """
        if self.closed:
            return
        if self._size and self._size + len(chunk) > self.limit:
            self.close(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"subscriber fell more than {self.limit} bytes behind; resume with Hello.resume_after_seq",
            )
            return
        self._chunks.append(chunk)
        self._size += len(chunk)
        self._ready.set()

    def push_message(self, message: bytes) -> None:
        """Queue a serialized ServerMessage in the subscriber's encoding."""
        self.push(message if self.wire is None else self.wire.encode(message))

    def offer_turn(self, turn: Turn) -> None:
        self.turn = turn
        self._ready.set()

    def close(self, code: grpc.StatusCode | None = None, message: str = "", *, flush: bool = False) -> None:
        """End the stream: with ``flush``, after writing what is pending; ``code`` None means OK."""
        if self.closed:
            return
        self.closed = True
        self.flush = flush
        self.close_code = code
        self.close_message = message
        self._ready.set()
        if not flush and self.on_close is not None:
            self.on_close()

    async def next_message(self) -> bytes | None:
        """The next message to write: everything pending, joined; ``None`` once the stream ends."""
        chunks = await self.next_chunks()
        if chunks is None:
            return None
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    async def next_chunks(self) -> list[bytes] | None:
        """Everything pending, as queued (with a wire: one message of its encoding each);
        ``None`` once the stream ends."""
        while True:
            await self._ready.wait()
            self._ready.clear()
            if self.closed and not (self.flush and self._chunks):
                return None
            chunks = self._chunks
            turn = self.turn
            if turn is not None:
                self.turn = None
                if turn.live and not self.closed:
                    wire = self.wire
                    chunks.append(turn.payload if wire is None else wire.encode(turn.payload))
            if chunks:
                self._chunks = []
                self._size = 0
                if self.closed:
                    self._ready.set()  # return None next time
                return chunks


class Subscribers:
    """The outboxes of one table: at most one stream per seat, plus bounded spectators."""

    __slots__ = ("max_spectators", "seats", "spectators")

    def __init__(self, max_spectators: int) -> None:
        self.seats: dict[int, Outbox] = {}
        self.spectators: set[Outbox] = set()
        self.max_spectators = max_spectators

    def all(self) -> list[Outbox]:
        """A snapshot: pushing may close an outbox, and its stream then unsubscribes."""
        return [*self.seats.values(), *self.spectators]

    def __len__(self) -> int:
        return len(self.seats) + len(self.spectators)

    def add(self, outbox: Outbox) -> None:
        if outbox.seat == SPECTATOR:
            self.spectators.add(outbox)
            return
        old = self.seats.get(outbox.seat)
        if old is not None:
            old.close(grpc.StatusCode.ABORTED, "replaced by a newer Play stream for this seat")
        self.seats[outbox.seat] = outbox

    def remove(self, outbox: Outbox) -> None:
        if outbox.seat == SPECTATOR:
            self.spectators.discard(outbox)
        elif self.seats.get(outbox.seat) is outbox:
            del self.seats[outbox.seat]

    def broadcast(self, entries: list[LogEntry]) -> None:
        """Push ``entries`` to every subscriber, each seeing only what its owner may see, in its
        encoding (the public view encoded once per wire)."""
        if not entries or not len(self):
            return
        public = entries[0].public if len(entries) == 1 else b"".join(e.public for e in entries)
        owners = {e.owner for e in entries if e.owner}
        encoded: dict[Wire, bytes] = {}
        for outbox in self.all():
            wire = outbox.wire
            if outbox.owner in owners:
                outbox.push_message(personal(entries, outbox.owner))
            elif wire is None:
                outbox.push(public)
            else:
                chunk = encoded.get(wire)
                if chunk is None:
                    chunk = encoded[wire] = wire.encode(public)
                outbox.push(chunk)


def personal(entries: Iterable[LogEntry], owner: int) -> bytes:
    """The bytes of ``entries`` as ``owner`` may see them."""
    return b"".join(e.private if e.owner == owner and owner else e.public for e in entries)
