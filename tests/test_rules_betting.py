"""RULES.md §2, betting structures: one or more scenarios per rule, with exact chips (BET-1..BET-8)."""

from __future__ import annotations

import pytest
from support.scripted_hands import (
    DRAW_BLINDS,
    SEVEN_CARD_STUD_HILO,
    awards,
    bounds,
    chips_conserved,
    draw_hand,
    events_of,
    play,
    stud_hand,
)

from tablestorm.services.engine import Action, ActionKind, IllegalAction, Structure
from tablestorm.services.engine.events import (
    Acted,
    BetReturned,
    CapReached,
    HandEnded,
    Pot,
    PotsFormed,
)

# Three stud players at 4/8, ante 1, bring-in 2. Door cards 7c, 3c, 5h: player 1 brings in.
# Boards later (8-7-..., 8-3-..., 8-5-...) put player 0 first on every later street (STUD-6).
STUD3 = ["As Ad 7c 8c 9c Tc Jc", "Ks Kd 3c 8d 9d Td Jd", "Qs Qd 5h 8h 9h Th Jh"]

# Three draw players (32-card deck); button 0, small blind player 1, big blind player 2.
DRAW3 = ["7c 8c 9d Jh Ks", "7d 8d Td Qh As", "7h 9h Jd Qc Ac"]

FOLD_ONLY_CALL = {"fold": (0, 0), "call": (16, 16)}


# --------------------------------------------------------------------------- BET-1 fixed limit


def test_fixed_limit_stud_only_one_unit_per_bet_and_raise() -> None:  # BET-1, STUD-4
    h = stud_hand(STUD3)
    assert h.actor == 1
    assert bounds(h) == {"bring_in": (2, 2), "complete": (4, 4)}
    play(h, "1 bring")
    assert bounds(h) == {"fold": (0, 0), "call": (2, 2), "complete": (4, 4)}
    play(h, "2 complete 4")
    assert bounds(h) == {"fold": (0, 0), "call": (4, 4), "raise": (8, 8)}
    for wrong in (6, 7, 9, 12):
        with pytest.raises(IllegalAction):
            h.apply(Action(ActionKind.RAISE, wrong))
    play(h, "0 raise 8", "1 call", "2 call")
    # 4th street: the small bet (no open pair).
    assert (h.street, h.actor) == (1, 0)
    assert bounds(h) == {"check": (0, 0), "bet": (4, 4)}
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.BET, 8))
    play(h, "0 bet 4")
    assert bounds(h) == {"fold": (0, 0), "call": (4, 4), "raise": (8, 8)}
    play(h, "1 call", "2 call")
    # 5th street: the big bet.
    assert (h.street, h.actor) == (2, 0)
    assert bounds(h) == {"check": (0, 0), "bet": (8, 8)}
    play(h, "0 bet 8")
    assert bounds(h) == {"fold": (0, 0), "call": (8, 8), "raise": (16, 16)}
    play(h, "1 raise 16", "2 fold")
    assert bounds(h) == {"fold": (0, 0), "call": (16, 16), "raise": (24, 24)}
    play(h, "0 call")
    # ante 1 + 8 + 4 + 16 = 29 each for players 0 and 1; player 2 folded with 1 + 8 + 4 = 13 in.
    assert h.stacks == [171, 171, 187]
    assert h.committed == [29, 29, 13]
    assert h.pots() == (Pot(71, (0, 1)),)


def test_fixed_limit_draw_small_bet_before_and_big_bet_after_the_draw() -> None:  # BET-1, DRAW-5
    h = draw_hand(DRAW3, button=0)
    assert h.actor == 0
    assert bounds(h) == {"fold": (0, 0), "call": (2, 2), "raise": (4, 4)}
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.RAISE, 5))
    play(h, "0 raise 4", "1 call", "2 call", "1 draw", "2 draw", "0 draw")
    assert h.actor == 1
    assert bounds(h) == {"check": (0, 0), "bet": (4, 4)}
    play(h, "1 bet 4")
    assert bounds(h) == {"fold": (0, 0), "call": (4, 4), "raise": (8, 8)}


# --------------------------------------------------------------------------- BET-2 cap


