"""RULES.md §3, the stud games: one or more scenarios per rule, with exact chips (STUD-1..STUD-8)."""

from __future__ import annotations

import pytest
from support.scripted_hands import (
    FIVE_CARD_STUD,
    SEVEN_CARD_STUD,
    SEVEN_CARD_STUD_HILO,
    STUD_STAKES,
    awards,
    bounds,
    events_of,
    play,
    play_passively,
    stud_hand,
)

from tablestorm.services.engine import (
    Action,
    ActionKind,
    Hand,
    IllegalAction,
    SeededShuffler,
    Stakes,
    TableOptions,
    parse_cards,
)
from tablestorm.services.engine.events import (
    CapReached,
    CardsDealt,
    CommunityCard,
    ForcedBet,
    HandEnded,
    HandShown,
    HandStarted,
    Pot,
    PotsFormed,
    Reshuffled,
    RoundStarted,
)
from tablestorm.services.engine.hand import FOLDED

# Three players at 4/8, ante 1, bring-in 2; door cards 7c, 3c, 5h (player 1 brings in), and
# player 0 holds the best board on every later street.
STUD3 = ["As Ad 7c 8c 9c Tc Jc", "Ks Kd 3c 8d 9d Td Jd", "Qs Qd 5h 8h 9h Th Jh"]


# --------------------------------------------------------------------------- STUD-1 seats and dealing


def test_up_to_eight_players() -> None:  # STUD-1
    options = TableOptions(SEVEN_CARD_STUD, STUD_STAKES)
    Hand(options, [100] * 8, SeededShuffler(1, "t", 1))
    with pytest.raises(ValueError):
        Hand(options, [100] * 9, SeededShuffler(1, "t", 1))


def test_antes_before_the_cards_deal_from_seat_one_and_burn_before_later_streets() -> None:  # STUD-1
    h = stud_hand(STUD3)
    started, *antes = h.events[:4]
    assert started == HandStarted((200, 200, 200), -1, 52)  # no button in stud
    assert antes == [ForcedBet(i, "ante", 1, False) for i in range(3)]
    assert [type(e) for e in h.events[4:7]] == [CardsDealt, CardsDealt, CardsDealt]
    assert [e.player for e in events_of(h, CardsDealt)] == [0, 1, 2]
    assert h.stacks == [199, 199, 199]
    assert h.deck.burns == []
    play(h, "1 bring", "2 call", "0 call")
    assert len(h.deck.burns) == 1  # burned before 4th street
    for street in (2, 3, 4):
        play(h, "0 check", "1 check", "2 check")
        assert h.street == street
        assert len(h.deck.burns) == street
    dealt = [e for e in events_of(h, CardsDealt) if e.street == 4]
    assert [e.player for e in dealt] == [0, 1, 2]


def test_ante_short_stack_posts_what_it_has() -> None:  # STUD-1, BET-5
    h = stud_hand(STUD3, stakes=Stakes(small_bet=4, big_bet=8, ante=2, bring_in=2), stacks=[200, 200, 1])
    assert events_of(h, ForcedBet)[2] == ForcedBet(2, "ante", 1, False)
    assert h.stacks == [198, 198, 0]
    # The all-in player cannot bring in; the lowest door card among those who can does.
    assert h.actor == 1
    play(h, "1 bring", "0 call")
    play_passively(h)
    # Main pot 3 (1 from each), side pot 1 + 2 from each of players 0 and 1.
    assert events_of(h, PotsFormed)[0] == PotsFormed(0, (Pot(3, (0, 1, 2)), Pot(6, (0, 1))))
    assert awards(h) == [(0, 0, 3, "whole"), (1, 0, 6, "whole")]
    assert h.stacks == [205, 196, 0]


# --------------------------------------------------------------------------- STUD-2 streets


def test_seven_card_stud_streets() -> None:  # STUD-2
    h = stud_hand(STUD3)
    play_passively(h)
    shapes = [(e.street, len(e.down), len(e.up)) for e in events_of(h, CardsDealt) if e.player == 0]
    assert shapes == [(0, 2, 1), (1, 0, 1), (2, 0, 1), (3, 0, 1), (4, 1, 0)]
    assert [e.street for e in events_of(h, RoundStarted)] == [0, 1, 2, 3, 4]
    assert list(h.down[0]) == parse_cards("As Ad Jc")
    assert list(h.up[0]) == parse_cards("7c 8c 9c Tc")
    shown = events_of(h, HandShown)
    assert all(len(e.cards) == 7 for e in shown)


