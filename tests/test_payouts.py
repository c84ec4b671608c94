"""tablestorm.services.director.payouts: TOURN-9's places paid, bands and exact sums, for every field size."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablestorm.services.director.payouts import WINNER_SHARE, payout_table, places_paid, tiers, winner_share

FIELDS_ALL = range(2, 10_001)
FIELDS_STRIDED = sorted(
    {*range(2, 60), *range(60, 10_001, 97), 149, 150, 151, 2999, 3000, 3001, 4999, 5000, 5001, 9735, 10_000}
)
"""Every field up to 60, every 97th after, and each side of TOURN-9's band edges."""

untimed = settings(deadline=None)


def band(entries: int) -> tuple[float, float]:
    """TOURN-9's range for the winner's share of the pool (a field up to 27: above 25%)."""
    if entries <= 27:
        return (0.25, 1.0)
    if entries <= 149:
        return (0.15, 0.45)
    if entries <= 3000:
        return (0.15, 0.25)
    if entries <= 4999:
        return (0.10, 0.25)
    return (0.10, 0.15)


def pools(entries: int) -> list[tuple[int, int]]:
    """(pool, min_cash) pairs: buy-ins of 100 and 10,000 units with a 1.5x min cash, no floor, and
    pools barely above entries x min cash and barely above places paid x min cash."""
    paid = places_paid(entries)
    return [
        (entries * 100, 150),
        (entries * 10_000, 15_000),
        (entries * 100, 0),
        (entries * 150 + 1, 150),
        (paid * 150 + 7, 150),
    ]


def floor_owed(pool: int, paid: int, min_cash: int) -> int:
    """What every paid place is owed: the min cash where it takes at most half the pool, else that half."""
    return min_cash if 2 * paid * min_cash <= pool else pool // (2 * paid)


def check_table(entries: int, pool: int, min_cash: int) -> None:
    prizes = payout_table(entries, pool, min_cash=min_cash)
    paid = places_paid(entries)
    assert len(prizes) == paid
    assert all(type(prize) is int for prize in prizes)
    assert sum(prizes) == pool
    assert all(a >= b for a, b in itertools.pairwise(prizes)), prizes
    assert prizes[-1] >= floor_owed(pool, paid, min_cash)
    if pool >= 100 * entries:  # whole units too coarse below that to hold a share to a band
        low, high = band(entries)
        assert low < prizes[0] / pool <= high if entries <= 27 else low <= prizes[0] / pool <= high


# --- every field size -------------------------------------------------------------------------


@pytest.mark.parametrize("entries", FIELDS_STRIDED)
def test_tourn9_tables_strided(entries: int) -> None:
    for pool, min_cash in pools(entries):
        check_table(entries, pool, min_cash)


@pytest.mark.slow
def test_tourn9_tables_every_field() -> None:
    for entries in FIELDS_ALL:
        for pool, min_cash in pools(entries):
            check_table(entries, pool, min_cash)


@pytest.mark.slow
def test_tourn9_winner_share_falls_as_the_field_grows() -> None:
    shares = [payout_table(entries, entries * 10_000, min_cash=15_000)[0] / (entries * 10_000)
              for entries in FIELDS_ALL]
    # rounding moves a share by at most ceil(paid / 9) units of a 10,000-unit-per-entry pool
    assert all(b <= a + 1e-5 for a, b in itertools.pairwise(shares))
    assert shares[0] == 1.0 and shares[-1] < 0.12


def test_tourn9_places_paid_schedule() -> None:
    assert [places_paid(n) for n in range(2, 12)] == [1, 1, 2, 2, 2, 3, 3, 3, 3, 3]
    assert places_paid(20) == 3  # 15% of 20 is 3
    assert places_paid(21) == 4  # 3.15, rounded up
    assert places_paid(100) == 15
    assert places_paid(9735) == 1461  # WSOP 2025: 1,460.25 rounded up
    assert places_paid(1000, 14.3) == 143  # the written decimal, not the float's binary excess
    assert places_paid(1000, 10) == 100
    assert places_paid(50, 100) == 50
    assert places_paid(12, 1) == 3  # never fewer than 3 above 10 entries


def test_tourn9_places_paid_never_falls_as_the_field_grows() -> None:
    counts = [places_paid(n) for n in FIELDS_ALL]
    assert all(a <= b for a, b in itertools.pairwise(counts))


