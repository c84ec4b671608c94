"""Payout tables (TOURN-9): places paid by the number of entries, and prizes by place.

[placeholder] The engineer on branch ``payouts`` writes the room-like tables (the winner's share
falling with the field's size, as TOURN-9 gives it); this file has the same API with a plain
split so the director runs meanwhile: weights 1/place (a harmonic split), ``min_cash`` first,
whole units rounded down and the remainder one unit at a time to the highest places.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["payout_table", "places_paid"]


def places_paid(entries: int, percent_paid: float = 15.0) -> int:
    """TOURN-9: 1 place for 2-3 entries, 2 for 4-6, 3 for 7-10, then ``percent_paid`` of them."""
    if entries < 1:
        raise ValueError(f"entries must be at least 1, got {entries}")
    if not 0 < percent_paid <= 100:
        raise ValueError(f"percent_paid must be above 0 and at most 100, got {percent_paid}")
    if entries <= 3:
        return 1
    if entries <= 6:
        return 2
    if entries <= 10:
        return 3
    return min(entries, max(3, round(entries * percent_paid / 100)))


def payout_table(
    entries: int,
    pool: int,
    *,
    percent_paid: float = 15.0,
    min_cash: int = 0,
    explicit: Sequence[float] | None = None,
) -> tuple[int, ...]:
    """Prizes by place (index 0: the winner), whole units, non-increasing, summing to ``pool``."""
    if pool < 0 or min_cash < 0:
        raise ValueError("pool and min_cash must not be negative")
    if explicit is not None:
        weights = [float(p) for p in explicit][:entries]
    else:
        weights = [1.0 / place for place in range(1, places_paid(entries, percent_paid) + 1)]
    floor = min_cash if min_cash * len(weights) <= pool else 0
    rest = pool - floor * len(weights)
    total = sum(weights)
    prizes = [floor + int(rest * w / total) for w in weights]
    for place in range(pool - sum(prizes)):
        prizes[place % len(prizes)] += 1
    return tuple(prizes)