def test_five_card_stud_streets() -> None:  # STUD-2
    h = stud_hand(["As 7c 8c 9c Tc", "Ks 3c 8d 9d Td", "Qs 5h 8h 9h Th"], variant=FIVE_CARD_STUD)
    play_passively(h)
    shapes = [(e.street, len(e.down), len(e.up)) for e in events_of(h, CardsDealt) if e.player == 1]
    assert shapes == [(0, 1, 1), (1, 0, 1), (2, 0, 1), (3, 0, 1)]
    assert [e.street for e in events_of(h, RoundStarted)] == [0, 1, 2, 3]
    assert all(len(e.cards) == 5 for e in events_of(h, HandShown))
    assert awards(h) == [(0, 0, 9, "whole")]  # ace high beats king high and queen high


# --------------------------------------------------------------------------- STUD-3 bring-in


def test_bring_in_suit_tie() -> None:  # STUD-3, CARD-2
    # Door cards 3s, 3c, 3d: the same rank, clubs is the lowest suit.
    h = stud_hand(["Ac Ad 3s", "Kc Kd 3c", "Qc Qd 3d"])
    assert h.actor == 1
    h2 = stud_hand(["Ac Ad 3s", "Kc Kd 3h", "Qc Qd 3d"])
    assert h2.actor == 2  # diamonds below hearts and spades
    h3 = stud_hand(["Ac Ad 3s", "Kc Kd 3h"])
    assert h3.actor == 1  # hearts below spades


def test_bring_in_rank_before_suit() -> None:  # STUD-3, CARD-2
    h = stud_hand(["Ac Ad 2s", "Kc Kd 3c", "Qc Qd Ah"])
    assert h.actor == 0  # the deuce of spades is lower than the three of clubs


def test_bring_in_may_not_check_or_fold() -> None:  # STUD-3
    h = stud_hand(STUD3)
    assert bounds(h) == {"bring_in": (2, 2), "complete": (4, 4)}
    for kind in (ActionKind.CHECK, ActionKind.FOLD, ActionKind.CALL):
        with pytest.raises(IllegalAction):
            h.apply(Action(kind))
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.BET, 4))
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.RAISE, 4))
    assert h.stacks == [199, 199, 199]


def test_bring_in_then_clockwise_fold_call_or_complete() -> None:  # STUD-3
    h = stud_hand(STUD3)
    play(h, "1 bring")
    assert h.actor == 2
    assert bounds(h) == {"fold": (0, 0), "call": (2, 2), "complete": (4, 4)}
    play(h, "2 call")
    assert h.actor == 0  # clockwise, wrapping past the last seat
    assert bounds(h) == {"fold": (0, 0), "call": (2, 2), "complete": (4, 4)}
    play(h, "0 call")
    # Everyone called the bring-in: the round is over, no option for the bring-in.
    assert h.street == 1
    assert h.stacks == [197, 197, 197]


def test_bring_in_may_complete() -> None:  # STUD-3, BET-2
    h = stud_hand(STUD3)
    play(h, "1 complete 4")
    assert bounds(h) == {"fold": (0, 0), "call": (4, 4), "raise": (8, 8)}
    play(h, "2 raise 8", "0 raise 12", "1 raise 16")  # completion + 3 raises
    assert events_of(h, CapReached) == [CapReached(0)]


def test_completion_reopens_for_the_bring_in() -> None:  # STUD-3, BET-2
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 complete 4", "0 call")
    assert h.actor == 1
    assert bounds(h) == {"fold": (0, 0), "call": (4, 4), "raise": (8, 8)}
    play(h, "1 call")
    assert h.street == 1
    assert h.stacks == [195, 195, 195]


def test_bring_in_of_a_full_small_bet_is_the_bet() -> None:  # STUD-3, BET-2
    h = stud_hand(STUD3, stakes=Stakes(small_bet=4, big_bet=8, ante=1, bring_in=4))
    assert bounds(h) == {"bring_in": (4, 4)}
    play(h, "1 bring")
    assert bounds(h) == {"fold": (0, 0), "call": (4, 4), "raise": (8, 8)}
    play(h, "2 raise 8", "0 raise 12", "1 raise 16")  # bring-in + 3 raises
    assert events_of(h, CapReached) == [CapReached(0)]


