"""Bots: strategies as pure functions, the client's referee on crafted messages, then fleets
against a real table server on 127.0.0.1 (in-process, port 0).

Each async test runs in its own event loop (``asyncio.run``) bounded in time, and waits for what it
expects with a timeout (the fleet's ``until`` wakes on every counted hand), never with a sleep.
Rules exercised: BET-2 (caps), BET-7 (side pots, chips conserved), CLOCK-2/3 (timeouts, sitting
out), TABLE-1 (rebuys), STUD-3 (bring-in), DRAW-4 (draws).
"""

from __future__ import annotations

import asyncio
import functools
import math
import random
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import grpc
import pytest

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.engine.cards import parse_cards
from tablestorm.services.table.host import HostLimits, TableHost
from tablestorm.services.table.metrics import Metrics
from tablestorm.services.table.server import ServerConfig, TableServer
from tablestorm.services.table.service import TableService, handlers
from tablestorm.sim.bots import BOT_KINDS as STRATEGIES
from tablestorm.sim.bots import Action, Assignment, Bot, BotConfig, ChannelPool, Fleet, Legal, Tally, View
from tablestorm.sim.bots.kinds import strategy_for
from tablestorm.sim.bots.strategies import (
    CallingStation,
    Maniac,
    RandomLegal,
    Shover,
    Sleeper,
    Strength,
    draw_discards,
    is_allowed,
    strength,
)
from tablestorm.sim.distributions import Distribution
from tablestorm.sim.load.scenario import BOT_KINDS
from tablestorm.sim.load.stats import TIMEOUT_OUTCOMES, RunStats
from tablestorm.sim.rooms.grpc import GrpcRoom, act_message
from tablestorm.sim.rooms.grpc_traffic import traffic
from tablestorm.sim.rooms.traffic import Traffic

CLOCK = 0.3
THINK = Distribution("uniform", 0.01, 0.0, 0.02)
"""Far below the clock: sleepers (and, on a starved machine, the odd late bot) time out."""


