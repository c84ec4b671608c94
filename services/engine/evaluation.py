"""Hand rankings as plain int strengths: higher is better, equal splits (CARD-3/4/5, STUD-6).

A strength reads ``level << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5``. The level is the
category's place in its ranking's order (1 = weakest; 0 = no hand, e.g. ``NO_LOW``) and ``r1..r5``
are the ranks that decide ties, most significant first (full house: trips then pair; straight: its
top card, so the wheel is five-high), as card ranks of :mod:`.cards` (0 = deuce .. 12 = ace).
Comparing two hands of one ranking is one int comparison, and :func:`category_of` and
``describe`` decode a strength without a table.

Why it is fast in pure Python: every card has one precomputed int key, a base-5 digit for its rank
above bit 16 and a 4-bit counter for its suit below. Adding a hand's keys counts its ranks in base 5
(no rank is there more than four times, so the digits never carry) and its suits in four nibbles.
The first card's key also carries a bias of 3 per nibble, so a suit holding five cards or more sets
the top bit of its nibble and one ``& 0x8888`` finds a flush. With at most seven cards a flush rules
out a full house and four of a kind (each would need an eighth card), so a flush hand is decided by
the 13-bit rank mask of its suit alone (an 8,192-entry list, straight flushes included) and any
other hand by its rank multiset alone, which indexes flat lists (see ``_Fields``): a dict of the
50,000-odd seven-card multisets would be megabytes of scattered int objects, and its cache misses
cost more than all the arithmetic (measured: the dict made this evaluator 25-40% slower).

Every ranking is that evaluator over tables of its own, and every table comes from one builder fed
with data: the deck's ranks, its straights and the order of the categories (the short deck puts
the flush above the full house). Hands of five cards or fewer are classified directly; a six- or
seven-card multiset is worth its best sub-multiset one card smaller, so the seven-card tables
hold the best five of seven by construction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations, combinations_with_replacement
from operator import eq
from typing import Final

from tablestorm.services.engine.cards import ACE, EIGHT, RANK_NAMES, RANK_PLURALS, SEVEN, SIX, TWO, Card

__all__ = [
    "BOARD",
    "FLUSH",
    "FULL_HOUSE",
    "HIGH",
    "HIGH_CARD",
    "LOW8",
    "NO_HAND",
    "NO_LOW",
    "PAIR",
    "QUADS",
    "SHORT_DECK_32",
    "SHORT_DECK_36",
    "SHORT_DECK_ORDER",
    "STANDARD_ORDER",
    "STRAIGHT",
    "STRAIGHT_FLUSH",
    "TRIPS",
    "TWO_PAIR",
    "Ranking",
    "board_strength",
    "bring_in_key",
    "category_of",
    "high_strength",
    "low8_strength",
]

# Categories, numbered in the standard order of CARD-3 (so in HIGH a category is its own level).
NO_HAND = 0
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(1, 10)

NO_LOW = 0
"""The LOW8 strength of a hand without a qualifying low (CARD-4); every low is greater."""

STANDARD_ORDER = (HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH)
"""CARD-3: the categories from weakest to strongest."""
SHORT_DECK_ORDER = (HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FULL_HOUSE, FLUSH, QUADS, STRAIGHT_FLUSH)
"""CARD-5: as CARD-3, but the flush beats the full house."""

_LEVEL_SHIFT = 20
_RANK_SHIFT = 16  # the rank multiset sits above the four suit nibbles
_SUIT_BIAS = 0x3333  # 3 in each suit nibble: a count of 5..7 then reads 8..10, top bit set
_LANE_SHIFT = {0x8 << 4 * suit: 13 * suit for suit in range(4)}  # flush flag -> its suit's rank lane
_OUT_OF_DECK = 1 << 62  # indexes past every table: a card outside a short deck makes evaluate raise


@dataclass(frozen=True)
class Ranking:
    """One way of ranking hands: ``evaluate(cards) -> strength`` and ``describe(strength) -> text``.

    ``order`` lists the categories from weakest to strongest and is indexed by a strength's level;
    it is how the short deck ranks the flush above the full house with no code of its own.
    """

    name: str
    evaluate: Callable[[Sequence[Card]], int]
    describe: Callable[[int], str]
    order: tuple[int, ...] = STANDARD_ORDER


def category_of(strength: int, ranking: Ranking) -> int:
    """The category (``PAIR``, ``FLUSH``, ...) of a strength of ``ranking``; ``NO_HAND`` for 0.

    A qualifying 8-or-better low is a ``HIGH_CARD`` (five distinct ranks).
    """
    return _category_in(ranking.order, strength)


def _category_in(order: tuple[int, ...], strength: int) -> int:
    return order[(strength >> _LEVEL_SHIFT) - 1] if strength else NO_HAND


def bring_in_key(card: Card) -> int:
    """CARD-2 / STUD-3: among door cards, the one with the lowest key brings in.

    Lowest rank first, ties broken by suit, clubs < diamonds < hearts < spades: that is the card
    order of :mod:`.cards` (``rank * 4 + suit``), so the key is the card itself. The name marks the
    one place where suits rank, so callers say ``min(doors, key=bring_in_key)`` rather than ``min``.
    """
    return card


# --- table building (import time only) ---------------------------------------------------------


def _encode(level: int, ranks: Iterable[int]) -> int:
    """``level`` followed by up to five 4-bit ranks, most significant first, zero-padded."""
    strength, count = level, 0
    for rank in ranks:
        strength = strength << 4 | rank
        count += 1
    return strength << 4 * (5 - count)


def _straight_tops(ranks_desc: Sequence[int]) -> dict[tuple[int, ...], int]:
    """The straights of a deck as descending rank tuples, mapped to their top card (CARD-3, CARD-5).

    Five ranks in a row of the deck, plus the ace playing below the deck's four lowest ranks: the
    wheel 5-4-3-2-A with 52 cards, 9-8-7-6-A with 36 and T-9-8-7-A with 32 (so with 36 cards
    T-9-8-7-A is no straight, as CARD-5 says).
    """
    tops = {tuple(ranks_desc[i : i + 5]): ranks_desc[i] for i in range(len(ranks_desc) - 4)}
    lowest_four = tuple(ranks_desc[-4:])
    tops[(ACE, *lowest_four)] = lowest_four[0]
    return tops


def _classify(ranks_desc: tuple[int, ...], straights: dict[tuple[int, ...], int]) -> tuple[int, list[int]]:
    """Category and deciding ranks of exactly these cards (five at most), suits aside.

    Sorting the (count, rank) groups, largest first, yields the category from the two largest
    counts and the ranks in their order of significance: trips before the pair, the higher pair
    before the lower, kickers last and highest first.
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


