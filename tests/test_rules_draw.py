"""RULES.md §4, Seven-to-Ace Five Card Draw: scenarios with exact chips (DRAW-1..DRAW-5, CARD-5).

DRAW-6 (dead button, missed blinds) is a table rule: see the table tests.
"""

from __future__ import annotations

import pytest
from support.scripted_hands import (
    DRAW_BLINDS,
    DRAW_LIMIT,
    awards,
    bounds,
    draw_hand,
    events_of,
    play,
    play_passively,
)

from tablestorm.services.engine import (
    SEVEN_TO_ACE_DRAW,
    Action,
    ActionKind,
    Deck,
    Hand,
    IllegalAction,
    SeededShuffler,
    Structure,
    TableOptions,
    parse_cards,
)
from tablestorm.services.engine.cards import DECK_36
from tablestorm.services.engine.events import (
    CardsDealt,
    Drew,
    ForcedBet,
    HandShown,
    HandStarted,
    Reshuffled,
    RoundStarted,
)

DRAW3 = ["7c 8c 9d Jh Ks", "7d 8d Td Qh As", "7h 9h Jd Qc Ac"]


def posts(h: Hand) -> list[tuple[int, str, int]]:
    """The blinds posted, all live here: ``(player, kind, amount)``."""
    assert all(e.live for e in events_of(h, ForcedBet))
    return [(e.player, e.kind, e.amount) for e in events_of(h, ForcedBet)]


# --------------------------------------------------------------------------- DRAW-1 players and deck


def test_two_to_five_players() -> None:  # DRAW-1
    options = TableOptions(SEVEN_TO_ACE_DRAW, DRAW_LIMIT)
    for n in (2, 5):
        Hand(options, [100] * n, SeededShuffler(1, "d", n))
    for n in (1, 6):
        with pytest.raises(ValueError):
            Hand(options, [100] * n, SeededShuffler(1, "d", n))


def test_five_players_use_the_36_card_deck() -> None:  # DRAW-1, CARD-5
    cards = [
        "Ah 6c 7d 8s 9h",  # A-6-7-8-9: the lowest straight of the 36-card deck
        "As 7c 8d 9s Tc",  # A-7-8-9-T: no straight with 36 cards, ace high
        "Kc Kd Qh Js 6d",
        "Qc Jd Th 7h 6h",
        "Ac Ad 8h 9c Ts",
    ]
    h = draw_hand(cards, button=0)
    assert events_of(h, HandStarted)[0].deck_size == 36
    assert h.deck_rule.cards == DECK_36
    assert h.actor == 3  # left of the big blind (player 2)
    play(h, "3 call", "4 call", "0 call", "1 call", "2 check")
    play(h, "1 draw", "2 draw", "3 draw", "4 draw", "0 draw")
    play(h, "1 check", "2 check", "3 check", "4 check", "0 check")
    assert awards(h) == [(0, 0, 10, "whole")]
    assert h.stacks == [208, 198, 198, 198, 198]


def test_five_players_real_deck_deals_sixes() -> None:  # DRAW-1, CARD-5
    options = TableOptions(SEVEN_TO_ACE_DRAW, DRAW_LIMIT)
    dealt: set[int] = set()
    for seed in range(6):
        h = Hand(options, [100] * 5, SeededShuffler(seed, "d5", 1))
        assert len(h.deck) == 36 - 25
        for i in range(5):
            dealt |= set(h.down[i])
    assert dealt <= set(DECK_36)
    assert dealt & set(parse_cards("6c 6d 6h 6s"))


def test_four_players_use_the_32_card_deck() -> None:  # DRAW-1, CARD-5
    cards = ["As 7c 8d 9s Tc", "Kc Kd Qh Js 8h", "Qc Jd Th 7h 9h", "Ac Ad 8c 9c Ts"]
    h = draw_hand(cards, button=0)
    assert events_of(h, HandStarted)[0].deck_size == 32
    play_passively(h)
    assert awards(h) == [(0, 0, 8, "whole")]  # A-7-8-9-T is the lowest straight of 32 cards


# --------------------------------------------------------------------------- DRAW-2 button and blinds


def test_blinds_left_of_the_button() -> None:  # DRAW-2
    h = draw_hand(DRAW3, button=2)
    assert posts(h) == [(0, "small_blind", 1), (1, "big_blind", 2)]
    assert h.stacks == [199, 198, 200]
    assert h.actor == 2  # three-handed the button is left of the big blind