def test_hilo_bring_in_is_the_lowest_card_by_high_ranking() -> None:  # STUD-3
    # An ace door is high, not low: the deuce brings in.
    h = stud_hand(["Kc Kd Ac", "Qc Qd 2s", "Jc Jd 3c"], variant=SEVEN_CARD_STUD_HILO)
    assert h.actor == 1


def test_default_stakes() -> None:  # STUD-3 [decision]
    assert Stakes.default(10) == Stakes(10, 20, ante=1, bring_in=5, small_blind=5, big_blind=10)
    assert Stakes.default(40) == Stakes(40, 80, ante=4, bring_in=20, small_blind=20, big_blind=40)


# --------------------------------------------------------------------------- STUD-4 street sizes


def test_seven_card_stud_small_then_big() -> None:  # STUD-4
    h = stud_hand(STUD3)
    sizes = []
    play(h, "1 bring")
    sizes.append(bounds(h)["complete"])
    play(h, "2 call", "0 call")
    for _street in (1, 2, 3, 4):
        sizes.append(bounds(h)["bet"])
        play(h, "0 check", "1 check", "2 check")
    assert sizes == [(4, 4), (4, 4), (8, 8), (8, 8), (8, 8)]


def test_five_card_stud_small_on_two_rounds_big_on_two() -> None:  # STUD-4 [decision], STUD-2
    h = stud_hand(["As 7c 8c 9c Tc", "Ks 3c 8d 9d Td", "Qs 5h 8h 9h Th"], variant=FIVE_CARD_STUD)
    assert h.actor == 1
    play(h, "1 bring", "2 complete 4", "0 call", "1 call")
    assert h.actor == 0
    assert bounds(h) == {"check": (0, 0), "bet": (4, 4)}
    play(h, "0 bet 4", "1 call", "2 call")
    assert bounds(h) == {"check": (0, 0), "bet": (8, 8)}
    play(h, "0 bet 8", "1 call", "2 call")
    assert bounds(h) == {"check": (0, 0), "bet": (8, 8)}
    play(h, "0 bet 8", "1 fold", "2 call")
    assert h.is_over
    # Players 0 and 2 put in 1 + 4 + 4 + 8 + 8 = 25, player 1 folded with 17 in.
    assert awards(h) == [(0, 0, 67, "whole")]
    assert h.stacks == [242, 183, 175]


# --------------------------------------------------------------------------- STUD-5 open pair

# Player 0 shows 9s 9h on 4th street (and brings in with the 9s, the lowest door card).
PAIR = ["2c 3c 9s 9h Ah", "4d 5d Kh 2d Ac", "6h 7h Qd 3d As"]


def _open_pair(**kwargs: object) -> Hand:
    h = stud_hand(PAIR, **kwargs)  # type: ignore[arg-type]
    play(h, "0 bring", "1 call", "2 call")
    assert (h.street, h.actor) == (1, 0)
    return h


def test_open_pair_small_bet_big_raise_then_only_big() -> None:  # STUD-5, BET-2
    h = _open_pair()
    assert bounds(h) == {"check": (0, 0), "bet": (4, 8)}
    play(h, "0 bet 4")
    assert bounds(h) == {"fold": (0, 0), "call": (4, 4), "raise": (8, 12)}  # either size
    play(h, "1 raise 12")  # a big raise
    assert bounds(h) == {"fold": (0, 0), "call": (12, 12), "raise": (20, 20)}  # only big now
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.RAISE, 16))
    play(h, "2 raise 20")
    assert bounds(h) == {"fold": (0, 0), "call": (20, 20), "raise": (28, 28)}
    play(h, "0 raise 28")  # the fourth bet
    assert events_of(h, CapReached) == [CapReached(1)]
    assert bounds(h) == {"fold": (0, 0), "call": (28, 28)}
    play(h, "1 call", "2 call")
    assert h.stacks == [169, 169, 169]


def test_open_pair_small_raise_keeps_both_sizes() -> None:  # STUD-5
    h = _open_pair()
    play(h, "0 bet 4", "1 raise 8")
    assert bounds(h) == {"fold": (0, 0), "call": (8, 8), "raise": (12, 16)}
    play(h, "2 raise 16")
    assert bounds(h) == {"fold": (0, 0), "call": (16, 16), "raise": (24, 24)}


