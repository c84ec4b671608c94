"""The statuses each RPC of ``tablestorm.v1.TableService`` may end with: the proto's word, in one place.

``ALLOWED`` is written from the comments of ``proto/tablestorm/v1/table_service.proto``; the
fuzzers and the stateful model check every answer against it, so a status the proto does not
document for that RPC is a failure (fix the server, or the proto if the server is right).
:func:`documented` reads the same statuses back out of the proto's comments, and
``test_table_service_fuzz.py`` checks both agree for every RPC of the service descriptor, so a
new RPC, or a status added to a comment, cannot go unchecked.
"""

from __future__ import annotations

import re
from pathlib import Path

from grpc import StatusCode

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import VARIANTS
from tablestorm.services.table.convert import STRUCTURE_TO_PB

PROTO = Path(__file__).resolve().parents[2] / "proto" / "tablestorm" / "v1" / "table_service.proto"
SERVICE = pb.DESCRIPTOR.services_by_name["TableService"]
METHODS = tuple(method.name for method in SERVICE.methods)
"""Every RPC of the service, from its descriptor."""

GAMES: dict[str, tuple[int, ...]] = {
    code: tuple(sorted(STRUCTURE_TO_PB[s] for s in variant.structures)) for code, variant in VARIANTS.items()
}
"""Each game a table can be opened for and its structures (``pb.Structure`` numbers), from the engine's rows."""

OK = StatusCode.OK
INVALID = StatusCode.INVALID_ARGUMENT
NOT_FOUND = StatusCode.NOT_FOUND
EXISTS = StatusCode.ALREADY_EXISTS
PRECONDITION = StatusCode.FAILED_PRECONDITION
UNAUTHENTICATED = StatusCode.UNAUTHENTICATED
DENIED = StatusCode.PERMISSION_DENIED
EXHAUSTED = StatusCode.RESOURCE_EXHAUSTED
UNAVAILABLE = StatusCode.UNAVAILABLE

EVERY_CALL = frozenset({INVALID, EXHAUSTED})
"""Undecodable request bytes; a request over the 64 KiB bound (gRPC's own answer)."""
_SEAT_CALL = {INVALID, NOT_FOUND, UNAUTHENTICATED, DENIED}

_OWN: dict[str, set[StatusCode]] = {
    "CreateTable": {INVALID, EXISTS, EXHAUSTED, UNAVAILABLE},
    "GetTable": {INVALID, NOT_FOUND},
    "ListTables": {INVALID},
    "CloseTable": {INVALID, NOT_FOUND},
    "SitDown": {INVALID, NOT_FOUND, EXISTS, PRECONDITION, UNAVAILABLE},
    "StandUp": _SEAT_CALL | {PRECONDITION},
    "SitOut": _SEAT_CALL,
    "SitIn": _SEAT_CALL,
    "Rebuy": _SEAT_CALL | {PRECONDITION},
    "Act": _SEAT_CALL | {PRECONDITION},
    "GetHistory": _SEAT_CALL,
    "SeatPlayer": _SEAT_CALL | {EXISTS, PRECONDITION, UNAVAILABLE},
    "RemovePlayer": _SEAT_CALL | {PRECONDITION},
    "AddChips": _SEAT_CALL | {PRECONDITION},
    "SetAway": _SEAT_CALL | {PRECONDITION},
    "DealHand": _SEAT_CALL | {PRECONDITION, UNAVAILABLE},
    "Play": _SEAT_CALL
    | {StatusCode.OUT_OF_RANGE, StatusCode.ABORTED, EXHAUSTED, StatusCode.DEADLINE_EXCEEDED, UNAVAILABLE},
}
ALLOWED: dict[str, frozenset[StatusCode]] = {rpc: frozenset(own | EVERY_CALL | {OK}) for rpc, own in _OWN.items()}
"""Per RPC, every status a call may end with (for Play: the status its stream ends with)."""

ACT_RESULT_CODES = frozenset(code.value[0] for code in ALLOWED["Act"])
"""The numbers an ``ActResult.code`` on a Play stream may carry: the unary Act's statuses."""

_NAMES = {code.name: code for code in StatusCode}
_STATUS_WORD = re.compile(r"\b[A-Z][A-Z_]+\b")


def _statuses(text: str) -> set[StatusCode]:
    return {_NAMES[word] for word in _STATUS_WORD.findall(text) if word in _NAMES}


def documented() -> dict[str, frozenset[StatusCode]]:
    """The statuses the proto's comments name for each RPC: the comment block above its ``rpc``
    line (OK always), plus those the conventions name for every call."""
    text = PROTO.read_text()
    every = re.search(r"Every call, besides:(.*?)\.", text, re.S)
    assert every is not None, "the proto's conventions name the statuses of every call"
    common = _statuses(every.group(1))
    found: dict[str, frozenset[StatusCode]] = {}
    comment: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//"):
            comment.append(stripped)
            continue
        rpc = re.match(r"rpc (\w+)\(", stripped)
        if rpc is not None:
            found[rpc.group(1)] = frozenset(_statuses(" ".join(comment)) | common | {OK})
        comment = []
    return found
