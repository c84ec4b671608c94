"""How the project's gRPC services register their methods: statuses from :class:`ServiceError`,
undecodable requests answered INVALID_ARGUMENT, unexpected failures INTERNAL and logged once.

Both services (:mod:`tablestorm.services.table.service`, :mod:`tablestorm.services.tournament.service`) register their
handlers by hand with these wrappers instead of the generated ``add_*Servicer_to_server``: gRPC
itself would answer a request whose bytes do not parse UNKNOWN and log a traceback per request,
and would turn any exception into UNKNOWN.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeAlias

import grpc
from google.protobuf.message import DecodeError, Message

from tablestorm.services.rpc import jsonlog
from tablestorm.services.rpc.errors import ServiceError, invalid

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
Handler: TypeAlias = Callable[[Any, Context], Awaitable[Any]]
StreamHandler: TypeAlias = Callable[[Any, Context], AsyncIterator[Any]]
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


def parse_as(kind: type[Message]) -> Callable[[bytes], Message | Undecodable]:
    """A request deserializer that never raises: bad bytes become an :class:`Undecodable`."""

    def parse(data: bytes) -> Message | Undecodable:
        try:
            return kind.FromString(data)
        except DecodeError as exc:
            return Undecodable(kind.DESCRIPTOR.full_name, str(exc))

    return parse


def unary(method: Handler, request: type[Message], response: type[Message]) -> grpc.RpcMethodHandler[Any, Any]:
    """A unary method whose ServiceError is its status."""

    async def handle(message: Any, context: Context) -> Any:
        try:
            if isinstance(message, Undecodable):
                raise message.refusal()
            return await method(message, context)
        except ServiceError as exc:
            await context.abort(exc.code, exc.message)
        except Exception:  # a bug: logged once here, and the client learns nothing of the code
            log.exception("handler failed", extra={"method": method.__name__})
            await context.abort(grpc.StatusCode.INTERNAL, "internal error (logged by the server)")

    return grpc.unary_unary_rpc_method_handler(
        handle, request_deserializer=parse_as(request), response_serializer=response.SerializeToString
    )


def unary_stream(
    method: StreamHandler, request: type[Message], response: type[Message]
) -> grpc.RpcMethodHandler[Any, Any]:
    """A server-streaming method: the messages ``method`` yields, then OK or its ServiceError."""

    async def handle(message: Any, context: Context) -> None:
        try:
            if isinstance(message, Undecodable):
                raise message.refusal()
            async for item in method(message, context):
                await context.write(item)
        except ServiceError as exc:
            await context.abort(exc.code, exc.message)
        except Exception:
            log.exception("handler failed", extra={"method": method.__name__})
            await context.abort(grpc.StatusCode.INTERNAL, "internal error (logged by the server)")

    return grpc.unary_stream_rpc_method_handler(
        handle, request_deserializer=parse_as(request), response_serializer=response.SerializeToString
    )
