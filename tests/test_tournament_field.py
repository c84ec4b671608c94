"""The field's rates (sim/tournament/field.py): who registers late, re-enters, rebuys and adds on
(TOURN-10), the defaults where a structure offers each, and the split of a field's profiles."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablestorm.services.fields import FieldError
from tablestorm.sim.resources import TOURNAMENTS
from tablestorm.sim.tournament.field import FieldRates, offered
from tablestorm.sim.tournament.profiles import DEFAULT_PROFILES, PlayerProfile
from tablestorm.sim.tournament.structure_file import load_structure

RATE = st.floats(0.0, 1.0)


def test_the_split_keeps_each_kinds_weight_in_the_rates_shares() -> None:
    rows = FieldRates(reentry_rate=0.25, rebuy_rate=1.0, addon_rate=0.5).profiles(DEFAULT_PROFILES)
    assert [(r.kind, r.reenter, r.rebuys, r.add_on, r.weight) for r in rows] == [
        ("regular", True, True, True, 0.375), ("regular", True, True, False, 0.375),
        ("regular", False, True, True, 1.125), ("regular", False, True, False, 1.125),
        ("recreational", True, True, True, 0.125), ("recreational", True, True, False, 0.125),
        ("recreational", False, True, True, 0.375), ("recreational", False, True, False, 0.375),
    ]
    assert [(r.kind, r.weight, r.reenter, r.rebuys, r.add_on) for r in FieldRates().profiles(DEFAULT_PROFILES)] == [
        ("regular", 3.0, False, False, False), ("recreational", 1.0, False, False, False)]


@given(reentry=RATE, rebuy=RATE, addon=RATE, weights=st.lists(st.floats(0.0, 10.0), min_size=1, max_size=3))
def test_each_habits_share_of_the_field_is_its_rate(reentry: float, rebuy: float, addon: float,
                                                    weights: list[float]) -> None:
    field = [PlayerProfile("regular", weight=weight) for weight in weights]
    rows = FieldRates(reentry_rate=reentry, rebuy_rate=rebuy, addon_rate=addon).profiles(field)
    total = sum(weights)
    assert math.isclose(sum(r.weight for r in rows), total, abs_tol=1e-9)
    for habit, rate in (("reenter", reentry), ("rebuys", rebuy), ("add_on", addon)):
        assert math.isclose(sum(r.weight for r in rows if getattr(r, habit)), rate * total, abs_tol=1e-9)
    assert all(r.weight > 0 for r in rows)


@pytest.mark.parametrize(("share", "entrants", "late"), [(0.25, 30, 8), (0.25, 300, 75), (0.0, 30, 0),
                                                           (1.0, 10, 8), (0.5, 2, 0), (0.25, 3, 1)])
def test_late_entrants_leave_two_to_start(share: float, entrants: int, late: int) -> None:
    assert FieldRates(late_share=share).late(entrants) == late


@pytest.mark.parametrize(("name", "rates"), [
    ("draw-nl-mtt.yaml", FieldRates(0.25, 0.0, 0.0, 0.0)),
    ("stud-mtt.yaml", FieldRates(0.25, 0.15, 0.0, 0.0)),
    ("draw-limit-rebuy.yaml", FieldRates(0.25, 0.0, 1.0, 1.0)),
    ("5stud-sng.yaml", FieldRates()),
])
def test_a_default_applies_where_the_structure_offers_it(name: str, rates: FieldRates) -> None:
    assert offered(load_structure(TOURNAMENTS / name)) == rates


def test_a_given_rate_replaces_the_default_and_zero_is_always_accepted() -> None:
    rebuy = load_structure(TOURNAMENTS / "draw-limit-rebuy.yaml")
    assert offered(rebuy, late_share=0.1, rebuy_rate=0.6, addon_rate=0.0) == FieldRates(0.1, 0.0, 0.6, 0.0)
    sng = load_structure(TOURNAMENTS / "5stud-sng.yaml")
    assert offered(sng, late_share=0.0, reentry_rate=0.0, rebuy_rate=0.0, addon_rate=0.0) == FieldRates()


@pytest.mark.parametrize(("rates", "message"), [
    ({"reentry_rate": 0.2}, "reentry_rate: the structure (7-to-A No Limit Draw MTT) allows no re-entry"),
    ({"rebuy_rate": 0.5}, "rebuy_rate: the structure (7-to-A No Limit Draw MTT) has no rebuys"),
    ({"addon_rate": 0.5}, "addon_rate: the structure (7-to-A No Limit Draw MTT) has no addon"),
    ({"late_share": 1.5}, "late_share: must be at most 1, got 1.5"),
    ({"reentry_rate": math.nan}, "reentry_rate: must be at least 0, got nan"),
])
def test_a_rate_the_structure_does_not_offer_is_refused_naming_it(rates: dict[str, float], message: str) -> None:
    with pytest.raises(FieldError) as refused:
        offered(load_structure(TOURNAMENTS / "draw-nl-mtt.yaml"), **rates)
    assert str(refused.value).startswith(message)
