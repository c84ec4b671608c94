"""``tablestorm_grpc_requests_total{method, code}``: every finished RPC, counted by status.

A server interceptor sees every method (the table service, health, reflection) without the
handlers knowing; it wraps each handler's behaviour and reads the status the call ended with.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

import grpc

from .metrics import Metrics

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"


def _code_name(context: Context) -> str:
    code: object = context.code()  # typed StatusCode, but grpc.aio answers None (or a number) too
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    return grpc.StatusCode.OK.name if code in (None, 0) else str(code)


class MetricsInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, metrics: Metrics) -> None:
        self._requests = metrics.grpc_requests

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        # Any: the stubs type handlers as the synchronous server's; grpc.aio's are coroutines.
        handler: Any = await continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method.rsplit("/", 1)[-1]
        requests = self._requests

        async def observe(call: Awaitable[Any], context: Context) -> Any:
            code = "UNKNOWN"
            try:
                result = await call
                code = _code_name(context)
                return result
            except asyncio.CancelledError:
                code = grpc.StatusCode.CANCELLED.name
                raise
            except Exception:
                code = "UNKNOWN" if context.code() is None else _code_name(context)
                raise
            finally:
                requests.labels(method, code).inc()

        if handler.unary_unary is not None:
            unary = handler.unary_unary

            async def unary_unary(request: Any, context: Context) -> Any:
                return await observe(unary(request, context), context)

            return grpc.unary_unary_rpc_method_handler(
                unary_unary,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.stream_stream is not None and asyncio.iscoroutinefunction(handler.stream_stream):
            stream = handler.stream_stream

            async def stream_stream(requests: Any, context: Context) -> Any:
                return await observe(stream(requests, context), context)

            return grpc.stream_stream_rpc_method_handler(
                stream_stream,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        unchanged: grpc.RpcMethodHandler[Any, Any] = handler
        return unchanged  # streaming generators (health Watch, reflection): not counted
