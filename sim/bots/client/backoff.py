"""Waits between retries: exponential backoff with jitter, for every retry loop of the bots.

The waits double from ``first`` up to ``most``; each is drawn uniformly from the upper half of its
step (``[step / 2, step]``, "equal jitter"), so that clients cut off together (a killed host's
thousands of streams) do not all come back in the same instant, yet none retries sooner than half
its step. The draws come from the ``random.Random`` the caller gives: a stream of its own, never the
one a player decides from, so that retries do not change the player's decisions.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

__all__ = ["backoff"]


def backoff(first: float, most: float, rng: random.Random) -> Iterator[float]:
    """The seconds to wait before each retry, endlessly: ``first``, doubling up to ``most``, each
    scaled by a uniform draw from [0.5, 1] of ``rng``. A loop that succeeds starts a new one."""
    step = first
    while True:
        yield step * rng.uniform(0.5, 1.0)
        step = min(2 * step, most)