def test_cap_four_bets_with_three_players_stud() -> None:  # BET-2, STUD-3
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 complete 4", "0 raise 8", "1 raise 12")
    assert events_of(h, CapReached) == []
    assert bounds(h) == {"fold": (0, 0), "call": (12, 12), "raise": (16, 16)}
    play(h, "2 raise 16")  # completion + three raises = four bets
    assert events_of(h, CapReached) == [CapReached(0)]
    # The cap event follows the bet that reached it.
    assert h.events[-2:] == [Acted(2, ActionKind.RAISE, 16, 12, False), CapReached(0)]
    assert h.actor == 0
    assert bounds(h) == FOLD_ONLY_CALL
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.RAISE, 20))
    play(h, "0 call")
    assert bounds(h) == FOLD_ONLY_CALL
    play(h, "1 call")
    assert h.street == 1
    assert h.stacks == [183, 183, 183]
    assert events_of(h, PotsFormed)[0] == PotsFormed(0, (Pot(51, (0, 1, 2)),))


def test_cap_draw_big_blind_is_the_first_bet() -> None:  # BET-2, DRAW-3
    h = draw_hand(DRAW3, button=0)
    play(h, "0 raise 4", "1 raise 6", "2 raise 8")
    assert events_of(h, CapReached) == [CapReached(0)]
    assert bounds(h) == {"fold": (0, 0), "call": (8, 8)}
    play(h, "0 call", "1 call")
    assert h.stacks == [192, 192, 192]


# --------------------------------------------------------------------------- BET-3 heads-up uncapped


def test_heads_up_raises_are_unlimited() -> None:  # BET-3
    h = stud_hand(STUD3[:2])
    play(h, "1 bring", "0 complete 4", "1 raise 8", "0 raise 12", "1 raise 16")
    assert events_of(h, CapReached) == []
    assert bounds(h) == {"fold": (0, 0), "call": (16, 16), "raise": (20, 20)}
    play(h, "0 raise 20", "1 raise 24", "0 raise 28", "1 call")
    assert h.stacks == [171, 171]
    assert events_of(h, CapReached) == []


def test_heads_up_after_a_fold_before_the_cap() -> None:  # BET-3
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 complete 4", "0 raise 8", "1 fold")  # two live hands, two bets made
    play(h, "2 raise 12", "0 raise 16")
    assert events_of(h, CapReached) == []
    assert bounds(h) == {"fold": (0, 0), "call": (16, 16), "raise": (20, 20)}
    play(h, "2 raise 20", "0 raise 24", "2 call")
    assert h.stacks == [175, 197, 175]


def test_capped_with_three_players_stays_capped_after_a_fold() -> None:  # BET-3, BET-2
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 complete 4", "0 raise 8", "1 raise 12", "2 raise 16")
    assert events_of(h, CapReached) == [CapReached(0)]
    play(h, "0 fold")  # two live hands now, but the cap was reached with three
    assert h.actor == 1
    assert bounds(h) == FOLD_ONLY_CALL
    play(h, "1 call")
    assert h.stacks == [191, 183, 183]


def test_all_in_player_counts_as_a_live_hand_for_the_cap() -> None:  # BET-3, BET-2
    # Player 2 is all-in on the completion: three live hands remain, so the cap applies.
    h = stud_hand(STUD3, stacks=[200, 200, 5])
    play(h, "1 bring", "2 complete 4")
    assert h.events[-1] == Acted(2, ActionKind.COMPLETE, 4, 4, True)
    play(h, "0 raise 8", "1 raise 12", "0 raise 16")
    assert events_of(h, CapReached) == [CapReached(0)]
    assert bounds(h) == FOLD_ONLY_CALL


def test_heads_up_uncapped_option_off() -> None:  # BET-3 (per-table option), BET-2
    h = stud_hand(STUD3[:2], heads_up_uncapped=False)
    play(h, "1 bring", "0 complete 4", "1 raise 8", "0 raise 12", "1 raise 16")
    assert events_of(h, CapReached) == [CapReached(0)]
    assert bounds(h) == FOLD_ONLY_CALL


# --------------------------------------------------------------------------- BET-4 pot and no limit


