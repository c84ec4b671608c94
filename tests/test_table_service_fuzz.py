"""Fuzzing every RPC of the table service, against a real server on 127.0.0.1 and a real process.

The RPCs come from the proto's service descriptor, so a new one is fuzzed without a change here:
valid requests built from what the server holds (its tables, seats and tokens) with random fields
mutated (out-of-range numbers, empty and huge strings, unknown enum values, wrong seats and
tokens, repeated fields far too long), messages built from the descriptor alone, random bytes and
byte-level mutations of valid encodings, and Play streams of random message sequences (a second
Hello, acts before the Hello, acts of any kind, amount, discards and turn_seq, pings, early
closes). After every example: each answer was one of the statuses the proto documents for that
RPC (``table_contract.ALLOWED``), every ActResult too; the server answers health SERVING; no ERROR
was logged; the chips on its tables equal what the examples bought minus what they cashed out;
and no stream showed a seat another's face-down card or broke its sequence numbers.

One server serves every example of a test, as a server in service serves every client, so an
example runs against whatever the earlier ones left (tables, seats, running hands); that is also
why the examples are not shrunk (a shorter replay would meet another server state).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import signal
import subprocess
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from support.processes import TABLESTORM
from support.table_contract import ACT_RESULT_CODES, ALLOWED, GAMES, METHODS, SERVICE, documented
from support.table_invariants import CALL_TIMEOUT, call_endings, chips_on_tables, errors, leak, seq_break, serving

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.table.host import HostLimits
from tablestorm.services.table.server import ServerConfig, TableServer

MAX_TABLES = 8
"""A small server: table creation meets RESOURCE_EXHAUSTED soon, and every check stays cheap."""
UNARY = tuple(m.name for m in SERVICE.methods if not m.client_streaming and not m.server_streaming)
STREAMING = tuple(m.name for m in SERVICE.methods if m.client_streaming or m.server_streaming)
REQUEST: dict[str, type[Message]] = {m.name: message_factory.GetMessageClass(m.input_type) for m in SERVICE.methods}
DESCRIPTORS: dict[str, Descriptor] = {m.name: m.input_type for m in SERVICE.methods}
RESPONSE: dict[str, type[Message]] = {m.name: message_factory.GetMessageClass(m.output_type) for m in SERVICE.methods}
SEAT_FIELDS = frozenset({"table_id", "seat"})
DRAIN_NOW = ("--drain-seconds", "0")

# ----------------------------------------------------------------- values from the descriptor

_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
_EDGES = (0, 1, 2, -1, 51, 52, 2**31 - 1, 2**32 - 1, 2**40 + 1, 2**48, 2**48 + 1, 2**63 - 1, -(2**63), 2**64 - 1)
_ODD_STRINGS = ("", " ", "x" * 65, "x" * 70_000, "tablé", "../etc", "a\x00b", "\u202e", "t" * 4000)


def integers(low: int, high: int) -> st.SearchStrategy[int]:
    """Small numbers, the edges that matter here (cards, int32/int64/2**48 limits), anything."""
    edges = [v for v in _EDGES if low <= v <= high]
    return st.one_of(st.integers(max(low, -3), min(high, 64)), st.sampled_from(edges), st.integers(low, high))


def pick(values: Sequence[Any]) -> st.SearchStrategy[Any]:
    """One of ``values``, drawn as an index of a fixed range: what the server holds changes between
    examples, and Hypothesis requires the shape of the draws not to depend on it."""
    return st.integers(0, 2**16).map(lambda i: values[i % len(values)])


def strings(known: Sequence[str]) -> st.SearchStrategy[str]:
    """Ids the server knows, odd and oversized strings, identifier-like and arbitrary text."""
    return st.one_of(
        pick([*known, *_ODD_STRINGS]),
        st.from_regex(r"[A-Za-z0-9_.\-]{1,70}", fullmatch=True),
        st.text(max_size=80),
    )


def field_values(field: FieldDescriptor, known: Sequence[str], depth: int) -> st.SearchStrategy[Any]:
    """Any value the wire can carry for ``field``: repeated fields sometimes far too long."""
    one: st.SearchStrategy[Any]
    if field.type in _INT_RANGES:
        one = integers(*_INT_RANGES[field.type])
    elif field.type == FieldDescriptor.TYPE_ENUM:
        assert field.enum_type is not None
        numbers = [value.number for value in field.enum_type.values]
        one = st.one_of(st.sampled_from(numbers), integers(-(2**31), 2**31 - 1))
    elif field.type == FieldDescriptor.TYPE_BOOL:
        one = st.booleans()
    elif field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        one = st.floats(width=64 if field.type == FieldDescriptor.TYPE_DOUBLE else 32)
    elif field.type == FieldDescriptor.TYPE_STRING:
        one = strings(known)
    elif field.type == FieldDescriptor.TYPE_BYTES:
        one = st.binary(max_size=100)
    else:
        assert field.message_type is not None
        one = random_message(field.message_type, known, depth + 1)
    if not field.is_repeated:
        return one
    return st.one_of(
        st.lists(one, max_size=6),
        st.builds(lambda value, n: [value] * n, one, st.sampled_from((64, 1000, 20_000))),
    )


def assign(message: Message, field: FieldDescriptor, value: Any) -> None:
    if field.is_repeated:
        values = getattr(message, field.name)
        del values[:]
        values.extend(value)
    elif field.type == FieldDescriptor.TYPE_MESSAGE:
        getattr(message, field.name).CopyFrom(value)
    else:
        setattr(message, field.name, value)


@st.composite
def random_message(draw: st.DrawFn, descriptor: Descriptor, known: Sequence[str], depth: int = 0) -> Message:
    """A message of ``descriptor`` with about a third of its fields set to anything (nesting stops at depth 3)."""
    message = message_factory.GetMessageClass(descriptor)()
    if depth < 3:
        for field in descriptor.fields:
            if draw(st.integers(0, 2)) == 0:
                assign(message, field, draw(field_values(field, known, depth)))
    return message


@st.composite
def mutated(draw: st.DrawFn, message: Message, known: Sequence[str]) -> Message:
    """``message`` with up to three of its fields cleared or set to anything (often none: a valid call)."""
    fields: list[FieldDescriptor] = list(message.DESCRIPTOR.fields)
    chosen: set[int] = draw(st.sets(st.integers(0, len(fields) - 1), max_size=3)) if fields else set()
    for index in sorted(chosen):
        if draw(st.booleans()):
            message.ClearField(fields[index].name)
        else:
            assign(message, fields[index], draw(field_values(fields[index], known, 1)))
    return message


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with one byte-level change: a flipped byte, a cut, an insertion, a deletion, or doubled.

    Every draw is made whatever ``data`` is (its length depends on the server's state)."""
    at = draw(st.integers(0, 2**16)) % max(len(data), 1)
    how = draw(st.sampled_from(("flip", "cut", "insert", "delete", "double")))
    mask = draw(st.integers(1, 255))
    inserted = draw(st.binary(min_size=1, max_size=12))
    deleted = draw(st.integers(1, 8))
    if not data:
        return inserted
    if how == "flip":
        return data[:at] + bytes([data[at] ^ mask]) + data[at + 1 :]
    if how == "cut":
        return data[:at]
    if how == "insert":
        return data[:at] + inserted + data[at:]
    if how == "delete":
        return data[:at] + data[at + deleted :]
    return data + data


