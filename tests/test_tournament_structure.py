"""The tournament structure file (TOURN-1, TOURN-9, TOURN-10): the schema, its defaults, and an
error naming the field's path for every value that cannot work."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tablestorm.services.director.structure import (
    AddOn,
    LateRegistration,
    Level,
    Payouts,
    Rebuys,
    Reentry,
    structure_from_mapping,
)
from tablestorm.services.engine import SEVEN_TO_ACE_DRAW, Stakes, Structure
from tablestorm.services.fields import FieldError
from tablestorm.sim.tournament.structure_file import load_structure

EXAMPLE = """
name: Seven Card Stud MTT
game: 7stud
betting: fixed_limit
seats: 8
starting_stack: 3000
buy_in: 100
clock_seconds: 30
max_entrants: 0
levels:
  - {duration_s: 600, ante: 5, bring_in: 10, small_bet: 40, big_bet: 80}
  - {duration_s: 600, ante: 10, bring_in: 20, small_bet: 80, big_bet: 160}
  - {break_s: 300}
  - {duration_s: 600, ante: 20, bring_in: 40, small_bet: 160, big_bet: 320}
late_registration: {until_level: 2}
reentry: {max_entries: 2}
rebuys: {until_level: 2, threshold: 0, max_per_player: 3, stack: 3000, cost: 100}
addon: {after_level: 2, stack: 5000, cost: 100}
payouts: {percent_paid: 15}
"""

STUD_LEVEL = {"duration_s": 60, "ante": 1, "bring_in": 2, "small_bet": 4, "big_bet": 8}


def minimal(**fields: Any) -> dict[str, Any]:
    return {"game": "7stud", "starting_stack": 1000, "levels": [STUD_LEVEL], **fields}


def test_the_example_file_loads_with_every_field(tmp_path: Path) -> None:
    path = tmp_path / "mtt.yaml"
    path.write_text(EXAMPLE)
    s = load_structure(path)
    assert s.name == "Seven Card Stud MTT" and s.game.code == "7stud" and s.betting is Structure.FIXED_LIMIT
    assert (s.seats_per_table, s.starting_stack, s.buy_in, s.clock_seconds, s.max_entrants) == (8, 3000, 100, 30.0, 0)
    assert s.levels[0] == Level(600.0, Stakes(small_bet=40, big_bet=80, ante=5, bring_in=10))
    assert s.levels[2] == Level(300.0) and s.levels[2].is_break
    assert s.play_levels == (0, 1, 3)
    assert s.late_registration == LateRegistration(2) and s.reentry == Reentry(2)
    assert s.rebuys == Rebuys(until_level=2, stack=3000, cost=100, threshold=0, max_per_player=3)
    assert s.addon == AddOn(after_level=2, stack=5000, cost=100)
    assert s.payouts == Payouts(15.0)
    options = s.table_options()
    assert options.seats == 8 and options.stakes == s.levels[0].stakes and options.clock_seconds == 30


def test_defaults_and_the_draw_game() -> None:
    s = structure_from_mapping({
        "game": "7a5draw", "betting": "no_limit", "starting_stack": 500,
        "levels": [{"duration_s": 120, "small_blind": 5, "big_blind": 10, "ante": 1}, {"break_s": 60}],
        "rebuys": {"until_level": 1}, "addon": {"after_level": 1, "cost": 50},
    })
    assert s.game is SEVEN_TO_ACE_DRAW and s.seats_per_table == 5 and s.buy_in == 100 and s.clock_seconds == 30
    assert s.levels[0].stakes == Stakes(small_bet=0, big_bet=0, small_blind=5, big_blind=10, ante=1)
    assert s.rebuys == Rebuys(until_level=1, stack=500, cost=100, threshold=0, max_per_player=1)
    assert s.addon == AddOn(after_level=1, stack=500, cost=50)
    assert s.reentry.max_entries == 1 and s.late_registration is None and s.payouts.table is None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "structure: expected a mapping"),
        ({"starting_stack": 1, "levels": [STUD_LEVEL]}, "game: required"),
        (minimal(game="holdem"), "game: expected one of 7stud, 7stud8, 5stud, 7a5draw"),
        (minimal(betting="no_limit"), "betting: Seven Card Stud is played fixed_limit, not no_limit"),
        (minimal(betting="spread"), "betting: expected one of fixed_limit, pot_limit, no_limit"),
        (minimal(seats=9), "seats: Seven Card Stud seats 2 to 8 players"),
        (minimal(seats=1), "seats: Seven Card Stud seats 2 to 8 players"),
        (minimal(starting_stack=0), "starting_stack: must be positive"),
        (minimal(starting_stack=1.5), "starting_stack: expected a whole number"),
        (minimal(buy_in="ten"), "buy_in: expected a number"),
        (minimal(clock_seconds=0), "clock_seconds: must be positive"),
        (minimal(max_entrants=1), "max_entrants: 0 (unlimited) or at least 2"),
        (minimal(prizes=3), "structure.prizes: unknown field"),
        (minimal(levels=[]), "levels: expected a non-empty list"),
        (minimal(levels=[{"break_s": 60}]), "levels: at least one play level is needed"),
        (minimal(levels=[{"break_s": 60}, STUD_LEVEL]), "levels[0]: a tournament starts with a play level"),
        (minimal(levels=[STUD_LEVEL, {"break_s": 0}]), "levels[1].break_s: must be a positive number"),
        (minimal(levels=[STUD_LEVEL, {"break_s": 60, "ante": 1}]), "levels[1].ante: unknown field (known: break_s)"),
        (minimal(levels=[{**STUD_LEVEL, "duration_s": -1}]), "levels[0].duration_s: must be a positive"),
        (minimal(levels=[{k: v for k, v in STUD_LEVEL.items() if k != "ante"}]), "levels[0].ante: required"),
        (minimal(levels=[{**STUD_LEVEL, "small_blind": 1}]), "levels[0].small_blind: unknown field"),
        (minimal(levels=[{**STUD_LEVEL, "bring_in": 9}]), "levels[0].bring_in: must be between 1 and stakes.small_bet"),
        (minimal(levels=[STUD_LEVEL, {**STUD_LEVEL, "big_bet": 2}]), "levels[1].big_bet: must be at least"),
        (minimal(levels=[{**STUD_LEVEL, "ante": 2}, {"break_s": 60}, STUD_LEVEL]),
         "levels[2].ante: play level 2 lowers the ante to 1 from play level 1's 2: it may only stay or rise"),
        (minimal(levels=[STUD_LEVEL, STUD_LEVEL, {**STUD_LEVEL, "small_bet": 2, "big_bet": 4}]),
         "levels[2].big_bet: play level 3 lowers the big bet to 4 from play level 2's 8"),
        (minimal(game="7a5draw", betting="no_limit", levels=[{"duration_s": 60, "small_blind": 5, "big_blind": 10},
                                                             {"duration_s": 60, "small_blind": 5, "big_blind": 8}]),
         "levels[1].big_blind: play level 2 lowers the big blind to 8 from play level 1's 10"),
        (minimal(late_registration={"until_level": 2}), "late_registration.until_level: must name a play level"),
        (minimal(late_registration={"until_level": 1}), "late_registration.until_level: play level 1 is the last"),
        (minimal(late_registration={"until": 1}), "late_registration.until: unknown field"),
        (minimal(reentry={"max_entries": 2}), "reentry.max_entries: re-entry is only open during late_registration"),
        (minimal(rebuys={"until_level": 1, "stack": 0}), "rebuys.stack: must be positive"),
        (minimal(rebuys={"threshold": 5}), "rebuys.until_level: required"),
        (minimal(addon={"after_level": 1}), "addon.after_level: play level 1 is the last level"),
        (minimal(payouts={"table": [30, 70]}), "payouts.table: percents must not increase"),
        (minimal(payouts={"table": [60, 30]}), "payouts.table: percents must sum to 100"),
        (minimal(payouts={"percent_paid": 0}), "payouts.percent_paid: must be above 0"),
        (minimal(payouts={"percent_paid": 10, "table": [100]}), "payouts: give percent_paid or table, not both"),
    ],
)
def test_bad_values_name_their_field(data: Any, message: str) -> None:
    with pytest.raises(FieldError, match="^" + re.escape(f"mtt.yaml: {message}")):
        structure_from_mapping(data, "mtt.yaml")


def test_levels_may_stay_where_they_are_or_rise_in_any_amount_but_the_rising_ones() -> None:
    """Equal stakes a level apart are a longer level; a lower bring-in or small blind moves no
    pressure (only RISING amounts are held)."""
    levels = [STUD_LEVEL, STUD_LEVEL, {**STUD_LEVEL, "bring_in": 1}, {**STUD_LEVEL, "ante": 2, "big_bet": 16}]
    assert len(structure_from_mapping(minimal(levels=levels)).play_levels) == 4


def test_draw_levels_name_the_blinds_and_the_limit_bets() -> None:
    fixed = {"game": "7a5draw", "starting_stack": 100, "levels": [{"duration_s": 60, "small_blind": 1, "big_blind": 2}]}
    with pytest.raises(FieldError, match=r"levels\[0\].small_bet: required"):
        structure_from_mapping(fixed)
    level = {"duration_s": 60, "small_blind": 1, "big_blind": 2, "small_bet": 2}
    pot = {**fixed, "betting": "pot_limit", "levels": [level]}
    with pytest.raises(FieldError, match=r"levels\[0\].small_bet: unknown field"):
        structure_from_mapping(pot)


def test_unreadable_files_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(FieldError, match=r"missing\.yaml: cannot read"):
        load_structure(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("levels: [")
    with pytest.raises(FieldError, match=r"bad\.yaml: not valid YAML"):
        load_structure(bad)
