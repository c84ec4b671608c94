"""Properties of whole random tournaments, played by the accelerated driver on real engine tables.

Hypothesis draws the tournament: any of the four games and its betting structures, seats per
table, 9 to 400 entrants (tens in the default run, hundreds in the slow one), stacks and level
growth, breaks, late registration with late entrants and re-entries, rebuys, add-ons, the payout
table, the bot mix (shovers make all-ins and side pots, sleepers make the clock act) and lost
tables. For every tournament:

* TOURN-11, after every input of the director: the chips on every table plus those of the players
  in transit equal starting stacks times entries plus rebuys and add-ons (``check_chips``), and
  the director's own books recount the same (``Director.audit``).
* TOURN-4, after every input: tables differ by at most one player, or the table due to give is in
  a hand (its move waits for it) (``Director.audit``); and no table is dealt a hand while three or
  more players short of the largest.
* Every entry finishes exactly once, in places 1..entries; one player ends with every chip; the
  prizes add up to the prize pool exactly.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablestorm.services.director.structure import structure_from_mapping
from tablestorm.services.engine import VARIANTS, Hand, Structure
from tablestorm.sim.distributions import Distribution
from tablestorm.sim.tournament.accelerated import AcceleratedTournament
from tablestorm.sim.tournament.profiles import PlayerProfile

KINDS = ("random", "calling_station", "maniac", "shover", "sleeper", "strength")


@st.composite
def tournaments(draw: st.DrawFn, most: int) -> tuple[dict[str, Any], int]:
    """A structure file's contents and a number of entrants (up to ``most``)."""
    game = draw(st.sampled_from(sorted(VARIANTS)))
    variant = VARIANTS[game]
    betting = draw(st.sampled_from(sorted(s.value for s in variant.structures)))
    seats = draw(st.sampled_from([0, *range(2, variant.max_players + 1)]))
    entrants = draw(st.integers(9, most))
    stack = draw(st.integers(20, 200)) * 10
    growth = draw(st.floats(1.3, 2.5))
    unit, levels = max(2, stack // draw(st.integers(3, 30))), []
    chips = stack * entrants * 3
    ante_from = draw(st.integers(0, 6))  # pot and no limit: an ante from this level on (none sooner)
    while 8 * unit < chips // 4 or len(levels) < 4:
        duration = draw(st.sampled_from([60, 300, 600]))
        if variant.is_stud:
            levels.append({"duration_s": duration, "ante": unit // 10, "bring_in": max(1, unit // 4),
                           "small_bet": unit, "big_bet": 2 * unit})
        else:
            level = {"duration_s": duration, "small_blind": unit // 2, "big_blind": unit}
            if betting == Structure.FIXED_LIMIT.value:
                level |= {"small_bet": unit, "big_bet": 2 * unit}
            elif sum(1 for lv in levels if "break_s" not in lv) >= ante_from:
                level["ante"] = unit // 10
            levels.append(level)
        if draw(st.integers(0, 5)) == 0:
            levels.append({"break_s": draw(st.sampled_from([60, 300]))})
        unit = int(unit * growth) + 1
    if levels[-1].get("break_s"):
        levels.pop()
    plays = sum(1 for level in levels if "break_s" not in level)
    spec: dict[str, Any] = {
        "game": game, "betting": betting, "seats": seats, "starting_stack": stack, "levels": levels,
        "buy_in": draw(st.sampled_from([1, 10, 100, 109])),
    }
    if draw(st.integers(0, 2)):
        spec["late_registration"] = {"until_level": draw(st.integers(1, min(3, plays - 1)))}
        spec["reentry"] = {"max_entries": draw(st.integers(1, 3))}
    if draw(st.integers(0, 2)):
        spec["rebuys"] = {
            "until_level": draw(st.integers(1, min(3, plays))), "max_per_player": draw(st.integers(1, 3)),
            "threshold": draw(st.sampled_from([0, stack // 2])),
        }
    if draw(st.booleans()):
        spec["addon"] = {"after_level": draw(st.integers(1, min(3, plays - 1))), "stack": stack}
    spec["payouts"] = draw(st.sampled_from([{"percent_paid": 15}, {"percent_paid": 40}, {"table": [50, 30, 20]}]))
    return spec, entrants


@st.composite
def profiles(draw: st.DrawFn) -> list[PlayerProfile]:
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4, unique=True))
    return [
        PlayerProfile(
            kind,
            think=Distribution("uniform", 3.0, 0.5, draw(st.sampled_from([5.0, 40.0]))),  # 40: some time out
            weight=draw(st.integers(1, 3)),
            rebuys=draw(st.integers(0, 2)) > 0, add_on=draw(st.booleans()), reenter=draw(st.integers(0, 2)) > 0,
        )
        for kind in kinds
    ]


def check_tournament(
    spec: dict[str, Any], entrants: int, mix: list[PlayerProfile], seed: int, late: float, faults: list[float]
) -> None:
    structure = structure_from_mapping(spec)
    late_entrants = int(entrants * late) if structure.late_registration is not None else 0

    def not_held(table_id: str, hand: Hand) -> None:
        """TOURN-4: a table three or more players short of the largest deals no hand."""
        (summary,) = [t for t in run.director.table_summaries() if t.table_id == table_id]
        assert not summary.held, summary

    run = AcceleratedTournament(
        structure, entrants=entrants, seed=seed, profiles=mix, late_entrants=late_entrants,
        faults=faults, check_chips=True, observe=not_held,
    )
    result = run.run()
    director = run.director
    entries = [e.entry_id for e in director.standings()]
    assert len(entries) == len(set(entries)) == director.entries
    order = result.finishing_order
    assert sorted(p["entry"] for p in order) == sorted(entries), "every entry finishes exactly once"
    assert {p["place"] for p in order} <= set(range(1, director.entries + 1)) and order[0]["place"] == 1
    assert result.chips_conserved and director.largest_stack == director.expected_chips
    assert sum(p["prize"] for p in order) == result.prize_pool == director.prize_pool
    assert [p["prize"] for p in order] == sorted((p["prize"] for p in order), reverse=True)


def play(data: st.DataObject, most: int) -> None:
    spec, entrants = data.draw(tournaments(most))
    check_tournament(
        spec, entrants, data.draw(profiles()), data.draw(st.integers(0, 2**32)),
        data.draw(st.sampled_from([0.0, 0.1, 0.3])), data.draw(st.lists(st.floats(10, 3000), max_size=2)),
    )


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_random_tournaments_keep_every_invariant(data: st.DataObject) -> None:  # TOURN-4, TOURN-6, TOURN-9, TOURN-11
    play(data, 40)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_random_tournaments_keep_every_invariant_slow(data: st.DataObject) -> None:  # TOURN-4, 6, 9, 11
    play(data, 400)
