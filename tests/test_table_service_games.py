"""Whole hands of every game played by clients over Play streams against a real server on
127.0.0.1, checked against the engine, and what each seat may see of them.

* Every game and structure: seeded tables, clients choosing random legal actions; a replay of the
  same seed, table id and decisions in the engine's ``CashTable`` (TABLE-2) must produce the very
  events the server streamed (stacks, pots, awards, shown hands), and each seat's stream must be
  exactly that seat's view of the engine's record.
* A hypothesis property over random games, seat counts, stacks and actions: no event delivered to a
  seat carries another seat's face-down card before that seat's hand is shown (HandShown), a mucked
  hand's or a discard's cards never, and a spectator sees no face-down card at all; the same holds
  for every seat's hand histories (SHOW-4).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.running import run_async
from support.table_invariants import HIDDEN
from support.table_replay import Replay, hand_events
from support.table_server import GateLedger, exported, serving, token
from support.table_streams import AMOUNT_KINDS, TIMEOUT, Decision, Stream, drive, random_policy, seated_table

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import events as ev
from tablestorm.services.engine.table import HandRecord

FIXED, POT, NO = pb.STRUCTURE_FIXED_LIMIT, pb.STRUCTURE_POT_LIMIT, pb.STRUCTURE_NO_LIMIT
GAMES = [
    # game, structure, players, buy-in (0: the posted 100 big bets), seed. With these seeds and the
    # random policy the hands include showdowns and mucks in every game, side pots (7stud, 7stud8,
    # 5stud, no limit), high/low splits (7stud8), a cap (7stud8) and a reshuffled stub (draw, DRAW-4).
    ("7stud", FIXED, 5, 150, 101),
    ("7stud8", FIXED, 5, 150, 103),
    ("5stud", FIXED, 4, 120, 103),
    ("7a5draw", FIXED, 5, 0, 104),
    ("7a5draw", POT, 4, 300, 105),
    ("7a5draw", NO, 4, 300, 111),
]
CONFIGS = [(game, structure) for game, structure, *_ in GAMES]
HANDS = 3
CLOCK = 60.0
"""Long enough that the clock never acts while clients are choosing (these tests are not about it)."""


def table_options(game: str, structure: int, buy_in: int) -> pb.TableOptions:
    # small bet 10: ante 1, bring-in 5, bets 10/20; blinds 5/10 (RULES.md defaults).
    return pb.TableOptions(
        game=game, structure=structure, stakes=pb.Stakes(small_bet=10), buy_in=buy_in, clock_seconds=CLOCK
    )


async def hands_ended(streams: Sequence[Stream], number: int) -> None:
    """Wait until every stream has received the end of hand ``number``."""
    def done() -> bool:
        return all(any(e.hand_number == number and e.HasField("hand_ended") for e in s.events) for s in streams)

    await streams[0].until(done)


# ----------------------------------------------------------------- every game equals the engine


@pytest.mark.parametrize(
    ("game", "structure", "players", "buy_in", "seed"),
    GAMES,
    ids=[f"{game}-{pb.Structure.Name(structure).removeprefix('STRUCTURE_').lower()}" for game, structure, *_ in GAMES],
)
@run_async
async def test_hands_over_play_streams_equal_the_engine_replay(
    game: str, structure: int, players: int, buy_in: int, seed: int
) -> None:
    ledger = GateLedger()
    async with serving(ledger=ledger) as (server, stub):
        options = table_options(game, structure, buy_in)
        _, streams, spectator = await seated_table(stub, ledger, "g", options, seed, players)
        played = await drive(streams, spectator, HANDS, random_policy(random.Random(seed)))
        assert played >= 1
        await hands_ended([spectator, *streams.values()], played)

        replay = Replay.cash("g", options, seed, players)
        posted = replay.table.options.posted_buy_in
        started = ledger.of("g", "hand_started")
        for number in range(1, played + 1):
            record = replay.hand(number, spectator.events, streams)  # every event equal, every view exact
            served = hand_events(spectator.events, number)
            # The results spelled out: final stacks, pots and awards are the engine's.
            ended = served[-1].hand_ended
            assert list(ended.seats) == list(record.seats)
            final = [replay.table.seats[s - 1] for s in record.seats]
            assert list(ended.stacks) == [seat.stack if seat else None for seat in final]
            engine_awards = [(record.seats[e.player], e.amount) for e in record.events if type(e) is ev.PotAwarded]
            assert [(e.pot_awarded.seat, e.pot_awarded.amount) for e in served if e.HasField("pot_awarded")] == (
                engine_awards
            )
            last_pots = [e for e in record.events if type(e) is ev.PotsFormed][-1].pots
            assert sum(amount for _, amount in engine_awards) == sum(p.amount for p in last_pots)
            # The ledger heard of each hand before it was dealt, with the stacks it started with
            # (hand 1's entry was written when the second player sat: it names the first two).
            entry = started[number - 1]
            assert entry.hand_number == number
            stacks = {s.seat: s.stack for s in entry.seats}
            if number == 1:
                assert stacks == {1: posted, 2: posted}
            else:  # everyone seated; those not dealt in are broke
                dealt = dict(zip(record.seats, served[0].hand_started.stacks, strict=True))
                assert stacks == dealt | {seat: 0 for seat in stacks.keys() - dealt.keys()}
        # BET-7 across hands: every chip bought in is on the table, here and in the engine.
        assert sum(s.stack for s in replay.table.seats if s is not None) == players * posted
        assert exported(server, "tablestorm_chip_conservation_violations_total") == 0
        for stream in [spectator, *streams.values()]:
            await stream.close()


# ----------------------------------------------------------------- hidden cards, as a property


def _cards(event: pb.Event) -> list[int]:
    kind = event.WhichOneof("kind")
    if kind == "cards_dealt":
        return [*event.cards_dealt.down, *event.cards_dealt.up]
    if kind == "community_card":
        return [event.community_card.card]
    if kind == "drew":
        return [*event.drew.discarded, *event.drew.drawn]
    if kind == "hand_shown":
        return list(event.hand_shown.cards)
    return []


def assert_sees_no_hidden_card(viewer: int, got: Sequence[pb.Event], record: HandRecord) -> None:
    """``got`` is hand ``record`` as seat ``viewer`` (0: a spectator) received it.

    The truth is the engine's unfiltered record. Every face-down card a player ever held (dealt,
    drawn, discarded) stays secret from everyone else, except the cards that player shows at
    showdown (HandShown), which are public from then on. A discard and a mucked hand are never shown.
    """
    assert len(got) == len(record.events), (viewer, record.hand_number)
    seats = record.seats
    secret: dict[int, set[int]] = {seat: set() for seat in seats}
    shown: dict[int, set[int]] = {}
    mucked: set[int] = set()
    for event, truth in zip(got, record.events, strict=True):
        kind = event.WhichOneof("kind")
        if type(truth) is ev.CardsDealt:
            secret[seats[truth.player]].update(truth.down)
        elif type(truth) is ev.Drew:
            secret[seats[truth.player]].update(truth.drawn)  # discards were secret already
        elif type(truth) is ev.HandMucked:
            mucked.add(seats[truth.player])
        elif type(truth) is ev.HandShown:
            seat = seats[truth.player]
            assert seat not in mucked
            assert list(event.hand_shown.cards) == list(truth.cards)
            shown[seat] = set(truth.cards)
            continue  # the shown player's own cards, public now (one may be another's old discard)
        if kind == "cards_dealt" and event.cards_dealt.seat != viewer:
            assert all(card == HIDDEN for card in event.cards_dealt.down), (viewer, event)
        if kind == "drew" and event.drew.seat != viewer:
            assert all(card == HIDDEN for card in [*event.drew.discarded, *event.drew.drawn]), (viewer, event)
        own: set[int] = set()
        if kind == "cards_dealt" and event.cards_dealt.seat == viewer:
            own = set(event.cards_dealt.down)
        elif kind == "drew" and event.drew.seat == viewer:
            own = {*event.drew.discarded, *event.drew.drawn}
        visible = set(_cards(event)) - own - {HIDDEN}
        for seat, cards in secret.items():
            if seat != viewer:
                leaked = visible & (cards - shown.get(seat, set()))
                assert not leaked, f"seat {viewer} saw seat {seat}'s face-down {sorted(leaked)} in {event}"
    assert not mucked & shown.keys()


async def _hidden_cards_example(data: st.DataObject) -> None:
    game, structure = data.draw(st.sampled_from(CONFIGS), label="game")
    players = data.draw(st.integers(2, 5 if game == "7a5draw" else 8), label="players")
    buy_in = data.draw(st.sampled_from([0, 40, 150]), label="buy_in")  # short stacks: all-ins, side pots
    seed = data.draw(st.integers(0, 2**32), label="seed")
    hands = data.draw(st.integers(1, 2), label="hands")
    ledger = GateLedger()
    async with serving(ledger=ledger) as (_, stub):
        options = table_options(game, structure, buy_in)
        tokens, streams, spectator = await seated_table(stub, ledger, "p", options, seed, players)

        def decide(stream: Stream, turn: pb.YourTurn) -> Decision:
            option = data.draw(st.sampled_from(list(turn.legal)))
            if option.kind == pb.ACTION_KIND_DRAW:
                cards = stream.own_down(turn.hand_number)
                discard = data.draw(st.lists(st.sampled_from(cards), max_size=option.max, unique=True))
                return option.kind, 0, discard
            if option.kind not in AMOUNT_KINDS:
                return option.kind, 0, ()
            if structure == FIXED:
                return option.kind, data.draw(st.sampled_from([option.min, option.max])), ()
            return option.kind, data.draw(st.integers(option.min, option.max)), ()

        played = await drive(streams, spectator, hands, decide)
        await hands_ended([spectator, *streams.values()], played)
        replay = Replay.cash("p", options, seed, players)
        histories = {
            seat: await stub.GetHistory(pb.SeatRequest(table_id="p", seat=seat), metadata=token(tokens[seat]))
            for seat in streams
        }
        for number in range(1, played + 1):
            record = replay.hand(number, spectator.events, streams)
            assert_sees_no_hidden_card(0, hand_events(spectator.events, number), record)
            for seat, stream in streams.items():
                assert_sees_no_hidden_card(seat, hand_events(stream.events, number), record)
                if seat in record.seats:  # SHOW-4: the history is the seat's own view too
                    kept = next(h for h in histories[seat].hands if h.hand_number == number)
                    assert_sees_no_hidden_card(seat, list(kept.events), record)
        for stream in [spectator, *streams.values()]:
            await stream.close()


def _run_hidden_cards_property(examples: int) -> None:
    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def prop(data: st.DataObject) -> None:
        # A fresh server per example (a few milliseconds): examples and their shrinks replay exactly.
        asyncio.run(asyncio.wait_for(_hidden_cards_example(data), 4 * TIMEOUT))

    prop()


def test_no_seat_sees_another_seats_face_down_cards() -> None:
    _run_hidden_cards_property(40)


@pytest.mark.slow
def test_no_seat_sees_another_seats_face_down_cards_slow() -> None:
    _run_hidden_cards_property(500)
