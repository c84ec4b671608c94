"""``HandViews``/``view_of``: the View the accelerated driver builds from the engine is the one a live bot builds.

The reference is the real client's hand tracker (``tablestorm.sim.bots.client.tracker.HandTracker``), fed
exactly what a table server sends a seat: every engine event filtered for the seat
(``visibility.view``), converted to the wire (``tablestorm.services.table.convert``) and read as the gRPC
room reads it (``tablestorm.sim.rooms.grpc_traffic``); on each of the seat's
turns it builds the View from the legal actions a YourTurn would carry. The test compares it,
field by field, with the driver's ``HandViews`` (built once, as the hand is dealt) and with
``view_of`` on the engine's hand at the same turn, over random hands of every game and structure
(hypothesis), for strategies that track the others' boards and those that do not, with the clock
acting now and then (CLOCK-2); the hand is played on by the strategies' decisions.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import (
    Action,
    ActionKind,
    Hand,
    SeededShuffler,
    Stakes,
    Structure,
    TableOptions,
    variant_named,
)
from tablestorm.services.engine.visibility import view
from tablestorm.services.table import convert
from tablestorm.sim.bots.client.tracker import HandTracker
from tablestorm.sim.bots.kinds import BOT_KINDS, strategy_for
from tablestorm.sim.bots.strategies import Legal, View
from tablestorm.sim.rooms.grpc_traffic import traffic
from tablestorm.sim.tournament.view import HandViews, engine_action, view_of

CONFIGS = [
    ("7stud", Structure.FIXED_LIMIT),
    ("7stud8", Structure.FIXED_LIMIT),
    ("5stud", Structure.FIXED_LIMIT),
    ("7a5draw", Structure.FIXED_LIMIT),
    ("7a5draw", Structure.POT_LIMIT),
    ("7a5draw", Structure.NO_LIMIT),
]


def play_and_compare(game: str, structure: Structure, stacks: list[int], seed: int, kinds: list[str]) -> list[View]:
    """Play one hand with strategies of ``kinds``, comparing views on every turn; returns them."""
    options = TableOptions(variant_named(game), Stakes.default(10), structure=structure)
    seats = list(range(1, len(stacks) + 1))
    rng = random.Random(seed)
    hand = Hand(options, stacks, SeededShuffler(seed, "view", 1), button=seed % len(stacks))
    views = HandViews(hand, hand_number=1)
    strategies = [strategy_for(kind) for kind in kinds]
    trackers = [HandTracker(seat, needs_board=s.needs_board) for seat, s in zip(seats, strategies, strict=True)]
    table = pb.TableState(
        options=convert.options_to_proto(options),
        seats=[
            pb.SeatState(seat=s, stack=stack, status=pb.SEAT_STATUS_PLAYING)
            for s, stack in zip(seats, stacks, strict=True)
        ],
    )
    for tracker in trackers:
        welcome = traffic(pb.ServerMessage(welcome=pb.Welcome(seat=tracker.seat, table=table))).welcome
        assert welcome is not None
        tracker.welcome(welcome, continues=False)
    sent = 0
    compared: list[View] = []

    def deliver(start: int) -> None:
        nonlocal sent
        for event in hand.events[start:]:
            sent += 1
            for index, tracker in enumerate(trackers):
                wire = convert.event_to_proto(view(event, index), seats, seq=sent, hand_number=1)
                tracker.fold(*traffic(pb.ServerMessage(events=[wire])).events)

    deliver(0)
    while hand.actor >= 0:
        actor = hand.actor
        legal = tuple(Legal(option.kind.value, option.min, option.max) for option in hand.legal_actions())
        live = trackers[actor].view(legal, 1)
        needs_board = strategies[actor].needs_board
        assert views.of(actor, needs_board=needs_board) == live
        assert view_of(hand, actor, hand_number=1, needs_board=needs_board) == live
        compared.append(live)
        decision = strategies[actor].decide(live, rng)
        start = len(hand.events)
        if decision is None or rng.random() < 0.05:
            hand.apply(Action(ActionKind.TIMEOUT))
        else:
            hand.apply(engine_action(decision))
        deliver(start)
    return compared


@settings(max_examples=60, deadline=None)
@given(
    config=st.sampled_from(CONFIGS),
    players=st.integers(2, 8),
    seed=st.integers(0, 2**31),
    data=st.data(),
)
def test_view_of_is_the_live_clients_view(
    config: tuple[str, Structure], players: int, seed: int, data: st.DataObject
) -> None:
    game, structure = config
    players = min(players, variant_named(game).max_players)
    stacks = data.draw(st.lists(st.integers(1, 400), min_size=players, max_size=players))
    kinds = data.draw(st.lists(st.sampled_from(BOT_KINDS), min_size=players, max_size=players))
    play_and_compare(game, structure, stacks, seed, kinds)


def test_a_draw_turn_reports_the_street_and_bet_before_the_draw() -> None:
    """The one place the client's numbers are not the engine's: during the draw (DRAW-4) the client's
    street and own street total are still those of the first round."""
    views = play_and_compare("7a5draw", Structure.FIXED_LIMIT, [100] * 3, 3, ["calling_station"] * 3)
    # Button player 0, blinds 5 and 10: 0 calls, 1 completes, 2 checks; then all three draw.
    first, draws = views[:3], [v for v in views if v.option("draw") is not None]
    assert [(v.street, v.bet, v.to_call) for v in first] == [(0, 0, 10), (0, 5, 5), (0, 10, 0)]
    assert len(draws) == 3 and all((v.street, v.bet, v.to_call, v.pot) == (0, 10, 0, 30) for v in draws)
