"""Complete random-action hands per second: our engine against PokerKit, same policy, same run.

Policy for every engine: facing a bet, fold 10% of the time; when a bet, completion or raise is
allowed, make the smallest one 20% of the time; otherwise check or call (the stud bring-in
player brings in unless the 20% roll completes). Both engines draw from their own seeded RNG
stream with the same seed, deal with their own shuffles, and play to the end of the hand,
showdown included. PokerKit runs with every automation on, in cash-game mode, warnings off.

Also reported: the memory of a live 8-player hand (tracemalloc, after third street's betting,
averaged over 100 hands held at once) and of 10,000 idle cash tables with eight seated players each.

Usage: ``python benchmarks/engine.py [--runs 5] [--seconds 1.0]``; the last line is JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tablestorm.services.engine import (
    SEVEN_CARD_STUD,
    SEVEN_CARD_STUD_HILO,
    SEVEN_TO_ACE_DRAW,
    Action,
    ActionKind,
    Hand,
    SecureShuffler,
    Stakes,
    Structure,
    TableOptions,
    Variant,
)
from tablestorm.services.engine.table import CashTable

FOLD_P, RAISE_P = 0.10, 0.20
SMALL_BET = 10  # ante 1, bring-in 5, 10/20
STACK = 1000
DRAW = ActionKind.DRAW
PASSIVE = (ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN)
FOLD_ACTION = Action(ActionKind.FOLD)
CHECK_ACTION = Action(ActionKind.CHECK)
CALL_ACTION = Action(ActionKind.CALL)


def ours(
    variant: Variant, players: int, structure: Structure = Structure.FIXED_LIMIT
) -> Callable[[random.Random], int]:
    """A function playing one hand with the policy; returns the number of actions."""
    options = TableOptions(variant, Stakes.default(SMALL_BET), structure=structure)
    stacks = [STACK] * players
    shuffler = SecureShuffler()
    fold_kind = ActionKind.FOLD

    def play(rng: random.Random) -> int:
        hand = Hand(options, stacks, shuffler, button=0)
        r = rng.random
        actions = 0
        while hand.actor >= 0:
            legal = hand.legal_actions()
            first = legal[0]
            if first.kind is DRAW:
                held = hand.down[hand.actor]
                hand.apply(Action(DRAW, 0, tuple(rng.sample(held, rng.randint(0, 3)))))
            else:
                x = r()
                last = legal[-1]
                if x < FOLD_P and first.kind is fold_kind:
                    hand.apply(FOLD_ACTION)
                elif x < FOLD_P + RAISE_P and last.kind not in PASSIVE and last.kind is not fold_kind:
                    hand.apply(Action(last.kind, last.min))
                elif first.kind is fold_kind:
                    hand.apply(CALL_ACTION)
                elif first.kind is ActionKind.CHECK:
                    hand.apply(CHECK_ACTION)
                else:
                    hand.apply(Action(first.kind, first.min))  # the bring-in
            actions += 1
        return actions

    return play


def pokerkit(hilo: bool, players: int) -> Callable[[random.Random], int]:
    import pokerkit as pk

    game = pk.FixedLimitSevenCardStudHighLowSplitEightOrBetter if hilo else pk.FixedLimitSevenCardStud
    automations = tuple(a for a in pk.Automation if a is not pk.Automation.RUNOUT_COUNT_SELECTION)
    stakes = Stakes.default(SMALL_BET)

    def play(rng: random.Random) -> int:
        state = game.create_state(
            automations, True, stakes.ante, stakes.bring_in, stakes.small_bet, stakes.big_bet,
            [STACK] * players, players, mode=pk.Mode.CASH_GAME,
        )
        r = rng.random
        actions = 0
        while state.status:
            x = r()
            facing = state.checking_or_calling_amount
            if x < FOLD_P and facing and state.can_fold():
                state.fold()
            elif x < FOLD_P + RAISE_P and state.can_complete_bet_or_raise_to():
                state.complete_bet_or_raise_to()
            elif state.can_post_bring_in():
                state.post_bring_in()
            else:
                state.check_or_call()
            actions += 1
        return actions

    return play


def rate(play: Callable[[random.Random], int], seconds: float, runs: int, seed: int) -> dict[str, float]:
    """Median hands/s over ``runs`` timed runs of about ``seconds`` each."""
    rng = random.Random(seed)
    play(rng)  # warm up caches and imports
    rates, per_hand = [], []
    for _ in range(runs):
        hands = actions = 0
        gc.collect()
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            actions += play(rng)
            hands += 1
            if hands % 16 == 0 and time.perf_counter() >= deadline:
                break
        elapsed = time.perf_counter() - start
        rates.append(hands / elapsed)
        per_hand.append(actions / hands)
    return {"hands_per_s": statistics.median(rates), "actions_per_hand": statistics.mean(per_hand)}


def live_hand_bytes(count: int = 100, rounds: int = 5) -> int:
    """tracemalloc bytes per 8-player stud hand after third street's betting, ``count`` held at once.

    An average over many live hands, as a table service holds them, so that interpreter caches
    do not land on one hand; the least of a few rounds, because a round in which the shuffler's
    64 KiB CSPRNG pool refills (about one deal in 300) counts the new pool.
    """
    options = TableOptions(SEVEN_CARD_STUD, Stakes.default(SMALL_BET))
    shuffler = SecureShuffler()
    Hand(options, [STACK] * 8, shuffler)  # fills the pool and the interpreter's caches first
    per_hand = []
    for _ in range(rounds):
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        hands = []
        for _ in range(count):
            hand = Hand(options, [STACK] * 8, shuffler)
            while hand.street == 0 and hand.actor >= 0:
                legal = hand.legal_actions()
                hand.apply(Action(legal[-1].kind, legal[-1].min) if legal[0].kind is ActionKind.BRING_IN
                           else CALL_ACTION if legal[0].kind is ActionKind.FOLD else CHECK_ACTION)
            assert hand.street == 1 and not hand.is_over
            hands.append(hand)
        per_hand.append((tracemalloc.get_traced_memory()[0] - before - sys.getsizeof(hands)) // count)
        tracemalloc.stop()
        del hands
    return min(per_hand)


def idle_tables_bytes(count: int) -> int:
    options = TableOptions(SEVEN_CARD_STUD, Stakes.default(SMALL_BET))
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tables = []
    for t in range(count):
        table = CashTable(f"table-{t}", options)
        for seat in range(1, 9):
            table.sit_down(seat, f"p{t}-{seat}", options.posted_buy_in)
        tables.append(table)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return after - before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per engine (median kept)")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timed run")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # PokerKit warns on every dealt-again mucked card

    cases: list[tuple[str, Callable[[random.Random], int], Callable[[random.Random], int] | None]] = [
        ("7stud_8p", ours(SEVEN_CARD_STUD, 8), pokerkit(False, 8)),
        ("7stud8_8p", ours(SEVEN_CARD_STUD_HILO, 8), pokerkit(True, 8)),
        ("7stud_2p", ours(SEVEN_CARD_STUD, 2), pokerkit(False, 2)),
        ("7a5draw_5p_fixed", ours(SEVEN_TO_ACE_DRAW, 5), None),
        ("7a5draw_5p_pot", ours(SEVEN_TO_ACE_DRAW, 5, Structure.POT_LIMIT), None),
        ("7a5draw_5p_no", ours(SEVEN_TO_ACE_DRAW, 5, Structure.NO_LIMIT), None),
    ]
    result: dict[str, Any] = {"runs": args.runs, "seconds_per_run": args.seconds}
    print(f"{'case':20} {'ours hands/s':>14} {'pokerkit':>10} {'ratio':>8} {'actions/hand':>13}")
    for name, mine, theirs in cases:
        a = rate(mine, args.seconds, args.runs, args.seed)
        row: dict[str, Any] = {
            "ours": round(a["hands_per_s"], 1),
            "actions_per_hand": round(a["actions_per_hand"], 1),
        }
        line = f"{name:20} {a['hands_per_s']:14,.0f}"
        if theirs is not None:
            b = rate(theirs, args.seconds, args.runs, args.seed)
            row["pokerkit"] = round(b["hands_per_s"], 1)
            row["pokerkit_actions_per_hand"] = round(b["actions_per_hand"], 1)
            row["ratio_vs_pokerkit"] = round(a["hands_per_s"] / b["hands_per_s"], 1)
            line += f" {b['hands_per_s']:10,.1f} {row['ratio_vs_pokerkit']:7.1f}x"
        else:
            line += f" {'-':>10} {'-':>8}"
        print(line + f" {a['actions_per_hand']:13.1f}", flush=True)
        result[name] = row
    result["live_8p_hand_bytes"] = live_hand_bytes()
    result["idle_tables_10000_bytes"] = idle_tables_bytes(10_000)
    print(f"a live 8-player stud hand: {result['live_8p_hand_bytes']:,} bytes (mean of 100 held at once)")
    print(f"10,000 idle tables (8 seated each): {result['idle_tables_10000_bytes'] / 2**20:,.1f} MiB")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
