"""The RPC layer of ``tablestorm.v1.TableService``: requests in, statuses and streams out.

Handlers are registered by hand (:func:`handlers`) rather than through the generated
``add_TableServiceServicer_to_server`` for one reason: the Play stream writes bytes that
:mod:`services.table.hub` has already serialized (once per visibility class), so its response
serializer is the identity. Clients use the generated stub unchanged; the wire is the proto's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias

import grpc
from google.protobuf.message import DecodeError, Message

from services.engine import variant_named

from . import convert, jsonlog
from . import validation as check
from .auth import SeatKey, token_from
from .errors import ServiceError, invalid
from .host import TableHost, TableSpec
from .hub import PONGS, RESULTS, Outbox, frame
from .live_table import LiveTable
from .metrics import Metrics
from .proto_gen import table_service_pb2 as pb

SERVICE_NAME = "tablestorm.v1.TableService"
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
"""ListTables: tables per page by default and at most (a page of summaries stays far below 1 MiB)."""
HELLO_TIMEOUT = 10.0
"""A Play stream that has not said Hello by then is closed (it holds a connection slot)."""

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
log = logging.getLogger(__name__)
_UNDECODABLE = jsonlog.Throttled(log, "undecodable request")


class Undecodable:
    """Request bytes that do not parse as the method's message: the handler answers
    INVALID_ARGUMENT (gRPC itself would answer UNKNOWN and log a traceback per request)."""

    __slots__ = ("error", "message")

    def __init__(self, message: str, error: str) -> None:
        self.message = message
        self.error = error

    def refusal(self) -> ServiceError:
        _UNDECODABLE.warn(expected=self.message, error=self.error)
        return invalid(f"request: the bytes are not a valid {self.message} message")


ClientMessage: TypeAlias = "pb.ClientMessage | Undecodable"
"""What a Play stream's request iterator yields: a message, or bytes that were not one."""


def _parser(kind: type[Message]) -> Callable[[bytes], Message | Undecodable]:
    def parse(data: bytes) -> Message | Undecodable:
        try:
            return kind.FromString(data)
        except DecodeError as exc:
            return Undecodable(kind.DESCRIPTOR.full_name, str(exc))

    return parse