def test_open_pair_big_bet_then_big_raises() -> None:  # STUD-5
    h = _open_pair()
    play(h, "0 bet 8")
    assert bounds(h) == {"fold": (0, 0), "call": (8, 8), "raise": (16, 16)}


def test_open_pair_any_player_may_bet_big() -> None:  # STUD-5
    h = _open_pair()
    play(h, "0 check")
    assert bounds(h) == {"check": (0, 0), "bet": (4, 8)}  # player 1 has no pair
    play(h, "1 bet 8")
    assert bounds(h) == {"fold": (0, 0), "call": (8, 8), "raise": (16, 16)}


def test_open_pair_only_on_the_second_round() -> None:  # STUD-5, STUD-4
    h = _open_pair()
    play(h, "0 check", "1 check", "2 check")
    assert bounds(h) == {"check": (0, 0), "bet": (8, 8)}


def test_no_open_pair_in_hilo() -> None:  # STUD-5
    h = _open_pair(variant=SEVEN_CARD_STUD_HILO)
    assert bounds(h) == {"check": (0, 0), "bet": (4, 4)}
    h = _open_pair(variant=SEVEN_CARD_STUD_HILO, open_pair=True)  # not even when asked for
    assert bounds(h) == {"check": (0, 0), "bet": (4, 4)}


def test_open_pair_per_table_option_off() -> None:  # STUD-5
    h = _open_pair(open_pair=False)
    assert bounds(h) == {"check": (0, 0), "bet": (4, 4)}


def test_open_pair_five_card_stud() -> None:  # STUD-5
    h = stud_hand(["2c 9s 9h Ah Ad", "4d Kh 2d Ac As", "6h Qd 3d Kc Ks"], variant=FIVE_CARD_STUD)
    play(h, "0 bring", "1 call", "2 call")
    assert (h.street, h.actor) == (1, 0)
    assert bounds(h) == {"check": (0, 0), "bet": (4, 8)}


# --------------------------------------------------------------------------- STUD-6 first to act


def test_first_to_act_pair_beats_high_cards() -> None:  # STUD-6
    h = stud_hand(["Jc Jd Ac Kc", "Td Tc 2h 2s", "9d 9c 5h 7s"])
    play(h, "1 bring", "2 call", "0 call")
    assert h.actor == 1  # 2-2 beats A-K
    assert bounds(h) == {"check": (0, 0), "bet": (4, 8)}  # may check or bet (open pair: either size)


def test_first_to_act_tie_goes_to_the_lowest_seat_not_the_suit() -> None:  # STUD-6, CARD-2
    h = stud_hand(["2d 3d 4c Jh", "2c 3c Kc Qc", "2s 3s Ks Qs"])
    play(h, "0 bring", "1 call", "2 call")
    assert h.actor == 1  # K-Q ties K-Q: seat 2 before seat 3, although spades are higher
    h = stud_hand(["2s 3s Ks Qs", "2d 3d 4c Jh", "2c 3c Kc Qc"])
    play(h, "1 bring", "2 call", "0 call")
    assert h.actor == 0


def test_first_to_act_four_card_straight_flush_board_does_not_count() -> None:  # STUD-6
    h = stud_hand(["Ac Ad 5h 6h 7h 8h Kd", "Kc Ks 9c 4d 3s 2c Qd", "Qc Qs 8c 6d 4s 2d Jd"])
    play(h, "0 bring", "1 call", "2 call")
    for _street in (1, 2):
        assert h.actor == 1
        play(h, "1 check", "2 check", "0 check")
    assert h.street == 3
    assert h.actor == 1  # 9-4-3-2 beats 8-7-6-5 of hearts: four cards make no straight or flush


def test_first_to_act_hilo_by_high_board() -> None:  # STUD-6
    h = stud_hand(["Qc Qd Kc Ac", "Jc Jd 3d 2s", "Tc Td 5c 9h"], variant=SEVEN_CARD_STUD_HILO)
    play(h, "1 bring", "2 call", "0 call")
    assert h.actor == 0  # A-K high, though 3-2 is the better low board


