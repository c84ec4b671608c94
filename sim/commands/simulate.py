"""``tablestorm simulate``: random legal hands in-process, and how many a second the engine plays."""

from __future__ import annotations

import argparse
from typing import Final

from tablestorm.sim.inputs import COUNT, GAMES, PROBABILITY, SEED, STRUCTURES, flag

__all__ = ["DEFAULT_FOLD", "DEFAULT_RAISE", "register", "run"]

DEFAULT_FOLD: Final = 0.15
DEFAULT_RAISE: Final = 0.25
"""--policy benchmark: the chances to fold to a bet and to bet or raise when open."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm simulate``: play random legal hands in-process and measure hands per second.

    Every hand starts from fresh stacks (the table's buy-in unless --stack), the button moves one
    seat a hand; with --seed the run is reproducible (cards from (seed, "simulate", hand number),
    actions from a random.Random(seed)). Prints a summary line, then a JSON line with the counts.
    """
    p = sub.add_parser("simulate", help="play random hands in-process and print hands/s",
                       description=register.__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=GAMES, metavar="GAME", help="the game: %(choices)s")
    p.add_argument("--players", type=flag(COUNT), default=None,
                   help="players dealt in (default 6, or the game's maximum if lower)")
    p.add_argument("--hands", type=flag(COUNT), default=1000, help="hands to play (default 1000)")
    p.add_argument("--seed", type=flag(SEED), default=None, help="make the run reproducible (TABLE-2)")
    p.add_argument("--structure", choices=STRUCTURES, default=None, metavar="STRUCTURE",
                   help="betting structure: %(choices)s (default fixed_limit; pot/no limit: 7a5draw only)")
    p.add_argument("--policy", choices=("random", "benchmark"), default="random",
                   help="random: uniform over legal actions; benchmark: fold/raise probabilities")
    p.add_argument("--fold", type=flag(PROBABILITY), default=None, metavar="P",
                   help=f"benchmark only: fold to a bet (default {DEFAULT_FOLD})")
    p.add_argument("--raise", dest="raise_", type=flag(PROBABILITY), default=None, metavar="P",
                   help=f"benchmark only: bet or raise when open (default {DEFAULT_RAISE})")
    p.add_argument("--small-bet", type=flag(COUNT), default=2,
                   help="stakes from the small bet, the default stakes of docs/rules.md STUD-3 and DRAW-2 "
                   "(default 2)")
    p.add_argument("--stack", type=flag(COUNT), default=None, help="starting stack (default: the buy-in, TABLE-1)")
    p.add_argument("--timeout-rate", type=flag(PROBABILITY), default=0.0, metavar="P",
                   help="chance each turn times out (CLOCK-2), default 0")
    p.set_defaults(parser=p)  # its refusals read as argparse's own (usage line, exit 2)


def run(args: argparse.Namespace) -> int:
    """Play the hands ``args`` asks for and print the counts; the exit status."""
    import json
    import random
    import time

    from tablestorm.services.engine import Stakes, Structure, TableOptions, shuffler_for, variant_named
    from tablestorm.services.engine.events import Acted, HandEnded, PotsFormed, TimedOut
    from tablestorm.services.fields import FieldError
    from tablestorm.sim.random_play import benchmark_policy, play_random_hand, random_action

    parser: argparse.ArgumentParser = args.parser
    if args.policy != "benchmark":
        given = [name for name, value in (("--fold", args.fold), ("--raise", args.raise_)) if value is not None]
        if given:
            parser.error(f"argument {given[0]}: applies to --policy benchmark only")
    variant = variant_named(args.game)
    structure = Structure(args.structure) if args.structure else Structure.FIXED_LIMIT
    if structure not in variant.structures:
        offered = ", ".join(sorted(s.value for s in variant.structures))
        parser.error(f"argument --structure: {variant.name} is played {offered}, not {structure.value}")
    players = args.players if args.players is not None else min(6, variant.max_players)
    if not 2 <= players <= variant.max_players:
        parser.error(f"argument --players: {variant.name} is played by 2 to {variant.max_players} players, "
                     f"not {players}")
    stakes = Stakes.default(args.small_bet)
    try:
        options = TableOptions(variant, stakes, structure=structure)
    except FieldError as exc:
        parser.error(f"argument --small-bet: {exc}")
    stack = args.stack if args.stack is not None else options.posted_buy_in
    policy = (
        benchmark_policy(_or(args.fold, DEFAULT_FOLD), _or(args.raise_, DEFAULT_RAISE))
        if args.policy == "benchmark"
        else random_action
    )
    rng = random.Random(args.seed)
    counts = {"actions": 0, "timeouts": 0, "showdowns": 0, "uncontested": 0, "all_ins": 0, "side_pots": 0}
    started = time.perf_counter()
    for number in range(args.hands):
        hand = play_random_hand(
            options,
            [stack] * players,
            rng,
            policy=policy,
            button=number % players,
            shuffler=shuffler_for(args.seed, "simulate", number),
            timeout_rate=args.timeout_rate,
        )
        final_pots = 1
        for event in hand.events:
            if isinstance(event, Acted):
                counts["actions"] += 1
                counts["all_ins"] += event.all_in
            elif isinstance(event, TimedOut):
                counts["timeouts"] += 1
            elif isinstance(event, PotsFormed):
                final_pots = len(event.pots)
            elif isinstance(event, HandEnded):
                counts["showdowns" if event.showdown else "uncontested"] += 1
        counts["side_pots"] += final_pots > 1
    seconds = time.perf_counter() - started
    rate = args.hands / seconds if seconds > 0 else float("inf")
    print(f"simulated {args.hands} hands of {variant.name} ({players} players, "
          f"{structure.value.replace('_', ' ')}) in {seconds:.2f} s: {rate:,.0f} hands/s")
    print(json.dumps({
        "game": variant.code,
        "structure": structure.value,
        "players": players,
        "hands": args.hands,
        "seed": args.seed,
        "policy": args.policy,
        "seconds": round(seconds, 6),
        "hands_per_second": round(rate, 1),
        **counts,
    }))
    return 0


def _or(value: float | None, default: float) -> float:
    return default if value is None else value
