"""The example tournament structures (sim/tournaments/*.yaml): each follows the structure schema
(TOURN-1), is the event its header says, and pays out through tablestorm.services.director.payouts."""

from __future__ import annotations

import itertools
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.structure_rules import check_structure, play_levels

from tablestorm.services.director.advisor import plan, suggest
from tablestorm.services.director.payouts import payout_table
from tablestorm.sim.cli import _build_parser
from tablestorm.sim.commands.structure import request_of

FOLDER = Path(__file__).resolve().parent.parent / "sim" / "tournaments"
FILES = sorted(FOLDER.glob("*.yaml"))
SUGGESTED = [path for path in FILES if "# Suggested by tablestorm structure" in path.read_text()]


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((FOLDER / name).read_text())
    return data


def test_the_examples_are_there() -> None:
    assert {path.name for path in FILES} >= {
        "stud-mtt.yaml", "stud8-turbo.yaml", "5stud-sng.yaml", "draw-nl-sng.yaml", "draw-limit-rebuy.yaml",
        "fast-test.yaml",
    }


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_tourn1_example_follows_the_schema(path: Path) -> None:
    text = path.read_text()
    assert text.startswith("# "), "each example opens with a comment saying what it is"
    structure = yaml.safe_load(text)
    check_structure(structure)
    levels = play_levels(structure)
    for before, after in itertools.pairwise(levels):  # stakes never go down
        assert all(after[key] >= before[key] for key in before if key != "duration_s"), (before, after)


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_tourn9_example_pays_out(path: Path) -> None:
    """The director's call: the file's payouts for a full sit-and-go, or a field of 300."""
    structure = yaml.safe_load(path.read_text())
    entries = structure.get("max_entrants") or 300
    buy_in = structure.get("buy_in", 100)
    payouts = structure.get("payouts", {})
    prizes = payout_table(entries, entries * buy_in, percent_paid=payouts.get("percent_paid", 15.0),
                          min_cash=buy_in * 3 // 2, explicit=payouts.get("table"))
    assert sum(prizes) == entries * buy_in


def test_stud_mtt() -> None:
    mtt = load("stud-mtt.yaml")
    assert (mtt["game"], mtt["seats"]) == ("7stud", 8)
    assert 3000 <= mtt["starting_stack"] <= 10_000
    assert {level["duration_s"] for level in play_levels(mtt)} == {1200}
    assert any("break_s" in level for level in mtt["levels"])
    assert mtt["late_registration"]["until_level"] >= 1
    assert mtt["payouts"] == {"percent_paid": 15}


def test_stud8_turbo() -> None:
    turbo = load("stud8-turbo.yaml")
    assert turbo["game"] == "7stud8"
    assert max(level["duration_s"] for level in play_levels(turbo)) <= 360


def test_five_card_stud_sit_and_go_is_one_table() -> None:
    sng = load("5stud-sng.yaml")
    assert sng["game"] == "5stud"
    assert sng["max_entrants"] == sng["seats"] == 8
    assert "late_registration" not in sng


def test_no_limit_draw_sit_and_go_is_one_5_max_table() -> None:
    sng = load("draw-nl-sng.yaml")
    assert (sng["game"], sng["betting"], sng["seats"], sng["max_entrants"]) == ("7a5draw", "no_limit", 5, 5)


def test_limit_draw_rebuy_has_rebuys_and_an_add_on_in_a_break() -> None:
    event = load("draw-limit-rebuy.yaml")
    assert (event["game"], event["betting"]) == ("7a5draw", "fixed_limit")
    assert event["rebuys"]["until_level"] >= 1 and event["rebuys"]["max_per_player"] >= 1
    after = event["addon"]["after_level"]
    plays = 0
    for index, level in enumerate(event["levels"]):
        plays += "break_s" not in level
        if plays == after:
            assert "break_s" in event["levels"][index + 1], "the add-on is taken in the break after its level"
            break


def test_fast_test_is_seconds_long() -> None:
    fast = load("fast-test.yaml")
    assert fast["clock_seconds"] == 1
    assert max(level.get("duration_s", 0) + level.get("break_s", 0) for level in fast["levels"]) <= 10


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda s: s["levels"][4].update(big_bet=5), "levels[4]"),  # a big bet under the small bet
        (lambda s: s["levels"][0].update(small_blind=10), "levels[0].small_blind"),  # no blinds in stud
        (lambda s: s["levels"][1].pop("bring_in"), "levels[1].bring_in"),
        (lambda s: s.update(color="red"), "color"),
        (lambda s: s.update(rebuys={"cost": -1}), "rebuys.cost"),
        (lambda s: s.update(late_registration={"until_level": 99}), "late_registration.until_level"),
        (lambda s: s.update(betting="no_limit"), "betting"),
        (lambda s: s["levels"][3].update(ante=1), "levels[3].ante"),  # levels[3] is a break
    ],
)
def test_the_schema_checker_names_the_bad_key(change: Any, path: str) -> None:
    """The checker these tests rely on fails, naming the key's path, when a file breaks the schema."""
    mtt = load("stud-mtt.yaml")
    change(mtt)
    with pytest.raises(AssertionError, match=f"^{re.escape(path)}: "):
        check_structure(mtt)


def test_the_examples_tablestorm_structure_made_are_there() -> None:
    assert {path.name for path in SUGGESTED} == {"5stud-mtt.yaml", "draw-nl-mtt.yaml", "stud8-mtt.yaml"}


@pytest.mark.parametrize("path", SUGGESTED, ids=lambda path: path.name)
def test_a_suggested_examples_header_is_true(path: Path) -> None:
    """Its command line is today's, its levels are the advisor's at the growth it states, and the
    median it measured met the target (the file made by that command, not edited since)."""
    text = path.read_text()
    header = " ".join(line.removeprefix("#").strip() for line in text.splitlines() if line.startswith("#"))
    command = re.search(r"played to check it: tablestorm (structure .+?--out \S+)", header)
    assert command is not None
    request = request_of(_build_parser().parse_args(shlex.split(command[1])))
    growth = float(re.search(r"grows ([\d.]+)x a level", header)[1])  # type: ignore[index]
    levels_plan = plan(request, growth)
    assert f"in level {levels_plan.expected_end}, and keeps rising to the chips in play / 2 in level " \
           f"{levels_plan.plays}" in header
    assert yaml.safe_load(text) == suggest(request, growth)
    assert ": met. Entries" in header and "sanity flags: none." in header
