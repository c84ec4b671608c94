"""gRPC calls of either service and how they end: a refusal's status, every RPC answered."""

from __future__ import annotations

import contextlib
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import ServiceDescriptor


async def code_of(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call
    return info.value.code(), info.value.details() or ""


async def assert_every_rpc_served(port: int, service: ServiceDescriptor) -> None:
    """Call every method of ``service`` on the server at ``port`` with an empty request: each must
    be answered (if only with INVALID_ARGUMENT or NOT_FOUND), none UNIMPLEMENTED or UNKNOWN."""
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    for method in service.methods:
        path = f"/{service.full_name}/{method.name}"
        if method.client_streaming:  # Play: a stream that ends before its Hello ends OK
            call = channel.stream_stream(path)()
            await call.done_writing()
            code = await call.code()
        elif method.server_streaming:  # Watch: an empty request names no tournament
            stream = channel.unary_stream(path)(b"", timeout=5)
            with contextlib.suppress(grpc.aio.AioRpcError):
                async for _ in stream:
                    pass
            code = await stream.code()
        else:
            unary = channel.unary_unary(path)(b"", timeout=5)
            with contextlib.suppress(grpc.aio.AioRpcError):
                await unary
            code = await unary.code()
        assert code not in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.UNKNOWN), (method.name, code)
    await channel.close()
