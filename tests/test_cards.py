"""Card encoding, notation and decks."""

from __future__ import annotations

import pytest

from tablestorm.services.engine.cards import (
    DECK_32,
    DECK_36,
    DECK_52,
    RANK_CHARS,
    SUIT_CHARS,
    card_str,
    parse_card,
    parse_cards,
)


def test_standard_deck_holds_every_rank_of_every_suit_once() -> None:  # CARD-1
    assert len(DECK_52) == len(set(DECK_52)) == 52
    assert sorted(card_str(c) for c in DECK_52) == sorted(r + s for r in RANK_CHARS for s in SUIT_CHARS)


def test_short_decks_start_at_seven_or_six() -> None:  # CARD-5
    assert {card_str(c)[0] for c in DECK_32} == set("789TJQKA") and len(DECK_32) == 32
    assert {card_str(c)[0] for c in DECK_36} == set("6789TJQKA") and len(DECK_36) == 36


def test_card_order_is_the_bring_in_order() -> None:  # CARD-2: rank first, then clubs < diamonds < hearts < spades
    ordered = sorted(parse_cards("3c 2s 2h 2d 2c"))
    assert [card_str(c) for c in ordered] == ["2c", "2d", "2h", "2s", "3c"]


@pytest.mark.parametrize("text", ["As", "Td", "10d", "7c", "7♣", "kh"])
def test_notation_round_trips(text: str) -> None:
    card = parse_card(text)
    assert parse_card(card_str(card)) == card


@pytest.mark.parametrize("text", ["", "A", "1s", "Ax", "AAs", "Zz"])
def test_bad_notation_names_the_text(text: str) -> None:
    with pytest.raises(ValueError, match="not a card"):
        parse_card(text)