def test_pot_limit_maximum_raise() -> None:  # BET-4
    # BET-4 says the maximum raise "makes the total wager equal to the pot after the raiser's call
    # (pot + all bets on the table + the call)". Read here as the usual pot-limit rule: the raise
    # itself is that amount, on top of the call (blinds 1/2: to 2 + 5 = 7). Reading "total wager"
    # as the street total (to 5) would let a "pot raise" add less than the pot; see the report.
    h = draw_hand(DRAW3, button=0, structure=Structure.POT_LIMIT, stakes=DRAW_BLINDS)
    # Blinds 1 and 2 in; player 0 calls 2 (pot 5) and raises 5: to 7.
    assert bounds(h) == {"fold": (0, 0), "call": (2, 2), "raise": (4, 7)}
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.RAISE, 8))
    play(h, "0 raise 7")
    # Player 1 (1 in): pot 10, call 6 makes 16, raise 16 over the 7: to 23; minimum 7 + 5 = 12.
    assert bounds(h) == {"fold": (0, 0), "call": (7, 7), "raise": (12, 23)}
    play(h, "1 raise 23")
    # Player 2 (2 in): pot 32, call 21 makes 53: to 23 + 53 = 76; minimum 23 + 16 = 39.
    assert bounds(h) == {"fold": (0, 0), "call": (23, 23), "raise": (39, 76)}
    play(h, "2 call", "0 call", "1 draw", "2 draw", "0 draw")
    # After the draw: pot 69, the big blind is the minimum bet, the pot the maximum.
    assert h.actor == 1
    assert bounds(h) == {"check": (0, 0), "bet": (2, 69)}
    play(h, "1 bet 10")
    # Pot 79, call 10 makes 89: raise to 10 + 89 = 99; minimum 10 + 10 = 20.
    assert bounds(h) == {"fold": (0, 0), "call": (10, 10), "raise": (20, 99)}


def test_pot_limit_maximum_capped_by_the_stack() -> None:  # BET-4, BET-5
    h = draw_hand(DRAW3, button=0, structure=Structure.POT_LIMIT, stakes=DRAW_BLINDS, stacks=[6, 200, 200])
    assert bounds(h) == {"fold": (0, 0), "call": (2, 2), "raise": (4, 6)}


def test_no_limit_minimum_raise_is_the_last_bet_or_raise() -> None:  # BET-4
    h = draw_hand(DRAW3, button=0, structure=Structure.NO_LIMIT, stakes=DRAW_BLINDS)
    assert bounds(h) == {"fold": (0, 0), "call": (2, 2), "raise": (4, 200)}
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.RAISE, 3))
    play(h, "0 raise 6")  # a raise of 4
    assert bounds(h) == {"fold": (0, 0), "call": (6, 6), "raise": (10, 200)}
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.RAISE, 9))
    play(h, "1 raise 16")  # a raise of 10
    assert bounds(h) == {"fold": (0, 0), "call": (16, 16), "raise": (26, 200)}
    play(h, "2 fold", "0 call", "1 draw", "0 draw")
    # After the draw the minimum bet is the big blind.
    assert h.actor == 1
    assert bounds(h) == {"check": (0, 0), "bet": (2, 184)}
    play(h, "1 bet 5")
    assert bounds(h) == {"fold": (0, 0), "call": (5, 5), "raise": (10, 184)}


# --------------------------------------------------------------------------- BET-5 short all-in


def test_fixed_limit_all_in_under_half_a_bet_does_not_reopen() -> None:  # BET-5
    h = stud_hand(STUD3, stacks=[200, 14, 200])
    play(h, "1 bring", "2 call", "0 call", "0 check", "1 check", "2 check")
    assert h.stacks == [197, 11, 197]
    play(h, "0 bet 8")
    assert bounds(h) == {"fold": (0, 0), "call": (8, 8), "raise": (11, 11)}  # all-in for less
    play(h, "1 raise 11")  # 3 over the bet: less than half of 8
    # Player 2 has not acted: call the 11 or raise a full bet over the last full bet (8 + 8).
    assert bounds(h) == {"fold": (0, 0), "call": (11, 11), "raise": (16, 16)}
    play(h, "2 call")
    # Player 0 already acted and faced less than a full raise: call or fold only.
    assert bounds(h) == {"fold": (0, 0), "call": (11, 11)}
    with pytest.raises(IllegalAction):
        h.apply(Action(ActionKind.RAISE, 16))
    play(h, "0 call")
    assert h.street == 3
    assert h.stacks == [186, 0, 186]


