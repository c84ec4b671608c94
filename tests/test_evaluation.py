"""Hand rankings (tablestorm.services.engine.evaluation) against PokerKit, combinatorics and the rule book.

PokerKit is the oracle here only; the engine never imports it. Differential tests compare
orderings: our strengths and the oracle's hands must sort a sample of hands identically.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, combinations_with_replacement, pairwise
from math import comb
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pokerkit import EightOrBetterLowHand, Rank, ShortDeckHoldemHand, ShortDeckHoldemLookup, StandardHighHand
from pokerkit.hands import Hand

from tablestorm.services.engine.cards import (
    ACE,
    DECK_32,
    DECK_36,
    DECK_52,
    EIGHT,
    RANK_CHARS,
    SUIT_CHARS,
    TWO,
    Card,
    cards_str,
    parse_card,
    parse_cards,
)
from tablestorm.services.engine.evaluation import (
    BOARD,
    FLUSH,
    FULL_HOUSE,
    HIGH,
    HIGH_CARD,
    LOW8,
    NO_HAND,
    NO_LOW,
    PAIR,
    QUADS,
    SHORT_DECK_32,
    SHORT_DECK_36,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
    Ranking,
    board_strength,
    bring_in_key,
    category_of,
    high_strength,
    low8_strength,
)

# --- oracles ----------------------------------------------------------------------------------


class _ShortDeck32Lookup(ShortDeckHoldemLookup):
    """PokerKit's own short-deck ranking machinery on the 32-card deck (ranks 7..A): its straights
    are five in a row of this rank order plus the ace below the seven, i.e. A-7-8-9-T (CARD-5)."""

    rank_order = tuple(Rank(char) for char in "789TJQKA")  # type: ignore[assignment]


class _ShortDeck32Hand(ShortDeckHoldemHand):
    lookup = _ShortDeck32Lookup()


def _oracle(hand_type: type[Hand], cards: Sequence[Card]) -> Hand | None:
    """PokerKit's best hand of these cards, or None when there is none (e.g. no 8-or-better low)."""
    return hand_type.from_game_or_none(cards_str(cards, ""))


def _assert_same_order(hands: list[list[Card]], ours: list[int], theirs: list[Any]) -> None:
    """Our strengths and the oracle's hands order ``hands`` identically.

    Sorting by our strength and checking each neighbour pair (equal stays equal, less stays less)
    proves agreement on every one of the n(n-1)/2 pairs, since both sides are total preorders.
    """
    order = sorted(range(len(hands)), key=ours.__getitem__)
    for i, j in pairwise(order):
        agree = theirs[i] == theirs[j] if ours[i] == ours[j] else theirs[i] < theirs[j]
        assert agree, f"{cards_str(hands[i])} ({ours[i]:#x}) vs {cards_str(hands[j])} ({ours[j]:#x})"


def _random_hands(deck: Sequence[Card], count: int, sizes: Sequence[int], seed: int) -> list[list[Card]]:
    rng = random.Random(seed)
    return [rng.sample(deck, rng.choice(sizes)) for _ in range(count)]


FAST, FULL = 3_000, 100_000  # hands per differential test: 4.5 million / 5 billion pairs ordered
SIZES = [FAST, pytest.param(FULL, marks=pytest.mark.slow)]


@pytest.mark.parametrize("count", SIZES)
def test_high_orders_seven_card_hands_like_pokerkit(count: int) -> None:  # CARD-3
    hands = _random_hands(DECK_52, count, (7,), seed=1)
    _assert_same_order(
        hands, [high_strength(h) for h in hands], [_oracle(StandardHighHand, h) for h in hands]
    )