# --- named fields (exact chips) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("entries", "pool", "prizes"),
    [
        (2, 200, (200,)),
        (3, 300, (300,)),
        (4, 400, (260, 140)),  # 65/35
        (6, 600, (390, 210)),
        (6, 601, (391, 210)),  # 390.65 and 210.35 rounded down; the unit left goes to the winner
        (7, 700, (350, 210, 140)),  # 50/30/20
        (7, 702, (352, 210, 140)),  # 351 + 210 + 140 = 701; one unit over, to 1st
        (9, 900, (450, 270, 180)),
        (10, 1000, (500, 300, 200)),
        (10, 1003, (502, 301, 200)),  # 501.5, 300.9, 200.6 floored leave 2 units: one to 1st, one to 2nd
    ],
)
def test_tourn9_small_fields(entries: int, pool: int, prizes: tuple[int, ...]) -> None:
    assert payout_table(entries, pool, min_cash=150) == prizes


def test_tourn9_small_field_tables_pay_more_than_the_capped_floor() -> None:
    # 4 entries: a 1.5x min cash (150 of 400) would take 300 of 400 for two places: capped at 100
    assert payout_table(4, 400, min_cash=150) == (260, 140)
    assert payout_table(10, 1000, min_cash=150)[-1] == 200


def test_tourn9_wsop_2025_main_event() -> None:
    """9,735 entries at $10,000, a $90,535,500 pool, 1,461 paid, the winner $10,000,000 (11.05%),
    the min cash $15,000 (1.5x); the final table paid 6M, 4M, 3M, 2.4M, 1.9M, 1.5M, 1.25M, 1M."""
    prizes = payout_table(9735, 90_535_500, min_cash=15_000)
    assert len(prizes) == 1461 and sum(prizes) == 90_535_500
    assert prizes[0] / 90_535_500 == pytest.approx(0.1105, abs=0.0005)  # $10.00M +- 45k
    assert prizes[-1] == 15_000
    # One exponent cannot bend like the real final table; each place within 25% of what WSOP paid.
    paid_2025 = (10_000_000, 6_000_000, 4_000_000, 3_000_000, 2_400_000, 1_900_000, 1_500_000, 1_250_000, 1_000_000)
    for ours, real in zip(prizes, paid_2025, strict=False):
        assert abs(math.log(ours / real)) < math.log(1.25), (ours, real)


def test_tourn9_winner_share_chart() -> None:
    assert [winner_share(places) for places, _ in WINNER_SHARE] == pytest.approx([s for _, s in WINNER_SHARE])
    assert winner_share(20_000) == pytest.approx(0.1105)  # held beyond the last row
    assert winner_share(23) == pytest.approx(0.25 * (0.23 / 0.25) ** (math.log(23 / 18) / math.log(27 / 18)))
    shares = [winner_share(places) for places in range(4, 20_001)]
    assert all(b <= a for a, b in itertools.pairwise(shares))


def test_tourn9_tiers_after_the_final_table() -> None:
    assert tiers(9) == (1,) * 9
    assert tiers(11) == (1,) * 9 + (2,)
    assert tiers(13) == (1,) * 9 + (4,)  # 13 alone would be narrower than 10-12: it joins that tier
    assert tiers(18) == (1,) * 9 + (3, 3, 3)
    assert tiers(20) == (1,) * 9 + (3, 3, 5)
    assert tiers(36) == (1,) * 9 + (3, 3, 3, 6, 6, 6)
    assert tiers(40) == (1,) * 9 + (3, 3, 3, 6, 6, 10)  # 37-40 joins 31-36
    wsop = tiers(1461)
    assert sum(wsop) == 1461 and wsop[-1] == 1461 - 1152  # 1,153-1,461 is the min-cash tier
    assert all(a <= b for a, b in itertools.pairwise(wsop))


def test_tourn9_prizes_equal_within_each_tier() -> None:
    prizes = payout_table(9735, 90_535_500, min_cash=15_000)
    start = 0
    for width in tiers(1461):
        assert len(set(prizes[start:start + width])) == 1
        start += width
    assert prizes[9:12] == (prizes[9],) * 3 and prizes[12] < prizes[9]  # 10-12 share, 13th less


