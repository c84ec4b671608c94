"""What a trusted table service must keep true, checked from outside through its public API only.

The fuzzers (``test_table_service_fuzz.py``) and the stateful model
(``test_table_service_model.py``) check these after every example or step: the server answers
health SERVING; the chips on its tables (read with ``ListTables`` and a spectator's ``Welcome``)
equal what players bought minus what they cashed out; no stream shows a seat another seat's
face-down card; a stream's sequence numbers run on by one; and no ERROR was logged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.table.service import SERVICE_NAME

HIDDEN = -1
"""CARD_HIDDEN."""
CALL_TIMEOUT = 10.0
"""No call of a check may take longer: a server that stops answering fails the check, it does not hang it."""


async def serving(channel: grpc.aio.Channel) -> bool:
    """Whether the server's health service says the table service is SERVING."""
    reply = await health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=CALL_TIMEOUT
    )
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


async def table_ids(stub: rpc.TableServiceStub) -> list[str]:
    """Every table the server hosts, paging through ListTables."""
    ids: list[str] = []
    page_token = ""
    while True:
        page = await stub.ListTables(pb.ListTablesRequest(page_size=100, page_token=page_token), timeout=CALL_TIMEOUT)
        ids += [t.table_id for t in page.tables]
        page_token = page.next_page_token
        if not page_token:
            return ids


def chips_in(welcome: pb.Welcome, events: Iterable[pb.Event]) -> int:
    """The chips at a table as a spectator's first message shows them: every seat's stack, plus
    the pot of the running hand (what its players started it with, less what they hold now)."""
    table = welcome.table
    stacks = {s.seat: s.stack for s in table.seats if s.player_id}
    chips = sum(stacks.values())
    if table.hand_running:
        started = [e.hand_started for e in events if e.HasField("hand_started")]
        assert started, f"table {table.table_id!r}: a hand runs but the Welcome replays no HandStarted"
        hand = started[-1]
        for seat, stack in zip(hand.seats, hand.stacks, strict=True):
            assert seat in stacks, f"table {table.table_id!r}: seat {seat} left hand {table.hand_number}"
            chips += stack - stacks[seat]
    return chips


async def first_sight(stub: rpc.TableServiceStub, table_id: str) -> pb.ServerMessage | None:
    """A spectator's first message at ``table_id``: the Welcome and the running hand from its
    start, one instant of the table (None: the table is gone)."""
    call = stub.Play()
    try:
        await call.write(pb.ClientMessage(hello=pb.Hello(table_id=table_id)))
        first = await asyncio.wait_for(call.read(), CALL_TIMEOUT)
    except grpc.aio.AioRpcError as exc:
        if exc.code() == grpc.StatusCode.NOT_FOUND:
            return None
        raise
    finally:
        call.cancel()
    if first is grpc.aio.EOF:  # it closed between ListTables and the Hello
        return None
    assert first.HasField("welcome"), f"table {table_id!r}: the first message is no Welcome"
    leaks = [found for e in first.events if (found := leak(e, 0)) is not None]
    assert not leaks, leaks
    message: pb.ServerMessage = first
    return message


async def chips_on_tables(stub: rpc.TableServiceStub) -> dict[str, int]:
    """Chips at every table the server hosts."""
    chips: dict[str, int] = {}
    for table_id in await table_ids(stub):
        first = await first_sight(stub, table_id)
        if first is not None:
            chips[table_id] = chips_in(first.welcome, first.events)
    return chips


def call_endings(exposition: str) -> dict[tuple[str, str], float]:
    """The server's own count of finished calls by (method, status name), from its /metrics text
    (``tablestorm_grpc_requests_total``): what it answered, whatever a client library reported."""
    return {
        (sample.labels["method"], sample.labels["code"]): sample.value
        for family in text_string_to_metric_families(exposition)
        for sample in family.samples
        if sample.name == "tablestorm_grpc_requests_total"
    }


def leak(event: pb.Event, viewer: int) -> str | None:
    """What ``event`` shows seat ``viewer`` (0: a spectator) that it may not see, if anything:
    another seat's face-down cards or discards (shown hands are public), or its own hidden."""
    kind = event.WhichOneof("kind")
    if kind == "cards_dealt":
        dealt = event.cards_dealt
        if dealt.seat != viewer and any(card != HIDDEN for card in dealt.down):
            return f"seat {dealt.seat}'s down cards {list(dealt.down)} shown to seat {viewer}"
        if dealt.seat == viewer and HIDDEN in dealt.down:
            return f"seat {viewer}'s own down cards hidden from it"
    elif kind == "drew":
        drew = event.drew
        cards = [*drew.discarded, *drew.drawn]
        if drew.seat != viewer and any(card != HIDDEN for card in cards):
            return f"seat {drew.seat}'s draw {cards} shown to seat {viewer}"
        if drew.seat == viewer and HIDDEN in cards:
            return f"seat {viewer}'s own draw hidden from it"
    return None


def seq_break(previous: int | None, events: Iterable[pb.Event]) -> str | None:
    """Where the events of a stream stop running on by one from ``previous`` (None: the first
    event read may have any number), if they do."""
    for event in events:
        if previous is not None and event.seq != previous + 1:
            return f"seq {event.seq} after {previous}"
        previous = event.seq
    return None


def _an_earlier_loops_completion(record: logging.LogRecord) -> bool:
    """grpc.aio hands each completion to the event loop that started the operation: one an earlier
    test left in flight (its loop closed by ``asyncio.run``) meets that closed loop, and asyncio logs
    the refusal from whatever loop polls grpc's queue now. Nothing of the running test's."""
    exc = record.exc_info[1] if record.exc_info else None
    return (record.name == "asyncio" and "PollerCompletionQueue._handle_events" in record.getMessage()
            and isinstance(exc, RuntimeError) and str(exc) == "Event loop is closed")


class ErrorLog(logging.Handler):
    """Every record of ERROR or above logged in this process while installed (see :func:`errors`),
    but an earlier test's grpc completion meeting its closed loop."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []
        self.setFormatter(logging.Formatter("%(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if not _an_earlier_loops_completion(record):
            self.records.append(record)

    def lines(self) -> list[str]:
        """The records as text, tracebacks included."""
        return [self.format(record) for record in self.records]


@contextmanager
def errors() -> Iterator[ErrorLog]:
    """Collect the ERROR records of every logger of this process (grpc's and asyncio's included)."""
    handler = ErrorLog()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