class TableService:
    def __init__(self, host: TableHost, metrics: Metrics) -> None:
        self._host = host
        self._metrics = metrics

    def _seat(self, context: Context, table_id: str, seat: int) -> tuple[LiveTable, SeatKey]:
        return self._host.seat(token_from(context.invocation_metadata()), table_id, seat)

    # ----------------------------------------------------------------- unary calls

    async def create_table(self, request: pb.CreateTableRequest, context: Context) -> pb.TableState:
        try:
            options = convert.options_from_proto(request.options)
        except ValueError as exc:
            raise invalid(str(exc)) from None
        seed = request.seed if request.HasField("seed") else None
        return (await self._host.open_table(TableSpec(request.table_id, options, seed))).state()

    async def get_table(self, request: pb.GetTableRequest, context: Context) -> pb.TableState:
        return self._host.table(request.table_id).state()

    async def list_tables(self, request: pb.ListTablesRequest, context: Context) -> pb.ListTablesResponse:
        game = request.game
        if game:
            try:
                variant_named(game if len(game) <= convert.MAX_GAME_LENGTH else "?")
            except ValueError as exc:
                raise invalid(f"game: {exc}") from None
        if request.page_size > MAX_PAGE_SIZE:
            raise invalid(f"page_size: at most {MAX_PAGE_SIZE}, got {request.page_size}")
        after = check.table_id(request.page_token, "page_token") if request.page_token else ""
        page, more = self._host.page(game, request.page_size or DEFAULT_PAGE_SIZE, after)
        return pb.ListTablesResponse(
            tables=[live.summary() for live in page], next_page_token=page[-1].table_id if more else ""
        )

    async def close_table(self, request: pb.CloseTableRequest, context: Context) -> pb.CloseTableResponse:
        closing = await self._host.close_table(request.table_id)
        return pb.CloseTableResponse(
            closed=closing.closed, seats_taken=closing.seats_taken, hand_running=closing.hand_running
        )

    async def sit_down(self, request: pb.SitDownRequest, context: Context) -> pb.SitDownResponse:
        post = request.post_to_play if request.HasField("post_to_play") else True
        live, response = self._host.sit_down(request.table_id, request.seat, request.player_id, request.buy_in, post)
        await live.persist_seats()
        return response

    async def stand_up(self, request: pb.SeatRequest, context: Context) -> pb.StandUpResponse:
        live, key = self._seat(context, request.table_id, request.seat)
        chips = live.stand_up(key)
        await live.persist_seats()
        await self._host.close_if_empty(live)  # the last player left a closing table
        return pb.StandUpResponse(chips=chips)

    async def sit_out(self, request: pb.SeatRequest, context: Context) -> pb.SeatState:
        live, key = self._seat(context, request.table_id, request.seat)
        return live.sit_out(key)

    async def sit_in(self, request: pb.SitInRequest, context: Context) -> pb.SeatState:
        live, key = self._seat(context, request.table_id, request.seat)
        return live.sit_in(key, request.post_to_play if request.HasField("post_to_play") else True)

    async def rebuy(self, request: pb.SeatRequest, context: Context) -> pb.SeatState:
        live, key = self._seat(context, request.table_id, request.seat)
        state = live.rebuy(key)
        await live.persist_seats()
        return state

    async def get_history(self, request: pb.SeatRequest, context: Context) -> pb.History:
        live, key = self._seat(context, request.table_id, request.seat)
        return live.history(key)

    async def act(self, request: pb.ActRequest, context: Context) -> pb.ActResult:
        live, key = self._seat(context, request.table_id, request.seat)
        result = live.act(key, request)
        if result.code:
            raise ServiceError(_STATUS_BY_NUMBER[result.code], result.message)
        return result

    # ----------------------------------------------------------------- the Play stream

    async def play(self, requests: AsyncIterator[ClientMessage], context: Context) -> None:
        """Hello, then two tasks: a reader applying the client's messages and a writer draining
        the outbox. The call ends when the outbox closes (stand-up, overflow, replacement,
        shutdown) or the client goes away (grpc cancels this coroutine)."""
        try:
            first = await asyncio.wait_for(anext(requests), HELLO_TIMEOUT)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise ServiceError(
                grpc.StatusCode.DEADLINE_EXCEEDED, f"hello: none within {HELLO_TIMEOUT:g} s"
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
        self, requests: AsyncIterator[ClientMessage], live: LiveTable, key: SeatKey | None, outbox: Outbox
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
                    outbox.push(frame(RESULTS, _stream_act(live, key, message.act)))
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


def _stream_act(live: LiveTable, key: SeatKey | None, request: pb.ActRequest) -> pb.ActResult:
    if key is None:
        return pb.ActResult(
            action_id=request.action_id,
            code=grpc.StatusCode.PERMISSION_DENIED.value[0],
            message="spectators cannot act",
        )
    try:
        return live.act(key, request)
    except ServiceError as exc:
        return pb.ActResult(action_id=request.action_id, code=exc.code.value[0], message=exc.message)


_STATUS_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


# ----------------------------------------------------------------- registration

Handler = Callable[[Any, Context], Awaitable[Any]]


def _unary(method: Handler) -> Handler:
    """Answer a ServiceError with its status (the body of every unary handler)."""

    async def handle(request: Any, context: Context) -> Any:
        try:
            if isinstance(request, Undecodable):
                raise request.refusal()
            return await method(request, context)
        except ServiceError as exc:
            await context.abort(exc.code, exc.message)
        except Exception:  # a bug: logged once here, and the client learns nothing of the code
            log.exception("handler failed", extra={"method": method.__name__})
            await context.abort(grpc.StatusCode.INTERNAL, "internal error (logged by the server)")

    return handle


async def _stream(
    method: Callable[[AsyncIterator[Any], Context], Awaitable[None]],
    requests: AsyncIterator[Any],
    context: Context,
) -> None:
    try:
        await method(requests, context)
    except ServiceError as exc:
        await context.abort(exc.code, exc.message)


def handlers(service: TableService) -> grpc.GenericRpcHandler:
    def unary(method: Handler, request: type[Message], response: type[Message]) -> grpc.RpcMethodHandler[Any, Any]:
        return grpc.unary_unary_rpc_method_handler(
            _unary(method),
            request_deserializer=_parser(request),
            response_serializer=response.SerializeToString,
        )

    async def play(requests: AsyncIterator[ClientMessage], context: Context) -> None:
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
            # Responses are pre-serialized ServerMessage bytes (see services.table.hub).
            "Play": grpc.stream_stream_rpc_method_handler(
                play, request_deserializer=_parser(pb.ClientMessage), response_serializer=None
            ),
        },
    )
