"""Cards as small ints: ``card = rank * 4 + suit``.

Ranks run 0 (deuce) to 12 (ace); suits 0..3 are clubs, diamonds, hearts, spades.
This order makes the plain integer order of cards the stud bring-in order of
CARD-2 (lowest rank first, ties broken clubs < diamonds < hearts < spades), so
"lowest door card" is just ``min``. Every hot path handles bare ints; only
parsing and printing know about text.
"""

from __future__ import annotations

from collections.abc import Iterable

Card = int

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_NAMES = (
    "deuce", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "jack", "queen", "king", "ace",
)
RANK_PLURALS = (
    "deuces", "threes", "fours", "fives", "sixes", "sevens", "eights",
    "nines", "tens", "jacks", "queens", "kings", "aces",
)

TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)

_SUIT_ALIASES = {ch: i for i, ch in enumerate(SUIT_CHARS)} | {ch: i for i, ch in enumerate(SUIT_SYMBOLS)}


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (0 = deuce .. 12 = ace) and ``suit`` (0 = clubs .. 3 = spades)."""
    if not (0 <= rank <= 12 and 0 <= suit <= 3):
        raise ValueError(f"no card with rank {rank} and suit {suit}")
    return rank * 4 + suit


def rank_of(card: Card) -> int:
    return card >> 2


def parse_card(text: str) -> Card:
    """Parse ``"As"``, ``"Td"``, ``"10d"``, ``"7c"`` or ``"7♣"`` (rank letter case-insensitive)."""
    token = text.strip()
    rank_text, suit_text = token[:-1].upper(), token[-1:].lower()
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANK_CHARS or suit_text not in _SUIT_ALIASES:
        raise ValueError(f"not a card: {text!r} (expected rank 2-9TJQKA and suit cdhs, e.g. 'As')")
    return RANK_CHARS.index(rank_text) * 4 + _SUIT_ALIASES[suit_text]


def parse_cards(text: str) -> list[Card]:
    """Parse cards written together or apart: ``"AsKd7c"``, ``"As Kd 7c"``, ``"As,Kd"``."""
    compact = "".join(ch for ch in text if not ch.isspace() and ch != ",")
    cards: list[Card] = []
    i = 0
    while i < len(compact):
        width = 3 if compact.startswith("10", i) else 2
        cards.append(parse_card(compact[i : i + width]))
        i += width
    return cards


def card_str(card: Card) -> str:
    """The usual two-character notation, e.g. ``"As"``."""
    if not 0 <= card < 52:
        raise ValueError(f"not a card index: {card}")
    return RANK_CHARS[card >> 2] + SUIT_CHARS[card & 3]


def cards_str(cards: Iterable[Card], sep: str = " ") -> str:
    return sep.join(card_str(c) for c in cards)


def deck(lowest_rank: int = TWO) -> tuple[Card, ...]:
    """The deck holding every card from ``lowest_rank`` up to the ace, in card order.

    ``deck()`` is the standard 52 cards (CARD-1); ``deck(SEVEN)`` and ``deck(SIX)`` are the
    32- and 36-card short decks of the 7-to-Ace draw (CARD-5).
    """
    return tuple(range(lowest_rank * 4, 52))


DECK_52 = deck(TWO)
DECK_36 = deck(SIX)
DECK_32 = deck(SEVEN)
