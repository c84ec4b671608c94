"""The table service's protobuf as the front door's JSON: any API message as a JSON object, and a
table's stream (welcome, events, turns) as ``snapshot``, ``events`` and ``your_turn`` messages.

The hub serializes each event once per visibility class into protobuf bytes; a :class:`JsonWire`
(one per table, shared by every WebSocket subscriber of it) turns those bytes into one JSON frame,
and the hub calls it once per visibility class too (:meth:`~tablestorm.services.table.hub.Subscribers.broadcast`),
so a table of eight WebSocket players encodes a public event once, not eight times.

Field names are the proto's; every field is present (absent ``optional`` fields are ``null``);
enums are their value names in lowercase without the type's prefix (``ACTION_KIND_BRING_IN`` is
``"bring_in"``); 64-bit integers are JSON numbers. An event is flat: ``seq``, ``hand_number``,
``server_time_us``, ``type`` (the proto's ``Event.kind``, e.g. ``"acted"``) and that kind's fields.
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor
from google.protobuf.message import Message

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.websocket.messages import Events, ProtoObject, Snapshot, YourTurn, encode

Convert = Callable[[Any], Any]


@functools.cache
def enum_names(enum: EnumDescriptor) -> dict[int, str]:
    """Each value of ``enum`` by number, named as the JSON has it: ``SeatStatus.SEAT_STATUS_SITTING_OUT``
    is ``"sitting_out"``."""
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
    return {value.number: value.name.removeprefix(prefix).lower() for value in enum.values}


@functools.cache
def _fields(descriptor: Descriptor) -> tuple[tuple[str, Convert, bool], ...]:
    """(name, converter, has presence) of every field of a message type, in field order."""
    fields = []
    for field in descriptor.fields:
        convert: Convert
        if field.message_type is not None:
            convert = proto_to_json
        elif field.enum_type is not None:
            convert = enum_names(field.enum_type).__getitem__
        else:
            convert = _identity
        if field.is_repeated:
            convert = functools.partial(_each, convert)
        presence = field.has_presence and field.message_type is None and field.containing_oneof is None
        fields.append((field.name, convert, presence))
    return tuple(fields)


def _identity(value: Any) -> Any:
    return value


def _each(convert: Convert, values: Any) -> list[Any]:
    return [convert(value) for value in values]


def proto_to_json(message: Message) -> ProtoObject:
    """An API message as a JSON object: every field by name, unset optional ones ``null``."""
    return {
        name: convert(getattr(message, name)) if not presence or message.HasField(name) else None
        for name, convert, presence in _fields(message.DESCRIPTOR)
    }


def event_to_json(event: pb.Event) -> ProtoObject:
    """An event, flat: its sequence number, hand, server time, ``type``, and its kind's fields."""
    kind = event.WhichOneof("kind")
    assert kind is not None, "the table service publishes no event without a kind"
    return {
        "seq": event.seq,
        "hand_number": event.hand_number,
        "server_time_us": event.server_time_us,
        "type": kind,
        **proto_to_json(getattr(event, kind)),
    }


EVENT_TYPES = tuple(field.name for field in pb.Event.DESCRIPTOR.oneofs_by_name["kind"].fields)
"""The ``type`` of every event the stream may carry."""


class JsonWire:
    """One table's stream in the front door's JSON (a :class:`~tablestorm.services.table.hub.Wire`)."""

    __slots__ = ("__weakref__", "table_id")

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id

    def encode(self, message: bytes) -> bytes:
        """A serialized ``ServerMessage`` from the hub: a welcome (with the events replayed to it),
        events, or a turn, as one JSON frame."""
        parsed = pb.ServerMessage.FromString(message)
        events = [event_to_json(event) for event in parsed.events]
        if parsed.HasField("welcome"):
            welcome = parsed.welcome
            return encode(
                Snapshot(
                    table_id=self.table_id,
                    seat=welcome.seat,
                    gap=welcome.gap,
                    table=proto_to_json(welcome.table),
                    events=events,
                )
            )
        if parsed.HasField("your_turn"):
            turn = parsed.your_turn
            return encode(
                YourTurn(
                    table_id=self.table_id,
                    hand_number=turn.hand_number,
                    turn_seq=turn.seq,
                    deadline_unix_ms=turn.deadline_unix_ms,
                    legal=[proto_to_json(legal) for legal in turn.legal],
                )
            )
        return encode(Events(table_id=self.table_id, events=events))


class Wires:
    """The JSON wire of each table with WebSocket subscribers: one per table, so the hub's
    broadcast encodes once for all of them; a wire goes when its last subscriber does."""

    __slots__ = ("_wires",)

    def __init__(self) -> None:
        self._wires: weakref.WeakValueDictionary[str, JsonWire] = weakref.WeakValueDictionary()

    def of(self, table_id: str) -> JsonWire:
        wire = self._wires.get(table_id)
        if wire is None:
            wire = self._wires[table_id] = JsonWire(table_id)
        return wire
