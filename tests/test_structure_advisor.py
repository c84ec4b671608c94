"""tablestorm.services.director.advisor and ``tablestorm structure``: levels in the structure schema that
grow from the starting stack / 75 to the chips in play / 20 over the target time (TOURN-1)."""

from __future__ import annotations

import bisect
import itertools
import math
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from structure_file import check_structure, play_levels

from tablestorm.services.director.advisor import (
    DENOMINATIONS,
    FINAL_BIG_BET_CHIPS,
    FIRST_BIG_BET_STACKS,
    MAX_PLAY_LEVELS,
    StructureRequest,
    denomination,
    suggest,
)
from tablestorm.services.engine.variants import VARIANTS, Stakes, Structure
from tablestorm.services.fields import FieldError
from tablestorm.sim import cli

BIN = Path(sys.executable).parent
GAMES_AND_BETTING = [(game, structure.value) for game, variant in VARIANTS.items()
                     for structure in sorted(variant.structures, key=lambda s: s.value)]


def unit_of(level: Mapping[str, int]) -> int:
    """The amount the level is rounded from: the small bet in fixed limit, else the big blind."""
    return level.get("small_bet") or level["big_blind"]


def big_bet_of(level: Mapping[str, int]) -> int:
    return level.get("big_bet") or level["big_blind"]


def neighbours(target: float) -> set[int]:
    """The denominations either side of ``target`` (one, when it is a denomination or below 1)."""
    above = bisect.bisect_left(DENOMINATIONS, target)
    return {DENOMINATIONS[max(0, above - 1)], DENOMINATIONS[above]} if target > 1 else {1}


def check_suggestion(request: StructureRequest, structure: dict[str, Any]) -> None:
    check_structure(structure)
    variant = VARIANTS[request.game]
    betting = Structure(request.betting)
    levels = play_levels(structure)
    assert structure["game"] == request.game and structure["betting"] == request.betting
    assert structure["starting_stack"] == request.starting_stack
    # TOURN-1: every level's stakes work for the game and betting structure
    for level in levels:
        amounts = {k: v for k, v in level.items() if k != "duration_s"}
        Stakes(**{"small_bet": 0, "big_bet": 0, **amounts}).validate(variant, betting)
    # never down, level after level, in every amount
    for before, after in itertools.pairwise(levels):
        assert all(after[key] >= before[key] for key in before), (before, after)
    # the first big bet about the stack / 75, the last about the chips / 20, within one denomination
    halve = 2 if betting is Structure.FIXED_LIMIT else 1
    chips = request.entrants * request.starting_stack
    assert unit_of(levels[0]) in neighbours(request.starting_stack / FIRST_BIG_BET_STACKS / halve)
    assert unit_of(levels[-1]) in neighbours(chips / FINAL_BIG_BET_CHIPS / halve)
    assert big_bet_of(levels[0]) <= request.starting_stack / 50
    # every posted amount is a denomination (the big bet is twice one); ratios per RULES.md
    for level in levels:
        unit = unit_of(level)
        for key in ("ante", "bring_in", "small_blind", "small_bet"):
            assert level.get(key, 1) in DENOMINATIONS or level.get(key) == 0, (key, level)
        if "small_bet" in level:
            assert level["big_bet"] == 2 * level["small_bet"]  # BET-1
        if variant.is_stud:
            assert level["bring_in"] in neighbours(unit / 2)  # STUD-3
        if "small_blind" in level:
            assert level["small_blind"] in neighbours(unit / 2)  # DRAW-2
        if betting is not Structure.FIXED_LIMIT or variant.is_stud:
            assert level["ante"] == (0 if unit < 5 else denomination(unit / 10))
        if betting is Structure.FIXED_LIMIT and not variant.is_stud:
            assert level["big_blind"] == unit
    # the levels and breaks fill the target within half a step (a level, and a break when one follows)
    minutes = sum(level.get("duration_s", 0) + level.get("break_s", 0) for level in structure["levels"]) / 60
    step = request.level_minutes + (request.break_minutes if request.breaks_every else 0)
    assert abs(minutes - request.target_hours * 60) <= step / 2 + 1 / 60  # whole seconds
    if not request.breaks_every:
        assert abs(len(levels) * request.level_minutes - request.target_hours * 60) <= request.level_minutes