def test_fixed_limit_all_in_of_half_a_bet_reopens() -> None:  # BET-5
    h = stud_hand(STUD3, stacks=[200, 15, 200])
    play(h, "1 bring", "2 call", "0 call", "0 check", "1 check", "2 check")
    play(h, "0 bet 8", "1 raise 12")  # 4 over the bet: half of 8 counts as a full raise
    # A full raise on top of the all-in, as Robert's Rules ("raising a $15 all-in bet to $35" at
    # $20): RULES.md names no size, 12 + 8 = 20.
    assert bounds(h) == {"fold": (0, 0), "call": (12, 12), "raise": (20, 20)}
    play(h, "2 call")
    assert bounds(h) == {"fold": (0, 0), "call": (12, 12), "raise": (20, 20)}
    play(h, "0 raise 20", "2 call")
    assert h.stacks == [177, 0, 177]


def test_fixed_limit_half_bet_all_in_counts_toward_the_cap() -> None:  # BET-5, BET-2
    h = stud_hand([*STUD3, "2s 2d 7d 7h 7s 6c 2h"], stacks=[200, 15, 200, 200])
    play(h, "1 bring", "2 call", "3 call", "0 call")
    assert h.actor == 3  # 4th street: a pair of sevens showing is the best board
    play(h, "3 check", "0 check", "1 check", "2 check")
    assert (h.street, h.actor) == (2, 3)  # trip sevens showing
    play(h, "3 bet 8", "0 call", "1 raise 12", "2 raise 20", "3 raise 28")  # 8, 12, 20, 28: four bets
    assert events_of(h, CapReached) == [CapReached(2)]
    assert bounds(h) == {"fold": (0, 0), "call": (28, 28)}


def test_fixed_limit_under_half_all_in_does_not_count_toward_the_cap() -> None:  # BET-5, BET-2
    h = stud_hand([*STUD3, "2s 2d 7d 7h 7s 6c 2h"], stacks=[200, 14, 200, 200])
    play(h, "1 bring", "2 call", "3 call", "0 call", "3 check", "0 check", "1 check", "2 check")
    play(h, "3 bet 8", "0 call", "1 raise 11", "2 raise 16", "3 raise 24")  # 8, 16, 24: three bets
    assert events_of(h, CapReached) == []
    assert bounds(h) == {"fold": (0, 0), "call": (24, 24), "raise": (32, 32)}
    play(h, "0 raise 32")
    assert events_of(h, CapReached) == [CapReached(2)]
    assert bounds(h) == {"fold": (0, 0), "call": (32, 32)}


def test_no_limit_short_all_in_does_not_reopen() -> None:  # BET-5, BET-4
    h = draw_hand(DRAW3, button=0, structure=Structure.NO_LIMIT, stakes=DRAW_BLINDS, stacks=[200, 8, 200])
    play(h, "0 raise 6")  # raise of 4
    assert bounds(h) == {"fold": (0, 0), "call": (6, 6), "raise": (8, 8)}
    play(h, "1 raise 8")  # all-in: a raise of 2, less than 4
    # The big blind has not acted: a full raise is 8 + 4.
    assert bounds(h) == {"fold": (0, 0), "call": (8, 8), "raise": (12, 200)}
    play(h, "2 call")
    # The raiser already acted and faced less than a full raise: no re-raise.
    assert bounds(h) == {"fold": (0, 0), "call": (8, 8)}
    play(h, "0 call")
    assert h.stacks == [192, 0, 192]


def test_pot_limit_short_all_in_does_not_reopen() -> None:  # BET-5, BET-4
    h = draw_hand(DRAW3, button=0, structure=Structure.POT_LIMIT, stakes=DRAW_BLINDS, stacks=[200, 10, 200])
    play(h, "0 raise 7", "1 raise 10")  # all-in: a raise of 3, less than the 5 before it
    # Pot 19, call 8 makes 27: to 10 + 27; minimum 10 + 5.
    assert bounds(h) == {"fold": (0, 0), "call": (10, 10), "raise": (15, 37)}
    play(h, "2 call")
    assert bounds(h) == {"fold": (0, 0), "call": (10, 10)}