def test_first_to_act_skips_folded_best_board() -> None:  # STUD-6
    h = stud_hand(["Jc Jd Ac Kc 2h", "Td Tc 2s 3c 4h", "9d 9c 5h 7s 8h"])
    play(h, "1 bring", "2 call", "0 call")
    assert h.actor == 0  # A-K
    play(h, "0 check", "1 bet 4", "2 call", "0 fold")
    # 5th street: 8-7-5 beats 4-3-2 among the live boards; the folded ace-king no longer counts.
    assert events_of(h, RoundStarted)[-1] == RoundStarted(2, 2)
    assert bounds(h) == {"check": (0, 0), "bet": (8, 8)}


# --------------------------------------------------------------------------- STUD-7 deck exhaustion

# Eight players; player 5 makes four nines with the community card 9s. Doors: the four fours; the 4c
# brings in. 7s, Qc and As are never scripted: they are the three burns.
EIGHT = [
    "2c 3c 4d 6h 8s Tc",
    "2d 3d 4h 6s 8c Td",
    "2h 3h 4s 6c 8d Th",
    "2s 3s 4c 6d 8h Ts",
    "5c 7c Jd Kh Qs Ac",
    "9c 9d 9h 5d Jc Kd",
    "5h 7d Jh Kc Qd Ad",
    "5s 7h Js Ks Qh Ah",
]


def test_eight_players_to_seventh_street_share_a_community_card() -> None:  # STUD-7
    h = stud_hand(EIGHT, community="9s")
    assert h.actor == 3
    play_passively(h, until_street=3)
    assert len(h.deck) == 1  # 48 cards dealt and 3 burned
    play_passively(h)
    assert events_of(h, Reshuffled) == [Reshuffled(4, 3)]  # the three burns come back, no burn
    assert events_of(h, CommunityCard) == [CommunityCard(4, parse_cards("9s")[0])]
    assert [e for e in events_of(h, CardsDealt) if e.street == 4] == []
    assert h.community_card == parse_cards("9s")[0]
    assert all(len(h.cards_of(i)) == 7 and h.cards_of(i)[-1] == h.community_card for i in range(8))
    assert len(h.deck) == 3  # one of the four cards turned up
    assert h.deck.burns == []
    assert awards(h) == [(0, 5, 24, "whole")]  # four nines, the fourth from the community card
    assert h.stacks == [197] * 5 + [221] + [197] * 2


def test_seven_players_to_seventh_street_get_burns_reshuffled() -> None:  # STUD-7
    sevenths = [" 9s", " 7s", " Qc", " As", " 5s", " 7h", " Js"]  # Ks, Qh, Ah are the burns
    cards = [c + extra for c, extra in zip(EIGHT[:7], sevenths, strict=True)]
    h = stud_hand(cards)
    play_passively(h, until_street=4)
    assert h.deck.burns == []
    assert events_of(h, Reshuffled) == [Reshuffled(4, 3)]
    seventh = [e for e in events_of(h, CardsDealt) if e.street == 4]
    assert [(e.player, len(e.down), len(e.up)) for e in seventh] == [(i, 1, 0) for i in range(7)]
    assert len(h.deck) == 3  # 7 left + 3 burns - 7 dealt
    assert events_of(h, CommunityCard) == []
    play_passively(h)
    assert awards(h) == [(0, 5, 21, "whole")]  # trip nines


def test_seven_players_real_deck_burns_come_back_into_play() -> None:  # STUD-7
    for seed in range(5):
        options = TableOptions(SEVEN_CARD_STUD, STUD_STAKES)
        h = Hand(options, [200] * 7, SeededShuffler(seed, "stud7", 1))
        play_passively(h, until_street=3)
        assert (len(h.deck), len(h.deck.burns)) == (7, 3)  # 42 dealt, 3 burned
        before = set(h.deck.stub) | set(h.deck.burns)
        play_passively(h, until_street=4)
        assert events_of(h, Reshuffled) == [Reshuffled(4, 3)]
        seventh = [e.down[0] for e in events_of(h, CardsDealt) if e.street == 4]
        assert len(seventh) == 7
        assert set(seventh) | set(h.deck.stub) == before  # the burns joined the stub, nothing burned
        assert h.deck.burns == []