@pytest.mark.parametrize(("game", "betting"), GAMES_AND_BETTING)
@pytest.mark.parametrize(
    ("entrants", "stack", "hours", "minutes", "breaks_every"),
    [(1000, 3000, 8, 20, 3), (9, 1500, 1, 5, 0), (2, 100, 0.5, 10, 0), (6000, 10_000, 12, 40, 2),
     (45, 2000, 3, 12, 4)],
)
def test_tourn1_suggested_levels(
    game: str, betting: str, entrants: int, stack: int, hours: float, minutes: float, breaks_every: int
) -> None:
    request = StructureRequest(game, entrants, stack, hours, level_minutes=minutes, betting=betting,
                               breaks_every=breaks_every, late_reg_levels=2)
    structure = suggest(request)
    check_suggestion(request, structure)
    assert structure["late_registration"] == {"until_level": 2}


def test_stud_mtt_suggestion_exactly() -> None:
    """1,000 entrants of 3,000 chips for 8 hours of 20-minute levels, a 5-minute break each hour."""
    structure = suggest(StructureRequest("7stud", 1000, 3000, 8, breaks_every=3))
    levels = structure["levels"]
    assert [level.get("small_bet") for level in levels if "small_bet" in level] == [
        20, 30, 40, 60, 100, 150, 200, 300, 500, 600, 1000, 1500, 2000, 3000, 5000, 8000, 10_000, 15_000,
        25_000, 30_000, 50_000, 80_000,
    ]  # 22 levels growing 1.48x from 40 (3,000 / 75) to a 160,000 big bet (3,000,000 / 20 is 150,000)
    assert levels[0] == {"duration_s": 1200, "ante": 2, "bring_in": 10, "small_bet": 20, "big_bet": 40}
    assert levels[3] == {"break_s": 300}
    assert sum(1 for level in levels if "break_s" in level) == 7  # after levels 3, 6, ... 21
    assert "break_s" not in levels[-1]
    assert 22 * 20 + 7 * 5 == 475  # the nearest fit to 480 minutes (23 levels would be 495)


def test_no_limit_draw_levels_are_blinds_and_an_ante() -> None:
    structure = suggest(StructureRequest("7a5draw", 5, 1500, 1, level_minutes=6, betting="no_limit"))
    assert structure["seats"] == 5
    assert structure["levels"][0] == {"duration_s": 360, "small_blind": 10, "big_blind": 20, "ante": 2}
    assert big_bet_of(structure["levels"][-1]) == 400  # 7,500 chips / 20 = 375


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"entrants": 1}, "entrants"),
        ({"target_hours": 0}, "target_hours"),
        ({"target_hours": math.nan}, "target_hours"),
        ({"target_hours": math.inf}, "target_hours"),
        ({"level_minutes": math.nan}, "level_minutes"),
        ({"target_hours": 0.5}, "target_hours"),  # under two 20-minute levels
        ({"target_hours": 10_000}, "target_hours"),  # over 500 levels
        ({"level_minutes": 0}, "level_minutes"),
        ({"level_minutes": 0.001}, "level_minutes"),
        ({"betting": "no_limit"}, "betting"),
        ({"betting": "spread_limit"}, "betting"),
        ({"game": "holdem"}, "game"),
        ({"seats": 9}, "seats"),
        ({"seats": 1}, "seats"),
        ({"starting_stack": 0}, "starting_stack"),
        ({"starting_stack": 99}, "starting_stack"),  # a 2-chip first big bet is over 1/50 of it
        ({"starting_stack": 10**17}, "starting_stack"),
        ({"breaks_every": -1}, "breaks_every"),
        ({"breaks_every": 2, "break_minutes": 0}, "break_minutes"),
        ({"breaks_every": 2, "break_minutes": 0.001}, "break_minutes"),
        ({"late_reg_levels": 13}, "late_reg_levels"),  # 4 hours of 20 minutes: 12 levels
        ({"late_reg_levels": -1}, "late_reg_levels"),
    ],
)
def test_bad_requests_name_the_field(changes: dict[str, Any], field: str) -> None:
    fields: dict[str, Any] = {"game": "7stud", "entrants": 100, "starting_stack": 3000, "target_hours": 4}
    with pytest.raises(FieldError, match=f"^{field}: ") as caught:
        suggest(StructureRequest(**{**fields, **changes}))
    assert caught.value.field == field


