"""Where a holding stands among all the holdings of its game, street and card count (0..1).

Thresholds written as shares of hands ("open the best 20 %", "call a shove with the best 41 %") are
what published ranges and push/fold charts give, and a share means the same in every game only
when it is measured in that game: a pair is the top quarter of three stud cards but below the
median of five short-deck cards. So each (game, deck, cards held, drawn or not) gets the sorted
ratings of random holdings, sampled once per process from a fixed seed, and a holding's
percentile is its mid-rank among them.

The rating is :func:`~tablestorm.sim.bots.strategies.rate` (made category, rank, draws, the
8-or-better low) with the exact evaluator value as a tie-break, so equal classes spread evenly
instead of forming steps. A draw game's drawn holdings are sampled after the same discards the
players make (:func:`~tablestorm.sim.bots.strategies.draw_discards`). A rating depends on the cards
held, not on their order or which are face up, so percentiles are cached by the set of cards: the
holdings most decisions are made with repeat (22,100 sets of three stud cards, 201,376 of five
short-deck cards), and every decision of a street asks again.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from functools import cache, lru_cache
from typing import Final

from tablestorm.services.engine.evaluation import LOW8, Ranking
from tablestorm.services.engine.variants import VARIANTS
from tablestorm.sim.bots.strategies import Legal, View, draw_discards, rate

__all__ = ["SAMPLES", "percentile"]

SAMPLES: Final = 4000
"""Random holdings per table: percentiles to about +-1 % (the binomial error at the median)."""
_TIE_BREAK: Final = 1e-10
"""Scales an exact evaluator value (< 2**24) to below the smallest step between two scores."""
_DRAW: Final = Legal("draw", 0, 5)


@cache
def _setting(game: str, deck_size: int) -> tuple[tuple[int, ...], Ranking, bool]:
    """The deck, its high ranking, and whether the game has a low (the deck of that size, or the
    game's first if it has none: a View built after a gap)."""
    variant = VARIANTS[game]
    rule = next((rule for rule in variant.decks if len(rule.cards) == deck_size), variant.decks[0])
    return rule.cards, rule.high, variant.low is LOW8


def _rating(own: list[int], ranking: Ranking, hi_lo: bool) -> float:
    _, score, exact = rate(own, ranking, hi_lo)
    return max(0.0, min(1.0, score)) + _TIE_BREAK * exact


def percentile(view: View) -> float:
    """The share of random holdings (same game, deck, card count, drawn or not) that rate below the
    seat's own cards, ties counted half; opponents' up cards are not taken into account here."""
    own = (*view.down, *view.up, *view.community)
    if not own:
        return 0.5  # cards unknown (a stream resumed mid-hand): the median
    drawn = view.street > 0 and not view.variant.is_stud
    return _percentile(view.game, view.deck_size, tuple(sorted(own)), drawn)


@lru_cache(maxsize=1 << 16)
def _percentile(game: str, deck_size: int, own: tuple[int, ...], drawn: bool) -> float:
    """The percentile of the cards ``own`` (sorted: the cache's key is the set of cards)."""
    _, ranking, hi_lo = _setting(game, deck_size)
    table = _table(game, deck_size, len(own), drawn)
    rating = _rating(list(own), ranking, hi_lo)
    below = bisect_left(table, rating)
    return (below + bisect_right(table, rating, below)) / (2 * len(table))


@cache
def _table(game: str, deck_size: int, cards: int, drawn: bool) -> list[float]:
    deck, ranking, hi_lo = _setting(game, deck_size)
    rng = random.Random(f"tablestorm/percentiles|{game}|{deck_size}|{cards}|{drawn}")
    ratings = []
    for _ in range(SAMPLES):
        held = rng.sample(deck, cards + (cards if drawn else 0))
        own = held[:cards]
        if drawn:
            thrown = draw_discards(View(game, "", (_DRAW,), down=tuple(own), deck_size=deck_size), _DRAW)
            own = [card for card in own if card not in thrown] + held[cards:cards + len(thrown)]
        ratings.append(_rating(own, ranking, hi_lo))
    ratings.sort()
    return ratings