# --------------------------------------------------------------------------- BET-6 uncalled bet


def test_uncalled_part_of_a_bet_returned_to_its_owner() -> None:  # BET-6
    h = stud_hand(STUD3[:2], stacks=[200, 9])
    play(h, "1 bring", "0 complete 4", "1 call")
    assert h.stacks == [195, 4]
    play(h, "0 check", "1 check")
    play(h, "0 bet 8", "1 call")  # all-in for 4 of the 8
    assert events_of(h, Acted)[-1] == Acted(1, ActionKind.CALL, 4, 4, True)
    returned = events_of(h, BetReturned)
    assert returned == [BetReturned(0, 4)]
    # The return comes before the pots are formed: one pot of 9 + 9.
    assert events_of(h, PotsFormed)[2] == PotsFormed(2, (Pot(18, (0, 1)),))
    assert h.is_over
    assert awards(h) == [(0, 0, 18, "whole")]  # straight flush beats kings
    assert h.stacks == [209, 0]


def test_uncalled_bet_returned_when_everyone_folds() -> None:  # BET-6, SHOW-3
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 call", "0 call", "0 bet 4", "1 fold", "2 fold")
    assert events_of(h, BetReturned) == [BetReturned(0, 4)]
    assert awards(h) == [(0, 0, 9, "whole")]
    assert h.stacks == [206, 197, 197]


# --------------------------------------------------------------------------- BET-7 side pots


# Five players; player 4 brings in with the 2c and folds; players 1, 2 and 3 go all-in for
# different amounts. Showdown: 1 aces full > 2 trip kings > 3 queens > 0 queen high.
SIDE = [
    "3d 4h 9c Jd Qs 7h 5c",
    "Ac Ad Ah 6s 6d 8c Ts",
    "Kc Kd Ks 2d 8d Th Js",
    "Qc Qd 5s 9d 3s 4c 6c",
    "2h 7s 2c",
]


def _side_pots(h: object) -> None:
    script = [
        "4 bring", "0 complete 4",
        "1 raise 7",   # all-in: 3 over the 4, at least half a bet (BET-5)
        "2 raise 11",  # all-in
        "3 raise 15",  # the fourth bet (cap); 4 chips behind
        "4 fold",      # the ante and bring-in (3) stay in the main pot
        "0 call",
    ]
    for step in script:
        play(h, step)  # type: ignore[arg-type]
        assert chips_conserved(h)  # type: ignore[arg-type]


def test_side_pots_three_all_ins_of_different_sizes() -> None:  # BET-7
    h = stud_hand(SIDE, stacks=[200, 8, 12, 20, 200])
    _side_pots(h)
    assert events_of(h, CapReached) == [CapReached(0)]
    # committed: 16, 8, 12, 16, 3
    main, side = Pot(35, (0, 1, 2, 3)), Pot(12, (0, 2, 3))
    assert events_of(h, PotsFormed)[0] == PotsFormed(0, (main, side, Pot(8, (0, 3))))
    assert h.actor == 3  # best board A-6 is all-in, and so is K-2: the next live player acts
    play(h, "3 check", "0 bet 4", "3 call")  # player 3 all-in for the last 4
    assert chips_conserved(h)
    assert h.is_over
    assert events_of(h, PotsFormed)[1] == PotsFormed(1, (main, side, Pot(16, (0, 3))))
    assert awards(h) == [(0, 1, 35, "whole"), (1, 2, 12, "whole"), (2, 3, 16, "whole")]
    assert h.stacks == [180, 35, 12, 16, 197]
    assert events_of(h, HandEnded) == [HandEnded((180, 35, 12, 16, 197), True)]
    assert sum(h.stacks) == 440


