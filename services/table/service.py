"""The RPC layer of ``tablestorm.v1.TableService``: requests in, statuses and streams out.

Handlers are registered by hand (:func:`handlers`, with :mod:`tablestorm.services.rpc.handlers`) rather
than through the generated ``add_TableServiceServicer_to_server``: undecodable requests are
answered INVALID_ARGUMENT, and the Play stream writes bytes that :mod:`tablestorm.services.table.hub` has
already serialized (once per visibility class), so its response serializer is the identity.
Clients use the generated stub unchanged; the wire is the proto's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.rpc.errors import STATUS_BY_NUMBER, ServiceError, invalid
from tablestorm.services.rpc.handlers import Context, Undecodable, parse_as, unary
from tablestorm.services.rpc.tls import peer_common_name
from tablestorm.services.table import convert
from tablestorm.services.table.auth import DIRECTOR_METADATA_KEY, MAX_TOKEN_LENGTH, SeatKey, metadata_value, token_from
from tablestorm.services.table.host import AnyLiveTable, Directed, TableHost, TableSpec
from tablestorm.services.table.hub import PONGS, RESULTS, Outbox, frame
from tablestorm.services.table.live_tournament import LiveTournamentTable
from tablestorm.services.table.metrics import Metrics

SERVICE_NAME = "tablestorm.v1.TableService"
MIN_DIRECTOR_TOKEN = 32
"""A director token is a random secret: shorter ones are refused at CreateTable."""
HELLO_TIMEOUT = 10.0
"""A Play stream that has not said Hello by then is closed (it holds a connection slot)."""

log = logging.getLogger(__name__)


class TableService:
    """The handlers of ``tablestorm.v1.TableService``: each converts its request and asks the host."""

    def __init__(
        self, host: TableHost, metrics: Metrics, director_name: str | None = None, hello_timeout: float = HELLO_TIMEOUT
    ) -> None:
        """``director_name``: the common name a director call's client certificate must carry
        (mutual TLS); None: the director token alone authorizes. ``hello_timeout``: seconds a
        Play stream has to say Hello."""
        self._host = host
        self._metrics = metrics
        self._director_name = director_name
        self._hello_timeout = hello_timeout

    def _director_certificate(self, context: Context) -> None:
        """With a director name, a director call must come with that client certificate:
        PERMISSION_DENIED otherwise, before its token is read. (CreateTable is not a director call:
        whoever creates a tournament table names its director token.)"""
        expected = self._director_name
        if expected is not None and peer_common_name(context) != expected:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"director calls need the client certificate of {expected!r} (mutual TLS)",
            )

    def _seat(self, context: Context, table_id: str, seat: int) -> tuple[AnyLiveTable, SeatKey]:
        return self._host.seat(token_from(context.invocation_metadata()), table_id, seat)

    # ----------------------------------------------------------------- unary calls

    async def create_table(self, request: pb.CreateTableRequest, context: Context) -> pb.TableState:
        try:
            options = convert.options_from_proto(request.options)
        except ValueError as exc:
            raise invalid(str(exc)) from None
        seed = request.seed if request.HasField("seed") else None
        spec = TableSpec(request.table_id, options, seed, _directed(request))
        return (await self._host.open_table(spec)).state()

    async def get_table(self, request: pb.GetTableRequest, context: Context) -> pb.TableState:
        return self._host.table(request.table_id).state()

    async def list_tables(self, request: pb.ListTablesRequest, context: Context) -> pb.ListTablesResponse:
        page, next_page_token = self._host.lobby(request.game, request.page_size, request.page_token)
        return pb.ListTablesResponse(tables=[live.summary() for live in page], next_page_token=next_page_token)

    async def close_table(self, request: pb.CloseTableRequest, context: Context) -> pb.CloseTableResponse:
        closing = await self._host.close_table(request.table_id)
        return pb.CloseTableResponse(
            closed=closing.closed, seats_taken=closing.seats_taken, hand_running=closing.hand_running
        )

    async def sit_down(self, request: pb.SitDownRequest, context: Context) -> pb.SitDownResponse:
        post = request.post_to_play if request.HasField("post_to_play") else True
        host = self._host
        _, response = await host.take_seat(request.table_id, request.seat, request.player_id, request.buy_in, post)
        return response

    async def stand_up(self, request: pb.SeatRequest, context: Context) -> pb.StandUpResponse:
        chips = await self._host.leave_seat(token_from(context.invocation_metadata()), request.table_id, request.seat)
        return pb.StandUpResponse(chips=chips)

    async def sit_out(self, request: pb.SeatRequest, context: Context) -> pb.SeatState:
        live, key = self._seat(context, request.table_id, request.seat)
        return live.sit_out(key)

    async def sit_in(self, request: pb.SitInRequest, context: Context) -> pb.SeatState:
        live, key = self._seat(context, request.table_id, request.seat)
        return live.sit_in(key, request.post_to_play if request.HasField("post_to_play") else True)

    async def rebuy(self, request: pb.SeatRequest, context: Context) -> pb.SeatState:
        return await self._host.rebuy_seat(token_from(context.invocation_metadata()), request.table_id, request.seat)

    async def get_history(self, request: pb.SeatRequest, context: Context) -> pb.History:
        live, key = self._seat(context, request.table_id, request.seat)
        return live.history(key)

    async def act(self, request: pb.ActRequest, context: Context) -> pb.ActResult:
        live, key = self._seat(context, request.table_id, request.seat)
        result = live.act(key, request)
        if result.code:
            raise ServiceError(STATUS_BY_NUMBER[result.code], result.message)
        return result

    # ----------------------------------------------------------------- the director's calls

    def _director_token(self, context: Context) -> str | None:
        self._director_certificate(context)
        return metadata_value(context.invocation_metadata(), DIRECTOR_METADATA_KEY)

    def _directed(self, context: Context, table_id: str) -> LiveTournamentTable:
        return self._host.directed_table(table_id, self._director_token(context))

    async def seat_player(self, request: pb.SeatPlayerRequest, context: Context) -> pb.SitDownResponse:
        director_token = self._director_token(context)
        return self._host.seat_player(request.table_id, director_token, request.seat, request.player_id, request.stack)

    async def remove_player(self, request: pb.SeatRequest, context: Context) -> pb.StandUpResponse:
        return pb.StandUpResponse(chips=self._directed(context, request.table_id).remove_player(request.seat))

    async def add_chips(self, request: pb.AddChipsRequest, context: Context) -> pb.SeatState:
        return self._directed(context, request.table_id).add_chips(request.seat, request.chips)

    async def set_away(self, request: pb.SetAwayRequest, context: Context) -> pb.SeatState:
        return self._directed(context, request.table_id).set_away(request.seat, request.away)

    async def deal_hand(self, request: pb.DealHandRequest, context: Context) -> pb.HandResult:
        """Deal one hand and answer when it is over. The hand belongs to the table, not to this
        call: a client that goes away does not stop it, and asking again gets its result."""
        live = self._directed(context, request.table_id)
        try:
            stakes = convert.stakes_as_given(request.stakes)
        except ValueError as exc:
            raise invalid(str(exc)) from None
        result = await asyncio.shield(live.deal_hand(request.hand_number, stakes))
        if result.voided:
            raise ServiceError(
                grpc.StatusCode.UNAVAILABLE,
                f"the server is shutting down: hand {result.hand_number} was voided, every stack is back"
                " to its start",
            )
        return result

    # ----------------------------------------------------------------- the Play stream

    async def play(self, requests: AsyncIterator[pb.ClientMessage | Undecodable], context: Context) -> None:
        """Hello, then two tasks: a reader applying the client's messages and a writer draining
        the outbox. The call ends when the outbox closes (stand-up, overflow, replacement,
        shutdown) or the client goes away (grpc cancels this coroutine)."""
        try:
            first = await asyncio.wait_for(anext(requests), self._hello_timeout)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise ServiceError(
                grpc.StatusCode.DEADLINE_EXCEEDED, f"hello: none within {self._hello_timeout:g} s"
            ) from None
        if isinstance(first, Undecodable):
            raise first.refusal()
        if first.WhichOneof("kind") != "hello":
            raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "hello: the first message must be a hello")
        hello = first.hello
        resume = hello.resume_after_seq if hello.HasField("resume_after_seq") else None
        # Sent on its own, not with the first write: an error close cancels a write in flight, and
        # a cancelled first write still holds the initial metadata when the status goes out (grpc
        # refuses it, TOO_MANY_OPERATIONS, and the client never learns how its stream ended).
        try:
            await context.send_initial_metadata(())
        except Exception:  # grpc's ExecuteBatchError: Core ended the call, the client has left
            raise asyncio.CancelledError from None
        live, key, outbox = self._host.subscribe(
            hello.table_id, hello.seat, resume, token_from(context.invocation_metadata())
        )
        metrics = self._metrics
        metrics.messages_in.inc()
        metrics.streams_live.inc()
        writer = asyncio.create_task(self._write(outbox, context))
        reader = asyncio.create_task(self._read(requests, live, key, outbox))
        outbox.on_close = writer.cancel  # an error close must not wait behind a blocked write
        try:
            await asyncio.wait((writer,))
        finally:
            reader.cancel()
            writer.cancel()
            live.unsubscribe(outbox)
            metrics.streams_live.dec()
        if outbox.close_code is not None:
            if outbox.close_code is grpc.StatusCode.RESOURCE_EXHAUSTED:
                metrics.stream_overflows.inc()
            raise ServiceError(outbox.close_code, outbox.close_message)

    async def _write(self, outbox: Outbox, context: Context) -> None:
        count = self._metrics.messages_out.inc
        while (message := await outbox.next_message()) is not None:
            await context.write(message)
            count()

    async def _read(
        self,
        requests: AsyncIterator[pb.ClientMessage | Undecodable],
        live: AnyLiveTable,
        key: SeatKey | None,
        outbox: Outbox,
    ) -> None:
        """Apply the client's messages in order; a protocol error closes the stream."""
        count = self._metrics.messages_in.inc
        with contextlib.suppress(grpc.RpcError, grpc.aio.AioRpcError):
            async for message in requests:
                count()
                if isinstance(message, Undecodable):
                    refusal = message.refusal()
                    outbox.close(refusal.code, refusal.message)
                    return
                kind = message.WhichOneof("kind")
                if kind == "act":
                    outbox.push(frame(RESULTS, live.answer(key, message.act)))
                elif kind == "ping":
                    outbox.push(frame(PONGS, pb.Pong(nonce=message.ping.nonce)))
                else:
                    what = (
                        "hello: only the first message may be a hello"
                        if kind
                        else "a message must set a kind"
                    )
                    outbox.close(grpc.StatusCode.INVALID_ARGUMENT, what)
                    return


