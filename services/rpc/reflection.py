"""Server reflection under both names clients use: ``grpc.reflection.v1`` and ``v1alpha``.

grpcio-reflection ships only the v1alpha service; newer clients (grpcurl, Postman, gRPC UI) ask for
v1 first. The two protocols are the same messages under another package name, so the one servicer
is registered under both, v1's wire format read and written with v1alpha's (identical) messages.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2

V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"


def enable(server: grpc.aio.Server, service_names: Iterable[str]) -> None:
    """Serve reflection for ``service_names`` (and for reflection itself) under v1 and v1alpha."""
    names = (*service_names, reflection.SERVICE_NAME, V1_SERVICE_NAME)
    servicer = reflection.aio.ReflectionServicer(names)
    reflection.enable_server_reflection(names, server)
    server.add_generic_rpc_handlers((
        grpc.method_handlers_generic_handler(V1_SERVICE_NAME, {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                servicer.ServerReflectionInfo,
                request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
                response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
            ),
        }),
    ))