_SUITED = {STRAIGHT: STRAIGHT_FLUSH, HIGH_CARD: FLUSH}  # what five distinct ranks of one suit make


def _multisets(ranks_desc: Sequence[int], size: int, max_count: int) -> Iterator[tuple[int, ...]]:
    """Every descending multiset of ``size`` ranks holding no rank more than ``max_count`` times."""
    if max_count == 1:
        return combinations(ranks_desc, size)
    # Sorted, a rank is there too often iff it equals the rank ``max_count`` places further on.
    return (
        hand
        for hand in combinations_with_replacement(ranks_desc, size)
        if not any(map(eq, hand, hand[max_count:]))
    )


def _build_table(
    ranks_desc: Sequence[int],
    weight: Callable[[int], int],
    max_count: int,
    direct_sizes: range,
    max_size: int,
    score: Callable[[tuple[int, ...]], int],
) -> dict[int, int]:
    """The strength of every rank multiset of ``direct_sizes.start`` to ``max_size`` cards.

    A multiset's key is the sum of its ranks' ``weight`` (the rank part of the card keys).
    Multisets of ``direct_sizes`` are scored directly; a larger one is worth its best sub-multiset
    one card smaller, whose key is its own minus that card's weight: so six and seven cards get
    their best five. ``max_count`` is 4 for the ranks of a deck, 1 for the ranks of one suit. The
    inner loops stay in C (``map``): this runs for every import of the engine.
    """
    table: dict[int, int] = {}
    for size in range(direct_sizes.start, max_size + 1):
        for hand in _multisets(ranks_desc, size, max_count):
            key = sum(map(weight, hand))
            if size in direct_sizes:
                table[key] = score(hand)
            else:
                table[key] = max(map(table.__getitem__, map(key.__sub__, map(weight, hand))))
    return table


