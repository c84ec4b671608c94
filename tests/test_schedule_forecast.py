"""What a replication draws follows the schedule's forecast: fields by goodness-of-fit tests over many
draws, late arrivals within their period and by their curve, sit-and-go arrivals as a Poisson
process by hour; and the seeds make every draw reproducible."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from support.schedules import QUICK

from tablestorm.sim.schedule.forecast import ArrivalCurve, EntrantForecast, HourlyRate
from tablestorm.sim.schedule.players import Players, ThinkTime
from tablestorm.sim.schedule.replication import draws, seed_of
from tablestorm.sim.schedule.spec import SitAndGos, Tournament, late_registration_closes, load_schedule
from tablestorm.sim.tournament.profiles import ONLINE_THINK

DRAWS = 4000
ALPHA = 0.001
"""A correct sampler fails a test at this rate; each test draws from a fixed seed, so it either
always passes or always fails."""


def _draws(forecast: EntrantForecast, seed: int = 1) -> np.ndarray:
    rng = random.Random(seed)
    return np.array([forecast.draw(rng) for _ in range(DRAWS)], dtype=np.float64)


def test_lognormal_fields_follow_the_lognormal() -> None:
    fields = _draws(EntrantForecast("lognormal", 180.0, 0.3))
    # Whole players: compare the rounded draws with the distribution shifted by half a player.
    result = stats.kstest(fields + np.random.default_rng(2).uniform(-0.5, 0.5, DRAWS),
                          stats.lognorm(s=0.3, scale=180.0).cdf)
    assert result.pvalue > ALPHA, result
    assert stats.kstest(fields, stats.norm(180 * math.exp(0.045), 60).cdf).pvalue < ALPHA  # and not a normal


def test_normal_fields_follow_the_normal() -> None:
    fields = _draws(EntrantForecast("normal", 120.0, 20.0))
    jittered = fields + np.random.default_rng(3).uniform(-0.5, 0.5, DRAWS)
    assert stats.kstest(jittered, stats.norm(120.0, 20.0).cdf).pvalue > ALPHA
    assert stats.kstest(jittered, stats.norm(125.0, 20.0).cdf).pvalue < ALPHA  # a shifted mean is told apart


def test_empirical_fields_are_past_days_drawn_alike() -> None:
    past = (140, 155, 170, 185)
    counts = Counter(_draws(EntrantForecast("empirical", values=past)).astype(int).tolist())
    assert set(counts) == set(past)
    assert stats.chisquare([counts[v] for v in past]).pvalue > ALPHA


def test_fixed_fields_and_the_limits() -> None:
    rng = random.Random(4)
    assert {EntrantForecast("fixed", 60).draw(rng) for _ in range(20)} == {60}
    wide = EntrantForecast("normal", 5.0, 50.0)
    drawn = [wide.draw(rng, maximum=8) for _ in range(500)]
    assert min(drawn) == 2 and max(drawn) == 8  # at least two players, at most the structure's max_entrants


@settings(max_examples=60, deadline=None)
@given(weights=st.lists(st.floats(0, 10), min_size=1, max_size=8).filter(any), closes=st.floats(1.0, 1e5),
       count=st.integers(0, 300), seed=st.integers(0, 2**32))
def test_late_arrivals_fall_within_late_registration(weights: list[float], closes: float, count: int,
                                                     seed: int) -> None:
    times = ArrivalCurve(tuple(weights)).times(count, closes, random.Random(seed))
    assert len(times) == count and all(0 <= t < closes for t in times)
    width = closes / len(weights)
    assert all(weights[min(int(t // width), len(weights) - 1)] > 0 for t in times)  # never in a weightless slice


def test_late_arrivals_follow_their_curve() -> None:
    times = ArrivalCurve((4, 2, 1, 1)).times(DRAWS, 800.0, random.Random(5))
    slices = Counter(int(t // 200) for t in times)
    assert stats.chisquare([slices[k] for k in range(4)], [DRAWS * w / 8 for w in (4, 2, 1, 1)]).pvalue > ALPHA


def test_sit_and_go_arrivals_are_poisson_by_hour() -> None:
    rate = HourlyRate(tuple([0.0] * 6 + [2.0] * 6 + [0.5] * 12))
    times = rate.arrivals(random.Random(6))
    assert all(6 * 3600 <= t < 24 * 3600 for t in times) and times == sorted(times)
    busy = np.diff([t for t in times if 6 * 3600 <= t < 12 * 3600])
    assert stats.kstest(busy, stats.expon(scale=30.0).cdf).pvalue > ALPHA  # 2 a minute: gaps of 30 s on average
    days = [len(rate.arrivals(random.Random(seed))) for seed in range(200)]
    assert abs(np.mean(days) - rate.daily) < 4 * math.sqrt(rate.daily / 200)


def test_a_sitting_out_player_lets_the_clock_run() -> None:
    think = ThinkTime("uniform", 3.0, 1.0, 5.0, sitting_out=0.1)
    rng = random.Random(7)
    samples = [think.sample(rng) for _ in range(DRAWS)]
    away = sum(1 for s in samples if s == math.inf)
    assert stats.binomtest(away, DRAWS, 0.1).pvalue > ALPHA
    assert all(1.0 <= s <= 5.0 for s in samples if s != math.inf)
    plain = ThinkTime("uniform", 3.0, 1.0, 5.0)
    first, second = random.Random(8), random.Random(8)
    assert [plain.sample(first) for _ in range(5)] == [ONLINE_THINK.sample(second) for _ in range(5)]


def test_profiles_split_the_field_by_kind_and_reentry() -> None:
    rows = Players({"strength": 3.0, "random": 1.0}).profiles(0.25)
    weights = {(r.kind, r.reenter): r.weight for r in rows}
    assert weights == {("strength", True): 0.75, ("strength", False): 2.25, ("random", True): 0.25,
                       ("random", False): 0.75}
    assert [(r.kind, r.weight) for r in Players().profiles(0.0)] == [("regular", 3.0), ("recreational", 1.0)]


def test_seeds_are_reproducible_and_distinct() -> None:
    assert seed_of(1, 2, "Stud") == seed_of(1, 2, "Stud") < 2**63
    assert len({seed_of(1, r, name) for r in range(50) for name in ("a", "b", "c")}) == 150
    assert seed_of(1, 2, "Stud") != seed_of(2, 2, "Stud")


@pytest.mark.parametrize("replication", [0, 1, 5])
def test_a_tournaments_draw(replication: int) -> None:
    day = load_schedule(QUICK)
    stud = next(e for e in day.events if isinstance(e, Tournament) and e.name == "Fast stud")
    (draw,) = draws(stud, 9, replication)
    assert draws(stud, 9, replication) == [draw]
    field = draw.entrants + len(draw.late_arrivals)
    assert len(draw.late_arrivals) == round(stud.late_share * field)
    closes = late_registration_closes(stud.structure)
    assert closes == 30.0 and all(0 <= t < closes for t in draw.late_arrivals)
    assert list(draw.late_arrivals) == sorted(draw.late_arrivals) and draw.start_s == stud.start_s


def test_sit_and_gos_start_when_full() -> None:
    day = load_schedule(QUICK)
    series = next(e for e in day.events if isinstance(e, SitAndGos))
    arrivals = series.rate.arrivals(random.Random(seed_of(9, 0, series.name)))
    started = draws(series, 9, 0)
    assert len(started) == len(arrivals) // series.seats > 0
    assert [d.start_s for d in started] == [arrivals[(k + 1) * series.seats - 1] for k in range(len(started))]
    assert all(d.entrants == series.seats == 6 and not d.late_arrivals for d in started)
    assert len({d.seed for d in started}) == len(started)