def test_tourn9_floor_capped_at_half_the_pool() -> None:
    # 1,000 entries, 150 paid: a 1.5x floor takes 22.5% of a 100-unit buy-in pool: paid in full
    assert payout_table(1000, 100_000, min_cash=150)[-1] == 150
    assert payout_table(100, 10_000, min_cash=150)[-1] == 266  # a floor, not a target: 15 paid stay above it
    # a floor of 500 would take 75%: every place gets at least the capped floor 10,000 // 30 = 333
    prizes = payout_table(100, 10_000, min_cash=500)
    assert min(prizes) == 333 and sum(prizes) == 10_000


def test_tourn9_empty_pool_pays_nothing() -> None:
    assert payout_table(100, 0, min_cash=150) == (0,) * 15
    assert payout_table(5, 0) == (0, 0)


# --- an explicit table ------------------------------------------------------------------------


def test_tourn9_explicit_table() -> None:
    assert payout_table(50, 5000, explicit=[50, 30, 20]) == (2500, 1500, 1000)
    assert payout_table(50, 1000, explicit=[33.34, 33.33, 33.33]) == (334, 333, 333)
    # the structure's table sets the places paid and is paid as written (no floor)
    assert payout_table(4, 400, explicit=[70, 20, 10], min_cash=150) == (280, 80, 40)
    assert payout_table(2, 99, explicit=[100]) == (99,)


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: payout_table(1, 100), "entries"),
        (lambda: payout_table(0, 100), "entries"),
        (lambda: places_paid(1), "entries"),
        (lambda: payout_table(10, -1), "pool"),
        (lambda: payout_table(10, 100.0), "pool"),  # type: ignore[arg-type]
        (lambda: payout_table(10, 100, min_cash=-5), "min_cash"),
        (lambda: payout_table(100, 100, percent_paid=0), "percent_paid"),
        (lambda: payout_table(100, 100, percent_paid=101), "percent_paid"),
        (lambda: places_paid(100, math.nan), "percent_paid"),
        (lambda: payout_table(10, 100, percent_paid=-1, explicit=[100]), "percent_paid"),
        (lambda: payout_table(10, 100, explicit=[50, 30]), "explicit"),
        (lambda: payout_table(10, 100, explicit=[50, 30, 30]), "explicit"),
        (lambda: payout_table(3, 100, explicit=[40, 30, 20, 10]), "explicit"),
        (lambda: payout_table(10, 100, explicit=[]), "explicit"),
        (lambda: payout_table(10, 100, explicit=[30, 50, 20]), "explicit"),
        (lambda: payout_table(10, 100, explicit=[110, -10]), "explicit"),
        (lambda: payout_table(10, 100, explicit=[100, math.inf]), "explicit"),
    ],
)
def test_tourn9_bad_input_names_the_argument(call: object, argument: str) -> None:
    with pytest.raises(ValueError, match=argument):
        call()  # type: ignore[operator]


# --- properties -------------------------------------------------------------------------------


@untimed
@given(
    entries=st.integers(2, 20_000),
    pool=st.integers(0, 10**12),
    min_cash=st.integers(0, 10**7),
    percent_paid=st.floats(0.5, 100.0),
)
def test_tourn9_any_field_pool_and_floor(entries: int, pool: int, min_cash: int, percent_paid: float) -> None:
    prizes = payout_table(entries, pool, percent_paid=percent_paid, min_cash=min_cash)
    paid = places_paid(entries, percent_paid)
    assert len(prizes) == paid and sum(prizes) == pool
    assert all(a >= b for a, b in itertools.pairwise(prizes))
    assert prizes[-1] >= floor_owed(pool, paid, min_cash)
    start = 0
    for width in tiers(paid) if paid > 3 else ():
        if start >= 9:
            assert len(set(prizes[start:start + width])) == 1
        start += width


@untimed
@given(percents=st.lists(st.integers(1, 1000), min_size=1, max_size=40), pool=st.integers(0, 10**9))
def test_tourn9_any_explicit_table(percents: list[int], pool: int) -> None:
    total = sum(percents)
    table = sorted((100 * p / total for p in percents), reverse=True)  # sums to 100 within rounding
    prizes = payout_table(len(table) + 1, pool, explicit=table)
    assert len(prizes) == len(table) and sum(prizes) == pool
    assert all(a >= b for a, b in itertools.pairwise(prizes))
    for prize, percent in zip(prizes, table, strict=True):
        assert abs(prize - pool * percent / 100) <= pool * 1e-9 + len(table) / 9 + 2