def test_denominations() -> None:
    assert DENOMINATIONS[:17] == (1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100)
    assert [denomination(x) for x in (0.2, 1.4, 1.42, 7, 12.2, 12.3, 37.5, 150_000)] == [
        1, 1, 2, 8, 10, 15, 40, 150_000]  # nearest in log scale: 1.42 > sqrt(2), 12.25 = sqrt(10 x 15)


@settings(deadline=None, max_examples=300)
@given(
    game_and_betting=st.sampled_from(GAMES_AND_BETTING),
    entrants=st.integers(2, 20_000),
    stack=st.integers(100, 1_000_000),
    hours=st.floats(0.2, 30),
    minutes=st.sampled_from([1, 3, 5, 10, 12, 15, 20, 30, 60]),
    breaks_every=st.integers(0, 6),
)
def test_tourn1_any_request(
    game_and_betting: tuple[str, str], entrants: int, stack: int, hours: float, minutes: int, breaks_every: int
) -> None:
    game, betting = game_and_betting
    request = StructureRequest(game, entrants, stack, hours, level_minutes=minutes, betting=betting,
                               breaks_every=breaks_every)
    try:
        structure = suggest(request)
    except FieldError as exc:
        assert exc.field == "target_hours"
        assert hours * 60 < 2 * minutes or hours * 60 > MAX_PLAY_LEVELS * minutes
        return
    check_suggestion(request, structure)


# --- the command ------------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = cli.main(["structure", *argv])
    except SystemExit as exc:  # argparse errors
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_prints_the_structure_file(tmp_path: Path) -> None:
    """The installed command, as a process: YAML on stdout, or the same text in --out."""
    argv = [str(BIN / "tablestorm"), "structure", "--game", "7stud8", "--entrants", "300", "--starting-stack",
            "5000", "--target-hours", "5", "--breaks-every", "4", "--break-minutes", "10", "--late-reg-levels", "4"]
    printed = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.startswith("# Suggested by tablestorm structure")
    structure = yaml.safe_load(printed.stdout)
    request = StructureRequest("7stud8", 300, 5000, 5, breaks_every=4, break_minutes=10, late_reg_levels=4)
    assert structure == suggest(request)
    check_suggestion(request, structure)
    out = tmp_path / "stud8.yaml"
    written = subprocess.run([*argv, "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert written.returncode == 0 and written.stdout == ""
    assert out.read_text() == printed.stdout


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--entrants", "1"], "--entrants"),
        (["--target-hours", "0"], "--target-hours"),
        (["--betting", "no_limit"], "--betting"),
        (["--game", "5stud", "--betting", "pot_limit"], "--betting"),
        (["--game", "holdem"], "--game"),
        (["--seats", "12"], "--seats"),
        (["--starting-stack", "ten"], "--starting-stack"),
        (["--late-reg-levels", "40"], "--late-reg-levels"),
        (["--break-minutes", "10"], "--break-minutes"),  # without --breaks-every
        (["--level-minutes", "-5"], "--level-minutes"),
        (["--out", "/nonexistent-dir/structure.yaml"], "--out"),
    ],
)
def test_cli_bad_flags_exit_2_naming_the_flag(
    capsys: pytest.CaptureFixture[str], argv: list[str], flag: str
) -> None:
    base = {"--game": "7stud", "--entrants": "100", "--starting-stack": "3000", "--target-hours": "4"}
    for name, value in zip(argv[::2], argv[1::2], strict=True):
        base[name] = value
    status, out, err = run(capsys, *itertools.chain.from_iterable(base.items()))
    assert status == 2
    assert f"argument {flag}" in err
    assert out == ""
