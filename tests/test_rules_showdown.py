"""RULES.md §5 and §6: showdown, winners and the action clock (SHOW-1, 2, 3, 5 and CLOCK-2).

SHOW-4 (hand history) and CLOCK-3 (sitting out) are table rules: see the table tests.
"""

from __future__ import annotations

from support.scripted_hands import (
    SEVEN_CARD_STUD_HILO,
    awards,
    draw_hand,
    events_of,
    play,
    play_passively,
    seq,
    stud_hand,
)

from tablestorm.services.engine import ActionKind, TimeoutOutcome
from tablestorm.services.engine.events import (
    Acted,
    BetReturned,
    CardsDealt,
    Drew,
    HandEnded,
    HandMucked,
    HandShown,
    Pot,
    PotsFormed,
    RoundStarted,
    TimedOut,
)
from tablestorm.services.engine.hand import ACTIVE, ALL_IN, FOLDED

DRAW3 = ["7c 8c 9d Jh Ks", "7d 8d Td Qh As", "7h 9h Jd Qc Ac"]

# Stud, three players: doors 7c, 3c, 5h (player 1 brings in); player 0 has the best board on
# every later street. Hands: 0 trip aces, 1 kings, 2 trip queens.
STUD3 = ["As Ad 7c 8c 9c Tc Ah", "Ks Kd 3c 8d 9d Td 2s", "Qs Qd 5h 8h 9h Th Qc"]


def shows(h: object) -> list[tuple[str, int]]:
    """The showdown as ``[("show", player), ("muck", player), ...]`` in order."""
    out = []
    for e in seq(h.events, HandShown, HandMucked):  # type: ignore[attr-defined]
        out.append(("show" if type(e) is HandShown else "muck", e.player))
    return out


# --------------------------------------------------------------------------- SHOW-1 cards speak


def test_cards_speak_short_deck_flush_beats_full_house() -> None:  # SHOW-1, CARD-5
    h = draw_hand(["7h 9h Jh Qh Ah", "Kc Kd Ks 8c 8d"], button=0)
    play(h, "0 call", "1 check", "1 draw", "0 draw", "1 check", "0 check")
    assert awards(h) == [(0, 0, 4, "whole")]
    assert h.stacks == [202, 198]


def test_cards_speak_best_five_of_seven() -> None:  # SHOW-1, CARD-3
    # Player 0 shows only 7-8 of clubs and a pair of deuces on board; hidden clubs make a flush.
    cards = ["Ac Kc 7c 8c 2h 2d 3c", "Ks Kd 3s 4d 5s Ts Js", "Qs Qd 5h 6h 9h Th Jh"]
    h = stud_hand(cards)
    play_passively(h)
    assert awards(h) == [(0, 0, 9, "whole")]
    winner = events_of(h, HandShown)
    assert [e.player for e in winner if e.player == 0] == [0]


# --------------------------------------------------------------------------- SHOW-2 order of showing


def test_last_aggressor_shows_first_and_beaten_hands_are_mucked() -> None:  # SHOW-2
    cards = ["As Ad 7c 8c 9c Tc Ah", "Ks Kd 3c 8d 9d Td 2s", "Qs Qd 5h 8h 9h Th 2c"]
    h = stud_hand(cards)
    play(h, "1 bring", "2 call", "0 call")
    for _ in (1, 2, 3):
        play(h, "0 check", "1 check", "2 check")
    play(h, "0 check", "1 bet 8", "2 call", "0 call")
    # Player 1 bet last: shows kings; player 2's queens cannot beat them (mucked); player 0's aces can.
    assert shows(h) == [("show", 1), ("muck", 2), ("show", 0)]
    assert awards(h) == [(0, 0, 33, "whole")]
    assert h.stacks == [222, 189, 189]


def test_checked_through_first_to_act_shows_first() -> None:  # SHOW-2
    cards = ["Ks Kd 7c 8c 9c Tc 2s", "Qs Qd 3c 8d 9d Td 2c", "As Ad 5h 8h 9h Th Ah"]
    h = stud_hand(cards)
    play_passively(h)
    assert events_of(h, RoundStarted)[-1] == RoundStarted(4, 0)
    assert shows(h) == [("show", 0), ("muck", 1), ("show", 2)]
    assert awards(h) == [(0, 2, 9, "whole")]