# ----------------------------------------------------------------- the server under fuzz


class Seat(NamedTuple):
    table_id: str
    seat: int
    token: str


Metadata = tuple[tuple[str, str], ...] | None


@dataclass
class StreamRead:
    """What one fuzzed Play stream read: messages until it ended, and the status it ended with."""

    welcome: pb.Welcome | None = None
    events: list[pb.Event] = field(default_factory=list)
    results: list[pb.ActResult] = field(default_factory=list)
    pongs: set[int] = field(default_factory=set)
    turn: pb.YourTurn | None = None
    code: grpc.StatusCode | None = None
    details: str = ""
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class Target:
    """A table server at ``address`` and the fuzzing client's account of it: the tables and seats
    it knows, and the chips its calls bought onto tables and cashed out."""

    def __init__(self, runner: asyncio.Runner, address: str, metrics_url: str) -> None:
        self.runner = runner
        self.address = address
        self.metrics_url = metrics_url
        self.bought = 0
        self.cashed_out = 0
        self.tables: list[str] = []
        self.seats: list[Seat] = []
        """Every seat ever taken, with its token (the token of a seat stood up from is dead)."""
        self._ids = itertools.count()
        runner.run(self._connect())

    async def _connect(self) -> None:
        self.channel = grpc.aio.insecure_channel(self.address)
        self.stub = rpc.TableServiceStub(self.channel)
        paths = {m.name: f"/{SERVICE.full_name}/{m.name}" for m in SERVICE.methods}
        # Requests go out as bytes (None: no serializer), so random bytes take the same path.
        self._unary = {name: self.channel.unary_unary(paths[name]) for name in UNARY}
        self._streams = {
            name: self.channel.stream_stream(paths[name], response_deserializer=RESPONSE[name].FromString)
            for name in STREAMING
        }

    def run(self, coroutine: Any) -> Any:
        return self.runner.run(asyncio.wait_for(coroutine, 60))

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids)}"

    def known(self) -> list[str]:
        """Strings worth trying in any field: table ids, player ids, tokens."""
        return [*self.tables, *(s.token for s in self.seats[-8:]), "p0"]

    # ----------------------------------------------------------------- calls

    async def call(self, method: str, payload: bytes, metadata: Metadata) -> None:
        """One unary call; its status must be documented for ``method``; a success is accounted."""
        try:
            reply = await self._unary[method](payload, metadata=metadata, timeout=CALL_TIMEOUT)
        except grpc.aio.AioRpcError as exc:
            assert exc.code() in ALLOWED[method], (method, exc.code(), exc.details(), payload[:200])
            return
        self._account(method, payload, RESPONSE[method].FromString(reply))

    def _account(self, method: str, payload: bytes, reply: Any) -> None:
        if method == "CreateTable":
            self.tables.append(reply.table_id)
        elif method == "SitDown":
            request = pb.SitDownRequest.FromString(payload)
            self.seats.append(Seat(request.table_id, reply.seat.seat, reply.seat_token))
            self.bought += reply.seat.stack
        elif method == "Rebuy":
            self.bought += reply.stack
        elif method == "StandUp":
            self.cashed_out += reply.chips

    async def play(
        self, method: str, messages: Sequence[bytes], metadata: Metadata, viewer: int, ending: str = "ping"
    ) -> StreamRead:
        """A stream that writes ``messages``, then ends as ``ending`` says: ``"ping"``, a Ping it must
        answer (or have ended with a documented status) before the client leaves; ``"half-close"``,
        the same after the client is done writing; ``"cancel"``, the client leaves at once, whatever
        is still in flight. Returns what the stream read."""
        call = self._streams[method](metadata=metadata)
        stream = StreamRead()
        reader = asyncio.ensure_future(_read(call, stream))
        nonce = next(self._ids)
        ping = pb.ClientMessage(ping=pb.Ping(nonce=nonce)).SerializeToString()
        write_failed = False
        try:
            for message in [*messages, ping] if ending != "cancel" else messages:
                if reader.done():
                    break
                try:
                    await call.write(message)
                except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                    write_failed = True  # it ended: the reader has its status
                    break
            while ending != "cancel" and not reader.done() and nonce not in stream.pongs:
                stream.changed.clear()
                await asyncio.wait_for(stream.changed.wait(), CALL_TIMEOUT)
            if ending == "half-close" and not reader.done():
                await call.done_writing()
        finally:
            call.cancel()
            await asyncio.gather(reader, return_exceptions=True)
        # grpc/grpc#36066: a write that fails as the server ends the stream makes grpc.aio report
        # INTERNAL instead of the server's status. That one is checked at the server (check()).
        if stream.code is not None and not (write_failed and stream.code == grpc.StatusCode.INTERNAL):
            assert stream.code in ALLOWED[method], (method, stream.code, stream.details)
        assert {r.code for r in stream.results} <= ACT_RESULT_CODES, stream.results
        seat = stream.welcome.seat if stream.welcome is not None else viewer
        leaks = [found for e in stream.events if (found := leak(e, seat)) is not None]
        assert not leaks, leaks
        assert seq_break(None, stream.events) is None, [e.seq for e in stream.events]
        return stream

    async def check(self) -> None:
        """The server answers health SERVING, ended every call with a status documented for it (by
        its own count, which no client library can misreport), and its tables hold what was bought
        less what was cashed out."""
        assert await serving(self.channel), "health is not SERVING"
        undocumented = {
            (method, code): count
            for (method, code), count in (await self.statuses()).items()
            if method in ALLOWED and code not in {c.name for c in ALLOWED[method]} | cancelled_by_client(method)
        }
        assert not undocumented, undocumented
        chips = await chips_on_tables(self.stub)
        self.tables = sorted(chips)
        assert sum(chips.values()) == self.bought - self.cashed_out, (chips, self.bought, self.cashed_out)

    async def statuses(self) -> dict[tuple[str, str], float]:
        """How the server ended its calls, by method and status name, from its /metrics."""
        return call_endings(await asyncio.to_thread(_get, self.metrics_url))

    async def populate(self) -> None:
        """Two tables, a stud and a draw game, three players each: hands run from the start."""
        for table_id, game in (("stud", "7stud"), ("draw", "7a5draw")):
            options = pb.TableOptions(game=game, stakes=pb.Stakes(small_bet=4), clock_seconds=60)
            create = pb.CreateTableRequest(table_id=table_id, options=options)
            await self.call("CreateTable", create.SerializeToString(), None)
            for seat in (1, 2, 3):
                request = pb.SitDownRequest(table_id=table_id, seat=seat, player_id=f"p{seat}")
                await self.call("SitDown", request.SerializeToString(), None)
        await self.check()


