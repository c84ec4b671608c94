"""Every tournament result says when it does not look like a real event (sim/tournament/sanity.py):
the flags, their thresholds, tournament.json and the report's badge."""

from __future__ import annotations

import json
from pathlib import Path

from tablestorm.sim.tournament.accelerated import AcceleratedTournament
from tablestorm.sim.tournament.profiles import PlayerProfile
from tablestorm.sim.tournament.report import render_tournament_html
from tablestorm.sim.tournament.sanity import DEALT_PER_ENTRY, DEEP_END_UNITS, LONE_WAIT_S, OUTLASTED, check
from tablestorm.sim.tournament.structure_file import load_structure

SNG = Path(__file__).resolve().parent.parent / "sim" / "tournaments" / "draw-nl-sng.yaml"
STAKES = {"small_bet": 0, "big_bet": 0, "ante": 0, "bring_in": 0, "small_blind": 10, "big_blind": 20}


def _flags(**overrides: object) -> set[str]:
    fields: dict[str, object] = {
        "entries": 5, "hands": 60, "dealt": 210, "chips": 7_500, "duration_s": 3_000.0, "finished": True,
        "levels": [{"level": 12, "start_s": 2_700.0, "end_s": 3_000.0, "stakes": {**STAKES, "big_blind": 400}}],
        "last_level": (15, 360.0),
        "eliminations": [{"t": 2_990.0}],
    }
    fields.update(overrides)
    return {flag.code for flag in check(**fields)}  # type: ignore[arg-type]


def test_a_plausible_result_has_no_flag() -> None:
    assert _flags() == set()


def test_each_flag_at_its_threshold() -> None:
    assert _flags(dealt=int(DEALT_PER_ENTRY * 5) - 1) == {"few_hands"}
    assert _flags(dealt=int(DEALT_PER_ENTRY * 5)) == set()
    deep = int(DEEP_END_UNITS * 400)
    assert _flags(chips=deep + 1) == {"ended_deep"} and _flags(chips=deep) == set()
    assert _flags(eliminations=[{"t": 3_000.0 - LONE_WAIT_S - 1}]) == {"lone_player_waited"}
    assert _flags(eliminations=[{"t": 3_000.0 - LONE_WAIT_S}]) == set()


def test_a_run_that_outlasts_its_last_level_is_flagged() -> None:
    """Past the structure's end the blinds stop rising: the end is the bots' pace, not a forecast."""
    last = {"level": 15, "start_s": 0.0, "stakes": {**STAKES, "big_blind": 400}}
    assert _flags(levels=[{**last, "end_s": OUTLASTED * 360.0}]) == set()
    assert _flags(levels=[{**last, "end_s": OUTLASTED * 360.0 + 1}]) == {"outlasted_structure"}


def test_an_unfinished_run_is_not_judged() -> None:
    assert _flags(finished=False, hands=1, dealt=5, chips=10**9, eliminations=[{"t": 0.0}]) == set()


def test_a_shove_happy_field_is_flagged_in_the_json_and_on_the_report(tmp_path: Path) -> None:
    """The old hand-strength bots end the 75-BB sit-and-go within a handful of hands (seed 1):
    flagged, and the report shows no green badge; the calibrated field's run is not flagged."""
    structure = load_structure(SNG)
    shoving = AcceleratedTournament(structure, entrants=5, seed=1, profiles=(PlayerProfile("strength"),)).run()
    assert sum(int(n) * count for n, count in shoving.hands_by_players.items()) < DEALT_PER_ENTRY * 5
    assert {flag["code"] for flag in shoving.sanity} == {"few_hands", "ended_deep"}
    doc = {**json.loads(json.dumps(shoving.to_dict())), "mode": "accelerated", "finished": True, "run": {}}
    page = render_tournament_html(doc)
    assert "IMPLAUSIBLE · 2 FLAGS" in page and "verdict pass" not in page
    assert f"{shoving.hands} hands dealt" in page
    calibrated = AcceleratedTournament(structure, entrants=5, seed=1).run()
    assert calibrated.sanity == [] and calibrated.hands >= 40