def test_checked_through_all_in_best_board_does_not_act_so_does_not_show_first() -> None:  # SHOW-2, STUD-6
    # Player 0 holds the best board but is all-in from 3rd street: player 1 acts first on
    # every later street, and shows first when the river is checked through.
    cards = ["2s 3d 7c 8c 9c Tc 4h", "Ks Kd 3c 8d 9d Td 2c", "Qs Qd 5h 8h 9h Th 2d"]
    h = stud_hand(cards, stacks=[3, 200, 200])
    play(h, "1 bring", "2 call", "0 call")
    assert h.status[0] == ALL_IN
    assert h.street == 1
    assert events_of(h, RoundStarted) == [RoundStarted(0, 1), RoundStarted(1, 1)]  # 4th: not the all-in 7-8
    play_passively(h)
    assert [e.first for e in events_of(h, RoundStarted)] == [1, 1, 1, 1, 1]
    assert shows(h) == [("show", 1), ("muck", 2), ("muck", 0)]
    assert awards(h) == [(0, 1, 9, "whole")]
    assert h.stacks == [0, 206, 197]


def test_draw_last_aggressor_shows_first() -> None:  # SHOW-2
    h = draw_hand(DRAW3, button=0)
    play(h, "0 call", "1 call", "2 check", "1 draw", "2 draw", "0 draw")
    play(h, "1 check", "2 check", "0 bet 4", "1 call", "2 call")
    # Player 0 bet last: shows king high; then clockwise A-Q-T beats it, A-Q-J beats that.
    assert shows(h) == [("show", 0), ("show", 1), ("show", 2)]
    assert awards(h) == [(0, 2, 18, "whole")]


def test_draw_last_aggressor_shows_first_losers_mucked() -> None:  # SHOW-2
    h = draw_hand(DRAW3, button=0)
    play(h, "0 call", "1 call", "2 check", "1 draw", "2 draw", "0 draw")
    play(h, "1 check", "2 bet 4", "0 call", "1 call")
    # Player 2 (A-Q-J) shows first; king high and A-Q-T cannot beat it and are mucked.
    assert shows(h) == [("show", 2), ("muck", 0), ("muck", 1)]
    assert awards(h) == [(0, 2, 18, "whole")]


def test_a_tying_hand_is_shown() -> None:  # SHOW-2, SHOW-5
    h = draw_hand(["Ac Kc Jc 9d 8d", "7s 8s Ts Qc 9s", "Ad Kd Jd 9h 8h"], button=0)
    play(h, "0 call", "1 call", "2 check", "1 draw", "2 draw", "0 draw")
    play(h, "1 check", "2 check", "0 check")
    assert shows(h) == [("show", 1), ("show", 2), ("show", 0)]


# --------------------------------------------------------------------------- SHOW-3 uncontested


def test_uncontested_pot_without_showdown_or_more_cards() -> None:  # SHOW-3, BET-6
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 complete 4", "0 fold", "1 fold")
    assert h.is_over
    assert h.street == 0
    assert {e.street for e in events_of(h, CardsDealt)} == {0}
    assert shows(h) == []
    assert events_of(h, BetReturned) == [BetReturned(2, 2)]
    assert awards(h) == [(0, 2, 7, "whole")]
    assert events_of(h, HandEnded) == [HandEnded((199, 197, 204), False)]


def test_uncontested_draw_big_blind_wins_the_small_blind() -> None:  # SHOW-3, BET-6
    h = draw_hand(DRAW3, button=0)
    play(h, "0 fold", "1 fold")
    assert events_of(h, BetReturned) == [BetReturned(2, 1)]
    assert awards(h) == [(0, 2, 2, "whole")]
    assert events_of(h, Drew) == [] and shows(h) == []
    assert h.stacks == [200, 199, 201]


def test_uncontested_after_a_bet_on_a_later_street() -> None:  # SHOW-3
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 call", "0 call", "0 check", "1 check", "2 check", "0 bet 8", "1 fold", "2 fold")
    assert h.street == 2
    assert {e.street for e in events_of(h, CardsDealt)} == {0, 1, 2}
    assert awards(h) == [(0, 0, 9, "whole")]
    assert events_of(h, HandEnded)[0].showdown is False


# --------------------------------------------------------------------------- SHOW-5 odd chips