def test_heads_up_button_posts_small_blind_and_acts_first_before_the_draw() -> None:  # DRAW-2
    h = draw_hand(DRAW3[:2], button=0)
    assert posts(h) == [(0, "small_blind", 1), (1, "big_blind", 2)]
    assert h.actor == 0
    assert bounds(h) == {"fold": (0, 0), "call": (2, 2), "raise": (4, 4)}
    play(h, "0 call")
    assert bounds(h) == {"check": (0, 0), "raise": (4, 4)}  # the big blind's option
    play(h, "1 check")
    assert h.actor == 1  # the big blind draws first: the button draws last
    play(h, "1 draw", "0 draw")
    assert h.actor == 1  # and the big blind acts first after the draw
    assert events_of(h, RoundStarted)[-1] == RoundStarted(1, 1)
    play(h, "1 bet 4", "0 call")
    assert awards(h) == [(0, 1, 12, "whole")]  # ace high beats king high
    assert h.stacks == [194, 206]


def test_heads_up_button_one() -> None:  # DRAW-2
    h = draw_hand(DRAW3[:2], button=1)
    assert posts(h) == [(1, "small_blind", 1), (0, "big_blind", 2)]
    assert h.actor == 1


def test_no_limit_blinds_and_minimum_bet() -> None:  # DRAW-2, BET-4
    h = draw_hand(DRAW3, button=0, structure=Structure.NO_LIMIT, stakes=DRAW_BLINDS)
    assert posts(h) == [(1, "small_blind", 1), (2, "big_blind", 2)]
    assert bounds(h) == {"fold": (0, 0), "call": (2, 2), "raise": (4, 200)}


# --------------------------------------------------------------------------- DRAW-3 deal and first round


def test_deal_clockwise_from_the_buttons_left() -> None:  # DRAW-3
    h = draw_hand(DRAW3, button=1)
    assert [e.player for e in events_of(h, CardsDealt)] == [2, 0, 1]
    assert all(len(e.down) == 5 and e.up == () for e in events_of(h, CardsDealt))
    assert list(h.down[2]) == parse_cards(DRAW3[2])


def test_first_to_act_may_only_fold_call_or_raise() -> None:  # DRAW-3
    h = draw_hand(DRAW3, button=0)
    assert h.actor == 0
    assert bounds(h) == {"fold": (0, 0), "call": (2, 2), "raise": (4, 4)}
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.CHECK))
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.BET, 2))


def test_big_blind_option_check() -> None:  # DRAW-3
    h = draw_hand(DRAW3, button=0)
    play(h, "0 call", "1 call")
    assert h.actor == 2
    assert bounds(h) == {"check": (0, 0), "raise": (4, 4)}
    play(h, "2 check")
    assert h.actor == 1 and h.legal_actions()[0].kind is ActionKind.DRAW
    assert h.stacks == [198, 198, 198]


def test_big_blind_option_raise_reopens() -> None:  # DRAW-3, BET-2
    h = draw_hand(DRAW3, button=0)
    play(h, "0 call", "1 call", "2 raise 4")
    assert bounds(h) == {"fold": (0, 0), "call": (4, 4), "raise": (6, 6)}
    play(h, "0 raise 6", "1 fold", "2 call")
    assert h.stacks == [194, 198, 194]


def test_big_blind_has_no_option_after_a_raise() -> None:  # DRAW-3
    h = draw_hand(DRAW3, button=0)
    play(h, "0 raise 4", "1 call")
    assert bounds(h) == {"fold": (0, 0), "call": (4, 4), "raise": (6, 6)}
    play(h, "2 call")
    assert h.actor == 1 and h.legal_actions()[0].kind is ActionKind.DRAW


def test_small_blind_completes() -> None:  # DRAW-3, DRAW-2
    h = draw_hand(DRAW3, button=0)
    play(h, "0 fold")
    assert bounds(h) == {"fold": (0, 0), "call": (2, 2), "raise": (4, 4)}
    play(h, "1 call", "2 check", "1 draw", "2 draw")
    assert h.stacks == [200, 198, 198]


# --------------------------------------------------------------------------- DRAW-4 the draw