def cancelled_by_client(method: str) -> set[str]:
    """CANCELLED is the client's doing, and these clients cancel only streams (they leave them early)."""
    return {"CANCELLED"} if method in STREAMING else set()


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=CALL_TIMEOUT) as response:
        text: str = response.read().decode()
    return text


async def _read(call: Any, stream: StreamRead) -> None:
    try:
        while (message := await call.read()) is not grpc.aio.EOF:
            if message.HasField("welcome"):
                stream.welcome = message.welcome
            stream.results.extend(message.results)
            stream.events.extend(message.events)
            stream.pongs.update(p.nonce for p in message.pongs)
            if message.HasField("your_turn"):
                stream.turn = message.your_turn
            stream.changed.set()
        stream.code = grpc.StatusCode.OK
    except grpc.aio.AioRpcError as exc:
        if exc.code() != grpc.StatusCode.CANCELLED:  # the client's own early close
            stream.code, stream.details = exc.code(), exc.details() or ""
    finally:
        stream.changed.set()


@contextmanager
def in_process() -> Iterator[Target]:
    """A TableServer on 127.0.0.1 (port 0) in this process; no ERROR may be logged while it serves."""
    with asyncio.Runner() as runner, errors() as logged:
        config = ServerConfig(port=0, metrics_port=0, limits=HostLimits(max_tables=MAX_TABLES), drain_seconds=0)
        server = TableServer(config)
        runner.run(server.start())
        target = Target(runner, f"127.0.0.1:{server.port}", f"http://127.0.0.1:{server.metrics_port}/metrics")
        try:
            target.run(target.populate())
            yield target
        finally:
            runner.run(server.stop(drain_seconds=0))
            runner.run(target.channel.close())
        assert not logged.lines(), logged.lines()