def test_stud_odd_chip_from_seat_one() -> None:  # SHOW-5, STUD-6
    cards = ["As Kd 7c 8c 9c Jc 2d", "Qs Td 3c 4h 5s 9s 2c", "Ah Kh 7d 8d 9d Jd 2h"]
    h = stud_hand(cards)
    play(h, "1 bring", "2 call", "0 call")
    assert h.actor == 0  # 8-7 ties 8-7: the lowest seat acts first
    play_passively(h)
    assert awards(h) == [(0, 0, 5, "whole"), (0, 2, 4, "whole")]  # pot 9: seat 1 gets the odd chip
    assert h.stacks == [202, 197, 201]


def test_draw_odd_chip_from_the_buttons_left() -> None:  # SHOW-5
    # Button 0: the small blind (player 1) folds; players 0 and 2 tie A-K-J-9-8; pot 5.
    h = draw_hand(["Ac Kc Jc 9d 8d", "7s 8s Ts Qc 9s", "Ad Kd Jd 9h 8h"], button=0)
    play(h, "0 call", "1 fold", "2 check", "2 draw", "0 draw", "2 check", "0 check")
    assert awards(h) == [(0, 2, 3, "whole"), (0, 0, 2, "whole")]  # player 2 is first left of the button
    assert h.stacks == [200, 199, 201]


def test_draw_two_odd_chips_three_way_tie() -> None:  # SHOW-5
    cards = ["Ac Kc Jc 9d 8d", "7s 8s Ts Qc 9s", "Ad Kd Jd 9h 8h", "Ah Kh Jh 9c 8c"]
    h = draw_hand(cards, button=0)
    play(h, "3 call", "0 call", "1 call", "2 check")
    play(h, "1 draw", "2 draw", "3 draw", "0 draw", "1 check", "2 check", "3 check", "0 check")
    # Pot 8 split three ways: 2 each and two odd chips, one each to players 2 and 3 (left of button 0).
    assert awards(h) == [(0, 2, 3, "whole"), (0, 3, 3, "whole"), (0, 0, 2, "whole")]
    assert h.stacks == [200, 198, 201, 201]


def test_hilo_odd_chip_to_the_high_half() -> None:  # SHOW-5, STUD-8
    cards = ["Kc Kd 9s Ks 9d Qh Jc", "Ah 2h 4c 5d 7s Th Js", "Qs Qd 8c 3h 6h 9h Tc"]
    h = stud_hand(cards, variant=SEVEN_CARD_STUD_HILO)
    play_passively(h)
    assert awards(h) == [(0, 0, 5, "high"), (0, 1, 4, "low")]


# --------------------------------------------------------------------------- CLOCK-2 timeouts


def test_timeout_checks_when_checking_is_free() -> None:  # CLOCK-2
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 call", "0 call", "0 timeout")
    assert h.events[-2:] == [TimedOut(0, TimeoutOutcome.CHECK), Acted(0, ActionKind.CHECK, 0, 0, False)]
    assert h.status[0] == ACTIVE
    assert h.actor == 1


def test_timeout_big_blind_option_is_a_check() -> None:  # CLOCK-2, DRAW-3
    h = draw_hand(DRAW3, button=0)
    play(h, "0 call", "1 call", "2 timeout")
    assert events_of(h, TimedOut) == [TimedOut(2, TimeoutOutcome.CHECK)]
    assert h.status == [ACTIVE, ACTIVE, ACTIVE]
    assert h.actor == 1


def test_timeout_after_voluntary_chips_is_all_in_for_what_is_in() -> None:  # CLOCK-2, BET-7
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 call", "0 complete 4", "1 call", "2 call")  # player 0 completed: voluntary
    play(h, "0 timeout")  # 4th street, checking is free: a check, not an all-in
    assert events_of(h, TimedOut) == [TimedOut(0, TimeoutOutcome.CHECK)]
    play(h, "1 check", "2 check")
    play(h, "0 check", "1 bet 8", "2 call", "0 timeout")  # 5th street, facing a bet
    assert events_of(h, TimedOut)[-1] == TimedOut(0, TimeoutOutcome.ALL_IN)
    assert h.status[0] == ALL_IN
    assert h.stacks[0] == 195  # keeps the chips behind
    # Stays in for the 15 formed up to its 5; the 8 + 8 after it is a side pot among the others.
    assert events_of(h, PotsFormed)[2] == PotsFormed(2, (Pot(15, (0, 1, 2)), Pot(16, (1, 2))))
    assert h.actor == 1  # 6th street: the all-in best board does not act
    play(h, "1 bet 8", "2 raise 16", "1 call")
    assert events_of(h, PotsFormed)[3] == PotsFormed(3, (Pot(15, (0, 1, 2)), Pot(48, (1, 2))))
    play(h, "1 check", "2 check")
    assert h.is_over
    assert len(h.cards_of(0)) == 7  # dealt every card
    # Trip aces win only the main pot; trip queens beat kings for the side pot.
    assert awards(h) == [(0, 0, 15, "whole"), (1, 2, 48, "whole")]
    assert shows(h) == [("show", 1), ("show", 2), ("show", 0)]
    assert h.stacks == [210, 171, 219]
    assert sum(h.stacks) == 600