def test_folded_players_cards_are_never_reused() -> None:  # STUD-7
    options = TableOptions(SEVEN_CARD_STUD, STUD_STAKES)
    h = Hand(options, [200] * 8, SeededShuffler(7, "stud7", 2))
    # The first player after the bring-in folds: seven live hands, 24 + 3 * 7 dealt and 3 burned.
    bringer = h.actor
    quitter = (bringer + 1) % 8
    play(h, f"{bringer} bring", f"{quitter} fold")
    folded = set(h.down[quitter] + h.up[quitter])
    assert len(folded) == 3
    play_passively(h)
    assert events_of(h, Reshuffled) == [Reshuffled(4, 3)]  # 4 left + 3 burns = 7 last cards
    assert events_of(h, CommunityCard) == []
    assert len(h.deck) == 0
    for i in range(8):
        if i != quitter:
            assert h.status[i] != FOLDED
            assert len(h.cards_of(i)) == 7
            assert not folded & set(h.cards_of(i))


def test_eight_players_real_deck_community_card() -> None:  # STUD-7
    options = TableOptions(SEVEN_CARD_STUD, STUD_STAKES)
    h = Hand(options, [200] * 8, SeededShuffler(3, "stud7", 3))
    play_passively(h)
    (community,) = events_of(h, CommunityCard)
    assert events_of(h, Reshuffled) == [Reshuffled(4, 3)]
    held = [c for i in range(8) for c in h.down[i] + h.up[i]]
    assert len(held) == 48 == len(set(held))
    assert community.card not in held
    assert sorted([*held, community.card, *h.deck.stub]) == list(range(52))
    assert all(len(e.cards) == 7 for e in events_of(h, HandShown))


# --------------------------------------------------------------------------- STUD-8 hi-lo split

# Player 0: kings full (no low). Players 1 and 2: 7-5-4-2-A lows (1 brings in with the 4c, the
# 4d of player 2 being higher). Player 3 folds to the bring-in.
HILO = ["Kc Kd 9s Ks 9d Qh Jc", "Ah 2h 4c 5d 7s Th Js", "Qs Qd 8c 3h 6h 9h Tc", "Kh Qc 9c"]


def _hilo(cards: list[str]) -> Hand:
    h = stud_hand(cards, variant=SEVEN_CARD_STUD_HILO)
    play(h, "1 bring", "2 call", "3 fold" if len(cards) > 3 else "0 call")
    if len(cards) > 3:
        play(h, "0 call")
    play_passively(h)
    return h


def test_hilo_split_high_and_low() -> None:  # STUD-8
    h = _hilo(HILO[:3])  # pot 9: 3 antes and three bring-ins
    assert awards(h) == [(0, 0, 5, "high"), (0, 1, 4, "low")]  # odd chip to the high half
    assert h.stacks == [202, 201, 197]


def test_hilo_scoop() -> None:  # STUD-8
    cards = ["Kc Kd 9s Qs 9d Qh Jc", "Ah 2h 4c 5d 3s Th Js", "Qc Qd 8c 7h 6h Jh Tc"]
    h = _hilo(cards)  # the wheel: a straight for high, the best low
    assert awards(h) == [(0, 1, 5, "high"), (0, 1, 4, "low")]
    assert h.stacks == [197, 206, 197]


def test_hilo_no_qualifying_low_high_takes_all() -> None:  # STUD-8, CARD-4
    cards = ["Kc Kd 9s Ks 9d Qh Jc", "Ah 2h 4c 9c 9h Th Js", "Qs Qd 8c 3h 6h Tc 7c"]
    h = _hilo(cards)  # player 1: A-2-4 and nines; player 2: 8-7-6-3 only four low ranks
    assert awards(h) == [(0, 0, 9, "whole")]
    assert h.stacks == [206, 197, 197]


def test_hilo_tied_lows_split_the_low_half_odd_chip_from_seat_one() -> None:  # STUD-8, SHOW-5
    cards = ["Kc Kd 9s Ks 9d Qh Jc", "Ah 2h 4c 5d 7s Th Js", "Ad 2c 4d 5c 7h Ts Jd", "Kh Qc 9c"]
    h = _hilo(cards)  # pot 10: high 5; low 5 split 3 (seat 2) and 2 (seat 3)
    assert awards(h) == [(0, 0, 5, "high"), (0, 1, 3, "low"), (0, 2, 2, "low")]
    assert h.stacks == [202, 200, 199, 199]
    assert events_of(h, HandEnded)[0].showdown
