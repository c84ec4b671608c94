"""The action clock on a real server (127.0.0.1) with silent players: every CLOCK-2 branch, with
exact chips, and CLOCK-3's sitting out.

CLOCK-2: a player whose clock runs out checks when checking is free; otherwise, having already put
chips in voluntarily this hand (a call, bet, raise or completion; not the ante, blinds or
bring-in), is all-in for what is already in, contesting only the pots up to that amount, the rest
of the betting going to side pots; having not, folds. The engine also posts a timed-out bring-in
(STUD-3) and stands pat for a timed-out draw (DRAW-4). CLOCK-3: a timed-out player sits out after
the hand until they ask to return.

The server's clocks are a ``ManualClock``: a turn's clock runs out when the test runs it out, which
it does the moment a silent player's turn arrives, and never while a player who acts is deciding.
However loaded the machine, the players who act are never too slow for the clock, so each
scenario runs once and its result is the rules', not the scheduler's.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict

from support.running import run_async
from support.table_replay import Replay, hand_events
from support.table_server import GateLedger, ManualClock, exported, serving, token
from support.table_streams import Stream, play_hand, play_script, seated_table

from tablestorm.services.api import table_service_pb2 as pb

CLOCK = 0.2
"""The clock the tables announce (YourTurn's deadline); the ``ManualClock`` decides when it runs out."""
K = pb  # the enums, by a short name


def commitments(events: list[pb.Event]) -> dict[int, int]:
    """Chips each seat put in the hand, from its public events."""
    put: dict[int, int] = defaultdict(int)
    for e in events:
        if e.HasField("forced_bet"):
            put[e.forced_bet.seat] += e.forced_bet.amount
        elif e.HasField("acted"):
            put[e.acted.seat] += e.acted.added
        elif e.HasField("bet_returned"):
            put[e.bet_returned.seat] -= e.bet_returned.amount
    return dict(put)


def outcomes(events: list[pb.Event], seat: int) -> list[int]:
    return [e.timed_out.outcome for e in events if e.HasField("timed_out") and e.timed_out.seat == seat]


def sat_out(stream: Stream, seat: int) -> bool:
    return any(
        c.seat.seat == seat and c.seat.status == pb.SEAT_STATUS_SITTING_OUT for c in stream.of("seat_changed")
    )


# ----------------------------------------------------------------- stud: check, all-in (side pot), fold

A, B, S, F = 1, 2, 3, 4
"""Seven Card Stud: A and B play on; S calls on third street, then goes silent; F is silent."""
STUD = pb.TableOptions(game="7stud", stakes=pb.Stakes(small_bet=10), clock_seconds=CLOCK)  # ante 1, bring-in 5
STUD_SEED = 1
"""Deals seat 4 (F) the lowest door card at table "clock": F's clock posts the bring-in."""


def stud_policy(seat: int, street: int, legal: dict[int, pb.LegalAction]) -> tuple[int, int] | None:
    def first(*kinds: int) -> tuple[int, int]:
        kind = next((k for k in kinds if k in legal), None)
        assert kind is not None, f"seat {seat}, street {street}: none of {kinds} in {sorted(legal)}"
        return kind, legal[kind].min

    if seat == F or (seat == S and street > 0):
        return None
    if street == 0:  # A completes the bring-in; B and S call
        if seat == A:
            return first(K.ACTION_KIND_COMPLETE, K.ACTION_KIND_CALL, K.ACTION_KIND_CHECK)
        return first(K.ACTION_KIND_CALL, K.ACTION_KIND_CHECK, K.ACTION_KIND_BRING_IN)
    if street == 2:  # fifth street: A bets, B raises once, then calls
        if seat == A:
            return first(K.ACTION_KIND_BET, K.ACTION_KIND_CALL, K.ACTION_KIND_CHECK)
        return first(K.ACTION_KIND_RAISE, K.ACTION_KIND_CALL, K.ACTION_KIND_CHECK)
    return first(K.ACTION_KIND_CHECK, K.ACTION_KIND_CALL)


@run_async
async def test_silent_players_check_go_all_in_for_what_they_put_in_and_fold() -> None:
    """CLOCK-2 in Seven Card Stud: bring-in and fold for a player silent from the deal; check,
    then all-in for the chips already in (a side pot it cannot win) for one silent after calling;
    CLOCK-3 for both."""
    ledger, clock = GateLedger(), ManualClock()
    async with serving(ledger=ledger, timers=clock) as (server, stub):
        tokens, streams, spectator = await seated_table(stub, ledger, "clock", STUD, STUD_SEED, 4)
        assert await play_script(streams, spectator, 1, stud_policy, clock.run_out)
        hand = hand_events(spectator.events, 1)
        assert not outcomes(hand, A) and not outcomes(hand, B)  # the players who act acted
        # F: its clock posted the bring-in (STUD-3), then, nothing voluntary in, folded.
        assert outcomes(hand, F) == [K.TIMEOUT_OUTCOME_BRING_IN, K.TIMEOUT_OUTCOME_FOLD]
        # S called on third street (voluntary): checked while free, then all-in for what was in.
        s_outcomes = outcomes(hand, S)
        assert s_outcomes[-1] == K.TIMEOUT_OUTCOME_ALL_IN and len(s_outcomes) >= 2
        assert set(s_outcomes[:-1]) == {K.TIMEOUT_OUTCOME_CHECK}
        # The side pot: S contests only the layer up to its 11 chips (ante 1 + the completion's 10).
        put = commitments(hand)
        assert put == {F: 6, S: 11, A: 51, B: 51}  # A bet 20 on fifth street, B raised to 40, A called
        pots = [e.pots_formed for e in hand if e.HasField("pots_formed")][-1].pots
        main, side = sum(min(c, put[S]) for c in put.values()), sum(max(0, c - put[S]) for c in put.values())
        assert [(p.amount, list(p.eligible_seats)) for p in pots] == [(main, [A, B, S]), (side, [A, B])]
        assert (main, side) == (39, 80)
        awards = [e.pot_awarded for e in hand if e.HasField("pot_awarded")]
        assert all(a.pot == 0 for a in awards if a.seat == S)
        ended = hand[-1].hand_ended
        stacks = dict(zip(ended.seats, ended.stacks, strict=True))
        assert stacks[S] == 2000 - 11 + sum(a.amount for a in awards if a.seat == S)
        assert stacks[F] == 2000 - 6
        assert sum(stacks.values()) == 4 * 2000
        # Exact chips and every event: the engine, given the same seed and the same decisions and
        # clock expiries, plays the very same hand.
        Replay.cash("clock", STUD, STUD_SEED, 4).hand(1, spectator.events, streams)
        assert exported(server, "tablestorm_timeouts_total", outcome="all_in") == 1
        assert exported(server, "tablestorm_side_pots_total") == 1

        # CLOCK-3: S and F sit out after the hand; the next hand is dealt to A and B only.
        await spectator.until(lambda: sat_out(spectator, S) and sat_out(spectator, F))
        await spectator.until(lambda: len(spectator.of("hand_started")) == 2)
        assert list(spectator.of("hand_started")[1].seats) == [A, B]
        # Asking to return deals S in again from the next hand.
        back = await stub.SitIn(pb.SitInRequest(table_id="clock", seat=S), metadata=token(tokens[S]))
        assert back.status == pb.SEAT_STATUS_PLAYING
        await play_hand({A: streams[A], B: streams[B]}, 2)
        await spectator.until(lambda: len(spectator.of("hand_started")) == 3)
        assert not outcomes(hand_events(spectator.events, 2), A) and not outcomes(hand_events(spectator.events, 2), B)
        assert list(spectator.of("hand_started")[2].seats) == [A, B, S]
        assert exported(server, "tablestorm_chip_conservation_violations_total") == 0
        for stream in [spectator, *streams.values()]:
            await stream.close()


# ----------------------------------------------------------------- draw: stand pat, check, all-in

DRAW = pb.TableOptions(game="7a5draw", stakes=pb.Stakes(small_bet=10), clock_seconds=CLOCK)  # blinds 5/10
DRAW_SEED = 3


def draw_policy(seat: int, street: int, legal: dict[int, pb.LegalAction]) -> tuple[int, int] | None:
    """Heads-up: A (the button, small blind) raises; S calls, then goes silent. A stands pat and bets."""
    if seat == S and (street > 0 or K.ACTION_KIND_DRAW in legal):  # the draw precedes round 1's RoundStarted
        return None
    for kind in (K.ACTION_KIND_RAISE, K.ACTION_KIND_DRAW, K.ACTION_KIND_BET) if seat == A else (K.ACTION_KIND_CALL,):
        if kind in legal:
            return kind, legal[kind].min
    raise AssertionError(f"seat {seat}: no scripted action among {sorted(legal)}")


@run_async
async def test_a_silent_drawer_stands_pat_checks_and_goes_all_in() -> None:
    """CLOCK-2 in Seven-to-Ace draw: stand pat at the draw, check when free, all-in when facing a bet."""
    ledger, clock = GateLedger(), ManualClock()
    async with serving(ledger=ledger, timers=clock) as (_, stub):
        # Seats 1 (A) and 3 (S), so the names match the stud test.
        await stub.CreateTable(pb.CreateTableRequest(table_id="draw", options=DRAW, seed=DRAW_SEED))
        changed = asyncio.Condition()
        spectator = Stream(stub, "draw", changed=changed)
        streams: dict[int, Stream] = {}
        for seat in (A, S):
            reply = await stub.SitDown(pb.SitDownRequest(table_id="draw", seat=seat, player_id=f"p{seat}"))
            streams[seat] = Stream(stub, "draw", seat, reply.seat_token, changed=changed)
        await spectator.until(lambda: all(s.welcome is not None for s in [spectator, *streams.values()]))
        ledger.gate("draw").set()
        assert await play_script(streams, spectator, 1, draw_policy, clock.run_out)
        hand = hand_events(spectator.events, 1)
        assert not outcomes(hand, A)  # the player who acts acted
        # S called the raise (voluntary): stood pat at the draw, checked first, then all-in.
        assert outcomes(hand, S) == [K.TIMEOUT_OUTCOME_STAND_PAT, K.TIMEOUT_OUTCOME_CHECK, K.TIMEOUT_OUTCOME_ALL_IN]
        drew = [e.drew for e in hand if e.HasField("drew") and e.drew.seat == S]
        assert [list(d.discarded) for d in drew] == [[]]
        # Heads-up, nobody is left to call A's bet of 20: it comes back (BET-6); the pot is 20 + 20.
        assert [(e.bet_returned.seat, e.bet_returned.amount) for e in hand if e.HasField("bet_returned")] == [(A, 20)]
        pots = [e.pots_formed for e in hand if e.HasField("pots_formed")][-1].pots
        assert [(p.amount, list(p.eligible_seats)) for p in pots] == [(40, [A, S])]
        ended = hand[-1].hand_ended
        assert sorted(ended.stacks) == [1980, 2020] and "hand_shown" in [e.WhichOneof("kind") for e in hand]
        replay = Replay.cash("draw", DRAW, DRAW_SEED, 0)
        replay.table.sit_down(A, f"p{A}", 2000)
        replay.table.sit_down(S, f"p{S}", 2000)
        replay.hand(1, spectator.events, streams)
        await spectator.until(lambda: sat_out(spectator, S))  # CLOCK-3: A is alone, no hand is dealt
        for stream in [spectator, *streams.values()]:
            await stream.close()
