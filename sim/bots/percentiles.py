"""Where a holding stands among all the holdings of its game, street and card count (0..1).

Thresholds written as shares of hands ("open the best 20 %", "call a shove with the best 41 %") are
what published ranges and push/fold charts give, and a share means the same in every game only
when it is measured in that game: a pair is the top quarter of three stud cards but below the
median of five short-deck cards. So each (game, deck, cards held, drawn or not) gets the sorted
ratings of random holdings, sampled once per process from a fixed seed (a few milliseconds each),
and a holding's percentile is its mid-rank among them.

The rating is :func:`~tablestorm.sim.bots.strategies.strength` (made category, rank, draws, the
8-or-better low) with the exact evaluator value as a tie-break, so equal classes spread evenly
instead of forming steps. A draw game's drawn holdings are sampled after the same discards the
players make (:func:`~tablestorm.sim.bots.strategies.draw_discards`).
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from functools import cache
from typing import Final

from tablestorm.services.engine.evaluation import BOARD
from tablestorm.services.engine.variants import VARIANTS
from tablestorm.sim.bots.strategies import Legal, View, draw_discards, strength

__all__ = ["SAMPLES", "percentile"]

SAMPLES: Final = 4000
"""Random holdings per table: percentiles to about +-1 % (the binomial error at the median)."""
_TIE_BREAK: Final = 1e-10
"""Scales an exact evaluator value (< 2**24) to below the smallest step between two scores."""
_DRAW: Final = (Legal("draw", 0, 5),)


def _rating(view: View) -> float:
    own = [*view.down, *view.up, *view.community]
    exact = view.high_ranking.evaluate(own[:7]) if len(own) >= 5 else BOARD.evaluate(own)
    return strength(view) + _TIE_BREAK * exact


def percentile(view: View) -> float:
    """The share of random holdings (same game, deck, card count, drawn or not) that rate below the
    seat's own cards, ties counted half; opponents' up cards are not taken into account here."""
    own = len(view.down) + len(view.up) + len(view.community)
    if not own:
        return 0.5  # cards unknown (a stream resumed mid-hand): the median
    drawn = not view.variant.is_stud and view.street > 0
    table = _table(view.game, view.deck_size, own, drawn)
    rating = _rating(View(view.game, view.structure, (), view.down, view.up, (), view.community,
                          deck_size=view.deck_size))
    below = bisect_left(table, rating)
    return (below + bisect_right(table, rating, below)) / (2 * len(table))


@cache
def _table(game: str, deck_size: int, cards: int, drawn: bool) -> list[float]:
    variant = VARIANTS[game]
    deck = next((rule.cards for rule in variant.decks if len(rule.cards) == deck_size), variant.decks[0].cards)
    rng = random.Random(f"tablestorm/percentiles|{game}|{deck_size}|{cards}|{drawn}")
    ratings = []
    for _ in range(SAMPLES):
        held = rng.sample(deck, cards + (cards if drawn else 0))
        down = tuple(held[:cards])
        if drawn:
            view = View(game, "", _DRAW, down=down, street=0, deck_size=deck_size)
            thrown = draw_discards(view, _DRAW[0])
            kept = [card for card in down if card not in thrown]
            down = (*kept, *held[cards:cards + len(thrown)])
        ratings.append(_rating(View(game, "", (), down=down, deck_size=deck_size)))
    ratings.sort()
    return ratings
