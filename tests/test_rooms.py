"""Rooms as adapters: an adapter chosen by name or as ``module:Class`` carries a fleet's bots, and a
bad choice is refused before anything starts, naming the field or the flag (docs/rooms.md).

The adapter chosen here is the tests' own (``support.rooms:TappedRoom``: the gRPC room with a tap),
so that the bots are seen to play through the adapter they were given, on a real table server.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import grpc
import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.processes import assert_refused, tablestorm
from support.rooms import TappedRoom
from support.running import run_async
from support.table_server import serving

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import VARIANTS, Action, Hand, SeededShuffler, Stakes, TableOptions, variant_named
from tablestorm.services.engine import events as ev
from tablestorm.services.engine.visibility import view
from tablestorm.services.fields import FieldError
from tablestorm.services.table import convert
from tablestorm.services.websocket.codec import event_to_json
from tablestorm.sim.bots import Assignment, BotConfig, Fleet
from tablestorm.sim.cli import _build_parser
from tablestorm.sim.load.args import check
from tablestorm.sim.load.scenario import from_mapping
from tablestorm.sim.rooms import websocket_traffic
from tablestorm.sim.rooms.base import RoomError
from tablestorm.sim.rooms.grpc import GrpcRoom
from tablestorm.sim.rooms.grpc_traffic import Reader, traffic
from tablestorm.sim.rooms.registry import RoomChoice, room_class, room_names
from tablestorm.sim.rooms.traffic import TableEvent


def seat_named(event: ev.Event, seats: tuple[int, ...]) -> ev.Event:
    """``event`` as a room's traffic carries it: every player index as its seat (-1 stays -1)."""
    def seat(player: int) -> int:
        return seats[player] if player >= 0 else -1

    if isinstance(event, ev.HandStarted):
        return ev.HandStarted(event.stacks, seat(event.button), event.deck_size)
    if isinstance(event, ev.RoundStarted):
        return ev.RoundStarted(event.street, seat(event.first))
    if isinstance(event, ev.PotsFormed):
        return ev.PotsFormed(event.street, tuple(ev.Pot(p.amount, tuple(map(seat, p.eligible))) for p in event.pots))
    if "player" in event.__match_args__:
        return type(event)(*(seat(v) if k == "player" else v for k, v in zip(event.__match_args__, event.values(),
                                                                             strict=True)))
    return event


@settings(max_examples=40, deadline=None)
@given(game=st.sampled_from(sorted(VARIANTS)), seed=st.integers(0, 2**31), data=st.data())
def test_the_readers_give_back_the_engines_events_by_seat(game: str, seed: int, data: st.DataObject) -> None:
    """Every event of a random hand, as a seat sees it, sent on the wire (services/table/convert.py)
    and read by the gRPC adapter, or sent as the WebSocket front door's JSON (services/websocket/codec.py)
    and read by the WebSocket adapter, is the engine's record with its players named by seat, the
    seats beside a HandStarted's or HandEnded's stacks, and its seq, hand and server time."""
    variant = variant_named(game)
    seats = tuple(sorted(data.draw(st.sets(st.integers(1, 9), min_size=2, max_size=variant.max_players))))
    hand = Hand(TableOptions(variant, Stakes.default(10)), [200] * len(seats), SeededShuffler(seed, "rooms", 1),
                button=seed % len(seats))
    rng = random.Random(seed)
    while hand.actor >= 0:
        legal = hand.legal_actions()
        option = rng.choice(legal)
        hand.apply(Action(option.kind, rng.choice((option.min, option.max))))
    for seq, event in enumerate(hand.events, start=1):
        for index, seat in enumerate(seats):
            wire = convert.event_to_proto(view(event, index), seats, seq=seq, hand_number=7, server_time_us=seq * 10)
            (read,) = traffic(pb.ServerMessage(events=[wire])).events
            json_read = websocket_traffic.event(msgspec.json.decode(msgspec.json.encode(event_to_json(wire))))
            listed = seats if isinstance(event, ev.HandStarted | ev.HandEnded) else ()
            expected = TableEvent(seq, 7, seq * 10, seat_named(view(event, index), seats), listed)
            assert read == expected == json_read, seat


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), data=st.data())
def test_the_grpc_reader_reads_a_message_as_traffic_does(seed: int, data: st.DataObject) -> None:
    """The Reader (events sliced off the bytes and read once each) gives what reading the whole
    message gives, for messages of any events with or without results, a turn and a welcome, an
    event longer than 127 bytes among them (a two-byte length), each message read twice."""
    hand = Hand(TableOptions(variant_named("7stud8"), Stakes.default(10)), [300] * 6, SeededShuffler(seed, "r", 1))
    rng = random.Random(seed)
    while hand.actor >= 0:
        option = rng.choice(hand.legal_actions())
        hand.apply(Action(option.kind, option.max))
    seats = (1, 2, 3, 5, 6, 8)
    wire = [convert.event_to_proto(view(e, 0), seats, seq=n, hand_number=3) for n, e in enumerate(hand.events, 1)]
    wire.append(pb.Event(seq=len(wire) + 1, hand_number=3, hand_voided=pb.HandVoided(seats=range(1, 41),
                                                                                       stacks=[10**12] * 40)))
    assert len(wire[-1].SerializeToString()) > 127
    reader = Reader()
    cut = sorted(data.draw(st.sets(st.integers(1, len(wire) - 1), max_size=8)))
    for events in (wire[a:b] for a, b in zip([0, *cut], [*cut, len(wire)], strict=True)):
        parts: dict[str, Any] = {"events": events}
        if data.draw(st.booleans()):
            parts["results"] = [pb.ActResult(action_id="7", code=9, message="late")]
        if data.draw(st.booleans()):
            parts["your_turn"] = pb.YourTurn(hand_number=3, seq=events[-1].seq, legal=[pb.LegalAction(kind=1)])
        if data.draw(st.booleans()):
            parts["welcome"] = pb.Welcome(seat=2, table=pb.TableState(last_seq=events[0].seq - 1))
        message = pb.ServerMessage(**parts)
        for _ in range(2):
            assert reader(message.SerializeToString()) == traffic(message)


