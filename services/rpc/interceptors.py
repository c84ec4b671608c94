"""``tablestorm_grpc_requests_total{method, code}``: every finished RPC, counted by status (the
tournament server counts its own the same way, in ``tablestorm_tournament_grpc_requests_total``).

A server interceptor sees every method (the table service, health, reflection) without the
handlers knowing; it wraps each handler's behaviour and reads the status the call ended with.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

import grpc
from prometheus_client import Counter

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"


def _code_name(context: Context) -> str:
    code: object = context.code()  # a StatusCode once set; None (or 0) for a call that ended OK
    if isinstance(code, grpc.StatusCode):
        return str(code.name)
    return grpc.StatusCode.OK.name if code in (None, 0) else str(code)


class MetricsInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, requests: Counter) -> None:
        """``requests``: a counter labelled ``method`` and ``code``."""
        self._requests = requests

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
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

        # The aio handlers are coroutine functions taking an aio context (the stubs type them sync).
        wrapped: Any
        if handler.unary_unary is not None:
            unary: Any = handler.unary_unary

            async def wrapped(request: Any, context: Context) -> Any:
                return await observe(unary(request, context), context)

            make: Any = grpc.unary_unary_rpc_method_handler
        elif handler.unary_stream is not None and asyncio.iscoroutinefunction(handler.unary_stream):
            unary_stream: Any = handler.unary_stream

            async def wrapped(request: Any, context: Context) -> Any:
                return await observe(unary_stream(request, context), context)

            make = grpc.unary_stream_rpc_method_handler
        elif handler.stream_stream is not None and asyncio.iscoroutinefunction(handler.stream_stream):
            stream: Any = handler.stream_stream

            async def wrapped(requests: Any, context: Context) -> Any:
                return await observe(stream(requests, context), context)

            make = grpc.stream_stream_rpc_method_handler
        else:
            return handler  # streaming generators (health Watch, reflection): not counted
        result: grpc.RpcMethodHandler[Any, Any] = make(
            wrapped,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
        return result
