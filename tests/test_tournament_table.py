"""The engine's tournament table: seats under the director's orders, a level's stakes per hand,
away players (TOURN-7), the heads-up button (TOURN-8), newcomers and the positions balancing needs.

Every scenario is played on a real ``TournamentTable`` with seeded shuffles; the seat numbers, posts
and chips are exact. The cash table's behaviour is pinned by the existing rule, property and table
service tests, which run unchanged on the shared ``SeatedTable``.
"""

from __future__ import annotations

import pytest

from tablestorm.services.engine import (
    SEVEN_CARD_STUD,
    SEVEN_TO_ACE_DRAW,
    Action,
    ActionKind,
    Stakes,
    Structure,
    TableOptions,
)
from tablestorm.services.engine.events import Acted, ForcedBet, HandStarted, TimedOut
from tablestorm.services.engine.tournament_table import TableError, TournamentTable

STUD = TableOptions(SEVEN_CARD_STUD, Stakes(small_bet=4, big_bet=8, ante=1, bring_in=2), max_seats=8)
DRAW = TableOptions(SEVEN_TO_ACE_DRAW, Stakes(small_bet=2, big_bet=4, small_blind=1, big_blind=2), max_seats=5)
STUD_LEVEL_2 = Stakes(small_bet=8, big_bet=16, ante=2, bring_in=4)
DRAW_ANTE = Stakes(small_bet=0, big_bet=0, small_blind=10, big_blind=20, ante=5)


def table(options: TableOptions, seats: dict[int, int], *, seed: int = 1) -> TournamentTable:
    """A tournament table with ``seats``: seat number -> stack; players are named p<seat>."""
    t = TournamentTable("t", options, seed=seed)
    for seat, stack in seats.items():
        t.seat_player(seat, f"p{seat}", stack)
    return t


def passive(t: TournamentTable) -> Action:
    """Check, call, bring in, stand pat: the cheapest way to stay in."""
    legal = {option.kind: option for option in t.hand.legal_actions()}  # type: ignore[union-attr]
    for kind in (ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN, ActionKind.DRAW):
        if kind in legal:
            return Action(kind, legal[kind].min if kind is ActionKind.BRING_IN else 0)
    raise AssertionError(legal)


def actor_seat(t: TournamentTable) -> int:
    assert t.hand is not None
    return t.hand_seats[t.hand.actor] + 1


def play_passively(t: TournamentTable) -> None:
    while t.hand is not None:
        t.apply(actor_seat(t), passive(t))


def posts(t: TournamentTable) -> list[tuple[int, str, int]]:
    """(seat, kind, amount) of the last hand's forced bets."""
    record = t.last_record if t.hand is None else None
    events = record.events if record is not None else t.hand.events  # type: ignore[union-attr]
    seats = record.seats if record is not None else tuple(k + 1 for k in t.hand_seats)
    return [(seats[e.player], e.kind, e.amount) for e in events if type(e) is ForcedBet]


# ----------------------------------------------------------------- seats under the director's orders


def test_seats_take_any_stack_and_newcomers_wait_for_the_next_hand() -> None:
    t = table(STUD, {1: 500, 3: 77})
    t.start_hand(STUD.stakes)
    t.seat_player(5, "p5", 1234)  # an empty seat during the hand: dealt from the next one
    assert t.hand_seats == (0, 2)
    with pytest.raises(TableError, match="seat 1 is dealt into hand 1"):
        t.remove_player(1)
    with pytest.raises(TableError, match="seat 3 is dealt into hand 1"):
        t.add_chips(3, 100)
    assert t.remove_player(5) == 1234  # not dealt in: it may go
    t.seat_player(5, "p5", 1234)
    play_passively(t)
    assert t.add_chips(3, 100) == t.seats[2].stack  # type: ignore[union-attr]
    t.start_hand(STUD.stakes)
    assert t.hand_seats == (0, 2, 4)
    assert t.total_chips() == 500 + 77 + 100 + 1234


@pytest.mark.parametrize(
    ("seat", "player", "stack", "message"),
    [
        (9, "x", 100, "seat must be between 1 and 8"),
        (1, "x", 100, "seat 1 is taken"),
        (2, "p1", 100, "player 'p1' is already seated"),
        (2, "", 100, "player_id must not be empty"),
        (2, "x", 0, "stack must be a positive whole number"),
        (2, "x", 1.5, "stack must be a positive whole number"),
    ],
)
def test_bad_seat_orders_name_what_is_wrong_and_change_nothing(
    seat: int, player: str, stack: int, message: str
) -> None:
    t = table(STUD, {1: 100, 3: 100})
    with pytest.raises(TableError, match=message):
        t.seat_player(seat, player, stack)
    assert [s.player_id if s else None for s in t.seats] == ["p1", None, "p3", None, None, None, None, None]
    with pytest.raises(TableError, match="chips must be a positive whole number"):
        t.add_chips(1, 0)
    with pytest.raises(TableError, match="seat 2 is empty"):
        t.remove_player(2)