def _directed(request: pb.CreateTableRequest) -> Directed | None:
    """A tournament table's director credential and first hand number; None for a cash table."""
    if request.kind == pb.TABLE_KIND_TOURNAMENT:
        token = request.director_token
        if not MIN_DIRECTOR_TOKEN <= len(token) <= MAX_TOKEN_LENGTH or not (token.isascii() and token.isprintable()):
            raise invalid(
                f"director_token: a tournament table needs {MIN_DIRECTOR_TOKEN} to {MAX_TOKEN_LENGTH}"
                f" printable ASCII characters, got {len(token)} characters"
            )
        return Directed(token, request.hand_number)
    if request.kind not in (pb.TABLE_KIND_UNSPECIFIED, pb.TABLE_KIND_CASH):
        raise invalid(f"kind: unknown value {request.kind}")
    if request.director_token:
        raise invalid("director_token: only a tournament table (kind TABLE_KIND_TOURNAMENT) has a director")
    if request.hand_number:
        raise invalid("hand_number: only a tournament table deals on from an earlier hand number")
    return None


# ----------------------------------------------------------------- registration


async def _stream(
    method: Callable[[AsyncIterator[pb.ClientMessage | Undecodable], Context], Awaitable[None]],
    requests: AsyncIterator[pb.ClientMessage | Undecodable],
    context: Context,
) -> None:
    try:
        await method(requests, context)
    except ServiceError as exc:
        await context.abort(exc.code, exc.message)