def test_timeout_after_calling_in_the_draw_is_all_in() -> None:  # CLOCK-2
    # The small blind completes (a call: voluntary), then times out facing the big blind's raise.
    h = draw_hand(["7c 8c 9d Jh Ks", "Ac Ad Ah 8d 8h", "7h 9h Jd Qc Kc"], button=0)
    play(h, "0 call", "1 call", "2 raise 4", "0 call", "1 timeout")
    assert events_of(h, TimedOut) == [TimedOut(1, TimeoutOutcome.ALL_IN)]
    assert h.status[1] == ALL_IN and h.stacks[1] == 198
    assert events_of(h, PotsFormed)[0] == PotsFormed(0, (Pot(6, (0, 1, 2)), Pot(4, (0, 2))))
    play(h, "1 draw", "2 draw", "0 draw", "2 bet 4", "0 fold")
    assert events_of(h, BetReturned) == [BetReturned(2, 4)]
    # Aces full take the main pot; the side pot goes to player 2 alone.
    assert awards(h) == [(0, 1, 6, "whole"), (1, 2, 4, "whole")]
    assert h.stacks == [196, 204, 200]


def test_timeout_with_only_blinds_in_folds() -> None:  # CLOCK-2
    h = draw_hand(DRAW3, button=0)
    play(h, "0 raise 4", "1 fold", "2 timeout")  # the big blind is not voluntary
    assert events_of(h, TimedOut) == [TimedOut(2, TimeoutOutcome.FOLD)]
    assert h.status == [ACTIVE, FOLDED, FOLDED]
    assert events_of(h, BetReturned) == [BetReturned(0, 2)]
    assert awards(h) == [(0, 0, 5, "whole")]
    assert h.stacks == [203, 199, 198]


def test_timeout_with_only_the_bring_in_in_folds() -> None:  # CLOCK-2
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 complete 4", "0 fold", "1 timeout")  # the bring-in is not voluntary
    assert events_of(h, TimedOut) == [TimedOut(1, TimeoutOutcome.FOLD)]
    assert awards(h) == [(0, 2, 7, "whole")]
    assert h.stacks == [199, 197, 204]


def test_timeout_with_only_the_ante_in_folds() -> None:  # CLOCK-2
    h = stud_hand(STUD3)
    play(h, "1 bring", "2 timeout")
    assert events_of(h, TimedOut) == [TimedOut(2, TimeoutOutcome.FOLD)]
    assert h.status[2] == FOLDED
    assert h.actor == 0


def test_timeout_on_the_bring_in_posts_it() -> None:  # CLOCK-2, STUD-3 (the bring-in may not fold)
    h = stud_hand(STUD3)
    play(h, "1 timeout")
    assert h.events[-2:] == [TimedOut(1, TimeoutOutcome.BRING_IN), Acted(1, ActionKind.BRING_IN, 2, 2, False)]
    assert h.actor == 2
    # A posted bring-in is still not voluntary: facing a completion, the next timeout folds.
    play(h, "2 complete 4", "0 call", "1 timeout")
    assert events_of(h, TimedOut)[-1] == TimedOut(1, TimeoutOutcome.FOLD)


def test_timeout_in_the_draw_stands_pat() -> None:  # CLOCK-2 (engine decision for the draw)
    h = draw_hand(DRAW3, button=0)
    play(h, "0 call", "1 call", "2 check", "1 timeout")
    assert h.events[-2:] == [TimedOut(1, TimeoutOutcome.STAND_PAT), Drew(1, (), ())]
    assert h.actor == 2
