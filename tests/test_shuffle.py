"""TABLE-2: the shuffle is uniform, reproducible from its seed, and its rejection step is exact."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

from tablestorm.services.engine import SecureShuffler, SeededShuffler
from tablestorm.services.engine.shuffle import _fisher_yates


def test_every_order_of_a_small_deck_is_equally_likely() -> None:  # TABLE-2
    cards = [0, 1, 2, 3]
    draws = 24_000
    seen = Counter(tuple(SeededShuffler(7, "uniform", k).shuffled(cards)) for k in range(draws))
    assert set(seen) == set(permutations(cards))
    expected = draws / 24
    chi2 = sum((count - expected) ** 2 / expected for count in seen.values())
    assert chi2 < 49.7  # 23 degrees of freedom, p = 0.001; deterministic: the seeds are fixed


def test_the_same_seed_table_and_hand_deal_the_same_deck() -> None:  # TABLE-2
    deck = list(range(52))
    assert SeededShuffler(3, "t", 9).shuffled(deck) == SeededShuffler(3, "t", 9).shuffled(deck)
    assert SeededShuffler(3, "t", 9).shuffled(deck) != SeededShuffler(3, "t", 10).shuffled(deck)
    assert sorted(SecureShuffler().shuffled(deck)) == deck


def test_a_biased_word_is_drawn_again() -> None:  # TABLE-2
    """With three cards the first swap picks among 3: the word 0 lies in the biased remainder
    (2**24 mod 3 = 1 word), so a fresh word is read; 0xFFFFFF then picks index 2."""
    asked = []
    source = iter([bytes(3) + b"\x00\x00\x80" + bytes(3), b"\xff\xff\xff"])  # a word per card, the last unused

    def random_bytes(count: int) -> bytes:
        asked.append(count)
        chunk = next(source)
        assert len(chunk) == count
        return chunk

    # i=2: word 0 rejected, redrawn as 0xFFFFFF -> j=2 (stays); i=1: word 0x800000 -> j=1 (stays).
    assert _fisher_yates([10, 11, 12], random_bytes) == [10, 11, 12]
    assert asked == [9, 3]