def test_the_grpc_room_is_registered_by_name() -> None:
    assert "grpc" in room_names()
    assert room_class("grpc") is GrpcRoom
    assert from_mapping({}).room == RoomChoice("grpc", {})


@run_async
async def test_a_fleet_plays_through_the_room_its_scenario_names() -> None:
    """Two tables opened through the room's lobby calls, eight bots seated through its lines: every
    message the bots read and every action they sent went through the adapter, and the hands were
    played cleanly (no error, no violation, every chip back)."""
    scenario = from_mapping({"room": {"name": "support.rooms:TappedRoom", "options": {"streams_per_channel": 3}}})
    room = scenario.room.make()
    assert isinstance(room, TappedRoom)
    async with serving() as (server, _):
        endpoint = f"127.0.0.1:{server.port}"
        options = TableOptions(variant_named("7stud"), Stakes.default(10), clock_seconds=2.0, max_seats=4)
        tables = [await room.open_table(endpoint, f"r{k}", options, seed=k) for k in range(2)]
        assert [(t.table_id, t.game, t.seats, t.seated) for t in await room.tables(endpoint, "7stud")] == [
            ("r0", "7stud", 4, 0), ("r1", "7stud", 4, 0)
        ]
        fleet = Fleet(room=room, config=BotConfig(stop_timeout=10.0))
        assignments = [
            Assignment(endpoint, table, seat, f"{table}-{seat}", "calling_station", seed=seat)
            for table in tables for seat in range(1, 5)
        ]
        assert len(await fleet.add(assignments)) == 8 and room.lines == 8
        assert room.connections == 3, "8 streams, 3 to a connection"
        assert await fleet.until(lambda: fleet.stats.hands >= 6, 30)
        chips = await fleet.stop_all()
    stats = fleet.stats
    assert stats.errors == {} and fleet.tally.violations == []
    assert room.messages == fleet.tally.messages > 0
    assert room.actions >= stats.actions > 0
    assert chips == fleet.chips_bought == fleet.chips_cashed_out