def _bit(rank: int) -> int:
    """A rank's weight in the rank mask of one suit."""
    return 1 << rank


@dataclass(frozen=True)
class _Fields:
    """Where each rank's base-5 digit sits in ``x = s >> 16``, the rank part of a hand's key sum.

    The lower half of the ranks count in a low bit field of ``x``, the upper half in a high field
    just above it. Either field alone is small enough to index a list (5**7 entries at most), which
    is what lets :func:`_flatten` store a ranking without a dict.
    """

    low: tuple[int, ...]  # ranks, ascending
    high: tuple[int, ...]
    low_bits: int
    units: dict[int, int]  # rank -> what one card of it adds to x

    @classmethod
    def split(cls, ranks: Iterable[int]) -> _Fields:
        """The lower half of ``ranks`` (one more if odd) in the low field, the rest in the high."""
        ordered = sorted(ranks)
        low, high = tuple(ordered[: (len(ordered) + 1) // 2]), tuple(ordered[(len(ordered) + 1) // 2 :])
        low_bits = (5 ** len(low) - 1).bit_length()
        units = {rank: 5**i for i, rank in enumerate(low)} | {
            rank: 5**i << low_bits for i, rank in enumerate(high)
        }
        return cls(low, high, low_bits, units)


def _flatten(table: dict[int, int], fields: _Fields, max_size: int) -> tuple[list[int], list[int], list[int]]:
    """``table`` (x -> strength) as ``flat[low_offsets[x & low_mask] + high_index[x >> low_bits]]``.

    High-field multisets are numbered by size, smallest first, so those of ``m`` cards or fewer are a
    prefix of the numbering. Each low-field multiset of ``k`` cards owns a block of ``flat`` as long
    as that prefix for ``m = max_size - k``, and ``low_offsets`` holds where the block starts: every
    combination of at most ``max_size`` cards has its own slot, about 76,000 for seven cards of 13
    ranks. Slots the table lacks (fewer cards than the ranking takes) hold 0; evaluate never reads
    them, since it checks the number of cards.
    """
    unit = fields.units.__getitem__
    highs: list[int] = []
    up_to: list[int] = []  # up_to[m]: how many high multisets have m cards or fewer
    for size in range(max_size + 1):
        highs += [sum(map(unit, hand)) for hand in _multisets(fields.high[::-1], size, 4)]
        up_to.append(len(highs))
    high_index = [0] * 5 ** len(fields.high)
    for number, high_key in enumerate(highs):
        high_index[high_key >> fields.low_bits] = number
    flat: list[int] = []
    low_offsets = [0] * 5 ** len(fields.low)
    for size in range(max_size + 1):
        block = highs[: up_to[max_size - size]]
        for hand in _multisets(fields.low[::-1], size, 4):
            low_key = sum(map(unit, hand))
            low_offsets[low_key] = len(flat)
            flat += [table.get(low_key + high_key, 0) for high_key in block]
    return low_offsets, high_index, flat


# --- evaluation (the hot path) -----------------------------------------------------------------


def _make_evaluator(
    name: str,
    sizes: range,
    keys: list[int],
    fields: _Fields,
    by_ranks: dict[int, int],
    lanes: list[int],
    flushes: list[int],
) -> Callable[[Sequence[Card]], int]:
    """The evaluate function of one ranking: ``sizes`` cards, ``keys[card]`` per card.

    ``keys[card]`` is ``rank unit << 16 | suit nibble``; rank-only rankings (LOW8, BOARD) leave the
    nibbles out, so they never take the flush branch and pass empty ``lanes`` and ``flushes``.
    ``lanes[card]`` is the card's bit in the 13-bit lane of its suit, read only for a flush. Seven,
    six and five cards are unrolled; other sizes (the stud board) take a generic sum. The rank
    lookup comes before the flush test so that a card outside the deck always raises. The hot
    tables are bound as positional defaults, never passed: locals load faster than closure cells
    (about 5% here), while keyword-only defaults would cost 20%, as CPython 3.11 then leaves its
    fast call path and looks each one up at every call. The literals 16 and 0x8888 are
    ``_RANK_SHIFT`` and the four flush flags.
    """
    first = [key + _SUIT_BIAS for key in keys]  # the bias rides on the first card
    low_offsets, high_index, flat = _flatten(by_ranks, fields, sizes[-1])
    seven, six, five = (n if n in sizes else -1 for n in (7, 6, 5))  # -1: a size this ranking refuses

    def evaluate(
        cards: Sequence[Card],
        _first: list[int] = first,
        _keys: list[int] = keys,
        _low_offsets: list[int] = low_offsets,
        _low_mask: int = (1 << fields.low_bits) - 1,
        _high_index: list[int] = high_index,
        _high_shift: int = _RANK_SHIFT + fields.low_bits,
        _flat: list[int] = flat,
        _seven: int = seven,
        _six: int = six,
        _five: int = five,
    ) -> int:
        try:
            n = len(cards)
            if n == _seven:
                a, b, c, d, e, f, g = cards
                s = _first[a] + _keys[b] + _keys[c] + _keys[d] + _keys[e] + _keys[f] + _keys[g]
            elif n == _six:
                a, b, c, d, e, f = cards
                s = _first[a] + _keys[b] + _keys[c] + _keys[d] + _keys[e] + _keys[f]
            elif n == _five:
                a, b, c, d, e = cards
                s = _first[a] + _keys[b] + _keys[c] + _keys[d] + _keys[e]
            elif n in sizes:
                s = sum(map(_keys.__getitem__, cards), _SUIT_BIAS)
            else:
                raise ValueError(f"{name} ranks {sizes.start} to {sizes[-1]} cards, not {n}")
            strength = _flat[_low_offsets[s >> 16 & _low_mask] + _high_index[s >> _high_shift]]
            if s & 0x8888:
                return flushes[sum(map(lanes.__getitem__, cards)) >> _LANE_SHIFT[s & 0x8888] & 0x1FFF]
            return strength
        except (IndexError, KeyError) as error:
            raise ValueError(f"{name} cannot rank the cards {list(cards)!r}") from error

    evaluate.__name__ = evaluate.__qualname__ = f"{name.lower()}_strength"
    return evaluate


def _high_ranking(name: str, lowest_rank: int, order: tuple[int, ...]) -> Ranking:
    """CARD-3 / CARD-5: the best five of 5..7 cards of the deck from ``lowest_rank`` up to the ace."""
    ranks_desc = tuple(range(ACE, lowest_rank - 1, -1))
    straights = _straight_tops(ranks_desc)
    level = {category: i + 1 for i, category in enumerate(order)}
    fields = _Fields.split(ranks_desc)

    def score_ranks(hand: tuple[int, ...]) -> int:
        category, ranks = _classify(hand, straights)
        return _encode(level[category], ranks)

    def score_suited(hand: tuple[int, ...]) -> int:
        category, ranks = _classify(hand, straights)
        return _encode(level[_SUITED[category]], ranks)

    by_ranks = _build_table(ranks_desc, fields.units.__getitem__, 4, range(5, 6), 7, score_ranks)
    flushes = [0] * (1 << 13)
    for mask, strength in _build_table(ranks_desc, _bit, 1, range(5, 6), 7, score_suited).items():
        flushes[mask] = strength
    keys = [
        fields.units[card >> 2] << _RANK_SHIFT | 1 << 4 * (card & 3)
        if card >> 2 >= lowest_rank
        else _OUT_OF_DECK
        for card in range(52)
    ]
    lanes = [1 << 13 * (card & 3) + (card >> 2) for card in range(52)]
    evaluate = _make_evaluator(name, range(5, 8), keys, fields, by_ranks, lanes, flushes)
    return Ranking(name, evaluate, partial(_describe_high, order), order)


def _low8_ranking() -> Ranking:
    """CARD-4: five distinct ranks of eight or lower, ace low; lower is better, compared from the top.

    Low values run 0 (ace) .. 7 (eight) and take the place of ranks; the cards above eight have key
    0, as they never play low. A low's values are stored as ``7 - value``, highest card first, so a
    better low is a greater int and 5-4-3-2-A the greatest; fewer than five distinct low values give
    ``NO_LOW``.
    """
    values_desc = tuple(range(7, -1, -1))
    fields = _Fields.split(values_desc)

    def score(hand: tuple[int, ...]) -> int:
        if len(set(hand)) < 5:
            return NO_LOW
        return _encode(1, (7 - value for value in hand))

    by_ranks = _build_table(values_desc, fields.units.__getitem__, 4, range(0, 6), 7, score)
    low_value = {ACE: 0} | {rank: rank + 1 for rank in range(TWO, EIGHT + 1)}
    keys = [
        fields.units[low_value[card >> 2]] << _RANK_SHIFT if card >> 2 in low_value else 0
        for card in range(52)
    ]
    evaluate = _make_evaluator("LOW8", range(5, 8), keys, fields, by_ranks, [], [])
    return Ranking("LOW8", evaluate, _describe_low)


def _board_ranking() -> Ranking:
    """STUD-6: 1..4 up cards by quads, trips, two pair and pairs, then high cards; suits ignored.

    Straights and flushes of fewer than five cards do not count, so the classifier gets no
    straights. Stud compares boards of the same size only; the empty board is 0.
    """
    ranks_desc = tuple(range(ACE, TWO - 1, -1))
    fields = _Fields.split(ranks_desc)

    def score(hand: tuple[int, ...]) -> int:
        if not hand:
            return 0
        category, ranks = _classify(hand, {})
        return _encode(category, ranks)

    by_ranks = _build_table(ranks_desc, fields.units.__getitem__, 4, range(0, 5), 4, score)
    keys = [fields.units[card >> 2] << _RANK_SHIFT for card in range(52)]
    evaluate = _make_evaluator("BOARD", range(0, 5), keys, fields, by_ranks, [], [])
    return Ranking("BOARD", evaluate, partial(_describe_high, STANDARD_ORDER))


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
    category = _category_in(order, strength)
    if category == NO_HAND:
        return "no hand"
    first, second = strength >> 16 & 15, strength >> 12 & 15
    if category == STRAIGHT_FLUSH and first == ACE:
        return "royal flush"
    return _TEMPLATES[category].format(
        name1=RANK_NAMES[first], plural1=RANK_PLURALS[first], plural2=RANK_PLURALS[second]
    )


def _describe_low(strength: int) -> str:
    """E.g. ``"8-6-4-2-A low"``, or ``"no low"``."""
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


def _board_table() -> tuple[tuple[int, ...], dict[int, int]]:
    """STUD-6 for a board kept incrementally: per card its base-5 rank digit, and strength by key.

    A hand adds ``BOARD_KEY[card]`` to a player's key as each up card arrives, so finding the
    first to act is a dict lookup per player rather than an evaluation of the whole board.
    """
    keys = tuple(5 ** (card >> 2) for card in range(52))
    by_key = {0: 0}
    for size in range(1, 5):
        for ranks in combinations_with_replacement(range(13), size):
            cards = [rank * 4 + ranks[:k].count(rank) for k, rank in enumerate(ranks)]
            by_key[sum(keys[c] for c in cards)] = board_strength(cards)
    return keys, by_key


_BOARD_TABLE = _board_table()
BOARD_KEY: Final = _BOARD_TABLE[0]
BOARD_BY_KEY: Final = _BOARD_TABLE[1]
"""Final, so that the compiled hand reads them as constants, not from the module's dictionary."""