def test_hilo_side_pots_split_on_their_own_no_low_in_a_side_pot() -> None:  # BET-7, STUD-8, SHOW-5
    # Same action; player 1 now holds only a 7-4-3-2-A low (no pair), nobody else has a low.
    cards = list(SIDE)
    cards[1] = "Ac 2s 3h 4d 7c 9s Kh"
    h = stud_hand(cards, variant=SEVEN_CARD_STUD_HILO, stacks=[200, 8, 12, 20, 200])
    _side_pots(h)
    play(h, "3 check", "0 bet 4", "3 call")
    assert h.is_over
    assert awards(h) == [
        (0, 2, 18, "high"),   # main pot 35: trip kings take the high half with the odd chip
        (0, 1, 17, "low"),    # the only low takes the other half
        (1, 2, 12, "whole"),  # side pot: no qualifying low among 0, 2, 3: high takes it all
        (2, 3, 16, "whole"),
    ]
    assert h.stacks == [180, 17, 30, 16, 197]


def test_folded_chips_stay_in_the_pots_they_reached() -> None:  # BET-7, BET-6
    cards = ["Ks Kd 7c 8c 9h 2h 4d", "As Ad 3c 8d 9d Td Jd", "Qs Qd 5h 8h 9s"]
    h = stud_hand(cards, stacks=[200, 12, 200])
    play(h, "1 bring", "2 complete 4", "0 raise 8", "1 call", "2 call")
    assert h.stacks == [191, 3, 191]
    play(h, "0 bet 4", "1 call", "2 call")  # player 1 all-in for 3
    assert events_of(h, Acted)[-2] == Acted(1, ActionKind.CALL, 3, 3, True)
    assert events_of(h, PotsFormed)[-1] == PotsFormed(1, (Pot(36, (0, 1, 2)), Pot(2, (0, 2))))
    play(h, "0 bet 8", "2 fold")  # player 2's 13 stay in the pots; the 8 comes back
    assert events_of(h, BetReturned) == [BetReturned(0, 8)]
    assert events_of(h, PotsFormed)[2] == PotsFormed(2, (Pot(36, (0, 1)), Pot(2, (0,))))
    assert h.is_over
    assert awards(h) == [(0, 1, 36, "whole"), (1, 0, 2, "whole")]  # diamond flush wins the main pot
    assert h.stacks == [189, 36, 187]


# --------------------------------------------------------------------------- BET-8 check-raise


def test_check_raise_stud() -> None:  # BET-8
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 call", "0 call", "0 check", "1 check", "2 check")
    play(h, "0 check", "1 bet 8", "2 call")
    assert h.actor == 0
    assert bounds(h) == {"fold": (0, 0), "call": (8, 8), "raise": (16, 16)}
    play(h, "0 raise 16")
    # The check-raise is a full raise: the bettor may raise again.
    assert bounds(h) == {"fold": (0, 0), "call": (16, 16), "raise": (24, 24)}
    play(h, "1 call", "2 call")
    assert h.stacks == [181, 181, 181]


def test_check_raise_draw_fixed_limit() -> None:  # BET-8
    h = draw_hand(DRAW3, button=0)
    play(h, "0 call", "1 call", "2 check", "1 draw", "2 draw", "0 draw")
    play(h, "1 check", "2 bet 4", "0 call")
    assert bounds(h) == {"fold": (0, 0), "call": (4, 4), "raise": (8, 8)}
    play(h, "1 raise 8", "2 call", "0 call")
    assert h.is_over
    assert h.stacks == [190, 190, 220]  # A-Q-J high wins 30


def test_check_raise_no_limit() -> None:  # BET-8, BET-4
    h = draw_hand(DRAW3, button=0, structure=Structure.NO_LIMIT, stakes=DRAW_BLINDS)
    play(h, "0 call", "1 call", "2 check", "1 draw", "2 draw", "0 draw")
    play(h, "1 check", "2 bet 10", "0 fold")
    assert bounds(h) == {"fold": (0, 0), "call": (10, 10), "raise": (20, 198)}
    play(h, "1 raise 198")  # all-in check-raise
    assert bounds(h) == {"fold": (0, 0), "call": (198, 198)}
    play(h, "2 fold")
    assert events_of(h, BetReturned) == [BetReturned(1, 188)]
    assert awards(h) == [(0, 1, 26, "whole")]
    assert h.stacks == [198, 214, 188]
