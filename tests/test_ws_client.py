"""The WebSocket front door's client (sim/rooms/websocket_client.py) against a real table server on
127.0.0.1: log in, the lobby, sit, the stream of typed messages, actions answered by their
request ids, refusals as :class:`RoomError` with their gRPC status, resume with the seat token, stand
up with every chip."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from support.running import run_async
from support.table_server import ManualClock, stud_options
from support.websocket_client import PASSIVE, door_serving

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.websocket import messages as ws
from tablestorm.sim.rooms.base import RoomError
from tablestorm.sim.rooms.websocket_client import WsRoomClient

BUY_IN = 800


async def _play_one_hand(
    client: WsRoomClient, table_id: str, stub: rpc.TableServiceStub | None = None
) -> tuple[list[ws.Ack], ws.Events]:
    """Act passively on every turn until a hand ends; the acks and the frame that ended it. With
    ``stub``, close the table on the first turn (the hand plays out, no other is dealt)."""
    acks: list[ws.Ack] = []
    sent: dict[str, int] = {}
    async for incoming in client.messages():
        message = incoming.message
        if isinstance(message, ws.YourTurn):
            if stub is not None and not sent:
                await stub.CloseTable(pb.CloseTableRequest(table_id=table_id))
            legal = {action["kind"]: action for action in message.legal}
            kind = next(k for k in PASSIVE if k in legal)
            action_id = f"a{len(sent)}"
            sent[action_id] = await client.act(table_id, action_id, kind, legal[kind]["min"], turn_seq=message.turn_seq)
        elif isinstance(message, ws.Ack):
            assert incoming.received_ns > sent[message.action_id]
            acks.append(message)
        elif isinstance(message, ws.Reject):
            raise AssertionError(message)
        elif isinstance(message, ws.Events) and any(e["type"] == "hand_ended" for e in message.events):
            return acks, message
    raise AssertionError("the connection closed")


@run_async
async def test_two_clients_play_a_hand_and_stand_up_with_every_chip() -> None:
    async with door_serving(ManualClock()) as (_, door, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=11))
        url = f"ws://127.0.0.1:{door.port}/ws"
        one, two = await WsRoomClient.connect(url, "one"), await WsRoomClient.connect(url, "two")
        assert one.logged_in is not None and one.logged_in.player_id == "one"
        [table] = (await one.list_tables(game="7stud")).tables
        assert table["table_id"] == "t" and table["posted_buy_in"] == BUY_IN
        seated = [await one.sit("t", 1), await two.sit("t", 2)]
        assert [s.stack for s in seated] == [BUY_IN, BUY_IN]

        played = await asyncio.gather(_play_one_hand(one, "t", stub), _play_one_hand(two, "t"))
        (acks_one, ended), (acks_two, _) = played
        assert acks_one and acks_two
        hand_ended = next(e for e in ended.events if e["type"] == "hand_ended")
        assert sum(hand_ended["stacks"]) == 2 * BUY_IN
        chips = [(await one.stand_up("t")).chips, (await two.stand_up("t")).chips]
        assert chips == hand_ended["stacks"] and sum(chips) == 2 * BUY_IN
        for client in (one, two):
            await client.close()


@run_async
async def test_refusals_raise_room_errors_and_a_seat_resumes_with_its_token() -> None:
    async with door_serving() as (_, door, stub):
        url = f"ws://127.0.0.1:{door.port}/ws"
        with pytest.raises(RoomError) as refused:
            await WsRoomClient.connect(url, "")
        assert refused.value.code is grpc.StatusCode.INVALID_ARGUMENT and refused.value.message.startswith("player_id:")
        client = await WsRoomClient.connect(url, "me")
        with pytest.raises(RoomError) as missing:
            await client.sit("nope", 1)
        assert (missing.value.code, missing.value.message) == (grpc.StatusCode.NOT_FOUND, "no table 'nope'")

        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options()))
        seated = await client.sit("t", 1)
        stream = client.messages()
        first = (await anext(stream)).message
        assert isinstance(first, ws.Snapshot) and first.seat == 1
        await client.close()

        back = await WsRoomClient.connect(url, "me")
        await back.open("t", 1, seated.seat_token, resume_after_seq=seated.resume_after_seq)
        snapshot = (await anext(back.messages())).message
        assert isinstance(snapshot, ws.Snapshot) and snapshot.gap is False
        assert [e["type"] for e in snapshot.events] == ["seat_changed"]
        assert (await back.stand_up("t")).chips == BUY_IN
        await back.close()
