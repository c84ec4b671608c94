"""Hand evaluations per second: our pure-Python rankings against PokerKit, treys, eval7 and phevaluator.

Every library ranks the same seeded random 7-card hands, each converted to the library's own card
representation before any clock starts, through its usual entry point:

- ours: ``high_strength(cards)`` on card ints (also ``low8_strength`` and the two short decks,
  whose hands are drawn from their own decks);
- PokerKit 0.7.7: ``StandardHighHand.from_game(cards)`` on parsed ``Card`` tuples (the 8-or-better
  low: ``EightOrBetterLowHand.from_game_or_none``, as most hands have no low). PokerKit is some
  three orders of magnitude slower, so it ranks a fixed prefix of the hands (``--pokerkit-hands``);
- treys: ``Evaluator().evaluate(hole, board)``, two hole cards and a five-card board;
- eval7: ``eval7.evaluate(list_of_Card)`` (C extension);
- phevaluator: ``evaluate_cards(*card_ids)`` on ints (C extension).

Runs interleave the libraries (run 1 of each, then run 2 of each, ...) so that a busy machine
slows them all alike; each run is timed in process CPU time, so time spent descheduled does not
count, and the rate reported is the median over the runs (the spread and the load average are
printed too). A loaded machine still hurts the pure-Python evaluators more than the C ones: their
tables compete for the caches other processes thrash. Compare ratios from a quiet machine.

Usage: ``python benchmarks/evaluators.py [--hands 100000] [--runs 5] [--pokerkit-hands 10000]``;
the last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import eval7  # type: ignore[import-untyped]
from phevaluator import evaluate_cards  # type: ignore[import-untyped]
from pokerkit import Card as PokerKitCard
from pokerkit import EightOrBetterLowHand, StandardHighHand
from treys import Card as TreysCard  # type: ignore[import-untyped]
from treys import Evaluator as TreysEvaluator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tablestorm.services.engine.cards import DECK_32, DECK_36, DECK_52, card_str, cards_str
from tablestorm.services.engine.evaluation import SHORT_DECK_32, SHORT_DECK_36, high_strength, low8_strength

Hand = list[int]


@dataclass(frozen=True)
class Case:
    """One timed loop: ``run()`` evaluates ``count`` hands once."""

    key: str
    label: str
    count: int
    run: Callable[[], None]


def deal(deck: Sequence[int], count: int, seed: int) -> list[Hand]:
    rng = random.Random(seed)
    return [rng.sample(deck, 7) for _ in range(count)]


def ours_case(key: str, label: str, evaluate: Callable[[Sequence[int]], int], hands: list[Hand]) -> Case:
    def run() -> None:
        for hand in hands:
            evaluate(hand)

    return Case(key, label, len(hands), run)


def pokerkit_case(
    key: str, label: str, evaluate: Callable[[Sequence[PokerKitCard]], object], hands: list[Hand]
) -> Case:
    parsed = [PokerKitCard.clean(cards_str(hand, "")) for hand in hands]

    def run() -> None:
        for hand in parsed:
            evaluate(hand)

    return Case(key, label, len(hands), run)


def treys_case(hands: list[Hand]) -> Case:
    evaluate = TreysEvaluator().evaluate
    converted = [[TreysCard.new(card_str(card)) for card in hand] for hand in hands]
    split = [(hand[:2], hand[2:]) for hand in converted]

    def run() -> None:
        for hole, board in split:
            evaluate(hole, board)

    return Case("treys", "treys Evaluator.evaluate(hole, board)", len(hands), run)


def eval7_case(hands: list[Hand]) -> Case:
    evaluate = eval7.evaluate
    converted = [[eval7.Card(card_str(card)) for card in hand] for hand in hands]

    def run() -> None:
        for hand in converted:
            evaluate(hand)

    return Case("eval7", "eval7.evaluate(cards)", len(hands), run)


def phevaluator_case(hands: list[Hand]) -> Case:
    converted = [tuple(hand) for hand in hands]  # phevaluator's card ids are rank * 4 + suit, as ours

    def run() -> None:
        for hand in converted:
            evaluate_cards(*hand)

    return Case("phevaluator", "phevaluator.evaluate_cards(*ids)", len(hands), run)


def measure(cases: list[Case], runs: int) -> dict[str, list[float]]:
    """Hands per second of each case in each of ``runs`` interleaved runs."""
    rates: dict[str, list[float]] = {case.key: [] for case in cases}
    for _ in range(runs):
        for case in cases:
            gc.collect()
            start = time.process_time()
            case.run()
            rates[case.key].append(case.count / (time.process_time() - start))
    return rates


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--hands", type=int, default=100_000, help="7-card hands per library (default 100000)"
    )
    parser.add_argument("--runs", type=int, default=5, help="timed runs per library; the median is reported")
    parser.add_argument(
        "--pokerkit-hands", type=int, default=10_000, help="PokerKit ranks this prefix of the hands"
    )
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)

    hands = deal(DECK_52, args.hands, args.seed)
    prefix = hands[: args.pokerkit_hands]
    cases = [
        ours_case("tablestorm", "tablestorm high_strength(ints)", high_strength, hands),
        pokerkit_case("pokerkit", "PokerKit StandardHighHand.from_game", StandardHighHand.from_game, prefix),
        treys_case(hands),
        eval7_case(hands),
        phevaluator_case(hands),
        ours_case("tablestorm_low8", "tablestorm low8_strength(ints)", low8_strength, hands),
        pokerkit_case(
            "pokerkit_low8",
            "PokerKit EightOrBetterLowHand.from_game_or_none",
            EightOrBetterLowHand.from_game_or_none,
            prefix,
        ),
        ours_case(
            "tablestorm_short_deck_32",
            "tablestorm SHORT_DECK_32 (32-card deck)",
            SHORT_DECK_32.evaluate,
            deal(DECK_32, args.hands, args.seed + 1),
        ),
        ours_case(
            "tablestorm_short_deck_36",
            "tablestorm SHORT_DECK_36 (36-card deck)",
            SHORT_DECK_36.evaluate,
            deal(DECK_36, args.hands, args.seed + 2),
        ),
    ]
    load = os.getloadavg()[0]
    runs = measure(cases, args.runs)
    rates = {key: statistics.median(values) for key, values in runs.items()}

    print(
        f"7-card evaluations per second (CPU time), median of {args.runs} interleaved runs, "
        f"seed {args.seed}, load average {load:.2f} on {os.cpu_count()} CPUs"
    )
    print(f"{'entry point':52} {'hands':>8} {'hands/s':>12} {'min..max':>21} {'vs eval7':>9}")
    for case in cases:
        rate, spread = rates[case.key], f"{min(runs[case.key]):,.0f}..{max(runs[case.key]):,.0f}"
        print(f"{case.label:52} {case.count:>8,} {rate:>12,.0f} {spread:>21} {rate / rates['eval7']:>8.2f}x")
    ratio_vs_eval7 = rates["tablestorm"] / rates["eval7"]
    ratio_vs_pokerkit = rates["tablestorm"] / rates["pokerkit"]
    print(
        f"tablestorm high: {ratio_vs_eval7:.2f}x eval7, {ratio_vs_pokerkit:.0f}x PokerKit "
        f"(PokerKit timed on the first {len(prefix):,} of the same hands); "
        f"low8: {rates['tablestorm_low8'] / rates['pokerkit_low8']:.0f}x PokerKit's low"
    )
    print(
        json.dumps(
            {
                "hands": args.hands,
                "pokerkit_hands": len(prefix),
                "runs": args.runs,
                "seed": args.seed,
                "load_average": round(load, 2),
                "rates": {key: round(rate) for key, rate in rates.items()},
                "ratio_vs_eval7": round(ratio_vs_eval7, 3),
                "ratio_vs_pokerkit": round(ratio_vs_pokerkit, 1),
                "low8_ratio_vs_pokerkit": round(rates["tablestorm_low8"] / rates["pokerkit_low8"], 1),
            }
        )
    )


if __name__ == "__main__":
    main()
