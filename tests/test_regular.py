"""The regular and the recreational player (tablestorm.sim.bots.regular): the published shares they
are built on, measured on their decisions over random hands, and the limits they keep."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablestorm.services.engine.variants import VARIANTS
from tablestorm.sim.bots.percentiles import percentile
from tablestorm.sim.bots.regular import Recreational, Regular
from tablestorm.sim.bots.strategies import Action, Legal, View

DRAW = VARIANTS["7a5draw"]
DECK_32 = DRAW.decks[0].cards
HANDS = 3000


def _draw_view(rng: random.Random, **fields: object) -> View:
    down = tuple(rng.sample(DECK_32, 5))
    base: dict[str, object] = {"game": "7a5draw", "structure": "no_limit", "down": down, "deck_size": 32,
                               "big_blind": 20, "opponents": 1}
    return View(**{**base, **fields})  # type: ignore[arg-type]


def _share(decide: object, views: list[View], kind: str) -> float:
    rng = random.Random(7)
    actions = [decide(view, rng) for view in views]  # type: ignore[operator]
    return sum(1 for action in actions if action is not None and action.kind == kind) / len(views)


def test_percentiles_are_uniform_over_random_holdings() -> None:
    """By construction a random holding's percentile is uniform: a tenth of hands per decile."""
    rng = random.Random(11)
    values = [percentile(_draw_view(rng, legal=())) for _ in range(HANDS)]
    deciles = [sum(1 for v in values if k / 10 <= v < (k + 1) / 10) / HANDS for k in range(10)]
    assert all(0.07 <= d <= 0.13 for d in deciles), deciles


def test_a_short_small_blind_shoves_the_nash_share_folded_to() -> None:
    """10 big blinds, folded to the small blind heads-up: the chart shoves 58 % of hands (S7)."""
    rng = random.Random(3)
    legal = (Legal("fold"), Legal("call", 20, 20), Legal("raise", 40, 200))
    views = [_draw_view(rng, legal=legal, stack=190, bet=10, to_call=10, pot=30) for _ in range(HANDS)]
    shoves = [view for view in views if Regular().decide(view, random.Random(1)) == Action("raise", 200)]
    assert 0.53 <= len(shoves) / HANDS <= 0.64


def test_a_short_big_blind_calls_a_shove_with_the_nash_share() -> None:
    """Facing a shove for 10 big blinds: the chart calls 37 % of hands (S7)."""
    rng = random.Random(4)
    legal = (Legal("fold"), Legal("call", 200, 200))
    views = [_draw_view(rng, legal=legal, stack=180, bet=20, to_call=180, pot=220, raises=1)
             for _ in range(HANDS)]
    assert 0.31 <= _share(Regular().decide, views, "call") <= 0.43


def test_deep_stacks_open_small_and_never_open_all_in() -> None:
    """100 big blinds, first in: opens are 2.5 big blinds (S9), and most hands fold (ranges narrow
    with the players behind)."""
    rng = random.Random(5)
    legal = (Legal("fold"), Legal("call", 20, 20), Legal("raise", 40, 2000))
    views = [_draw_view(rng, legal=legal, stack=2000, to_call=20, pot=30, opponents=4) for _ in range(HANDS)]
    decide_rng = random.Random(1)
    actions = [Regular().decide(view, decide_rng) for view in views]
    raises = [a for a in actions if a is not None and a.kind == "raise"]
    assert {a.amount for a in raises} == {50}
    assert 0.05 <= len(raises) / HANDS <= 0.35


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), raises=st.integers(4, 9))
def test_nobody_raises_past_four_bets(seed: int, raises: int) -> None:
    """Heads-up the rules lift the cap (BET-3); players still stop at four bets."""
    rng = random.Random(seed)
    legal = (Legal("fold"), Legal("call", 80, 80), Legal("raise", 120, 120))
    view = View("7stud", "fixed_limit", legal, down=tuple(rng.sample(range(52), 3)), up=(), street=2,
                pot=400, bet=40, to_call=40, stack=2000, opponents=1, raises=raises)
    for player in (Regular(), Recreational()):
        action = player.decide(view, random.Random(seed))
        assert action is not None and action.kind in ("call", "fold")


@pytest.mark.parametrize("player", [Regular(), Recreational()], ids=["regular", "recreational"])
def test_decisions_are_legal_and_repeat_for_a_seed(player: Regular) -> None:
    rng = random.Random(9)
    legal = (Legal("fold"), Legal("call", 60, 60), Legal("raise", 100, 1500))
    for _ in range(500):
        view = _draw_view(rng, legal=legal, stack=1500, bet=20, to_call=40, pot=120, raises=1,
                          opponents=rng.randint(1, 4))
        first = player.decide(view, random.Random(1))
        assert first == player.decide(view, random.Random(1))
        assert first is not None
        option = next(option for option in legal if option.kind == first.kind)
        assert first.kind != "raise" or option.min <= first.amount <= option.max


def test_the_recreational_player_enters_more_pots() -> None:
    """Loose and passive: a recreational player calls the big blind where a regular folds."""
    rng = random.Random(6)
    legal = (Legal("fold"), Legal("call", 20, 20), Legal("raise", 40, 1500))
    views = [_draw_view(rng, legal=legal, stack=1500, to_call=20, pot=30, opponents=3) for _ in range(HANDS)]
    regular = 1 - _share(Regular().decide, views, "fold")
    recreational = 1 - _share(Recreational().decide, views, "fold")
    assert recreational > regular + 0.1