def test_draw_order_and_cards() -> None:  # DRAW-4
    cards = ["7c 8c 9d Jh Ks Kd", "7d 8d Td Qh As Qd Qs", "7h 9h Jd Qc Ac"]
    h = draw_hand(cards, button=0)
    play(h, "0 call", "1 call", "2 check")
    assert h.actor == 1  # the button's left draws first
    assert bounds(h) == {"draw": (0, 5)}
    play(h, "1 draw 7d 8d")
    assert events_of(h, Drew)[-1] == Drew(1, tuple(parse_cards("7d 8d")), tuple(parse_cards("Qd Qs")))
    assert sorted(h.down[1]) == sorted(parse_cards("Td Qh As Qd Qs"))
    play(h, "2 draw")  # stand pat
    assert events_of(h, Drew)[-1] == Drew(2, (), ())
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.DRAW, discard=tuple(parse_cards("7d"))))  # not player 0's card
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.DRAW, discard=tuple(parse_cards("7c 7c"))))
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.CHECK))
    play(h, "0 draw Ks")
    assert list(h.down[0]) == parse_cards("7c 8c 9d Jh Kd")
    assert h.actor == 1  # the second round
    assert h.deck.discards == parse_cards("7d 8d Ks")
    assert len(h.deck.burns) == 1


def test_all_in_player_still_draws() -> None:  # DRAW-4
    h = draw_hand(DRAW3, button=0, stacks=[4, 200, 200])
    play(h, "0 raise 4", "1 call", "2 call")
    assert h.actor == 1
    play(h, "1 draw", "2 draw")
    assert h.actor == 0  # all-in, still draws
    assert bounds(h) == {"draw": (0, 5)}


def _draw_all_five(seed: int) -> Hand:
    h = draw_hand(
        ["", "", "", "", ""], button=0, deck=Deck(DECK_36, SeededShuffler(seed, "exhaust", 1))
    )
    play(h, "3 call", "4 call", "0 call", "1 call", "2 check")
    while h.actor >= 0 and h.legal_actions()[0].kind is ActionKind.DRAW:
        h.apply(Action(ActionKind.DRAW, discard=tuple(h.down[h.actor])))
    return h


def test_draw_exhausts_the_stub() -> None:  # DRAW-4, CARD-5
    for seed in range(8):
        h = _draw_all_five(seed)
        # 36 - 25 = 11, one burned: players 1 and 2 take the 10 left; player 3 gets the burn and
        # the discards of 1 and 2 (11 cards); player 4 takes 5, player 0 the last card and then 4
        # from the discards of 3 and 4.
        assert events_of(h, Reshuffled) == [Reshuffled(1, 11), Reshuffled(1, 10)]
        drew = {e.player: e for e in events_of(h, Drew)}
        assert [e.player for e in events_of(h, Drew)] == [1, 2, 3, 4, 0]
        for e in drew.values():
            assert len(e.drawn) == 5
            assert not set(e.drawn) & set(e.discarded)  # own discards never dealt back
        initial = {c for e in events_of(h, CardsDealt) for c in e.down}
        (burn,) = set(DECK_36) - initial - set(drew[1].drawn) - set(drew[2].drawn)
        first_stub = set(drew[1].discarded) | set(drew[2].discarded) | {burn}
        assert set(drew[3].drawn) <= first_stub
        assert set(drew[4].drawn) <= first_stub
        assert set(drew[0].drawn) <= first_stub | set(drew[3].discarded) | set(drew[4].discarded)
        held = [c for i in range(5) for c in h.down[i]]
        assert len(held) == 25 == len(set(held))
        assert sorted(held + h.deck.stub + h.deck.burns + h.deck.discards) == sorted(DECK_36)


# --------------------------------------------------------------------------- DRAW-5 second round


def test_second_round_left_of_button_check_or_big_bet() -> None:  # DRAW-5
    h = draw_hand(DRAW3, button=2)
    play(h, "2 call", "0 call", "1 check", "0 draw", "1 draw", "2 draw")
    assert h.actor == 0
    assert bounds(h) == {"check": (0, 0), "bet": (4, 4)}
    play(h, "0 check", "1 bet 4")
    assert bounds(h) == {"fold": (0, 0), "call": (4, 4), "raise": (8, 8)}


def test_second_round_skips_a_folded_player() -> None:  # DRAW-5
    h = draw_hand(DRAW3, button=0)
    play(h, "0 call", "1 fold", "2 check", "2 draw", "0 draw")
    assert h.actor == 2
    assert events_of(h, RoundStarted)[-1] == RoundStarted(1, 2)
    play(h, "2 check", "0 check")
    assert h.is_over
    assert events_of(h, HandShown)[0].player == 2


def test_deck_deals_zero_cards_as_nothing() -> None:  # DRAW-4 (stand pat: 0 cards)
    deck = Deck(DECK_36, SeededShuffler(0, "zero", 1))
    assert deck.deal([0, 1], 0) == [[], []]
    assert len(deck) == 36
    assert [len(batch) for batch in deck.deal([0, 1], 2)] == [2, 2]
    assert len(deck) == 32