@run_async
async def test_the_grpc_room_reports_a_refused_call_by_its_status() -> None:
    """A seat taken twice: the second SitDown's ALREADY_EXISTS is a RoomError, the line stays
    unseated; the first stands up with the chips it sat down with."""
    room = GrpcRoom()
    async with serving() as (server, _):
        endpoint = f"127.0.0.1:{server.port}"
        await room.open_table(endpoint, "t", TableOptions(variant_named("5stud"), Stakes.default(10)))
        first, second = room.line(endpoint, "t", 1, "p1"), room.line(endpoint, "t", 1, "p2")
        seated = await first.sit(None, 5.0)
        assert first.token == seated.token != "" and seated.stack > 0
        with pytest.raises(RoomError) as refused:
            await second.sit(None, 5.0)
        assert refused.value.code is grpc.StatusCode.ALREADY_EXISTS and second.token == ""
        assert await first.stand_up(5.0) == seated.stack
        first.release()
        second.release()
        await room.close()


@pytest.mark.parametrize(
    ("room", "field", "reason"),
    [
        ({"name": "nosuch"}, "s.room.name", "unknown room 'nosuch' (known: grpc"),
        ({"name": "support.rooms:Nope"}, "s.room.name", "module 'support.rooms' has no 'Nope'"),
        ({"name": "no_such_module:Room"}, "s.room.name", "cannot import 'no_such_module'"),
        ({"name": "support.rooms:known_options"}, "s.room.name", "'support.rooms:known_options' is not a class"),
        ({"name": ""}, "s.room.name", "expected an adapter's name or module:Class"),
        ({"name": "grpc", "options": {"tls": "x"}}, "s.room.options.tls", "unknown option of this room"),
        ({"options": {"streams_per_channel": 0}}, "s.room.options.streams_per_channel", "must be at least 1, got 0"),
        ({"options": ["x"]}, "s.room.options", "expected a mapping, got list"),
        ({"name": "support.rooms:TappedRoom", "options": {"tls_ca": "x"}}, "s.room.options.tls_ca", "unknown option"),
        ({"adapter": "grpc"}, "s.room.adapter", "unknown field (known: name, options)"),
    ],
)
def test_a_bad_room_is_refused_naming_its_field(room: object, field: str, reason: str) -> None:
    with pytest.raises(FieldError) as refused:
        from_mapping({"room": room}, "s")
    assert refused.value.field == field and refused.value.reason.startswith(reason), refused.value


LOAD_CASES = {
    "unknown-room": (["--room", "nosuch"], "tablestorm load: --room: unknown room 'nosuch' (known: grpc"),
    "room-class-missing": (
        ["--room", "tablestorm.sim.rooms.grpc:Nope"],
        "tablestorm load: --room: module 'tablestorm.sim.rooms.grpc' has no 'Nope'",
    ),
}


@pytest.mark.parametrize(("argv", "message"), LOAD_CASES.values(), ids=LOAD_CASES.keys())
def test_load_refuses_a_bad_room_before_ray_starts(argv: list[str], message: str, ray_tmpdir: Path) -> None:
    done = tablestorm("load", *argv, "--out", "out", tmp=ray_tmpdir)
    assert_refused(done, message)
    assert not (ray_tmpdir / "ray").exists(), "no Ray was started"
    assert not (ray_tmpdir / "out").exists(), "nothing was written"


def test_tls_ca_is_the_grpc_rooms_alone() -> None:
    """--tls-ca fills in the gRPC room's CA; another room takes its credentials in its options."""
    argv = ["load", "--room", "support.rooms:TappedRoom", "--target", "127.0.0.1:1", "--tls-ca", "ca.pem"]
    with pytest.raises(FieldError) as refused:
        check(_build_parser().parse_args(argv))
    assert refused.value.field == "--tls-ca" and refused.value.reason.startswith("only for the grpc room")


def test_load_refuses_the_websocket_room_with_target() -> None:
    """The driver manages given servers' tables over gRPC, which a WebSocket front door does not offer."""
    argv = ["load", "--room", "websocket", "--target", "127.0.0.1:8080"]
    with pytest.raises(FieldError) as refused:
        check(_build_parser().parse_args(argv))
    assert refused.value.field == "--target" and refused.value.reason.startswith("not with the websocket room")


def test_load_refuses_a_scenario_room_option_the_adapter_does_not_take(ray_tmpdir: Path) -> None:
    (ray_tmpdir / "room.yaml").write_text("room: {name: grpc, options: {streams: 3}}\n")
    done = tablestorm("load", "room.yaml", "--out", "out", tmp=ray_tmpdir)
    assert_refused(done, "tablestorm load: room.yaml.room.options.streams: unknown option of this room")
    assert not (ray_tmpdir / "ray").exists() and not (ray_tmpdir / "out").exists()
