"""The WebSocket front door (services/websocket, docs/websocket.md) against a real table server on
127.0.0.1 with real WebSocket clients: the lobby, sitting, playing hands beside a gRPC seat at one
table with every chip accounted for, resuming after a dropped connection, every refusal with its
code and field, the connection limits, and the shutdown.

The action clocks are the test's (:class:`ManualClock`): a turn times out only when a test says,
so a slow machine never makes a player miss one. Waits are on frames, never on sleeps.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
from typing import Any

import aiohttp
import grpc
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.running import run_async
from support.table_server import ManualClock, exported, stud_options, token
from support.table_streams import Stream
from support.websocket_client import PASSIVE, WsClient, door_serving

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.table.hub import EVENTS, SPECTATOR, LogEntry, Outbox, Subscribers, frame
from tablestorm.services.table.live_cash import LiveCashTable
from tablestorm.services.websocket import messages
from tablestorm.services.websocket.codec import JsonWire
from tablestorm.services.websocket.server import WebSocketDoor
from tablestorm.services.websocket.session import ACTION_KINDS, code_name

BUY_IN = 800
"""The posted buy-in of ``stud_options()`` (100 big bets of 8, TABLE-1)."""


async def _table(stub: rpc.TableServiceStub, table_id: str = "t", seed: int = 11) -> None:
    await stub.CreateTable(pb.CreateTableRequest(table_id=table_id, options=stud_options(), seed=seed))


async def _seated(door: WebSocketDoor, player_id: str, seat: int, table_id: str = "t") -> tuple[WsClient, str]:
    """A logged-in client seated at ``seat`` with its snapshot read; and its seat token."""
    client = await WsClient.connect(door.port)
    await client.login(player_id)
    seated = await client.request("sit", table_id=table_id, seat=seat)
    assert seated["type"] == "seated", seated
    await client.first("snapshot", table_id=table_id)
    return client, seated["seat_token"]


class LastHand:
    """The hand a closing table ends with: its number once CloseTable has answered."""

    number: int | None = None


async def _close(stub: rpc.TableServiceStub, last: LastHand) -> None:
    """Close the table (the running hand plays out, no other is dealt) and note its last hand."""
    await stub.CloseTable(pb.CloseTableRequest(table_id="t"))
    last.number = (await stub.GetTable(pb.GetTableRequest(table_id="t"))).hand_number


def _played_out(last: LastHand, hands_ended: list[int]) -> bool:
    return last.number is not None and last.number in hands_ended


async def _passive(client: WsClient, last: LastHand) -> None:
    """Play every turn with the first passive action offered, until the closing table played out."""
    def done() -> bool:
        return _played_out(last, [e["hand_number"] for e in client.events("t") if e["type"] == "hand_ended"])

    while True:
        await client.until(lambda: client.turns.get("t") is not None or done(), timeout=120)
        if client.turns.get("t") is None:
            return
        await client.play_turn("t")


async def _passive_grpc(stream: Stream, last: LastHand) -> None:
    def done() -> bool:
        return _played_out(last, [e.hand_number for e in stream.events if e.HasField("hand_ended")])

    while True:
        await stream.until(lambda: stream.turn is not None or done(), timeout=120)
        if stream.turn is None:
            return
        await stream.play_turn()


# ----------------------------------------------------------------- lobby and seats


@run_async
async def test_login_lobby_and_sit_answer_with_the_tables_fields() -> None:
    async with door_serving() as (_, door, stub):
        await _table(stub)
        client = await WsClient.connect(door.port)
        logged_in = await client.login("alice")
        assert logged_in["player_id"] == "alice" and logged_in["max_frame_bytes"] == 64 * 1024
        tables = await client.request("list_tables")
        assert tables["next_page_token"] == ""
        [summary] = tables["tables"]
        assert summary["table_id"] == "t" and summary["game"] == "7stud" and summary["structure"] == "fixed_limit"
        assert summary["posted_buy_in"] == BUY_IN and summary["seats_taken"] == 0 and summary["max_seats"] == 8
        assert summary["stakes"] == {"small_bet": 4, "big_bet": 8, "ante": 0, "bring_in": 2, "small_blind": 2,
                                     "big_blind": 4}
        assert (await client.request("list_tables", game="5stud"))["tables"] == []

        seated = await client.request("sit", table_id="t", seat=3)
        assert seated["type"] == "seated" and seated["seat"] == 3 and seated["stack"] == BUY_IN
        snapshot = await client.first("snapshot", table_id="t")
        assert snapshot["seat"] == 3 and snapshot["gap"] is False
        seats = {s["seat"]: s for s in snapshot["table"]["seats"]}
        assert seats[3] == {"seat": 3, "player_id": "alice", "stack": BUY_IN, "status": "playing"}
        assert seats[1]["status"] == "empty"
        # The seat is the gRPC service's: its token authorizes the gRPC seat calls too.
        state = await stub.GetTable(pb.GetTableRequest(table_id="t"))
        assert state.seats[2].player_id == "alice" and state.seats[2].stack == BUY_IN
        out = await stub.SitOut(pb.SeatRequest(table_id="t", seat=3), metadata=token(seated["seat_token"]))
        assert out.status == pb.SEAT_STATUS_SITTING_OUT
        back = await client.request("sit_in", table_id="t")
        assert back["type"] == "seat_updated" and back["seat"]["status"] == "playing"

        stood = await client.request("stand_up", table_id="t")
        assert stood == {"type": "stood_up", "rid": stood["rid"], "table_id": "t", "seat": 3, "chips": BUY_IN}
        left = await client.first("left", table_id="t")
        assert left["code"] == "ok" and left["message"] == "stood up"
        assert (await stub.GetTable(pb.GetTableRequest(table_id="t"))).seats[2].status == pb.SEAT_STATUS_EMPTY
        await client.close()


@run_async
async def test_a_grpc_seat_and_a_websocket_seat_play_hands_to_the_end_with_every_chip() -> None:
    async with door_serving(ManualClock()) as (server, door, stub):
        await _table(stub)
        client, _ = await _seated(door, "web", 1)
        sat = await stub.SitDown(pb.SitDownRequest(table_id="t", seat=2, player_id="grpc"))
        changed = asyncio.Condition()
        stream = Stream(stub, "t", 2, sat.seat_token, resume_after=sat.resume_after_seq, changed=changed)
        spectator = await WsClient.connect(door.port)
        await spectator.login("watcher")
        assert (await spectator.open("t"))["type"] == "snapshot"
        last = LastHand()
        bots = [asyncio.ensure_future(_passive(client, last)), asyncio.ensure_future(_passive_grpc(stream, last))]

        def ended() -> list[dict[str, Any]]:
            return [e for e in client.events("t") if e["type"] == "hand_ended"]

        await client.until(lambda: len(ended()) >= 3, timeout=120)
        await _close(stub, last)
        await client.send(type="ping", nonce=1)  # a frame for each bot to look again
        async with changed:  # the gRPC player looks again (its stream is busy with its own writes)
            changed.notify_all()
        await asyncio.gather(*bots)
        last = ended()[-1]
        assert last["seats"] == [1, 2] and sum(last["stacks"]) == 2 * BUY_IN
        stacks = dict(zip(last["seats"], last["stacks"], strict=True))
        # Both front doors saw the same hands, event by event (the seat's own cards aside).
        grpc_ended = stream.of("hand_ended")
        assert [list(e.stacks) for e in grpc_ended] == [e["stacks"] for e in ended()]
        seqs = [e["seq"] for e in client.events("t")]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "contiguous"
        watched = [e for e in spectator.events("t") if e["type"] == "cards_dealt"]
        assert watched and all(card == -1 for e in watched for card in e["down"]), "a spectator sees no down card"

        stood = await client.request("stand_up", table_id="t")
        chips = (await stub.StandUp(pb.SeatRequest(table_id="t", seat=2), metadata=token(sat.seat_token))).chips
        assert (stood["chips"], chips) == (stacks[1], stacks[2])
        assert stood["chips"] + chips == 2 * BUY_IN
        assert exported(server, "tablestorm_chip_conservation_violations_total") == 0
        for closing in (client, spectator):
            await closing.close()
        await stream.close()


@run_async
async def test_resume_after_a_dropped_connection_replays_what_was_missed() -> None:
    clock = ManualClock()
    async with door_serving(clock) as (_, door, stub):
        await _table(stub)
        client, seat_token = await _seated(door, "web", 1)
        sat = await stub.SitDown(pb.SitDownRequest(table_id="t", seat=2, player_id="grpc"))
        await client.until(lambda: any(e["type"] == "round_started" for e in client.events("t")))
        seen = client.events("t")[-1]["seq"]
        await client.close()  # the connection drops; the seat stays taken

        clock.run_out()  # the turn's clock runs out while the player is away (CLOCK-2)
        state = await stub.GetTable(pb.GetTableRequest(table_id="t"))
        assert state.last_seq > seen and state.seats[0].player_id == "web"

        back = await WsClient.connect(door.port)
        await back.login("web")
        snapshot = await back.open("t", seat=1, seat_token=seat_token, resume_after_seq=seen)
        assert snapshot["type"] == "snapshot" and snapshot["seat"] == 1 and snapshot["gap"] is False
        assert [e["seq"] for e in snapshot["events"]] == list(range(seen + 1, state.last_seq + 1))
        assert any(e["type"] == "timed_out" for e in snapshot["events"])
        # Resumed as the seat: it is prompted and acts as before the drop, to the hand's end.
        changed = asyncio.Condition()
        stream = Stream(stub, "t", 2, sat.seat_token, changed=changed)
        last = LastHand()
        other = asyncio.ensure_future(_passive_grpc(stream, last))
        await back.until(lambda: back.turns.get("t") is not None)
        await back.play_turn("t")
        await _close(stub, last)
        async with changed:  # the gRPC player looks again (its stream is busy with its own writes)
            changed.notify_all()
        await _passive(back, last)
        await other
        ended = [e for e in back.events("t") if e["type"] == "hand_ended"]
        assert len(ended) == 1 and sum(ended[0]["stacks"]) == 2 * BUY_IN
        await back.close()
        await stream.close()


class CountingWire(JsonWire):
    """The JSON wire, counting what it encodes."""

    __slots__ = ("encoded",)

    def __init__(self, table_id: str) -> None:
        super().__init__(table_id)
        self.encoded = 0

    def encode(self, message: bytes) -> bytes:
        self.encoded += 1
        return super().encode(message)


@run_async
async def test_a_broadcast_encodes_json_once_per_visibility_class() -> None:
    """Eight WebSocket subscribers of a table (seats and spectators) share its wire: a public event
    is encoded once for all of them, an event with a face-down card once more, for its owner."""
    wire = CountingWire("t")
    subscribers = Subscribers(max_spectators=64)
    outboxes = [Outbox(seat, seat, 1 << 20, wire) for seat in range(1, 5)]
    outboxes += [Outbox(SPECTATOR, SPECTATOR, 1 << 20, wire) for _ in range(4)]
    for outbox in outboxes:
        subscribers.add(outbox)
    acted = pb.Event(seq=7, hand_number=1, acted=pb.Acted(seat=2, kind=pb.ACTION_KIND_CALL, to=8, added=4))
    subscribers.broadcast([LogEntry(7, frame(EVENTS, acted), 0, b"")])
    assert wire.encoded == 1
    hidden = pb.Event(seq=8, hand_number=1, cards_dealt=pb.CardsDealt(seat=3, street=1, down=[-1], up=[40]))
    own = pb.Event(seq=8, hand_number=1, cards_dealt=pb.CardsDealt(seat=3, street=1, down=[51], up=[40]))
    subscribers.broadcast([LogEntry(8, frame(EVENTS, hidden), 3, frame(EVENTS, own))])
    assert wire.encoded == 3
    pending = [await outbox.next_chunks() for outbox in outboxes]
    sent = [json.loads(chunk) for chunks in pending for chunk in chunks or ()]
    assert len(sent) == 2 * len(outboxes) and sent.count(sent[0]) == len(outboxes), "the public event, alike"
    dealt = [m["events"][0]["down"] for m in sent if m["events"][0]["type"] == "cards_dealt"]
    assert sorted(dealt) == [[-1]] * 7 + [[51]], "the down card only to its owner"


# ----------------------------------------------------------------- refusals

REFUSED_FRAMES = [
    ("not JSON", "{bad", "invalid_argument", "frame: not a JSON object"),
    ("not an object", "[1, 2]", "invalid_argument", "frame: expected `object`, got `array`"),
    ("no type", '{"player_id": "x"}', "invalid_argument", "type: missing"),
    ("unknown type", '{"type": "bet"}', "invalid_argument", "type: unknown message type 'bet'; known: login,"),
    ("missing field", '{"type": "sit", "seat": 1}', "invalid_argument", "table_id: missing"),
    ("ill-typed field", '{"type": "sit", "table_id": "t", "seat": "one"}', "invalid_argument",
     "seat: expected `int`, got `str`"),
    ("negative seat", '{"type": "sit", "table_id": "t", "seat": -1}', "invalid_argument", "seat: expected `int` >= 0"),
    ("unknown field", '{"type": "ping", "nonce": 1, "colour": "red"}', "invalid_argument", "colour: unknown field"),
    ("number out of range", '{"type": "ping", "nonce": 1e400}', "invalid_argument", "nonce: number out of range"),
    ("too large an integer", '{"type": "ping", "nonce": 9223372036854775808}', "invalid_argument",
     "nonce: expected `int` <= 9223372036854775807"),
]


@pytest.mark.parametrize(("frame", "code", "message"), [case[1:] for case in REFUSED_FRAMES],
                         ids=[case[0] for case in REFUSED_FRAMES])
@run_async
async def test_a_frame_that_is_not_a_message_is_refused_naming_the_field(frame: str, code: str, message: str) -> None:
    async with door_serving() as (_, door, _stub):
        client = await WsClient.connect(door.port)
        await client.ws.send_str(frame)
        error = await client.first("error")
        assert error["code"] == code and error["message"].startswith(message), error
        assert (await client.login("after"))["player_id"] == "after", "the connection stays usable"
        await client.close()


REFUSED_REQUESTS: list[tuple[str, dict[str, Any], str, str]] = [
    ("second login", {"type": "login", "player_id": "again"}, "failed_precondition", "already logged in"),
    ("no such table", {"type": "sit", "table_id": "nope", "seat": 1}, "not_found", "no table 'nope'"),
    ("bad table id", {"type": "open", "table_id": "a b"}, "invalid_argument", "table_id: 1 to 64 characters"),
    ("seat outside", {"type": "sit", "table_id": "t", "seat": 9}, "invalid_argument", "seat: must be between 1 and 8"),
    ("wrong buy-in", {"type": "sit", "table_id": "t", "seat": 1, "buy_in": 5}, "invalid_argument",
     "buy_in: must be the posted 800 chips (TABLE-1)"),
    ("seat taken", {"type": "sit", "table_id": "t", "seat": 2}, "already_exists", "seat 2 is taken"),
    ("no token", {"type": "open", "table_id": "t", "seat": 2}, "unauthenticated", "missing x-seat-token"),
    ("wrong token", {"type": "open", "table_id": "t", "seat": 2, "seat_token": "abc.def"}, "unauthenticated",
     "unknown or expired seat token"),
    ("stand up unseated", {"type": "stand_up", "table_id": "t"}, "failed_precondition",
     "table_id: this connection holds no seat at 't'"),
    ("leave unopened", {"type": "leave", "table_id": "t"}, "failed_precondition", "table_id: 't' is not open"),
    ("bad page size", {"type": "list_tables", "page_size": 1001}, "invalid_argument", "page_size: at most 1000"),
    ("bad game", {"type": "list_tables", "game": "holdem"}, "invalid_argument", "game: unknown game"),
]


@pytest.mark.parametrize(("request_", "code", "message"), [case[1:] for case in REFUSED_REQUESTS],
                         ids=[case[0] for case in REFUSED_REQUESTS])
@run_async
async def test_a_request_the_service_refuses_is_answered_with_its_code(
    request_: dict[str, Any], code: str, message: str
) -> None:
    async with door_serving() as (_, door, stub):
        await _table(stub)
        await stub.SitDown(pb.SitDownRequest(table_id="t", seat=2, player_id="other"))
        client = await WsClient.connect(door.port)
        await client.login("me")
        fields = {k: v for k, v in request_.items() if k != "type"}
        error = await client.request(request_["type"], **fields)
        assert error["type"] == "error" and error["code"] == code and error["message"].startswith(message), error
        state = await stub.GetTable(pb.GetTableRequest(table_id="t"))
        assert [s.stack for s in state.seats if s.player_id] == [BUY_IN], "nothing changed"
        await client.close()


@run_async
async def test_requests_before_login_are_refused_but_ping_is_answered() -> None:
    async with door_serving() as (_, door, stub):
        await _table(stub)
        client = await WsClient.connect(door.port)
        error = await client.request("list_tables")
        assert (error["code"], error["message"]) == ("unauthenticated", "log in first: send a login")
        bad = await client.request("login", player_id="")
        assert (bad["code"], bad["message"]) == ("invalid_argument", "player_id: 1 to 64 printable characters")
        await client.send(type="ping", nonce=42)
        pong = await client.first("pong")
        assert pong["nonce"] == 42 and pong["server_time_us"] > 0
        await client.ws.send_bytes(b'{"type": "login", "player_id": "x"}')
        await client.until(lambda: len(client.of("error")) == 3)
        binary = client.of("error")[2]
        assert binary["code"] == "invalid_argument"
        assert binary["message"].startswith("frame: the front door reads text frames")
        await client.close()


@run_async
async def test_another_seats_token_is_permission_denied() -> None:
    async with door_serving() as (_, door, stub):
        await _table(stub)
        other = await stub.SitDown(pb.SitDownRequest(table_id="t", seat=2, player_id="other"))
        client, _ = await _seated(door, "me", 1)
        error = await client.open("t", seat=1, seat_token=other.seat_token)
        assert error["type"] == "error" and error["code"] == "permission_denied"
        assert error["message"] == "the seat token is not for seat 1 of table 't'"
        await client.close()


@run_async
async def test_actions_out_of_turn_not_offered_or_malformed_are_rejected_and_change_nothing() -> None:
    async with door_serving(ManualClock()) as (_, door, stub):
        await _table(stub)
        first, _ = await _seated(door, "one", 1)
        second, _ = await _seated(door, "two", 2)
        await first.until(lambda: first.turns.get("t") is not None or second.turns.get("t") is not None)
        await second.until(lambda: first.turns.get("t") is not None or second.turns.get("t") is not None)
        actor, waiting = (first, second) if first.turns.get("t") is not None else (second, first)
        actor_seat = 1 if actor is first else 2
        before = (await stub.GetTable(pb.GetTableRequest(table_id="t"))).last_seq

        out_of_turn = await waiting.act("t", "call")
        assert out_of_turn["type"] == "reject" and out_of_turn["code"] == "failed_precondition"
        assert out_of_turn["message"] == f"it is seat {actor_seat}'s turn, not seat {3 - actor_seat}'s"
        turn = actor.turns["t"]
        assert turn is not None and {a["kind"] for a in turn["legal"]} == {"bring_in", "complete"}  # STUD-3
        not_offered = await actor.act("t", "check")
        assert not_offered["code"] == "failed_precondition"
        assert "bring in or complete (STUD-3)" in not_offered["message"]
        unknown = await actor.act("t", "shove")
        assert unknown["code"] == "invalid_argument" and unknown["message"].startswith("kind: unknown action 'shove'")
        timeout = await actor.act("t", "timeout")
        assert timeout["code"] == "invalid_argument" and "not an action a player may send" in timeout["message"]
        too_much = await actor.act("t", "complete", 2**50)
        assert too_much["code"] == "invalid_argument" and too_much["message"].startswith("amount:")
        stale = await actor.act("t", "bring_in", 2, turn_seq=1)
        assert stale["code"] == "failed_precondition" and stale["message"].startswith("turn_seq:")
        not_open = await actor.act("elsewhere", "call")
        assert not_open["code"] == "failed_precondition" and "not open on this connection" in not_open["message"]
        spectator = await WsClient.connect(door.port)
        await spectator.login("watcher")
        await spectator.open("t")
        watching = await spectator.act("t", "call")
        assert (watching["code"], watching["message"]) == ("permission_denied", "spectators cannot act")
        assert (await stub.GetTable(pb.GetTableRequest(table_id="t"))).last_seq == before, "nothing applied"

        standing = await actor.request("stand_up", table_id="t")
        assert standing["code"] == "failed_precondition" and "stand up once the hand ends" in standing["message"]
        ok = await actor.act("t", "bring_in", 2, turn_seq=turn["turn_seq"])
        assert ok == {"type": "ack", "table_id": "t", "action_id": ok["action_id"]}
        acted = [e for e in actor.events("t") if e["type"] == "acted"]
        assert acted[-1] == {**acted[-1], "seat": actor_seat, "kind": "bring_in", "to": 2, "added": 2}
        for client in (first, second, spectator):
            await client.close()


# ----------------------------------------------------------------- limits of a connection


@run_async
async def test_a_frame_over_the_limit_closes_the_connection_and_the_server_serves_on() -> None:
    async with door_serving(max_frame_bytes=1024) as (_, door, _stub):
        client = await WsClient.connect(door.port)
        await client.login("big")
        await client.send(type="ping", nonce=1, padding="x" * 2000)
        assert await client.until_closed() == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
        again = await WsClient.connect(door.port)
        assert (await again.login("next"))["max_frame_bytes"] == 1024
        await client.close()
        await again.close()


@run_async
async def test_one_connection_over_the_limit_is_closed_try_again_later() -> None:
    async with door_serving(max_connections=1) as (_, door, _stub):
        first = await WsClient.connect(door.port)
        await first.login("first")
        second = await WsClient.connect(door.port)
        assert await second.until_closed() == aiohttp.WSCloseCode.TRY_AGAIN_LATER
        assert second.close_reason == "this server has its maximum of 1 connections"
        await first.close()
        await second.close()


@run_async
async def test_tables_open_on_one_connection_are_bounded() -> None:
    async with door_serving(max_tables=1) as (_, door, stub):
        await _table(stub, "a")
        await _table(stub, "b")
        client = await WsClient.connect(door.port)
        await client.login("me")
        assert (await client.open("a"))["type"] == "snapshot"
        error = await client.open("b")
        assert (error["code"], error["message"]) == (
            "resource_exhausted", "this connection has its maximum of 1 tables open")
        assert (await client.open("a"))["type"] == "snapshot", "reopening the same table replaces it"
        await client.close()


@run_async
async def test_silence_closes_the_connection_before_and_after_login() -> None:
    async with door_serving(login_timeout=0.2, idle_timeout=0.3) as (_, door, _stub):
        never = await WsClient.connect(door.port)
        assert await never.until_closed() == aiohttp.WSCloseCode.POLICY_VIOLATION
        assert never.close_reason == "login: none within 0.2 s"
        quiet = await WsClient.connect(door.port)
        await quiet.login("quiet")
        assert await quiet.until_closed() == aiohttp.WSCloseCode.POLICY_VIOLATION
        assert quiet.close_reason.startswith("idle: nothing received for 0.3 s")
        await never.close()
        await quiet.close()


@run_async
async def test_a_newer_connection_for_the_seat_replaces_the_old_one() -> None:
    async with door_serving() as (_, door, stub):
        await _table(stub)
        old, seat_token = await _seated(door, "me", 1)
        new = await WsClient.connect(door.port)
        await new.login("me")
        assert (await new.open("t", seat=1, seat_token=seat_token))["type"] == "snapshot"
        left = await old.first("left", table_id="t")
        assert left["code"] == "aborted" and left["seat"] == 1
        assert (await new.request("sit_out", table_id="t"))["seat"]["status"] == "sitting_out"
        await old.close()
        await new.close()


@run_async
async def test_shutdown_ends_every_table_then_closes_going_away() -> None:
    async with door_serving() as (server, door, stub):
        await _table(stub)
        client, _ = await _seated(door, "me", 1)
        await server.stop(drain_seconds=0)
        left = await client.first("left", table_id="t")
        assert (left["code"], left["message"]) == ("unavailable", "the server is shutting down")
        assert await client.until_closed() == aiohttp.WSCloseCode.GOING_AWAY
        await client.close()


# ----------------------------------------------------------------- any input


VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.text(max_size=12),
    st.lists(st.integers(-3, 60), max_size=6),
)
"""Any JSON value."""
PLAUSIBLE = {
    "table_id": st.sampled_from(["t", "u", "a b"]),
    "seat": st.integers(-1, 9),
    "buy_in": st.sampled_from([0, BUY_IN, 5]),
    "kind": st.sampled_from([*ACTION_KINDS, "shove"]),
    "amount": st.integers(-1, 24),
    "turn_seq": st.none() | st.integers(0, 60),
    "action_id": st.text("ab", max_size=3),
    "discard": st.lists(st.integers(-1, 52), max_size=6),
    "player_id": st.sampled_from(["fuzz", "grpc", ""]),
    "game": st.sampled_from(["", "7stud", "holdem"]),
    "rid": st.text(max_size=3),
    "post_to_play": st.booleans(),
    "seat_token": st.text(max_size=4),
    "resume_after_seq": st.none() | st.integers(0, 60),
    "nonce": st.integers(0, 99),
    "page_size": st.integers(0, 3),
    "page_token": st.sampled_from(["", "t", "a b"]),
}
"""Values a real client would send, so that requests often succeed and hands get played."""


@st.composite
def message_frames(draw: st.DrawFn) -> str:
    """A client message of the schema, now and then with a field missing, extra or of any value."""
    cls = draw(st.sampled_from([*messages.CLIENT_MESSAGES, messages.Sit, messages.Act, messages.Act]))
    fields: dict[str, Any] = {}
    for field in msgspec.structs.fields(cls):
        if draw(st.integers(0, 19)) == 0 or (not field.required and draw(st.booleans())):
            continue
        values = PLAUSIBLE.get(field.name, VALUES)
        fields[field.name] = draw(VALUES if draw(st.integers(0, 9)) == 0 else values)
    if draw(st.integers(0, 9)) == 0:
        fields[draw(st.sampled_from(["colour", "seat", "type"]))] = draw(VALUES)
    return json.dumps({"type": messages.message_type(cls), **fields})


CODES = {code_name(code) for code in grpc.StatusCode}
PLAY, CLOCK = "<play a passive action on the seat's turn>", "<the running turn's clock runs out>"
"""Steps of a fuzzed exchange that are not frames, so that hands move on between the frames."""


class Errors(logging.Handler):
    """The ERROR records logged while it is attached."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@settings(max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(
    st.booleans(),
    st.integers(0, 99),
    st.lists(st.one_of(message_frames(), message_frames(), st.text(max_size=40), st.sampled_from([PLAY, CLOCK])),
             max_size=40),
)
def test_no_frame_sequence_breaks_the_server_or_loses_a_chip(seated: bool, seed: int, frames: list[str]) -> None:
    """Whatever a logged-in client sends beside a gRPC seat (seated itself in a running hand, or
    not), every answer is a message of the schema with a documented code, nothing is logged as an
    error, the connection stays open, and every table holds exactly the chips bought minus those
    cashed out."""
    gc.collect()  # what earlier tests left to be collected logs its complaints now, not below
    errors = Errors()
    logging.getLogger().addHandler(errors)
    try:
        asyncio.run(_exchange(seated, seed, frames))
    finally:
        logging.getLogger().removeHandler(errors)
    assert [record.getMessage() for record in errors.records] == []