def test_each_hand_uses_the_stakes_it_was_dealt_with() -> None:  # TOURN-1
    t = table(STUD, {1: 100, 2: 100, 3: 100})
    t.start_hand(STUD.stakes)
    assert {amount for _, kind, amount in posts(t) if kind == "ante"} == {1}
    play_passively(t)
    t.start_hand(STUD_LEVEL_2)
    assert {amount for _, kind, amount in posts(t) if kind == "ante"} == {2}
    assert t.hand is not None and t.hand.options.stakes == STUD_LEVEL_2
    bring_in = t.hand.legal_actions()[0]
    assert (bring_in.kind, bring_in.min) == (ActionKind.BRING_IN, 4)
    play_passively(t)
    with pytest.raises(TableError, match=r"bring_in: must be between 1 and stakes\.small_bet"):
        t.start_hand(Stakes(small_bet=4, big_bet=8, ante=1, bring_in=9))
    assert t.hand is None and t.hand_number == 2


def test_a_draw_level_ante_is_posted_by_everyone_before_the_blinds() -> None:  # TOURN-1
    options = TableOptions(SEVEN_TO_ACE_DRAW, DRAW_ANTE, structure=Structure.NO_LIMIT, max_seats=5)
    t = table(options, {1: 1000, 2: 1000, 3: 12})
    hand = t.start_hand(DRAW_ANTE)
    assert posts(t) == [(1, "ante", 5), (2, "ante", 5), (3, "ante", 5), (2, "small_blind", 10), (3, "big_blind", 7)]
    assert hand.stacks == [995, 985, 0] and hand.pot_total() == 32  # seat 3 is all-in for 12


# ----------------------------------------------------------------- TOURN-7: away players


def test_an_away_stud_player_posts_the_ante_and_bring_in_and_is_folded() -> None:  # TOURN-7
    t = table(STUD, {1: 100, 2: 100, 3: 100})
    t.start_hand(STUD.stakes)
    away = actor_seat(t)  # the lowest door card brings in
    t.set_away(away, True)
    action = t.away_action()
    assert action == Action(ActionKind.BRING_IN, 2)  # STUD-3: the bring-in may not fold
    t.apply(away, action)
    completer = actor_seat(t)
    t.apply(completer, Action(ActionKind.COMPLETE, 4))
    while actor_seat(t) != away:
        t.apply(actor_seat(t), Action(ActionKind.FOLD))
    assert t.away_action() == Action(ActionKind.FOLD)
    t.apply(away, t.away_action())
    assert t.hand is None
    result = t.result()
    assert {r.seat: r.end for r in result.seats}[away] == 100 - 1 - 2
    assert {r.seat: r.end for r in result.seats}[completer] == 100 - 1 - 4 + 3 + 6  # the antes and the bring-in
    assert {r.seat: r.away for r in result.seats} == {s: s == away for s in (1, 2, 3)}
    t.start_hand(STUD.stakes)
    assert t.hand_seats == (0, 1, 2)  # TOURN-7: still dealt in, posting the ante
    assert (away, "ante", 1) in posts(t)


def test_an_away_big_blind_checks_when_free_stands_pat_and_folds_to_a_bet() -> None:  # TOURN-7
    t = table(DRAW, {1: 100, 2: 100, 3: 100})
    t.start_hand(DRAW.stakes)
    assert posts(t) == [(2, "small_blind", 1), (3, "big_blind", 2)]  # first hand: the button is seat 1
    t.set_away(3, True)
    t.apply(1, Action(ActionKind.CALL))
    t.apply(2, Action(ActionKind.CALL))
    assert actor_seat(t) == 3 and t.away_action() == Action(ActionKind.CHECK)
    t.apply(3, t.away_action())
    t.apply(2, Action(ActionKind.DRAW))
    assert t.away_action() == Action(ActionKind.DRAW)  # stands pat
    t.apply(3, t.away_action())
    t.apply(1, Action(ActionKind.DRAW))
    t.apply(2, Action(ActionKind.CHECK))
    t.apply(3, t.away_action())
    t.apply(1, Action(ActionKind.BET, 4))
    t.apply(2, Action(ActionKind.FOLD))
    assert t.away_action() == Action(ActionKind.FOLD)
    t.apply(3, t.away_action())
    assert [(r.seat, r.end) for r in t.result().seats] == [(1, 104), (2, 98), (3, 98)]


