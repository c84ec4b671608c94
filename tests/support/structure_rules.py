"""The tournament structure file's rules (the team's YAML schema), as a checker for tests.

``services/director/structure.py`` is the loader; this checker lets the advisor's and the
example files' tests hold a structure to the schema on their own: every key known, every
required key present, each level a play level with its game's stakes (passing
``Stakes.validate``) or a break. A failure names the key's path, e.g. ``levels[3].small_bet``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tablestorm.services.engine.variants import VARIANTS, Stakes, Structure, Variant

TOP_KEYS = {
    "name", "game", "betting", "seats", "starting_stack", "buy_in", "clock_seconds", "max_entrants", "levels",
    "late_registration", "reentry", "rebuys", "addon", "payouts",
}
SECTION_KEYS = {
    "late_registration": {"until_level"},
    "reentry": {"max_entries"},
    "rebuys": {"until_level", "threshold", "max_per_player", "stack", "cost"},
    "addon": {"after_level", "stack", "cost"},
}
STAKE_KEYS = ("ante", "bring_in", "small_bet", "big_bet", "small_blind", "big_blind")


def fail(path: str, message: str) -> None:
    raise AssertionError(f"{path}: {message}")


def whole(value: Any, path: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        fail(path, f"must be a whole number of at least {low}, got {value!r}")
    return int(value)


def level_keys(stud: bool, structure: Structure) -> tuple[set[str], set[str]]:
    """(required, optional) keys of a play level."""
    if stud:
        return {"duration_s", "ante", "bring_in", "small_bet", "big_bet"}, set()
    if structure is Structure.FIXED_LIMIT:
        return {"duration_s", "small_blind", "big_blind", "small_bet", "big_bet"}, {"ante"}
    return {"duration_s", "small_blind", "big_blind"}, {"ante"}


def play_levels(structure: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [level for level in structure["levels"] if "break_s" not in level]


def check_structure(data: Any) -> None:
    """Raise AssertionError naming the first key that breaks the schema."""
    if not isinstance(data, Mapping):
        fail("structure", "must be a mapping")
    for key in data:
        if key not in TOP_KEYS:
            fail(str(key), "unknown key")
    for key in ("game", "starting_stack", "levels"):
        if key not in data:
            fail(key, "is required")
    if data["game"] not in VARIANTS:
        fail("game", f"unknown game {data['game']!r}")
    variant = VARIANTS[data["game"]]
    try:
        structure = Structure(data.get("betting", "fixed_limit"))
    except ValueError:
        fail("betting", f"unknown betting structure {data['betting']!r}")
    if structure not in variant.structures:
        fail("betting", f"{variant.name} is not played {structure.value}")
    seats = whole(data.get("seats", 0), "seats")
    if seats == 1 or seats > variant.max_players:
        fail("seats", f"must be 0 or 2..{variant.max_players}, got {seats}")
    whole(data["starting_stack"], "starting_stack", 1)
    whole(data.get("buy_in", 100), "buy_in")
    whole(data.get("max_entrants", 0), "max_entrants")
    clock = data.get("clock_seconds", 30)
    if isinstance(clock, bool) or not isinstance(clock, int | float) or not clock > 0:
        fail("clock_seconds", f"must be a positive number, got {clock!r}")
    plays = check_levels(data["levels"], variant, structure)
    for section, keys in SECTION_KEYS.items():
        if section not in data:
            continue
        if not isinstance(data[section], Mapping):
            fail(section, "must be a mapping")
        for key, value in data[section].items():
            if key not in keys:
                fail(f"{section}.{key}", "unknown key")
            whole(value, f"{section}.{key}", 1 if key in ("until_level", "after_level", "max_entries") else 0)
        for key in ("until_level", "after_level"):
            if data[section].get(key, 0) > plays:
                fail(f"{section}.{key}", f"there are only {plays} play levels")
    if data.get("reentry", {}).get("max_entries", 1) > 1 and "late_registration" not in data:
        fail("reentry", "re-entry needs late registration")
    check_payouts(data.get("payouts", {}))


def check_levels(levels: Any, variant: Variant, structure: Structure) -> int:
    if not isinstance(levels, list) or not levels:
        fail("levels", "must be a non-empty list")
    required, optional = level_keys(variant.is_stud, structure)
    plays = 0
    for index, level in enumerate(levels):
        path = f"levels[{index}]"
        if not isinstance(level, Mapping):
            fail(path, "must be a mapping")
        if "break_s" in level:
            for key in level:
                if key != "break_s":
                    fail(f"{path}.{key}", "a break has only break_s")
            whole(level["break_s"], f"{path}.break_s", 1)
            continue
        plays += 1
        for key in level:
            if key not in required | optional:
                fail(f"{path}.{key}", "unknown key for this game and betting structure")
        for key in required:
            if key not in level:
                fail(f"{path}.{key}", "is required")
        whole(level["duration_s"], f"{path}.duration_s", 1)
        amounts = {key: whole(level[key], f"{path}.{key}") for key in STAKE_KEYS if key in level}
        try:
            Stakes(**{"small_bet": 0, "big_bet": 0, **amounts}).validate(variant, structure)
        except ValueError as exc:
            fail(path, str(exc))
    if plays == 0:
        fail("levels", "has no play level")
    return plays


def check_payouts(payouts: Any) -> None:
    if not isinstance(payouts, Mapping):
        fail("payouts", "must be a mapping")
    for key in payouts:
        if key not in ("percent_paid", "table"):
            fail(f"payouts.{key}", "unknown key")
    if len(payouts) > 1:
        fail("payouts", "percent_paid or table, not both")
    if "percent_paid" in payouts:
        percent = payouts["percent_paid"]
        if isinstance(percent, bool) or not isinstance(percent, int | float) or not 0 < percent <= 100:
            fail("payouts.percent_paid", f"must be more than 0 and at most 100, got {percent!r}")
    if "table" in payouts:
        table = payouts["table"]
        if not isinstance(table, list) or not table or not math.isclose(sum(table), 100, abs_tol=1e-9):
            fail("payouts.table", f"must be percents summing to 100, got {table!r}")
