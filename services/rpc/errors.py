"""The one exception the service layers raise to answer a call with a gRPC status.

Everything below the RPC layer (validation, auth, the hosted tables) raises :class:`ServiceError`
with the status code that fits; the RPC layer turns it into ``context.abort`` for unary calls and
into an ``ActResult`` (or a stream ending) on a Play stream, so the same check yields the same code
on both paths.
"""

from __future__ import annotations

from typing import Final

import grpc

STATUS_BY_NUMBER: Final = {code.value[0]: code for code in grpc.StatusCode}
"""gRPC status codes by their number on the wire (an ``ActResult``'s code, a ``grpc-status`` trailer)."""


class ServiceError(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def invalid(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, message)


def failed(message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, message)
