"""Hand rankings as plain int strengths: higher is better, equal means a split (CARD-3, CARD-4, CARD-5, STUD-6).

A strength reads ``level << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5``: the level is the
category's place in the ranking's order (1 = weakest; 0 = no hand at all, e.g. ``NO_LOW``) and
``r1..r5`` are the ranks that decide ties, most significant first (full house: trips then pair;
straight: its top card, so the wheel is five-high). Ranks are the card ranks of :mod:`.cards`
(0 = deuce .. 12 = ace). Comparing two strengths of the same ranking is therefore one int
comparison, and :func:`category_of` and ``describe`` decode them with no table.

Why it is fast in pure Python: each card has one precomputed int key,
``5 ** rank << 16 | 1 << 4 * suit``. Adding a hand's keys counts its ranks in base 5 above bit 16
(no rank appears more than four times, so the digits never carry) and its suits as four nibbles
below. The first card's key also carries a bias of 3 per nibble, so a suit with five or more cards
sets the top bit of its nibble and one ``& 0x8888`` detects a flush. With at most seven cards a
flush rules out a full house and four of a kind (either would need an eighth card), so a flush
hand is decided by its suit's 13-bit rank mask alone (an 8,192-entry list, straight flushes
included) and any other hand by its rank multiset alone (a dict). Evaluating a hand is then a few
list indexings, additions and one dict lookup.

Every ranking is the same evaluator over its own tables; the tables come from one builder fed
with data: the deck's ranks, its straights and the order of the categories (short deck puts the
flush above the full house). Five cards (or fewer) are classified directly; a six- or seven-card
multiset takes the best of its sub-multisets one card smaller, so the seven-card tables are the
best five of seven by construction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations, combinations_with_replacement
from operator import eq

from .cards import ACE, EIGHT, RANK_NAMES, RANK_PLURALS, SEVEN, SIX, TWO, Card

# Categories, numbered in the standard order of CARD-3.
NO_HAND = 0
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(1, 10)

NO_LOW = 0
"""The LOW8 strength of a hand with no qualifying low (CARD-4); every low is greater."""

STANDARD_ORDER = (HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH)
"""CARD-3: categories from weakest to strongest."""
SHORT_DECK_ORDER = (HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FULL_HOUSE, FLUSH, QUADS, STRAIGHT_FLUSH)
"""CARD-5: as CARD-3 but the flush beats the full house."""

_LEVEL_SHIFT = 20
_RANK_SHIFT = 16  # the rank multiset sits above the four suit nibbles
_SUIT_BIAS = 0x3333  # 3 in each suit nibble: a count of 5..7 then reaches 8..10
_FLUSH_FLAGS = 0x8888  # the top bit of each suit nibble
_LANE_SHIFT = {0x8 << 4 * suit: 13 * suit for suit in range(4)}  # flush flag -> that suit's rank lane
_OUT_OF_DECK = 1 << 62  # a key no table holds: cards outside a short deck make evaluate raise


@dataclass(frozen=True)
class Ranking:
    """One way of ranking hands: ``evaluate(cards) -> strength`` and ``describe(strength) -> text``.

    ``order`` lists the categories from weakest to strongest; a strength's level indexes it, which is
    how the short deck swaps flush and full house without any code of its own.
    """

    name: str
    evaluate: Callable[[Sequence[Card]], int]
    describe: Callable[[int], str]
    order: tuple[int, ...] = STANDARD_ORDER


def category_of(strength: int, ranking: Ranking) -> int:
    """The category (``PAIR``, ``FLUSH``, ...) of a strength of ``ranking``; ``NO_HAND`` for 0.

    A qualifying 8-or-better low is always ``HIGH_CARD`` (five distinct ranks).
    """
    if not strength:
        return NO_HAND
    return ranking.order[(strength >> _LEVEL_SHIFT) - 1]


def bring_in_key(card: Card) -> int:
    """CARD-2 / STUD-3: the card with the lowest key brings in.

    Lowest rank first, ties broken by suit, clubs < diamonds < hearts < spades. That is the card
    order of :mod:`.cards` (``rank * 4 + suit``), so the key is the card itself; the name says why
    a caller compares cards here, and it is the only place where suits rank.
    """
    return card


# --- table building (import time only) ---------------------------------------------------------


def _encode(level: int, ranks: Iterable[int]) -> int:
    """``level`` then up to five 4-bit ranks, most significant first, zero-padded."""
    strength = level
    count = 0
    for rank in ranks:
        strength = strength << 4 | rank
        count += 1
    return strength << 4 * (5 - count)


def _straight_tops(ranks_desc: Sequence[int]) -> dict[tuple[int, ...], int]:
    """The straights of a deck, as descending rank tuples, mapped to their top card (CARD-3, CARD-5).

    Five ranks in a row of the deck, plus the ace with the deck's four lowest ranks, which plays as
    the lowest straight: 5-4-3-2-A with 52 cards, 9-8-7-6-A with 36, T-9-8-7-A with 32.
    """
    tops = {tuple(ranks_desc[i : i + 5]): ranks_desc[i] for i in range(len(ranks_desc) - 4)}
    lowest_four = tuple(ranks_desc[-4:])
    tops[(ACE, *lowest_four)] = lowest_four[0]
    return tops


def _classify(ranks_desc: tuple[int, ...], straights: dict[tuple[int, ...], int]) -> tuple[int, list[int]]:
    """Category and deciding ranks of exactly these cards (at most five), suits aside.

    Grouping by (count, rank), largest first, gives both the category and the ranks in their order
    of significance: trips before the pair, the higher pair before the lower, kickers last.
    """
    groups = sorted(((ranks_desc.count(rank), rank) for rank in set(ranks_desc)), reverse=True)
    ranks = [rank for _, rank in groups]
    top = groups[0][0] if groups else 0
    second = groups[1][0] if len(groups) > 1 else 0
    if top == 4:
        return QUADS, ranks
    if top == 3:
        return (FULL_HOUSE if second == 2 else TRIPS), ranks
    if top == 2:
        return (TWO_PAIR if second == 2 else PAIR), ranks
    straight_top = straights.get(ranks_desc)
    if straight_top is not None:
        return STRAIGHT, [straight_top]
    return HIGH_CARD, ranks


_SUITED = {STRAIGHT: STRAIGHT_FLUSH, HIGH_CARD: FLUSH}  # five distinct ranks of one suit


def _multisets(ranks_desc: Sequence[int], size: int, max_count: int) -> Iterator[tuple[int, ...]]:
    """Every descending multiset of ``size`` ranks using no rank more than ``max_count`` times."""
    if max_count == 1:
        return combinations(ranks_desc, size)
    # Sorted, a rank is there more than max_count times iff it equals the rank max_count places on.
    return (
        hand
        for hand in combinations_with_replacement(ranks_desc, size)
        if not any(map(eq, hand, hand[max_count:]))
    )


def _build_table(
    ranks_desc: Sequence[int],
    weights: Sequence[int],
    max_count: int,
    direct_sizes: range,
    max_size: int,
    score: Callable[[tuple[int, ...]], int],
) -> dict[int, int]:
    """Strength of every rank multiset of ``direct_sizes`` up to ``max_size`` cards, keyed by its weight sum.

    ``weights[rank]`` is a rank's weight. Multisets of ``direct_sizes`` are scored directly; a larger
    one is worth its best sub-multiset one card smaller, whose key is its own minus that card's
    weight (so six and seven cards get their best five). ``max_count`` is 4 for the ranks of a
    deck, 1 for the ranks of a single suit. The loops stay in C (``map``) as this runs at import.
    """
    table: dict[int, int] = {}
    weight = weights.__getitem__
    for size in range(direct_sizes.start, max_size + 1):
        for hand in _multisets(ranks_desc, size, max_count):
            key = sum(map(weight, hand))
            if size in direct_sizes:
                table[key] = score(hand)
            else:
                table[key] = max(map(table.__getitem__, map(key.__sub__, map(weight, hand))))
    return table


_BASE5 = tuple(5**rank for rank in range(13))  # rank multisets: one base-5 digit per rank
_BITS = tuple(1 << rank for rank in range(13))  # rank sets: one bit per rank


# --- evaluation (the hot path) -----------------------------------------------------------------


def _make_evaluator(
    name: str, keys: list[int], by_ranks: dict[int, int], lanes: list[int], flushes: list[int]
) -> Callable[[Sequence[Card]], int]:
    """The evaluate function over one ranking's tables, unrolled for 5, 6 and 7 cards.

    ``keys[card]`` holds ``multiset digit << 16 | suit nibble``; rank-only rankings (LOW8, BOARD)
    leave the nibbles out, so they never take the flush branch and pass empty ``lanes`` and
    ``flushes``. ``lanes[card]`` is the card's bit in a 13-bit lane per suit, used only for flushes.
    Sizes other than 5..7 (the stud board) take the generic sum. Every valid hand's rank multiset is
    in ``by_ranks``, so looking it up first also rejects a wrong size or a card outside the deck.
    """
    first = [key + _SUIT_BIAS for key in keys]

    def evaluate(cards: Sequence[Card]) -> int:
        try:
            n = len(cards)
            if n == 7:
                a, b, c, d, e, f, g = cards
                s = first[a] + keys[b] + keys[c] + keys[d] + keys[e] + keys[f] + keys[g]
            elif n == 6:
                a, b, c, d, e, f = cards
                s = first[a] + keys[b] + keys[c] + keys[d] + keys[e] + keys[f]
            elif n == 5:
                a, b, c, d, e = cards
                s = first[a] + keys[b] + keys[c] + keys[d] + keys[e]
            else:
                s = sum(map(keys.__getitem__, cards), _SUIT_BIAS)
            strength = by_ranks[s >> 16]
            if s & 0x8888:
                return flushes[sum(map(lanes.__getitem__, cards)) >> _LANE_SHIFT[s & 0x8888] & 0x1FFF]
            return strength
        except (KeyError, IndexError) as error:
            raise ValueError(f"{name} cannot rank the cards {list(cards)!r}") from error

    evaluate.__name__ = evaluate.__qualname__ = f"{name.lower()}_strength"
    return evaluate


def _high_ranking(name: str, lowest_rank: int, order: tuple[int, ...]) -> Ranking:
    """CARD-3 / CARD-5: best five of 5..7 cards from the deck of ``lowest_rank`` up to the ace."""
    ranks_desc = tuple(range(ACE, lowest_rank - 1, -1))
    straights = _straight_tops(ranks_desc)
    level = {category: i + 1 for i, category in enumerate(order)}

    def score_ranks(hand: tuple[int, ...]) -> int:
        category, ranks = _classify(hand, straights)
        return _encode(level[category], ranks)

    def score_suited(hand: tuple[int, ...]) -> int:
        category, ranks = _classify(hand, straights)
        return _encode(level[_SUITED[category]], ranks)

    by_ranks = _build_table(ranks_desc, _BASE5, 4, range(5, 6), 7, score_ranks)
    flushes = [0] * (1 << 13)
    for mask, strength in _build_table(ranks_desc, _BITS, 1, range(5, 6), 7, score_suited).items():
        flushes[mask] = strength
    keys = [
        5 ** (card >> 2) << _RANK_SHIFT | 1 << 4 * (card & 3) if card >> 2 >= lowest_rank else _OUT_OF_DECK
        for card in range(52)
    ]
    lanes = [1 << 13 * (card & 3) + (card >> 2) for card in range(52)]
    evaluate = _make_evaluator(name, keys, by_ranks, lanes, flushes)
    return Ranking(name, evaluate, partial(_describe_high, order), order)


def _low8_ranking() -> Ranking:
    """CARD-4: five distinct ranks of eight or lower, ace low; lower is better, compared from the top.

    Low values run 0 (ace) .. 7 (eight); cards above eight get key 0 since they never play low.
    A low's ranks are stored as ``7 - value``, highest card first, so a better low is a greater int
    and A-2-3-4-5 the greatest; fewer than five distinct low ranks give ``NO_LOW``.
    """
    values_desc = tuple(range(7, -1, -1))

    def score(hand: tuple[int, ...]) -> int:
        if len(hand) < 5 or len(set(hand)) < 5:
            return NO_LOW
        return _encode(1, (7 - value for value in hand))

    by_ranks = _build_table(values_desc, _BASE5, 4, range(0, 6), 7, score)
    low_value = {ACE: 0} | {rank: rank + 1 for rank in range(TWO, EIGHT + 1)}
    keys = [5 ** low_value[card >> 2] << _RANK_SHIFT if card >> 2 in low_value else 0 for card in range(52)]
    return Ranking("LOW8", _make_evaluator("LOW8", keys, by_ranks, [], []), _describe_low)


def _board_ranking() -> Ranking:
    """STUD-6: 1..4 up cards by pairs, two pair, trips and quads, then high cards; suits ignored.

    Straights and flushes of fewer than five cards do not count, so no straight is given to the
    classifier. Boards compared are always the same size in stud; the empty board is 0.
    """
    ranks_desc = tuple(range(ACE, TWO - 1, -1))

    def score(hand: tuple[int, ...]) -> int:
        if not hand:
            return 0
        category, ranks = _classify(hand, {})
        return _encode(category, ranks)

    by_ranks = _build_table(ranks_desc, _BASE5, 4, range(0, 5), 4, score)
    keys = [5 ** (card >> 2) << _RANK_SHIFT for card in range(52)]
    return Ranking("BOARD", _make_evaluator("BOARD", keys, by_ranks, [], []), partial(_describe_high, STANDARD_ORDER))


# --- description ------------------------------------------------------------------------------

_TEMPLATES = {
    HIGH_CARD: "high card, {name1}",
    PAIR: "pair of {plural1}",
    TWO_PAIR: "two pair, {plural1} and {plural2}",
    TRIPS: "three of a kind, {plural1}",
    STRAIGHT: "straight, {name1} high",
    FLUSH: "flush, {name1} high",
    FULL_HOUSE: "full house, {plural1} full of {plural2}",
    QUADS: "four of a kind, {plural1}",
    STRAIGHT_FLUSH: "straight flush, {name1} high",
}


def _describe_high(order: tuple[int, ...], strength: int) -> str:
    """E.g. ``"full house, kings full of sevens"``, ``"straight, five high"``, ``"royal flush"``."""
    if not strength:
        return "no hand"
    category = order[(strength >> _LEVEL_SHIFT) - 1]
    first, second = strength >> 16 & 15, strength >> 12 & 15
    if category == STRAIGHT_FLUSH and first == ACE:
        return "royal flush"
    return _TEMPLATES[category].format(
        name1=RANK_NAMES[first], plural1=RANK_PLURALS[first], plural2=RANK_PLURALS[second]
    )


def _describe_low(strength: int) -> str:
    """E.g. ``"8-6-4-2-A low"`` or ``"no low"``."""
    if strength == NO_LOW:
        return "no low"
    values = (7 - (strength >> shift & 15) for shift in (16, 12, 8, 4, 0))
    return "-".join("A" if value == 0 else str(value + 1) for value in values) + " low"


HIGH = _high_ranking("HIGH", TWO, STANDARD_ORDER)
SHORT_DECK_36 = _high_ranking("SHORT_DECK_36", SIX, SHORT_DECK_ORDER)
SHORT_DECK_32 = _high_ranking("SHORT_DECK_32", SEVEN, SHORT_DECK_ORDER)
LOW8 = _low8_ranking()
BOARD = _board_ranking()

high_strength = HIGH.evaluate
low8_strength = LOW8.evaluate
board_strength = BOARD.evaluate
