"""The WebSocket front door's messages: the JSON schema of every text frame, defined once here.

Each message is one JSON object whose ``type`` names it; :data:`CLIENT_MESSAGES` are what a client
may send, :data:`SERVER_MESSAGES` what the server sends. Both are msgspec structs: a client frame
is decoded and type-checked against them in one step (:func:`decode`), and a server message is
encoded from them. Tables, seats, turns' legal actions and events are the gRPC API's messages
(``proto/tablestorm/v1/table_service.proto``) as JSON objects (:mod:`.codec`), so the two front
doors describe a table alike. docs/websocket.md documents every message (a test holds it to the
names defined here).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Final

import msgspec

UInt32 = Annotated[int, msgspec.Meta(ge=0, le=2**32 - 1)]
UInt64 = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
Int64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
SInt32 = Annotated[int, msgspec.Meta(ge=-(2**31), le=2**31 - 1)]
"""JSON numbers in the ranges of the proto fields they become (a uint64 up to 2**63 - 1, msgspec's
bound; the rules' own bounds are checked by the table service, with its messages)."""

ProtoObject = dict[str, Any]
"""A gRPC API message as JSON (:func:`.codec.proto_to_json`): its fields by name, every field
present, enums as lowercase names without their prefix."""


class ClientMessage(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="type"):
    """What a client sends: one JSON object per text frame, named by ``type``."""


class Request(ClientMessage, frozen=True, kw_only=True):
    rid: str = ""
    """The client's request id, echoed in the reply (or the ``error``) so it can match them."""


class Login(Request, frozen=True, kw_only=True, tag="login"):
    player_id: str


class ListTables(Request, frozen=True, kw_only=True, tag="list_tables"):
    game: str = ""
    page_size: UInt32 = 0
    page_token: str = ""


class Sit(Request, frozen=True, kw_only=True, tag="sit"):
    table_id: str
    seat: UInt32
    buy_in: Int64 = 0
    post_to_play: bool = True


class Open(Request, frozen=True, kw_only=True, tag="open"):
    table_id: str
    seat: UInt32 = 0
    seat_token: str = ""
    resume_after_seq: UInt64 | None = None


class Act(ClientMessage, frozen=True, kw_only=True, tag="act"):
    table_id: str
    action_id: str
    kind: str
    amount: Int64 = 0
    discard: list[SInt32] = []
    turn_seq: UInt64 | None = None


class StandUp(Request, frozen=True, kw_only=True, tag="stand_up"):
    table_id: str


class SitOut(Request, frozen=True, kw_only=True, tag="sit_out"):
    table_id: str


class SitIn(Request, frozen=True, kw_only=True, tag="sit_in"):
    table_id: str
    post_to_play: bool = True


class Rebuy(Request, frozen=True, kw_only=True, tag="rebuy"):
    table_id: str


class Leave(Request, frozen=True, kw_only=True, tag="leave"):
    table_id: str


class Ping(ClientMessage, frozen=True, kw_only=True, tag="ping"):
    nonce: UInt64 = 0


CLIENT_MESSAGES: Final = (Login, ListTables, Sit, Open, Act, StandUp, SitOut, SitIn, Rebuy, Leave, Ping)
AnyClientMessage = Login | ListTables | Sit | Open | Act | StandUp | SitOut | SitIn | Rebuy | Leave | Ping


class ServerMessage(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """What the server sends: one JSON object per text frame, named by ``type``."""


class Reply(ServerMessage, frozen=True, kw_only=True):
    rid: str = ""
    """The ``rid`` of the request answered."""


class LoggedIn(Reply, frozen=True, kw_only=True, tag="logged_in"):
    player_id: str
    heartbeat_seconds: float
    """Send a ``ping`` at least this often."""
    idle_timeout_seconds: float
    """A connection that sends nothing for this long is closed."""
    max_frame_bytes: int
    server_time_us: int


class Tables(Reply, frozen=True, kw_only=True, tag="tables"):
    tables: list[ProtoObject]
    next_page_token: str


class Seated(Reply, frozen=True, kw_only=True, tag="seated"):
    table_id: str
    seat: int
    seat_token: str
    stack: int
    resume_after_seq: int


class SeatUpdated(Reply, frozen=True, kw_only=True, tag="seat_updated"):
    table_id: str
    seat: ProtoObject


class StoodUp(Reply, frozen=True, kw_only=True, tag="stood_up"):
    table_id: str
    seat: int
    chips: int


class Snapshot(ServerMessage, frozen=True, kw_only=True, tag="snapshot"):
    table_id: str
    seat: int
    gap: bool
    table: ProtoObject
    events: list[ProtoObject]


class Events(ServerMessage, frozen=True, kw_only=True, tag="events"):
    table_id: str
    events: list[ProtoObject]


class YourTurn(ServerMessage, frozen=True, kw_only=True, tag="your_turn"):
    table_id: str
    hand_number: int
    turn_seq: int
    deadline_unix_ms: int
    legal: list[ProtoObject]


class Ack(ServerMessage, frozen=True, kw_only=True, tag="ack"):
    table_id: str
    action_id: str


class Reject(ServerMessage, frozen=True, kw_only=True, tag="reject"):
    table_id: str
    action_id: str
    code: str
    message: str


class Left(Reply, frozen=True, kw_only=True, tag="left"):
    table_id: str
    seat: int
    code: str
    message: str


class Pong(ServerMessage, frozen=True, kw_only=True, tag="pong"):
    nonce: int
    server_time_us: int


class Error(Reply, frozen=True, kw_only=True, tag="error"):
    code: str
    message: str


SERVER_MESSAGES: Final = (
    LoggedIn, Tables, Seated, SeatUpdated, StoodUp, Snapshot, Events, YourTurn, Ack, Reject, Left, Pong, Error
)
AnyServerMessage = (
    LoggedIn | Tables | Seated | SeatUpdated | StoodUp | Snapshot | Events | YourTurn | Ack | Reject | Left | Pong
    | Error
)


def message_type(cls: type[msgspec.Struct]) -> str:
    """The ``type`` a message class carries on the wire."""
    tag = cls.__struct_config__.tag
    assert isinstance(tag, str)
    return tag


class Refused(Exception):
    """A client frame that is not a message: ``message`` names the field (``field: reason``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


_decoder = msgspec.json.Decoder(AnyClientMessage)
_encoder = msgspec.json.Encoder()
_AT = re.compile(r"^(?P<what>.*) - at `\$\.(?P<path>[^`]*)`$")
_NAMED = re.compile(r"^Object (?P<what>missing required|contains unknown) field `(?P<name>[^`]*)`")


def decode(frame: str | bytes) -> AnyClientMessage:
    """The client message in ``frame``, type-checked; :class:`Refused` naming the field otherwise."""
    try:
        return _decoder.decode(frame)
    except msgspec.ValidationError as exc:
        raise Refused(_field_reason(str(exc))) from None
    except msgspec.DecodeError as exc:
        raise Refused(f"frame: not a JSON object ({exc})") from None


def _field_reason(error: str) -> str:
    """msgspec's validation error as ``field: reason``."""
    named = _NAMED.match(error)
    if named is not None:
        return f"{named['name']}: {'missing' if named['what'] == 'missing required' else 'unknown field'}"
    at = _AT.match(error)
    if at is None:
        return f"frame: {error[:1].lower()}{error[1:]}"
    path, what = at["path"], at["what"]
    if path == "type":
        known = ", ".join(message_type(cls) for cls in CLIENT_MESSAGES)
        return f"type: unknown message type {what.removeprefix('Invalid value ')}; known: {known}"
    return f"{path}: {what[:1].lower()}{what[1:]}"


def encode(message: ServerMessage) -> bytes:
    """``message`` as the JSON text of one frame."""
    return _encoder.encode(message)