def run_async(limit: float) -> Callable[[Callable[..., Coroutine[Any, Any, None]]], Callable[..., None]]:
    """Run an async test in a fresh event loop, bounded by ``limit`` seconds."""

    def decorate(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
        @functools.wraps(test)
        def wrapper(*args: Any, **kwargs: Any) -> None:
            asyncio.run(asyncio.wait_for(test(*args, **kwargs), limit))

        return wrapper

    return decorate


# ----------------------------------------------------------------- strategies (no server)

FIXED, POT, NO_LIMIT = "fixed_limit", "pot_limit", "no_limit"
SITUATIONS: list[tuple[str, str, tuple[Legal, ...]]] = [
    ("7stud", FIXED, (Legal("bring_in", 5, 5), Legal("complete", 10, 10))),  # STUD-3
    ("7stud", FIXED, (Legal("fold"), Legal("call", 10, 10), Legal("raise", 20, 20))),
    ("7stud", FIXED, (Legal("check"), Legal("bet", 10, 20))),  # STUD-5: open pair
    ("7stud8", FIXED, (Legal("check"),)),
    ("5stud", FIXED, (Legal("fold"), Legal("call", 35, 35))),  # capped, or all-in to call
    ("7a5draw", NO_LIMIT, (Legal("fold"), Legal("call", 20, 20), Legal("raise", 40, 1000))),
    ("7a5draw", POT, (Legal("check"), Legal("bet", 10, 35))),
    ("7a5draw", FIXED, (Legal("draw", 0, 5),)),  # DRAW-4
]


def situation_views() -> list[View]:
    """Every situation with a few random hands of the right shape."""
    rng = random.Random(7)
    views = []
    for game, structure, legal in SITUATIONS:
        deck = list(range(20, 52)) if game == "7a5draw" else list(range(52))
        for _ in range(10):
            cards = rng.sample(deck, 9)
            if game == "7a5draw":
                down, up, others = cards[:5], [], ()
            else:
                n = rng.randint(1, 4)
                down, up, others = cards[:2], cards[2 : 2 + n], (tuple(cards[6 : 6 + min(n, 3)]),)
            views.append(
                View(game, structure, legal, tuple(down), tuple(up), others, pot=60, to_call=10, stack=500)
            )
    return views


@pytest.mark.parametrize("kind", STRATEGIES)
def test_every_strategy_picks_a_legal_action(kind: str) -> None:
    strategy = strategy_for(kind, {"sleep_probability": 0.5} if kind == "sleeper" else None)
    rng = random.Random(kind)
    for view in situation_views():
        for _ in range(5):
            action = strategy.decide(view, rng)
            if action is None:
                assert kind == "sleeper"
                continue
            assert is_allowed(action, view.legal, view.fixed_limit, view.down), (kind, view, action)


def test_strategy_kinds_are_the_scenario_bot_kinds() -> None:
    assert STRATEGIES == BOT_KINDS
    assert {strategy_for(kind).name for kind in BOT_KINDS} == set(BOT_KINDS)
    with pytest.raises(ValueError, match="unknown bot kind"):
        strategy_for("poet")
    with pytest.raises(ValueError, match="sleep_probability"):
        Sleeper(1.5)


def test_a_kinds_knobs_come_from_the_config_by_name_the_rest_from_its_class() -> None:
    config = BotConfig(strategies={"sleeper": {"sleep_probability": 0.4}, "flaky": {"interval": (1.0, 2.0)}})
    assert config.strategy("sleeper") == Sleeper(0.4)
    assert config.strategy("flaky").stream_drops == (1.0, 2.0)
    assert BotConfig().strategy("flaky").stream_drops == (20.0, 60.0)
    assert BotConfig().strategy("sleeper") == Sleeper() == Sleeper(0.15)
    assert config.strategy("maniac") == Maniac()
    # Refused when the config is made, naming the kind and the knob, or the bad value.
    with pytest.raises(ValueError, match="sleeper: unknown knob 'interval'; known: sleep_probability"):
        BotConfig(strategies={"sleeper": {"interval": (1.0, 2.0)}})
    with pytest.raises(ValueError, match="maniac: unknown knob 'rage'; known: none"):
        BotConfig(strategies={"maniac": {"rage": 1.0}})
    with pytest.raises(ValueError, match="unknown bot kind 'poet'"):
        BotConfig(strategies={"poet": {}})
    with pytest.raises(ValueError, match=r"interval must be 0 < low <= high seconds, got \(2.0, 1.0\)"):
        BotConfig(strategies={"flaky": {"interval": (2.0, 1.0)}})


def test_calling_station_never_folds_or_raises_and_stands_pat() -> None:
    rng = random.Random(1)
    for view in situation_views():
        action = CallingStation().decide(view, rng)
        assert action is not None
        assert action.kind in ("check", "call", "bring_in", "draw"), action
        assert action.discard == ()


def test_maniac_raises_to_the_maximum_but_pot_sized_in_no_limit() -> None:
    """BET-2: always the largest fixed-limit raise, so three maniacs reach the cap."""
    rng = random.Random(1)
    maniac = Maniac()
    by_structure = {structure: legal for game, structure, legal in SITUATIONS[1:] if structure != FIXED}
    fixed = View("7stud", FIXED, SITUATIONS[1][2])
    assert maniac.decide(fixed, rng) == Action("raise", 20)
    assert maniac.decide(View("7stud", FIXED, SITUATIONS[0][2]), rng) == Action("complete", 10)
    assert maniac.decide(View("7stud", FIXED, SITUATIONS[2][2]), rng) == Action("bet", 20)
    pot_limit = View("7a5draw", POT, by_structure[POT], pot=30)
    assert maniac.decide(pot_limit, rng) == Action("bet", 35)
    # No limit: bet to match (20) + the pot after calling it (60 + 10) = 90, not all-in.
    no_limit = View("7a5draw", NO_LIMIT, by_structure[NO_LIMIT], pot=60, bet=10, to_call=10)
    assert maniac.decide(no_limit, rng) == Action("raise", 20 + 60 + 10)
    assert maniac.decide(View("7stud", FIXED, SITUATIONS[4][2]), rng) == Action("call")


def test_shover_goes_all_in_and_calls_everything() -> None:
    rng = random.Random(1)
    no_limit = View("7a5draw", NO_LIMIT, SITUATIONS[5][2])
    assert Shover().decide(no_limit, rng) == Action("raise", 1000)
    assert Shover().decide(View("5stud", FIXED, SITUATIONS[4][2]), rng) == Action("call")
    assert Shover().decide(View("7stud8", FIXED, SITUATIONS[3][2]), rng) == Action("check")


def test_sleeper_lets_the_clock_act_at_its_rate() -> None:
    """CLOCK-2 is exercised by sleepers: about ``sleep_probability`` of their turns are left to it."""
    view = View("7stud", FIXED, SITUATIONS[1][2])
    rng = random.Random(3)
    slept = sum(Sleeper(0.3).decide(view, rng) is None for _ in range(2000))
    assert 500 < slept < 700
    assert all(Sleeper(0.0).decide(view, rng) is not None for _ in range(100))
    assert all(Sleeper(1.0).decide(view, rng) is None for _ in range(100))


def test_random_explores_every_kind_and_only_the_fixed_limit_ends() -> None:
    rng = random.Random(5)
    fixed = View("7stud", FIXED, (Legal("check"), Legal("bet", 10, 20)))
    seen = {RandomLegal().decide(fixed, rng) for _ in range(200)}
    assert seen == {Action("check"), Action("bet", 10), Action("bet", 20)}  # BET-1: no amount between
    no_limit = View("7a5draw", NO_LIMIT, SITUATIONS[5][2])
    amounts = {a.amount for a in (RandomLegal().decide(no_limit, rng) for _ in range(300)) if a and a.amount}
    assert len(amounts) > 20 and min(amounts) >= 40 and max(amounts) <= 1000
    draw = View("7a5draw", FIXED, SITUATIONS[7][2], down=tuple(parse_cards("Ac Kd Qh 9s 8c")))
    counts = {len(a.discard) for a in (RandomLegal().decide(draw, rng) for _ in range(300)) if a}
    assert counts == {0, 1, 2, 3, 4, 5}


def _strength_view(down: str, up: str = "", game: str = "7stud", others: Sequence[str] = ()) -> View:
    legal = (Legal("fold"), Legal("call", 20, 20), Legal("raise", 40, 40))
    return View(
        game,
        FIXED,
        legal,
        tuple(parse_cards(down)),
        tuple(parse_cards(up)) if up else (),
        tuple(tuple(parse_cards(board)) for board in others),
        pot=60,
        to_call=20,
    )


def test_strength_folds_weak_calls_fair_and_raises_strong() -> None:
    rng = random.Random(1)
    cases = [
        (_strength_view("2c 7d", "Jh 9s 4c 3d"), "fold"),  # 6th street, nothing
        (_strength_view("Kc Kd", "5h"), "call"),  # a pair on 3rd street
        (_strength_view("Ac Ad", "As 7h 2c"), "raise"),  # trips
        (_strength_view("Ac Kd Qh Jc 9s", game="7a5draw"), "fold"),
        (_strength_view("Tc Jd Qh Kc As", game="7a5draw"), "raise"),  # a straight
        (_strength_view("As 2d 3h", "4s 8c Kd Qh", game="7stud8"), "call"),  # an 8-low (CARD-4)
    ]
    for view, kind in cases:
        action = Strength().decide(view, rng)
        assert action is not None and action.kind == kind, (view.down, view.up, action)
    assert strength(cases[1][0]) > strength(cases[0][0])


def test_strength_fears_the_boards_it_can_see() -> None:
    """A king-high hand facing a visible pair of queens is worth less than against no pair."""
    alone = _strength_view("9c 2d", "Ks", others=["Qh 3d"])
    facing_pair = _strength_view("9c 2d", "Ks", others=["Qh Qd"])
    assert strength(facing_pair) < strength(alone)


def test_strength_draws_by_keeping_pairs_flush_draws_and_made_hands() -> None:
    """DRAW-4: throw what does not help."""

    def thrown(cards: str) -> list[str]:
        view = View("7a5draw", FIXED, (Legal("draw", 0, 5),), tuple(parse_cards(cards)))
        return sorted(draw_discards(view, view.legal[0]))

    def cards(text: str) -> list[int]:
        return sorted(parse_cards(text))

    assert thrown("Ac Ad 7h 8c 9s") == cards("7h 8c 9s")
    assert thrown("Ac Kc Qc Jc 9s") == cards("9s")
    assert thrown("Tc Jd Qh Kc As") == []  # a straight stands pat
    assert thrown("Ac Kd Th 8c 7s") == cards("Th 8c 7s")  # nothing: keep the two highest
    assert thrown("Kc Kd Ks 7h 7c") == []  # a full house stands pat
    view = View("7a5draw", FIXED, (Legal("draw", 0, 5),), tuple(parse_cards("Ac Ad 7h 8c 9s")))
    assert Strength().decide(view, random.Random(1)) == Action("draw", discard=tuple(cards("7h 8c 9s")))


def test_is_allowed_holds_fixed_limit_to_its_two_ends_and_draws_to_own_cards() -> None:
    legal = (Legal("check"), Legal("bet", 10, 20))
    assert is_allowed(Action("bet", 20), legal, True, ())
    assert not is_allowed(Action("bet", 15), legal, True, ())  # BET-1
    assert is_allowed(Action("bet", 15), legal, False, ())
    assert not is_allowed(Action("fold"), legal, True, ())
    draw = (Legal("draw", 0, 3),)
    assert is_allowed(Action("draw", discard=(1, 2)), draw, True, (1, 2, 3))
    assert not is_allowed(Action("draw", discard=(1, 9)), draw, True, (1, 2, 3))
    assert not is_allowed(Action("draw", discard=(1, 1)), draw, True, (1, 2, 3))


# ----------------------------------------------------------------- the referee (no server)


class FakeCall:
    """Stands for a Play call: records what the bot writes (as the gRPC room puts it on the wire)."""

    def __init__(self) -> None:
        self.written: list[pb.ClientMessage] = []

    async def act(self, action_id: str, action: Action, prompt_seq: int) -> None:
        self.written.append(act_message(action_id, action, prompt_seq))


def event(seq: int, hand: int = 1, **kind: Any) -> pb.Event:
    return pb.Event(seq=seq, hand_number=hand, **kind)


def from_wire(**parts: Any) -> Traffic:
    """A server message as a bot reads it: as the gRPC room's adapter reads it off the wire."""
    return traffic(pb.ServerMessage(**parts))


@run_async(10)
async def test_the_bot_flags_what_a_server_must_never_send() -> None:
    """Each crafted message breaks one promise of the API; the bot counts each as a violation."""
    stats, tally, room = RunStats(), Tally(), GrpcRoom()
    try:
        bot = Bot(
            Assignment("127.0.0.1:1", "t", 1, "p1", "calling_station", seat_token="token"),
            room=room,
            stats=stats,
            tally=tally,
            start=0.0,
        )
        call = FakeCall()
        bot._call = call  # type: ignore[assignment]  # the stream a real session would open
        stud = pb.TableOptions(game="7stud", structure=pb.STRUCTURE_FIXED_LIMIT)
        seats = [pb.SeatState(seat=1, stack=100, status=pb.SEAT_STATUS_PLAYING)]

        def violations() -> int:
            return stats.protocol_violations

        def send(**parts: Any) -> int:
            before = violations()
            bot.handle(from_wire(**parts))
            return violations() - before

        assert send(welcome=pb.Welcome(seat=1, table=pb.TableState(options=stud, seats=seats))) == 0
        started = pb.HandStarted(seats=[1, 2], stacks=[100, 100], deck_size=52)
        mine = pb.CardsDealt(seat=1, street=0, down=[0, 1], up=[2])
        theirs = pb.CardsDealt(seat=2, street=0, down=[-1, -1], up=[9])
        assert send(events=[event(1, hand_started=started), event(2, cards_dealt=mine)]) == 0
        assert send(events=[event(3, cards_dealt=theirs)]) == 0

        peek = pb.CardsDealt(seat=2, street=1, down=[30], up=[])
        assert send(events=[event(4, cards_dealt=peek)]) == 1, "another seat's down card shown"
        hidden_own = pb.CardsDealt(seat=1, street=1, down=[-1])
        assert send(events=[event(5, cards_dealt=hidden_own)]) == 1, "own down card hidden"
        assert send(events=[event(7, round_started=pb.RoundStarted(street=1))]) == 1, "seq gap"
        assert send(events=[event(7, round_started=pb.RoundStarted(street=1))]) == 1, "seq repeated"
        assert send(results=[pb.ActResult(action_id="nobody-sent-this")]) == 1, "unknown action id"
        never_sent = pb.Acted(seat=1, kind=pb.ACTION_KIND_RAISE, to=20, added=20)
        assert send(events=[event(8, acted=never_sent)]) == 1, "an action the seat never sent"

        # A turn: the calling station calls; the server then applies something else.
        turn = pb.YourTurn(hand_number=1, seq=8, legal=[pb.LegalAction(kind=pb.ACTION_KIND_CALL, min=20, max=20)])
        assert send(your_turn=turn) == 0
        await asyncio.sleep(0)  # let the write task run
        (written,) = call.written
        assert written.act.kind == pb.ACTION_KIND_CALL and written.act.turn_seq == 8
        wrong = pb.Acted(seat=1, kind=pb.ACTION_KIND_FOLD)
        ok = pb.ActResult(action_id=written.act.action_id)
        assert send(results=[ok], events=[event(9, acted=wrong)]) == 1, "applied differently"
        assert stats.actions == 1 and tally.acted_kinds == {"calling_station"}

        # A legal action refused while it was still the seat's turn.
        assert send(your_turn=pb.YourTurn(hand_number=1, seq=9, legal=turn.legal)) == 0
        await asyncio.sleep(0)
        refused = pb.ActResult(action_id=call.written[-1].act.action_id, code=9, message="no")
        assert send(results=[refused]) == 1, "legal action refused"

        # Not a violation: a refusal coalesced with the timeout that made the action late (CLOCK-2).
        assert send(your_turn=pb.YourTurn(hand_number=1, seq=9, legal=turn.legal)) == 0
        await asyncio.sleep(0)
        late = pb.ActResult(action_id=call.written[-1].act.action_id, code=9, message="turn_seq: passed")
        timed_out = pb.TimedOut(seat=1, outcome=pb.TIMEOUT_OUTCOME_FOLD)
        folded = pb.Acted(seat=1, kind=pb.ACTION_KIND_FOLD)
        assert send(results=[late], events=[event(10, timed_out=timed_out), event(11, acted=folded)]) == 0
        assert tally.late_actions == 1 and stats.timeouts_by_outcome["fold"] == 1
        unapplied = sum(second.unapplied.count for second in stats.series.values())
        assert stats.actions == 1 and unapplied == 1, "the late action is timed to its refusal, not counted"

        ended = pb.HandEnded(seats=[1, 2], stacks=[100, 90])
        assert send(events=[event(12, hand_ended=ended)]) == 1, "chips lost in the hand (BET-7)"
        assert stats.hands == 1, "seat 1 is the lowest seat: it counts the hand"
        assert send(your_turn=pb.YourTurn(hand_number=1, seq=12, legal=turn.legal)) == 1, "turn after the end"
        assert len(tally.violations) == violations() == 10
    finally:
        await room.close()


@run_async(10)
async def test_an_action_is_timed_from_its_intended_send_time() -> None:
    """A fleet's loop busy when the bot's 50 ms think ends (blocked 300 ms, as a long GC pause would)
    delays the write; the action's latency counts from when it was meant to go, not from the write,
    and the table's pace (one action per mean think) fills in the samples the delay kept back."""
    stats, tally, room = RunStats(), Tally(), GrpcRoom()
    written = asyncio.Event()

    class SignallingCall(FakeCall):
        async def act(self, action_id: str, action: Action, prompt_seq: int) -> None:
            await super().act(action_id, action, prompt_seq)
            written.set()

    try:
        think = Distribution("fixed", 0.05)
        bot = Bot(Assignment("127.0.0.1:1", "t", 1, "p1", "calling_station", think=think, seat_token="token"),
                  room=room, stats=stats, tally=tally, start=0.0)
        call = SignallingCall()
        bot._call = call  # type: ignore[assignment]  # the stream a real session would open
        stud = pb.TableOptions(game="7stud", structure=pb.STRUCTURE_FIXED_LIMIT)
        bot.handle(from_wire(welcome=pb.Welcome(seat=1, table=pb.TableState(options=stud))))
        started = pb.HandStarted(seats=[1, 2], stacks=[100, 100], deck_size=52)
        bot.handle(from_wire(events=[event(1, hand_started=started),
                                            event(2, cards_dealt=pb.CardsDealt(seat=1, street=0, down=[0, 1]))]))
        legal = [pb.LegalAction(kind=pb.ACTION_KIND_CALL, min=20, max=20)]
        bot.handle(from_wire(your_turn=pb.YourTurn(hand_number=1, seq=2, legal=legal)))
        time.sleep(0.3)  # the fleet's loop is busy elsewhere: no callback runs meanwhile
        await asyncio.wait_for(written.wait(), 5)
        (sent,) = call.written
        bot.handle(from_wire(results=[pb.ActResult(action_id=sent.act.action_id)],
                                    events=[event(3, acted=pb.Acted(seat=1, kind=pb.ACTION_KIND_CALL, to=20))]))
        latency = stats.latency(corrected=False)
        assert stats.actions == 1 and latency.min is not None and 0.25 - 0.01 <= latency.min < 1.0
        assert stats.latency().count - 1 == math.floor(round(latency.min / 0.05, 9)) - 1 >= 3
    finally:
        await room.close()


# ----------------------------------------------------------------- against a server


@asynccontextmanager
async def serving() -> AsyncIterator[str]:
    """A table server on 127.0.0.1; yields its address."""
    server = TableServer(ServerConfig(port=0, drain_seconds=0))
    await server.start()
    try:
        yield f"127.0.0.1:{server.port}"
    finally:
        await server.stop(drain_seconds=0)


@asynccontextmanager
async def one_host_two_addresses() -> AsyncIterator[tuple[list[grpc.aio.Server], list[str]]]:
    """One TableHost served on two ports: to a client, its tables move when the first port dies."""
    metrics = Metrics()
    host = TableHost(HostLimits(), metrics, asyncio.get_running_loop())
    service = TableService(host, metrics)
    servers: list[grpc.aio.Server] = []
    endpoints = []
    try:
        for _ in range(2):
            server = grpc.aio.server()
            server.add_generic_rpc_handlers((handlers(service),))
            endpoints.append(f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}")
            servers.append(server)
            await server.start()
        yield servers, endpoints
    finally:
        await host.drain(0.0)
        for server in servers:
            await server.stop(grace=0)


@asynccontextmanager
async def playing(fleet: Fleet) -> AsyncIterator[Fleet]:
    """The fleet, stopped (without standing up) even when the test fails half-way."""
    try:
        yield fleet
    finally:
        await fleet.stop_all(stand_up=False)


@asynccontextmanager
async def admin(endpoint: str) -> AsyncIterator[rpc.TableServiceStub]:
    channel = grpc.aio.insecure_channel(endpoint)
    try:
        yield rpc.TableServiceStub(channel)
    finally:
        await channel.close()


def options(game: str, structure: int = pb.STRUCTURE_FIXED_LIMIT) -> pb.TableOptions:
    stakes = pb.Stakes(small_bet=10)
    if structure != pb.STRUCTURE_FIXED_LIMIT:
        stakes = pb.Stakes(small_blind=5, big_blind=10)
    return pb.TableOptions(game=game, stakes=stakes, structure=structure, clock_seconds=CLOCK)


async def open_tables(endpoint: str, tables: dict[str, tuple[pb.TableOptions, list[str]]]) -> list[Assignment]:
    """Create the tables; one assignment per listed bot kind, seats from 1."""
    assignments = []
    async with admin(endpoint) as stub:
        for table_id, (table_options, kinds) in tables.items():
            seed = len(assignments)
            await stub.CreateTable(pb.CreateTableRequest(table_id=table_id, options=table_options, seed=seed))
            for seat, kind in enumerate(kinds, start=1):
                seed = len(assignments)
                assignments.append(Assignment(endpoint, table_id, seat, f"{table_id}-{seat}", kind, THINK, seed))
    return assignments


async def table_totals(endpoint: str, table_ids: Sequence[str]) -> tuple[int, int]:
    """(hands started, chips in the seats' stacks) over the tables, from GetTable."""
    hands = chips = 0
    async with admin(endpoint) as stub:
        for table_id in table_ids:
            state = await stub.GetTable(pb.GetTableRequest(table_id=table_id))
            assert not state.hand_running
            hands += state.hand_number
            chips += sum(seat.stack for seat in state.seats)
    return hands, chips


TABLES = {
    # Three maniacs keep three hands live: every round hits the cap (BET-2).
    "stud": (options("7stud"), ["maniac", "maniac", "maniac", "strength", "random"]),
    # Sleepers are most of the table, so they bring in (STUD-3) and time out on every branch.
    "hilo": (options("7stud8"), ["sleeper", "sleeper", "sleeper", "calling_station", "flaky"]),
    "five": (options("5stud"), ["sleeper", "random", "flaky", "strength", "regular"]),
    # Shovers all-in against callers with unequal stacks: side pots (BET-7), busts and rebuys.
    "nl": (
        options("7a5draw", pb.STRUCTURE_NO_LIMIT),
        ["shover", "shover", "calling_station", "shover", "sleeper"],
    ),
    "pl": (options("7a5draw", pb.STRUCTURE_POT_LIMIT), ["maniac", "strength", "flaky", "sleeper", "recreational"]),
}


@run_async(55)
async def test_a_fleet_plays_every_game_cleanly() -> None:
    """Every kind on every game with a 0.3 s clock: no violation and no error, every kind acts,
    sleepers produce every CLOCK-2 outcome, maniacs hit caps, shovers make side pots, flaky bots
    resume without a gap, each hand is counted exactly once, and every chip is accounted for."""
    config = BotConfig(strategies={"sleeper": {"sleep_probability": 0.35}, "flaky": {"interval": (0.5, 1.5)}})
    async with serving() as endpoint, playing(Fleet(config=config)) as fleet:
        assignments = await open_tables(endpoint, TABLES)
        joined = await fleet.add(assignments)
        assert len(joined) == len(assignments) == fleet.online
        stats = fleet.stats

        def enough() -> bool:
            return (
                set(fleet.kinds_acted) == set(BOT_KINDS)
                and all(stats.timeouts_by_outcome[outcome] for outcome in TIMEOUT_OUTCOMES)
                and stats.raise_caps > 0
                and stats.side_pots > 0
                and fleet.tally.resumes >= 3
                and stats.hands >= 60
            ) or bool(stats.errors)  # fail fast

        assert await fleet.until(enough, timeout=30), (stats.to_dict(), fleet.counters())
        # Take bots away mid-run: each stands up once its hand is over; the others play on.
        leaving = {bot.player_id for bot in fleet.bots[-3:]}
        await fleet.remove(3)
        assert fleet.online == len(assignments) - 3
        assert not leaving & {bot.player_id for bot in fleet.bots}
        hands_before = stats.hands
        assert await fleet.until(lambda: stats.hands >= hands_before + 10, timeout=15)
        await fleet.stop_all()
        assert fleet.online == 0

        assert stats.errors == {}, fleet.tally.violations
        assert fleet.kinds_acted == set(BOT_KINDS)
        assert all(stats.timeouts_by_outcome[outcome] > 0 for outcome in TIMEOUT_OUTCOMES)
        assert stats.raise_caps > 0 and stats.side_pots > 0
        assert fleet.tally.resumes >= 3 and fleet.tally.resume_gaps == 0
        # No assertion on late actions: on a loaded machine a 0.3 s clock can beat a think time
        # of 0.02 s; the bot counts those as late, and any other refusal as a violation.
        hands, chips_at_tables = await table_totals(endpoint, list(TABLES))
        assert stats.hands + stats.hands_voided == hands, "each hand counted once, by one bot"
        assert chips_at_tables == 0, "everyone stood up"
        assert fleet.chips_bought == fleet.chips_cashed_out + chips_at_tables
        assert fleet.chips_bought > len(assignments) * 1000, "broke shovers rebought (TABLE-1)"


@run_async(30)
async def test_bots_follow_a_table_to_its_new_address_and_resume() -> None:
    """The table's first address dies (UNAVAILABLE); ``resolve`` names the new one, the seat
    token still holds, and every bot resumes where it was, without a gap."""
    async with one_host_two_addresses() as (servers, endpoints):
        where = {"t": endpoints[0]}
        asked: list[str] = []

        async def resolve(table_id: str) -> str:
            asked.append(table_id)
            return where[table_id]

        async with playing(Fleet(config=BotConfig(backoff=(0.05, 0.2)), resolve=resolve)) as fleet:
            await fleet.add(await open_tables(endpoints[0], {"t": (options("7stud"), ["random"] * 4)}))
            stats = fleet.stats
            assert await fleet.until(lambda: stats.hands >= 3, timeout=10)
            where["t"] = endpoints[1]
            await servers[0].stop(grace=0)
            actions_before = stats.actions
            assert await fleet.until(lambda: stats.hands >= 8, timeout=15)
            assert stats.actions > actions_before
            assert {bot.endpoint for bot in fleet.bots} == {endpoints[1]}
            assert asked and set(asked) == {"t"}
            assert fleet.tally.resumes == 4 and fleet.tally.resume_gaps == 0
            assert stats.protocol_violations == 0, fleet.tally.violations
            # Each stream failed once: a dying server ends a stream with GOAWAY (UNAVAILABLE) or,
            # racing it, with a reset stream (INTERNAL); the bot retries both.
            errors = stats.errors
            assert sum(errors.values()) == 4 and set(errors) <= {"UNAVAILABLE", "INTERNAL"}, errors
            await fleet.stop_all()
            assert fleet.chips_bought == fleet.chips_cashed_out


class TurnSignal(Bot):
    """A bot that says when its turn comes (so a test can stop it while the turn is open)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.turn_came = asyncio.Event()

    def handle(self, message: Traffic) -> None:
        super().handle(message)
        if message.prompt is not None:
            self.turn_came.set()


@pytest.mark.parametrize("leave_idle", [False, True], ids=["check_fold", "idle"])
@run_async(20)
async def test_stop_leaves_the_hand_then_stands_up_with_the_chips(leave_idle: bool) -> None:
    """A bot stopped on its turn checks or folds at once, or (idle) lets the clock act for it
    (CLOCK-2); it sits out, stands up as soon as it is out of the hand, and its chips come back."""
    async with serving() as endpoint:
        assignments = await open_tables(endpoint, {"t": (options("7stud"), ["calling_station"] * 3)})
        stats, tally, room = RunStats(), Tally(), GrpcRoom()
        config = BotConfig(leave_idle=leave_idle)
        slow = Distribution("fixed", 0.1)  # the turn stays open a moment: the stop lands in it
        shared: dict[str, Any] = {"room": room, "stats": stats, "tally": tally, "start": 0.0, "config": config}
        first = TurnSignal(replace(assignments[0], think=slow), **shared)
        bots = [first, *(Bot(assignment, **shared) for assignment in assignments[1:])]
        try:
            assert all([await bot.start() for bot in bots])
            await asyncio.wait_for(first.turn_came.wait(), 5)
            chips = await first.stop()
            assert chips > 0 and tally.chips_cashed_out == chips
            timeouts = stats.timeouts
            assert timeouts >= 1 if leave_idle else timeouts == 0, stats.timeouts_by_outcome
            async with admin(endpoint) as stub:
                state = await stub.GetTable(pb.GetTableRequest(table_id="t"))
            assert state.seats[0].status == pb.SEAT_STATUS_EMPTY
        finally:
            for bot in bots:
                await bot.stop()
            await room.close()
        _, left = await table_totals(endpoint, ["t"])
        assert left == 0 and tally.chips_bought == tally.chips_cashed_out == 3 * state.posted_buy_in
        assert stats.errors == {}, tally.violations


@run_async(20)
async def test_a_bot_stopped_while_its_stream_is_down_sees_its_hand_end_and_counts_it() -> None:
    """Stopped between its own drop and the resume, in a hand its seat (the lowest) counts for the
    table: it resumes, plays the hand out, counts it and stands up; every hand is counted once.
    (Polling StandUp instead left that hand uncounted: a fleet test saw 102 of 103 hands.)"""
    async with serving() as endpoint:
        assignments = await open_tables(endpoint, {"t": (options("7stud"), ["calling_station"] * 3)})
        stats, tally, room = RunStats(), Tally(), GrpcRoom()
        shared: dict[str, Any] = {"room": room, "stats": stats, "tally": tally, "start": 0.0, "config": BotConfig()}
        first = TurnSignal(assignments[0], **shared)
        bots = [first, *(Bot(assignment, **shared) for assignment in assignments[1:])]
        try:
            assert all([await bot.start() for bot in bots])
            await asyncio.wait_for(first.turn_came.wait(), 5)
            hand = first._tracker.hand
            assert hand is not None and hand.in_hand and first._call is not None
            first._drop()  # as a flaky bot's schedule does; the stop lands before the stream ends
            chips = await first.stop()
            assert chips > 0 and tally.resumes == 1 and tally.resume_gaps == 0
            assert stats.hands >= hand.number, "the hand it was dealt into was counted"
        finally:
            for bot in bots:
                await bot.stop()
            await room.close()
        hands, left = await table_totals(endpoint, ["t"])
        assert stats.hands + stats.hands_voided == hands and left == 0
        assert stats.errors == {}, tally.violations


@run_async(10)
async def test_a_channel_carries_at_most_its_stream_budget() -> None:
    pool = ChannelPool(streams_per_channel=2)
    clients = [pool.acquire("127.0.0.1:1") for _ in range(5)]
    assert pool.channels == 3 and clients[0] is clients[1] and clients[2] is not clients[0]
    pool.release(clients[0])
    assert pool.acquire("127.0.0.1:1") is clients[0], "a freed slot is reused"
    assert pool.acquire("127.0.0.1:2") is not clients[0] and pool.channels == 4
    await pool.close()
    assert pool.channels == 0


@run_async(10)
async def test_a_client_nobody_uses_is_closed_and_dropped() -> None:
    """The soak's leak: after a host kill the bots move to their tables' new address; the old
    address's client, its last stream released, is closed and leaves the pool (not kept for the run)."""
    pool = ChannelPool(streams_per_channel=2)
    old = [pool.acquire("127.0.0.1:1") for _ in range(2)]
    kept = pool.acquire("127.0.0.1:2")
    pool.release(old[0])
    assert pool.channels == 2, "a client still carrying a stream stays"
    pool.release(old[1])
    assert pool.channels == 1 and pool.acquire("127.0.0.1:1") is not old[0], "the unused client left the pool"
    await pool.close()
    assert old[0].channel.get_state() is grpc.ChannelConnectivity.SHUTDOWN
    assert kept.channel.get_state() is grpc.ChannelConnectivity.SHUTDOWN
