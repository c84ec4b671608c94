"""Tournament payouts (TOURN-9): how many places are paid, and what each place wins.

A prize table is a power law in the finishing place, clipped at the min cash
(``prize(i) = max(min_cash, first * i ** -alpha)``): the winner's share ``first`` comes from
published charts by places paid (:data:`WINNER_SHARE`), and ``alpha`` is solved
(``scipy.optimize.brentq``) so that the prizes sum to the pool. Small fields are paid by sit-and-go
tables, places below the final table share prizes in widening tiers, the min cash takes at most
half the pool, and the split is exact in whole units. The model, its sources and why each choice:
docs/tournament.md#payouts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from scipy.optimize import brentq

FINAL_TABLE = 9
"""Places paid one by one before tiers begin (a nine-handed final table, as the charts print)."""

MAX_FLOOR_SHARE = Fraction(1, 2)
"""The most of the pool the min cash may take across all paid places (docs/tournament.md#payouts)."""

SMALL_FIELD_TABLES: dict[int, tuple[int, ...]] = {1: (100,), 2: (65, 35), 3: (50, 30, 20)}
"""Percent tables by places paid for the fields too small for the curve (TOURN-9: 2-20 entries)."""

WINNER_SHARE: tuple[tuple[int, float], ...] = (
    # Places paid and the winner's share there, from published charts:
    (4, 0.40),  # Fabulous Poker's published prize structure: 13-18 entries
    (5, 0.40),  # 19-27
    (7, 0.33),  # 28-36
    (9, 0.29),  # 37-50
    (12, 0.26),  # 51-66
    (15, 0.255),  # 67-83
    (18, 0.25),  # 84-117
    (27, 0.23),  # 118-175
    (36, 0.225),  # 176-215
    (45, 0.215),  # 216-290
    (63, 0.205),  # 291-415
    (81, 0.195),  # 416-550
    (99, 0.1925),  # 551-700
    (126, 0.192),  # 701-900
    (153, 0.1911),  # 901-1,100
    (342, 0.1700),  # WSOP 2011 Event 56: 3,389 entries, $777,928 of $4,575,150
    (1461, 0.1105),  # WSOP 2025 Main Event: 9,735 entries, $10,000,000 of $90,535,500
)
"""The winner's share of the pool by places paid; log-log interpolation between the rows."""

_ANCHOR_LOG_PLACES = np.log([places for places, _ in WINNER_SHARE])
_ANCHOR_LOG_SHARES = np.log([share for _, share in WINNER_SHARE])


def places_paid(entries: int, percent_paid: float = 15.0) -> int:
    """Places paid for a field (TOURN-9): 1 for 2-3 entries, 2 for 4-6, 3 for 7-10, then
    ``percent_paid``% of the entries rounded up (WSOP 2025: 15% of 9,735 is 1,460.25, 1,461 paid),
    never fewer than 3 nor more than the entries.

    The percentage is read as the decimal it is written as (``str(14.3)``), so 14.3% of 1,000
    entries is 143 places, not 144 from the binary float's excess.
    """
    _check_entries(entries)
    _check_percent_paid(percent_paid)
    if entries <= 3:
        return 1
    if entries <= 6:
        return 2
    if entries <= 10:
        return 3
    return min(entries, max(3, math.ceil(entries * Fraction(str(percent_paid)) / 100)))


def payout_table(
    entries: int,
    pool: int,
    *,
    percent_paid: float = 15.0,
    min_cash: int = 0,
    explicit: Sequence[float] | None = None,
) -> tuple[int, ...]:
    """The prizes by place (index 0 = the winner) in the pool's whole units: non-increasing,
    summing exactly to ``pool``, ``places_paid(entries, percent_paid)`` of them (or one per row of
    ``explicit``, a structure's own table of percents by place, which then sets the places paid).

    ``min_cash`` is the floor for every paid place where the pool allows it (at most half the pool
    in floors); raises ValueError naming the argument for a field under 2, a negative pool or
    floor, a bad ``percent_paid``, or an explicit table that is empty, increasing, not positive,
    not summing to 100 or longer than the field.
    """
    _check_entries(entries)
    if not isinstance(pool, int) or isinstance(pool, bool) or pool < 0:
        raise ValueError(f"pool must be a whole number of units, at least 0, got {pool!r}")
    if not isinstance(min_cash, int) or isinstance(min_cash, bool) or min_cash < 0:
        raise ValueError(f"min_cash must be a whole number of units, at least 0, got {min_cash!r}")
    _check_percent_paid(percent_paid)
    if explicit is not None:
        return _split_percents(pool, _checked_table(explicit, entries))
    paid = places_paid(entries, percent_paid)
    if paid in SMALL_FIELD_TABLES:
        return _split_percents(pool, tuple(Fraction(p) for p in SMALL_FIELD_TABLES[paid]))
    return _curve_table(paid, pool, min_cash)


def winner_share(paid: int) -> float:
    """The winner's share of the pool when ``paid`` places (4 or more) are paid (:data:`WINNER_SHARE`)."""
    return float(np.exp(np.interp(math.log(paid), _ANCHOR_LOG_PLACES, _ANCHOR_LOG_SHARES)))


def tiers(paid: int) -> tuple[int, ...]:
    """How many places share each prize, from the top: nine ones, then groups of three equal tiers,
    each group as wide as the places above it (3, 3, 3, 6, 6, 6, 12, ...), the last cut at ``paid``
    (and joined to the tier above when that leaves it narrower)."""
    widths = [1] * min(paid, FINAL_TABLE)
    placed, width = len(widths), 3
    while placed < paid:
        for _ in range(3):
            take = min(width, paid - placed)
            if take < widths[-1] and len(widths) > FINAL_TABLE:
                widths[-1] += take
            elif take:
                widths.append(take)
            placed += take
        width *= 2
    return tuple(widths)


def _curve_table(paid: int, pool: int, min_cash: int) -> tuple[int, ...]:
    """The clipped power law (docs/tournament.md#payouts) for ``paid`` >= 4 places, in whole units."""
    if pool == 0:
        return (0,) * paid
    floor = min(min_cash, math.floor(MAX_FLOOR_SHARE * pool / paid))
    widths = tiers(paid)
    first = winner_share(paid)
    low = floor / pool
    powers = -np.log(np.arange(1, paid + 1, dtype=np.float64))

    def excess(alpha: float) -> np.ndarray:
        """Each place's share of the pool above the floor."""
        result: np.ndarray = np.maximum(first * np.exp(alpha * powers) - low, 0.0)
        return result

    def surplus(alpha: float) -> float:
        return float(excess(alpha).sum()) - (1.0 - paid * low)

    high = 1.0
    while surplus(high) > 0:  # the total falls from paid * first (> 1) toward first + (paid - 1) * low (< 1)
        high *= 2.0
    alpha = brentq(surplus, 0.0, high, xtol=1e-12)
    ends = np.cumsum(widths)
    sums = np.add.reduceat(excess(alpha), ends - np.asarray(widths))
    weights = [Fraction(float(total)) / width for total, width in zip(sums, widths, strict=True)]
    return _apportion(pool - paid * floor, weights, widths, base=floor)


def _split_percents(pool: int, percents: tuple[Fraction, ...]) -> tuple[int, ...]:
    """A percent table (summing to 100, non-increasing) in whole units."""
    return _apportion(pool, list(percents), (1,) * len(percents), base=0)


def _apportion(
    amount: int, weights: Sequence[Fraction], widths: Sequence[int], *, base: int
) -> tuple[int, ...]:
    """Share ``amount`` over tiers of ``widths`` places in proportion to each place's weight
    (non-increasing), exactly: each tier's share rounded down, the remainder one unit at a time
    to the first places, in order, round after round; every place also gets ``base``."""
    total = sum((weight * width for weight, width in zip(weights, widths, strict=True)), Fraction(0))
    prizes: list[int] = []
    for weight, width in zip(weights, widths, strict=True):
        prizes.extend([base + math.floor(amount * weight / total)] * width)
    remainder = amount + base * len(prizes) - sum(prizes)
    ones = min(len(prizes), FINAL_TABLE)
    rounds, extra = divmod(remainder, ones)
    for place in range(ones):
        prizes[place] += rounds + (place < extra)
    return tuple(prizes)


def _checked_table(explicit: Sequence[float], entries: int) -> tuple[Fraction, ...]:
    if len(explicit) == 0:
        raise ValueError("explicit must list at least one place")
    if len(explicit) > entries:
        raise ValueError(f"explicit pays {len(explicit)} places but only {entries} entries play")
    percents: list[Fraction] = []
    for place, percent in enumerate(explicit, 1):
        if isinstance(percent, bool) or not isinstance(percent, int | float) or not math.isfinite(percent):
            raise ValueError(f"explicit[{place - 1}] must be a finite number, got {percent!r}")
        value = Fraction(str(percent))
        if value <= 0:
            raise ValueError(f"explicit[{place - 1}] must be positive, got {percent!r}")
        if percents and value > percents[-1]:
            raise ValueError(f"explicit[{place - 1}] ({percent}) is more than the place above it")
        percents.append(value)
    if not math.isclose(math.fsum(explicit), 100.0, rel_tol=0.0, abs_tol=1e-9):
        raise ValueError(f"explicit percents must sum to 100, got {math.fsum(explicit):g}")
    return tuple(percents)


def _check_entries(entries: int) -> None:
    if not isinstance(entries, int) or isinstance(entries, bool) or entries < 2:
        raise ValueError(f"entries must be a whole number, at least 2, got {entries!r}")


def _check_percent_paid(percent_paid: float) -> None:
    if (
        isinstance(percent_paid, bool)
        or not isinstance(percent_paid, int | float)
        or not math.isfinite(percent_paid)
        or not 0 < percent_paid <= 100
    ):
        raise ValueError(f"percent_paid must be more than 0 and at most 100, got {percent_paid!r}")