def handlers(service: TableService) -> grpc.GenericRpcHandler:
    async def play(requests: AsyncIterator[pb.ClientMessage | Undecodable], context: Context) -> None:
        await _stream(service.play, requests, context)

    return grpc.method_handlers_generic_handler(
        SERVICE_NAME,
        {
            "CreateTable": unary(service.create_table, pb.CreateTableRequest, pb.TableState),
            "GetTable": unary(service.get_table, pb.GetTableRequest, pb.TableState),
            "ListTables": unary(service.list_tables, pb.ListTablesRequest, pb.ListTablesResponse),
            "CloseTable": unary(service.close_table, pb.CloseTableRequest, pb.CloseTableResponse),
            "SitDown": unary(service.sit_down, pb.SitDownRequest, pb.SitDownResponse),
            "StandUp": unary(service.stand_up, pb.SeatRequest, pb.StandUpResponse),
            "SitOut": unary(service.sit_out, pb.SeatRequest, pb.SeatState),
            "SitIn": unary(service.sit_in, pb.SitInRequest, pb.SeatState),
            "Rebuy": unary(service.rebuy, pb.SeatRequest, pb.SeatState),
            "Act": unary(service.act, pb.ActRequest, pb.ActResult),
            "GetHistory": unary(service.get_history, pb.SeatRequest, pb.History),
            "SeatPlayer": unary(service.seat_player, pb.SeatPlayerRequest, pb.SitDownResponse),
            "RemovePlayer": unary(service.remove_player, pb.SeatRequest, pb.StandUpResponse),
            "AddChips": unary(service.add_chips, pb.AddChipsRequest, pb.SeatState),
            "SetAway": unary(service.set_away, pb.SetAwayRequest, pb.SeatState),
            "DealHand": unary(service.deal_hand, pb.DealHandRequest, pb.HandResult),
            # Responses are pre-serialized ServerMessage bytes (see tablestorm.services.table.hub).
            "Play": grpc.stream_stream_rpc_method_handler(
                play, request_deserializer=parse_as(pb.ClientMessage), response_serializer=None
            ),
        },
    )