@contextmanager
def served_process() -> Iterator[Target]:
    """``tablestorm serve`` as a process on 127.0.0.1; its JSON log may hold no ERROR line."""
    process = subprocess.Popen(
        [TABLESTORM, "serve", "--port", "0", "--metrics-port", "0", "--max-tables", str(MAX_TABLES), *DRAIN_NOW],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        ports = json.loads(process.stdout.readline())
        with asyncio.Runner() as runner:
            target = Target(
                runner, f"127.0.0.1:{ports['grpc_port']}", f"http://127.0.0.1:{ports['metrics_port']}/metrics"
            )
            target.run(target.populate())
            yield target
            runner.run(target.channel.close())
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    levels = [json.loads(line) for line in stderr.splitlines() if line.strip()]
    assert not [entry for entry in levels if entry["level"] in ("error", "critical")], stderr


# ----------------------------------------------------------------- what an example sends


@st.composite
def valid_request(draw: st.DrawFn, method: str, target: Target) -> tuple[Message, Metadata]:
    """A request ``method`` would accept, built field by field from the descriptor and what the
    server holds, with the seat token its seat needs (a new RPC gets one too)."""
    message = REQUEST[method]()
    names = {f.name for f in message.DESCRIPTOR.fields}
    seat = draw(pick(target.seats or [Seat("none", 1, "none")]))
    metadata: Metadata = None
    if names >= SEAT_FIELDS and method != "SitDown":
        message.table_id, message.seat = seat.table_id, seat.seat  # type: ignore[attr-defined]
        metadata = (("x-seat-token", seat.token),)
    elif "table_id" in names:
        fresh = method == "CreateTable"
        table_id = draw(pick([*target.tables, "none"]))
        message.table_id = target.fresh("f") if fresh else table_id  # type: ignore[attr-defined]
    if method == "SitDown":
        message.seat = draw(st.integers(1, 8))  # type: ignore[attr-defined]
    if "player_id" in names:
        message.player_id = target.fresh("p")  # type: ignore[attr-defined]
    if "action_id" in names:
        message.action_id = target.fresh("a")  # type: ignore[attr-defined]
    if "amount" in names:  # an action (CreateTableRequest.kind is a table kind: cash by default)
        message.kind = draw(st.sampled_from((1, 2, 3, 4, 5, 6, 7, 8)))  # type: ignore[attr-defined]
        message.amount = draw(st.integers(0, 24))  # type: ignore[attr-defined]
    if "options" in names:
        game = draw(st.sampled_from(sorted(GAMES)))
        message.options.CopyFrom(  # type: ignore[attr-defined]
            pb.TableOptions(
                game=game,
                structure=draw(st.sampled_from(GAMES[game])),
                stakes=pb.Stakes(small_bet=draw(st.sampled_from((2, 4, 10)))),
                clock_seconds=draw(st.sampled_from((0.05, 60.0))),
            )
        )
    if "game" in names:
        message.game = draw(st.sampled_from(["", *GAMES]))  # type: ignore[attr-defined]
    return message, metadata


@st.composite
def seat_metadata(draw: st.DrawFn, target: Target, right: Metadata) -> Metadata:
    """The right token, another seat's, none, a forged or an oversized one."""
    tokens = [s.token for s in target.seats] or ["none"]
    value = draw(
        st.one_of(
            st.just(right[0][1] if right else ""),
            pick(tokens),
            st.just(""),
            st.from_regex(r"[ -~]{1,200}", fullmatch=True),
            st.just("t" * 4000),
        )
    )
    return (("x-seat-token", value),) if value else None


@st.composite
def client_message(draw: st.DrawFn, target: Target, seat: Seat, turn: pb.YourTurn | None) -> bytes:
    """One message of a Play stream: a Hello (right or mutated), an act (legal for the turn, or
    anything), a ping, a message without a kind, or bytes."""
    hello = pb.Hello(table_id=seat.table_id, seat=seat.seat)
    act = pb.ActRequest(action_id=target.fresh("a"))
    answer, legal, top = draw(st.booleans()), draw(pick(list(turn.legal) if turn else [None])), draw(st.booleans())
    if answer and legal is not None and turn is not None:
        act.kind = legal.kind
        act.amount = legal.max if top else legal.min
        act.turn_seq = turn.seq
    choices: list[st.SearchStrategy[Message]] = [
        mutated(hello, target.known()).map(lambda h: pb.ClientMessage(hello=h)),
        mutated(act, target.known()).map(lambda a: pb.ClientMessage(act=a)),
        st.builds(lambda n: pb.ClientMessage(ping=pb.Ping(nonce=n)), integers(0, 2**64 - 1)),
        st.just(pb.ClientMessage()),
        random_message(pb.ClientMessage.DESCRIPTOR, target.known()),
    ]
    message = draw(st.one_of(choices))
    if draw(st.integers(0, 9)) == 0:
        return draw(mutated_bytes(message.SerializeToString()))
    return message.SerializeToString()


FUZZ = settings(
    deadline=None,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=list(HealthCheck),
)
"""Every example runs against the server the earlier ones left: no shrinking, no replay database."""


def examples(default: int, slow: int) -> pytest.MarkDecorator:
    """The example count: ``default`` in the default run, ``slow`` under ``-m slow``."""
    return pytest.mark.parametrize(
        "count", [pytest.param(default, id="default"), pytest.param(slow, id="slow", marks=pytest.mark.slow)]
    )


def fuzz_unary(target: Target, count: int) -> None:
    """Every unary RPC, valid requests with mutated fields and tokens."""

    @settings(FUZZ, max_examples=count)
    @given(st.data())
    def example(data: st.DataObject) -> None:
        method = data.draw(st.sampled_from(UNARY), label="method")
        request, right = data.draw(valid_request(method, target))
        request = data.draw(mutated(request, target.known()), label="request")
        metadata = data.draw(seat_metadata(target, right), label="metadata")
        target.run(target.call(method, request.SerializeToString(), metadata))
        target.run(target.check())

    example()


def fuzz_bytes(target: Target, count: int) -> None:
    """Every RPC, random bytes, messages of the descriptor alone and byte mutations of valid ones."""

    @settings(FUZZ, max_examples=count)
    @given(st.data())
    def example(data: st.DataObject) -> None:
        method = data.draw(st.sampled_from(METHODS), label="method")
        valid, metadata = data.draw(valid_request(method, target))
        random = data.draw(random_message(DESCRIPTORS[method], target.known()))
        payload = data.draw(
            st.one_of(
                st.binary(max_size=300),
                mutated_bytes(valid.SerializeToString()),
                st.just(random.SerializeToString()),
            ),
            label="payload",
        )
        if method in UNARY:
            target.run(target.call(method, payload, metadata))
        else:
            target.run(target.play(method, [payload], metadata, 0))
        target.run(target.check())

    example()


def fuzz_play(target: Target, count: int) -> None:
    """Play streams of random message sequences for known seats, spectators and strangers."""

    @settings(FUZZ, max_examples=count)
    @given(st.data())
    def example(data: st.DataObject) -> None:
        seat = data.draw(pick(target.seats or [Seat("none", 1, "none")]), label="seat")
        if data.draw(st.booleans()):
            seat = Seat(seat.table_id, 0, "")  # a spectator
        metadata = data.draw(seat_metadata(target, (("x-seat-token", seat.token),) if seat.token else None))
        hello = pb.ClientMessage(hello=pb.Hello(table_id=seat.table_id, seat=seat.seat)).SerializeToString()
        first = target.run(target.play("Play", [hello], metadata, seat.seat))
        messages = [data.draw(client_message(target, seat, first.turn)) for _ in range(data.draw(st.integers(0, 8)))]
        if data.draw(st.booleans()):
            messages.insert(0, hello)
        ending = data.draw(st.sampled_from(("ping", "half-close", "cancel")), label="ending")
        target.run(target.play("Play", messages, metadata, seat.seat, ending))
        target.run(target.check())

    example()


def test_every_rpc_has_its_statuses_in_the_table_as_the_proto_documents_them() -> None:
    assert set(ALLOWED) == set(METHODS), "every RPC of the service descriptor has a row"
    assert documented() == ALLOWED


@examples(default=150, slow=800)
def test_fuzz_unary_rpcs_in_process(count: int) -> None:
    with in_process() as target:
        fuzz_unary(target, count)


@examples(default=120, slow=600)
def test_fuzz_bytes_of_every_rpc_in_process(count: int) -> None:
    with in_process() as target:
        fuzz_bytes(target, count)


@examples(default=60, slow=400)
def test_fuzz_play_streams_in_process(count: int) -> None:
    with in_process() as target:
        fuzz_play(target, count)


@examples(default=40, slow=200)
def test_fuzz_a_tablestorm_serve_process(count: int) -> None:
    with served_process() as target:
        fuzz_unary(target, count)
        fuzz_bytes(target, count)
        fuzz_play(target, count // 2)