@pytest.mark.parametrize("count", SIZES)
def test_low8_qualifies_and_orders_like_pokerkit(count: int) -> None:  # CARD-4
    # Half the hands come from the A..8 cards only, so that most of them hold a low to order.
    low_cards = [card for card in DECK_52 if card >> 2 <= EIGHT or card >> 2 == ACE]
    hands = _random_hands(DECK_52, count // 2, (5, 6, 7), seed=2)
    hands += _random_hands(low_cards, count - count // 2, (5, 6, 7), seed=3)
    ours = [low8_strength(h) for h in hands]
    theirs = [_oracle(EightOrBetterLowHand, h) for h in hands]
    for hand, strength, oracle in zip(hands, ours, theirs, strict=True):
        assert (strength == NO_LOW) == (oracle is None), cards_str(hand)
    lows = [i for i, strength in enumerate(ours) if strength != NO_LOW]
    assert len(lows) > count // 4  # about a third qualify
    _assert_same_order([hands[i] for i in lows], [ours[i] for i in lows], [theirs[i] for i in lows])


@pytest.mark.parametrize("count", SIZES)
def test_short_deck_36_orders_like_pokerkit(count: int) -> None:  # CARD-5
    hands = _random_hands(DECK_36, count, (5, 6, 7), seed=4)
    ours = [SHORT_DECK_36.evaluate(h) for h in hands]
    _assert_same_order(hands, ours, [_oracle(ShortDeckHoldemHand, h) for h in hands])


@pytest.mark.parametrize("count", SIZES)
def test_short_deck_32_orders_like_pokerkit_machinery(count: int) -> None:  # CARD-5
    hands = _random_hands(DECK_32, count, (5, 6, 7), seed=5)
    ours = [SHORT_DECK_32.evaluate(h) for h in hands]
    _assert_same_order(hands, ours, [_oracle(_ShortDeck32Hand, h) for h in hands])


def test_the_32_card_oracle_has_the_right_straights() -> None:  # CARD-5
    assert str(_ShortDeck32Hand("Ac7d8h9sTc")).startswith("Straight")
    assert str(_ShortDeck32Hand("7c8d9hTsJc")).startswith("Straight")
    assert str(_ShortDeck32Hand("Ac7c8c9cTc")).startswith("Straight flush")
    assert _ShortDeck32Hand.from_game_or_none("Ac6d7h8s9c") is None  # no sixes in this deck


# --- exhaustive 5-card counts ------------------------------------------------------------------


def _five_card_counts(ranks: int) -> dict[int, int]:
    """How many 5-card hands of each category a deck of ``ranks`` ranks x 4 suits deals (CARD-3/5).

    Every deck here has ``ranks - 4`` straights of five ranks in a row plus the one with the ace
    low. ``mixed`` counts the suit assignments of five distinct ranks that are not all one suit.
    """
    straights = ranks - 4 + 1
    plain_rank_sets = comb(ranks, 5) - straights
    mixed = 4**5 - 4
    return {
        STRAIGHT_FLUSH: straights * 4,
        QUADS: ranks * comb(4, 4) * (ranks - 1) * 4,
        FULL_HOUSE: ranks * comb(4, 3) * (ranks - 1) * comb(4, 2),
        FLUSH: plain_rank_sets * 4,
        STRAIGHT: straights * mixed,
        TRIPS: ranks * comb(4, 3) * comb(ranks - 1, 2) * 4**2,
        TWO_PAIR: comb(ranks, 2) * comb(4, 2) ** 2 * (ranks - 2) * 4,
        PAIR: ranks * comb(4, 2) * comb(ranks - 1, 3) * 4**3,
        HIGH_CARD: plain_rank_sets * mixed,
    }


def _distinct_strengths(ranks: int) -> int:
    """How many different 5-card strengths: rank choices per category, suits aside (CARD-3/5)."""
    straights = ranks - 4 + 1
    plain_rank_sets = comb(ranks, 5) - straights
    return (
        straights  # straight flushes
        + ranks * (ranks - 1)  # quads: quad rank, kicker
        + ranks * (ranks - 1)  # full houses: trips rank, pair rank
        + plain_rank_sets  # flushes
        + straights  # straights
        + ranks * comb(ranks - 1, 2)  # trips: trips rank, two kickers
        + comb(ranks, 2) * (ranks - 2)  # two pair: two pair ranks, kicker
        + ranks * comb(ranks - 1, 3)  # pair: pair rank, three kickers
        + plain_rank_sets  # high card
    )


def test_the_counting_formulas_give_the_known_52_card_numbers() -> None:  # CARD-3
    assert _five_card_counts(13) == {
        STRAIGHT_FLUSH: 40,
        QUADS: 624,
        FULL_HOUSE: 3_744,
        FLUSH: 5_108,
        STRAIGHT: 10_200,
        TRIPS: 54_912,
        TWO_PAIR: 123_552,
        PAIR: 1_098_240,
        HIGH_CARD: 1_302_540,
    }
    assert _distinct_strengths(13) == 7_462


@pytest.mark.parametrize(
    ("ranking", "deck"),
    [(HIGH, DECK_52), (SHORT_DECK_36, DECK_36), (SHORT_DECK_32, DECK_32)],
    ids=["52 cards CARD-3", "36 cards CARD-5", "32 cards CARD-5"],
)
def test_every_five_card_hand_is_counted_in_its_category(ranking: Ranking, deck: Sequence[Card]) -> None:
    ranks = len(deck) // 4
    strengths = Counter(map(ranking.evaluate, combinations(deck, 5)))
    categories: Counter[int] = Counter()
    for strength, hands in strengths.items():
        categories[category_of(strength, ranking)] += hands
    assert categories == _five_card_counts(ranks)
    assert sum(categories.values()) == comb(len(deck), 5)
    assert len(strengths) == _distinct_strengths(ranks)


# --- best five of seven --------------------------------------------------------------------------


def _hands_of(deck: Sequence[Card]) -> st.SearchStrategy[list[Card]]:
    return st.lists(st.sampled_from(deck), min_size=5, max_size=7, unique=True)


def _best_of_fives(evaluate: Callable[[Sequence[Card]], int], cards: Sequence[Card]) -> int:
    return max(evaluate(five) for five in combinations(cards, 5))


@settings(max_examples=300)
@given(_hands_of(DECK_52))
def test_high_is_the_best_five_of_the_hand(cards: list[Card]) -> None:  # CARD-3
    assert HIGH.evaluate(cards) == _best_of_fives(HIGH.evaluate, cards)


@settings(max_examples=300)
@given(_hands_of(DECK_52))
def test_low8_is_the_best_five_of_the_hand(cards: list[Card]) -> None:  # CARD-4
    assert LOW8.evaluate(cards) == _best_of_fives(LOW8.evaluate, cards)


@settings(max_examples=300)
@given(_hands_of(DECK_36))
def test_short_deck_36_is_the_best_five_of_the_hand(cards: list[Card]) -> None:  # CARD-5
    assert SHORT_DECK_36.evaluate(cards) == _best_of_fives(SHORT_DECK_36.evaluate, cards)


@settings(max_examples=300)
@given(_hands_of(DECK_32))
def test_short_deck_32_is_the_best_five_of_the_hand(cards: list[Card]) -> None:  # CARD-5
    assert SHORT_DECK_32.evaluate(cards) == _best_of_fives(SHORT_DECK_32.evaluate, cards)


# --- named cases ----------------------------------------------------------------------------------


def _strength(ranking: Ranking, text: str) -> int:
    return ranking.evaluate(parse_cards(text))


def test_a789t_is_a_straight_with_32_cards_only() -> None:  # CARD-5
    assert category_of(_strength(SHORT_DECK_32, "Ac 7d 8h 9s Tc"), SHORT_DECK_32) == STRAIGHT
    assert _strength(SHORT_DECK_32, "Ac 7d 8h 9s Tc") < _strength(SHORT_DECK_32, "7c 8d 9h Ts Jc")
    assert category_of(_strength(SHORT_DECK_36, "Ac 7d 8h 9s Tc"), SHORT_DECK_36) == HIGH_CARD
    assert category_of(_strength(SHORT_DECK_36, "Ac 6d 7h 8s 9c"), SHORT_DECK_36) == STRAIGHT
    assert _strength(SHORT_DECK_36, "Ac 6d 7h 8s 9c") < _strength(SHORT_DECK_36, "6c 7d 8h 9s Tc")


def test_low_ace_straight_of_one_suit_is_a_straight_flush() -> None:  # CARD-5
    assert SHORT_DECK_32.describe(_strength(SHORT_DECK_32, "Ah 7h 8h 9h Th")) == "straight flush, ten high"
    assert SHORT_DECK_36.describe(_strength(SHORT_DECK_36, "Ah 6h 7h 8h 9h")) == "straight flush, nine high"
    assert SHORT_DECK_36.describe(_strength(SHORT_DECK_36, "Ah Kh Qh Jh Th")) == "royal flush"


def test_flush_beats_full_house_in_the_short_deck_only() -> None:  # CARD-5, CARD-3
    full_house = "Ac Ad Ah Kc Kd"
    for short_deck, flush in ((SHORT_DECK_36, "6s 7s 8s Ts Qs"), (SHORT_DECK_32, "7s 8s 9s Js Ks")):
        assert _strength(short_deck, flush) > _strength(short_deck, full_house)
        assert category_of(_strength(short_deck, flush), short_deck) == FLUSH
        assert category_of(_strength(short_deck, full_house), short_deck) == FULL_HOUSE
    assert _strength(HIGH, "6s 7s 8s Ts Qs") < _strength(HIGH, full_house)


def test_bring_in_is_the_lowest_card_by_rank_then_suit() -> None:  # CARD-2, STUD-3
    ordered = [parse_card(rank + suit) for rank in RANK_CHARS for suit in SUIT_CHARS]
    assert sorted(DECK_52, key=bring_in_key) == ordered
    assert min(DECK_52, key=bring_in_key) == parse_card("2c")
    # Seed 002: with 2s, 2h and 2d showing, the 2d brings in.
    assert min(parse_cards("2s 2h 2d"), key=bring_in_key) == parse_card("2d")


def test_seed_002_hi_lo_examples() -> None:  # CARD-4, STUD-8
    cards = parse_cards("Kh 8h 5c 4h 3h 2s Ah")
    assert low8_strength(cards) == _strength(LOW8, "5c 4h 3h 2s Ah")
    assert LOW8.describe(low8_strength(cards)) == "5-4-3-2-A low"
    one_suit_lows = [card for card in DECK_52 if card & 3 == 0 and (card >> 2 <= EIGHT or card >> 2 == ACE)]
    assert low8_strength(cards) == max(map(low8_strength, combinations(one_suit_lows, 5)))  # the best low
    assert high_strength(cards) == _strength(HIGH, "Ah Kh 8h 4h 3h")
    assert HIGH.describe(high_strength(cards)) == "flush, ace high"
    # The same five cards may make both hands.
    both = parse_cards("Ks Qh 8s 7d 6s 5h 4s")
    assert HIGH.describe(high_strength(both)) == "straight, eight high"
    assert LOW8.describe(low8_strength(both)) == "8-7-6-5-4 low"


def test_low_compares_from_the_highest_card_down() -> None:  # CARD-4
    assert _strength(LOW8, "8c 6d 5h 4s 3c") > _strength(LOW8, "8c 7d 3h 2s Ac")
    assert _strength(LOW8, "7c 6d 5h 4s 3c") > _strength(LOW8, "8c 4d 3h 2s Ac")


def test_no_low_without_five_distinct_ranks_of_eight_or_lower() -> None:  # CARD-4
    assert _strength(LOW8, "Ac Ad 2c 3d 4h Kc Qs") == NO_LOW  # a pair does not make a fifth rank
    assert _strength(LOW8, "2c 3d 4h 5s 9c Tc Jd") == NO_LOW  # a nine does not qualify
    assert _strength(LOW8, "8c 7d 6h 5s 4c") != NO_LOW
    assert category_of(_strength(LOW8, "8c 7d 6h 5s 4c"), LOW8) == HIGH_CARD
    assert category_of(NO_LOW, LOW8) == NO_HAND
    assert LOW8.describe(NO_LOW) == "no low"


def test_straights_and_flushes_do_not_spoil_a_low() -> None:  # CARD-4
    assert _strength(LOW8, "Ac 2c 3c 4c 5c") == _strength(LOW8, "Ad 2c 3h 4s 5c")


def test_board_pair_beats_any_high_cards() -> None:  # STUD-6
    assert board_strength(parse_cards("2c 2d")) > board_strength(parse_cards("Ac Kd"))
    assert board_strength(parse_cards("2c 2d 3h 4s")) > board_strength(parse_cards("Ac Kd Qh Js"))


def test_board_trips_beat_two_pair_and_quads_beat_trips() -> None:  # STUD-6
    assert board_strength(parse_cards("5c 5d 5h 2c")) > board_strength(parse_cards("Ac Ad Kc Kd"))
    assert board_strength(parse_cards("3c 3d 3h 3s")) > board_strength(parse_cards("Ac Ad Ah Kd"))
    assert board_strength(parse_cards("Ac Ad Kc Kd")) > board_strength(parse_cards("Ac Ad Qc Jd"))


def test_board_suits_never_break_ties() -> None:  # STUD-6, CARD-2
    assert board_strength(parse_cards("Ac Kd")) == board_strength(parse_cards("As Kh"))
    assert board_strength(parse_cards("9c 9d 4h")) == board_strength(parse_cards("9h 9s 4c"))


def test_board_four_card_straights_and_flushes_do_not_count() -> None:  # STUD-6
    four_flush_straight = board_strength(parse_cards("9h Th Jh Qh"))
    assert four_flush_straight == board_strength(parse_cards("9c Td Jh Qs"))
    assert four_flush_straight < board_strength(parse_cards("2c 2d 3h 4s"))
    assert category_of(four_flush_straight, BOARD) == HIGH_CARD


def _plain_board_reading(ranks: Sequence[int]) -> tuple[int, ...]:
    """STUD-6 read plainly: quads > trips > two pair > pair > high cards, then the ranks that
    make the hand before the kickers, higher first."""
    groups = sorted(((ranks.count(rank), rank) for rank in set(ranks)), reverse=True)
    counts = [count for count, _ in groups]
    if counts[0] == 4:
        category = 4
    elif counts[0] == 3:
        category = 3
    elif counts[:2] == [2, 2]:
        category = 2
    else:
        category = counts[0] - 1  # 1 = one pair, 0 = high cards
    return (category, *(rank for _, rank in groups))


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_board_orders_every_rank_multiset_like_a_plain_reading(size: int) -> None:  # STUD-6
    boards = [
        [rank * 4 + ranks[:i].count(rank) for i, rank in enumerate(ranks)]  # one suit per copy of a rank
        for ranks in combinations_with_replacement(range(TWO, ACE + 1), size)
    ]
    ours = [board_strength(board) for board in boards]
    theirs = [_plain_board_reading([card >> 2 for card in board]) for board in boards]
    _assert_same_order(boards, ours, theirs)


def test_board_of_no_cards_is_zero() -> None:  # STUD-6
    assert board_strength([]) == 0


@pytest.mark.parametrize(
    ("ranking", "cards", "text"),
    [
        (HIGH, "As Ks Qs Js Ts", "royal flush"),
        (HIGH, "9h 8h 7h 6h 5h", "straight flush, nine high"),
        (HIGH, "5d 4d 3d 2d Ad", "straight flush, five high"),
        (HIGH, "Ac Ad Ah As Kc", "four of a kind, aces"),
        (HIGH, "Kc Kd Ks 7h 7c", "full house, kings full of sevens"),
        (HIGH, "Ah Jh 8h 4h 3h", "flush, ace high"),
        (HIGH, "5c 4d 3h 2s Ac", "straight, five high"),
        (HIGH, "7c 7d 7h Kc 2d", "three of a kind, sevens"),
        (HIGH, "Ac Ad 8s 8h 2c", "two pair, aces and eights"),
        (HIGH, "Jc Jd 2s 5h 9c", "pair of jacks"),
        (HIGH, "Kc 9d 7s 5h 3c", "high card, king"),
        (SHORT_DECK_32, "Ac 7d 8h 9s Tc", "straight, ten high"),
        (SHORT_DECK_36, "6s 7s 8s Ts Qs", "flush, queen high"),
        (LOW8, "8c 6d 4h 2s Ac", "8-6-4-2-A low"),
        (LOW8, "Kc Qd Jh Ts 9c", "no low"),
        (BOARD, "Ac Ad", "pair of aces"),
        (BOARD, "Kc", "high card, king"),
        (BOARD, "5c 5d 5h 2c", "three of a kind, fives"),
        (BOARD, "Ac Ad Kc Kd", "two pair, aces and kings"),
        (BOARD, "9c 9d 9h 9s", "four of a kind, nines"),
    ],
)
def test_describe(ranking: Ranking, cards: str, text: str) -> None:  # CARD-3, CARD-4, CARD-5, STUD-6
    assert ranking.describe(_strength(ranking, cards)) == text


def test_hot_path_names_are_the_rankings_evaluators() -> None:
    assert high_strength is HIGH.evaluate
    assert low8_strength is LOW8.evaluate
    assert board_strength is BOARD.evaluate


@pytest.mark.parametrize(
    ("ranking", "cards"),
    [
        (HIGH, "As Ks Qs Js"),  # too few cards
        (HIGH, "As Ks Qs Js Ts 9s 8s 7s"),  # too many
        (SHORT_DECK_32, "6c 7d 8h 9s Tc"),  # a six is not in the 32-card deck
        (SHORT_DECK_36, "2c 7d 8h 9s Tc 6c"),
        (SHORT_DECK_32, "2s 7s 8s 9s Js Ks Ac"),  # even where the other cards make a flush
        (LOW8, "Ac 2d 3h 4s"),
        (BOARD, "2c 3d 4h 5s 6c"),  # a board has at most four up cards
    ],
)
def test_cards_the_ranking_cannot_rank_raise(ranking: Ranking, cards: str) -> None:
    with pytest.raises(ValueError, match=ranking.name):
        ranking.evaluate(parse_cards(cards))
