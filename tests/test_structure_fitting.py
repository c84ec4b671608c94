"""tablestorm.sim.tournament.fitting: a suggested structure played, accelerated, until its median
duration meets the target; the next growth from the rounds so far (duration ~ 1 / log growth)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablestorm.services.director.advisor import Plan, StructureRequest, fitted_growth, suggest
from tablestorm.sim.tournament.fitting import MIN_GROWTH, TOLERANCE, Round, fit, next_growth

TARGET_S = 3 * 3600.0
GROWTH = st.floats(1.06, 4.0)


def played(growth: float, duration_s: float) -> Round:
    """A round of one seed that lasted ``duration_s``."""
    return Round(Plan(growth, 10, 20), {"levels": []}, (duration_s,), {}, (100,))


def law(scale: float) -> float:
    """The growth whose tournament lasts the target, where a tournament lasts ``scale`` / log(growth)."""
    return math.exp(scale / TARGET_S)


@given(growth=GROWTH, scale=st.floats(1_000.0, 20_000.0))
def test_one_round_points_at_the_growth_of_the_law(growth: float, scale: float) -> None:
    assert math.isclose(next_growth([played(growth, scale / math.log(growth))], TARGET_S), law(scale), rel_tol=1e-9)


@given(growths=st.lists(GROWTH, min_size=2, max_size=5, unique=True), scale=st.floats(1_000.0, 20_000.0))
def test_rounds_either_side_interpolate_to_the_growth_of_the_law(growths: list[float], scale: float) -> None:
    rounds = [played(g, scale / math.log(g)) for g in growths]
    assert math.isclose(next_growth(rounds, TARGET_S), law(scale), rel_tol=1e-6)


def test_the_nearest_rounds_either_side_are_interpolated() -> None:
    """Durations off the law: the pair nearest the target on each side sets the next growth."""
    rounds = [played(1.2, 4 * 3600), played(1.3, 3.3 * 3600), played(1.5, 2.5 * 3600), played(1.9, 1.5 * 3600)]
    x0, y0, x1, y1 = math.log(math.log(1.3)), math.log(1.1), math.log(math.log(1.5)), math.log(2.5 / 3)
    assert next_growth(rounds, TARGET_S) == pytest.approx(math.exp(math.exp(x0 - y0 * (x1 - x0) / (y1 - y0))))
    one_side = [played(1.3, 4 * 3600), played(1.5, 3.3 * 3600)]
    assert next_growth(one_side, TARGET_S) == pytest.approx(1.5 ** 1.1)  # from the nearer: log g x 3.3 / 3


def test_a_fit_plays_every_seed_each_round_and_stops_within_the_tolerance() -> None:
    request = StructureRequest("7a5draw", 20, 1500, 1, level_minutes=6, betting="no_limit", late_reg_levels=2,
                               max_entries=2)
    heard: list[Round] = []
    result = fit(request, seeds=range(1, 4), played=heard.append)
    assert list(result.rounds) == heard and result.seeds == (1, 2, 3)
    assert result.rounds[0].plan.growth == fitted_growth(request)
    assert result.rounds[0].structure == suggest(request)
    for k, done in enumerate(result.rounds):
        assert len(done.durations_s) == len(done.entries) == 3 and sum(done.flags.values()) <= 3
        assert done.structure == suggest(request, done.plan.growth)
        if k:
            assert done.plan.growth == max(MIN_GROWTH, next_growth(result.rounds[:k], result.target_s))
    offs = [abs(done.off(result.target_s)) for done in result.rounds]
    assert all(off > TOLERANCE for off in offs[:-1]) and offs[-1] <= TOLERANCE
    assert result.reached and result.best is result.rounds[-1]
    assert (result.rates.late_share, result.rates.reentry_rate) == (0.25, 0.15)


def test_a_fit_stops_when_the_next_levels_were_played_already() -> None:
    """Heads-up no limit ends when the bots end it: at the slowest growth it still ends 60 % early,
    and the next round would play the same levels again."""
    request = StructureRequest("7a5draw", 2, 1500, 6, level_minutes=20, betting="no_limit")
    result = fit(request, seeds=range(1, 3))
    assert [done.plan.growth for done in result.rounds][1:] == [MIN_GROWTH]
    assert not result.reached and len(result.rounds) == 2
    assert result.best is result.rounds[1] and result.best.off(result.target_s) < -0.5
    assert result.best.flags == {"ended_deep": 2}