async def _exchange(seated: bool, seed: int, frames: list[str]) -> None:
    clock = ManualClock()
    async with door_serving(clock) as (server, door, stub):
        await _table(stub, seed=seed)
        await stub.SitDown(pb.SitDownRequest(table_id="t", seat=2, player_id="grpc"))
        client = await WsClient.connect(door.port)
        await client.login("fuzz")
        if seated:
            assert (await client.request("sit", table_id="t", seat=1))["type"] == "seated"
        assert server.host is not None
        live = server.host.tables["t"]
        for frame_text in frames:
            if frame_text == PLAY:
                turn = client.turns.get("t")
                if turn is not None:  # perhaps passed already (a fuzzed act was taken): then rejected
                    legal = {action["kind"]: action for action in turn["legal"]}
                    kind = next(k for k in PASSIVE if k in legal)
                    await client.act("t", kind, legal[kind]["min"], turn_seq=turn["turn_seq"])
            elif frame_text == CLOCK:
                hand = live.table.hand
                if hand is not None and hand.actor >= 0:
                    clock.run_out()
            else:
                await client.ws.send_str(frame_text)
        await client.send(type="ping", nonce=2**40)
        await client.first("pong", nonce=2**40)  # every frame before it was answered
        decoder = msgspec.json.Decoder(messages.AnyServerMessage)
        for received in client.frames:
            decoder.decode(json.dumps(received))
            if received["type"] in ("error", "reject", "left"):
                assert received["code"] in CODES | {"ok"}, received
        assert not client.ended
        assert isinstance(live, LiveCashTable)
        assert live.table.total_chips() == live.bought - live.cashed_out
        assert exported(server, "tablestorm_chip_conservation_violations_total") == 0
        await client.close()