def test_a_timeout_marks_the_player_away_not_sitting_out() -> None:  # TOURN-7, CLOCK-2
    t = table(STUD, {1: 100, 2: 100, 3: 100})
    t.start_hand(STUD.stakes)
    slow = actor_seat(t)
    events = t.timeout()
    assert [type(e) for e in events][:1] == [TimedOut] and t.is_away(slow)
    assert next(e for e in events if type(e) is Acted).kind is ActionKind.BRING_IN  # CLOCK-2: the bring-in is posted
    play_passively(t)
    t.start_hand(STUD.stakes)
    assert len(t.hand_seats) == 3 and t.is_away(slow)
    t.set_away(slow, False)
    assert not t.is_away(slow)


# ----------------------------------------------------------------- TOURN-8: heads-up


@pytest.mark.parametrize(
    ("busted", "button", "big"),
    [(3, 2, 1), (1, 3, 2), (2, 3, 1)],
    ids=["the big blind busts", "the button busts", "the small blind busts"],
)
def test_heads_up_begins_with_the_button_on_the_small_blind(busted: int, button: int, big: int) -> None:  # TOURN-8
    t = table(DRAW, {1: 100, 2: 100, 3: 100})
    t.start_hand(DRAW.stakes)
    assert posts(t) == [(2, "small_blind", 1), (3, "big_blind", 2)]  # button 1, small blind 2, big blind 3
    play_passively(t)
    t.remove_player(busted)
    hand = t.start_hand(DRAW.stakes)
    assert posts(t) == [(button, "small_blind", 1), (big, "big_blind", 2)]
    assert big != 3, "nobody posts the big blind twice in a row"
    started = hand.events[0]
    assert type(started) is HandStarted and t.hand_seats[started.button] + 1 == button


def test_a_dead_small_blind_never_starts_heads_up() -> None:  # TOURN-8, DRAW-6
    t = table(DRAW, {1: 100, 2: 100, 3: 100, 4: 100})
    t.start_hand(DRAW.stakes)
    assert posts(t) == [(2, "small_blind", 1), (3, "big_blind", 2)]
    play_passively(t)
    t.remove_player(3)  # the big blind: three-handed, the next small blind would be dead
    t.remove_player(1)
    t.start_hand(DRAW.stakes)
    assert posts(t) == [(2, "small_blind", 1), (4, "big_blind", 2)]
    play_passively(t)
    t.start_hand(DRAW.stakes)
    assert posts(t) == [(4, "small_blind", 1), (2, "big_blind", 2)]  # heads-up: the blinds alternate


# ----------------------------------------------------------------- positions for balancing (TOURN-4)


def test_the_big_blind_order_and_the_seats_before_the_small_blind() -> None:  # TOURN-4, DRAW-6
    t = table(DRAW, {1: 100, 2: 100, 4: 100})
    t.start_hand(DRAW.stakes)
    assert posts(t) == [(2, "small_blind", 1), (4, "big_blind", 2)]  # button 1
    play_passively(t)
    result = t.result()
    # Next hand: the big blind moves to seat 1 (5 is empty), the small blind is 4, the button 2.
    assert result.big_blind_order == (5, 1, 2, 3, 4) and result.waiting_seats == (3,)
    t.seat_player(5, "p5", 100)  # the first seat of the order: the big blind at once
    t.seat_player(3, "p3", 100)  # between the button and the small blind: waits
    t.start_hand(DRAW.stakes)
    assert posts(t) == [(4, "small_blind", 1), (5, "big_blind", 2)]
    assert [k + 1 for k in t.hand_seats] == [1, 2, 4, 5]
    play_passively(t)
    t.start_hand(DRAW.stakes)
    assert posts(t) == [(5, "small_blind", 1), (1, "big_blind", 2)]
    assert [k + 1 for k in t.hand_seats] == [1, 2, 3, 4, 5], "the button passed seat 3: dealt in"
    play_passively(t)
    assert t.result().big_blind_order == (2, 3, 4, 5, 1) and t.result().waiting_seats == ()  # next: button 5, small 1
    assert TournamentTable("s", STUD).big_blind_order() == ()


def test_nobody_waits_when_waiting_would_leave_one_player() -> None:  # TOURN-8 [decision]
    t = table(DRAW, {1: 100, 2: 100, 4: 100})
    t.start_hand(DRAW.stakes)
    play_passively(t)
    t.remove_player(1)
    t.remove_player(2)
    t.seat_player(3, "p3", 100)  # between the next button (2) and small blind (4)
    t.start_hand(DRAW.stakes)
    assert [k + 1 for k in t.hand_seats] == [3, 4]
