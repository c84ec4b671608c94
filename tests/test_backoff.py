"""The bots' retry waits (sim/bots/client/backoff.py): exact draws for a seed, and their bounds."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablestorm.sim.bots.client.backoff import backoff


def test_the_waits_of_a_seed_double_up_to_the_most() -> None:
    """Steps 0.2, 0.4, 0.8, then 1.0 for good, each scaled by a draw in [0.5, 1] of the seeded rng."""
    waits = list(itertools.islice(backoff(0.2, 1.0, random.Random(7)), 6))
    assert waits == pytest.approx(
        [0.13238327648331624, 0.23016983478490038, 0.6603737892159416, 0.5362181433337714,
         0.7679410021533446, 0.6828444584562927],
        rel=1e-12,
    )


def test_the_waits_draw_only_from_the_rng_given() -> None:
    """Two loops with equal seeds wait alike, and the draws are the rng's (one per wait), so a
    caller that gives a stream of its own leaves every other stream alone."""
    rng, twin = random.Random(3), random.Random(3)
    waits = list(itertools.islice(backoff(0.5, 4.0, rng), 5))
    assert waits == list(itertools.islice(backoff(0.5, 4.0, twin), 5))
    untouched = random.Random(3)
    for _ in range(5):
        untouched.uniform(0.5, 1.0)
    assert rng.getstate() == untouched.getstate()


@given(
    first=st.floats(0.001, 10.0),
    factor=st.floats(1.0, 100.0),
    seed=st.integers(0, 2**32),
    count=st.integers(1, 30),
)
def test_each_wait_lies_in_the_upper_half_of_its_step(first: float, factor: float, seed: int, count: int) -> None:
    most = first * factor
    waits = list(itertools.islice(backoff(first, most, random.Random(seed)), count))
    for attempt, wait in enumerate(waits):
        step = min(first * 2**attempt, most)
        assert step / 2 <= wait <= step
        assert first / 2 <= wait <= most
