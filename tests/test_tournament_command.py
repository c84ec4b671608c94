"""``tablestorm tournament``: its flags (checked before anything starts, exit 2 naming the flag) and
its accelerated mode's files (tournament.json, eliminations.csv, tournament.html).

The accelerated runs here are whole real tournaments (the director, engine tables, the live bots'
strategies) on the virtual clock, run through the command's own entry point.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from tablestorm.sim.cli import main

FAST = "sim/tournaments/fast-test.yaml"
SNG = "sim/tournaments/5stud-sng.yaml"


def _run(tmp_path: Path, *flags: str) -> tuple[int, dict[str, object]]:
    out = tmp_path / "out"
    status = main(["tournament", FAST, "--accelerated", "--think", "0", "--out", str(out), *flags])
    return status, json.loads((out / "tournament.json").read_text())


def test_the_accelerated_mode_writes_every_entry_its_eliminations_and_the_page(tmp_path: Path) -> None:
    status, doc = _run(tmp_path, "--entrants", "30", "--seed", "3", "--bots", "strength=3,calling_station=1")
    assert status == 0
    assert doc["mode"] == "accelerated" and doc["finished"] is True and doc["interrupted"] is False
    assert doc["chips_conserved"] is True
    entries = doc["entries"]
    assert isinstance(entries, int) and entries >= 30  # late entries and re-entries come on top (TOURN-10)
    order = doc["finishing_order"]
    assert isinstance(order, list) and sorted(p["place"] for p in order) == list(range(1, entries + 1))
    assert sum(p["prize"] for p in order) == doc["prize_pool"] == 100 * entries  # TOURN-9: the pool is paid out
    with (tmp_path / "out" / "eliminations.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == entries - 1 == len(doc["eliminations"])  # type: ignore[arg-type]
    assert {r["player"] for r in rows} | {order[0]["player"]} == {p["player"] for p in order}
    levels = doc["levels"]
    assert isinstance(levels, list) and levels[0]["average_stack_bb"] == 200 / 4  # 200 chips, big bet 4
    run = doc["run"]
    assert isinstance(run, dict) and run["command_line"].startswith("tablestorm tournament")
    page = (tmp_path / "out" / "tournament.html").read_text()
    assert "Tournament: Fast test" in page and "<svg" in page
    # This test structure's six 5-second levels run out long before hand-strength bots finish, at
    # 120 big bets in play: both flagged, and no green badge.
    assert [flag["code"] for flag in doc["sanity"]] == ["ended_deep", "outlasted_structure"]  # type: ignore[index,union-attr]
    assert "IMPLAUSIBLE · 2 FLAGS" in page and "FINISHED · CHIPS CONSERVED" not in page


def test_a_seed_replays_the_same_tournament(tmp_path: Path) -> None:
    first = _run(tmp_path / "a", "--entrants", "12", "--seed", "9")[1]
    again = _run(tmp_path / "b", "--entrants", "12", "--seed", "9")[1]
    other = _run(tmp_path / "c", "--entrants", "12", "--seed", "10")[1]
    for doc in (first, again, other):
        doc.pop("run")
    assert first == again and first["finishing_order"] != other["finishing_order"]


@pytest.mark.parametrize(("flags", "named"), [
    (["sim/tournaments/nope.yaml", "--entrants", "8"], "nope.yaml: cannot read"),
    ([FAST, "--entrants", "1"], "--entrants: a tournament needs at least 2"),
    ([SNG, "--entrants", "9"], "--entrants: the structure seats at most 8"),
    ([FAST, "--entrants", "8", "--bots", "strength=2,bluffer"], "--bots: unknown bot kind 'bluffer'"),
    ([FAST, "--entrants", "8", "--bots", "strength=0"], "--bots: at least one bot kind needs a positive weight"),
    ([FAST, "--entrants", "8", "--think", "1"], "--think: 1 s is the whole 1 s action clock"),
    ([FAST, "--entrants", "8", "--hosts", "1", "--chaos", "kill-host@5s"],
     "--chaos: 1 kill-host event(s) need at least 2"),
    ([FAST, "--entrants", "8", "--hosts", "3", "--chaos", "kill-fleet@5s"],
     "--chaos: expected kill-host@SECONDS or kill-tournament-server@SECONDS"),
    ([FAST, "--entrants", "8", "--chaos", "kill-host"], "--chaos: expected kill-host@SECONDS"),
    ([FAST, "--entrants", "8", "--accelerated", "--hosts", "2"], "--hosts: a live run's flag"),
    ([FAST, "--entrants", "8", "--fleets", "9"], "--fleets: 9 fleets for 8 entrants"),
    ([FAST, "--entrants", "8", "--address", "nowhere"], "--address: expected auto, HOST:PORT"),
    ([FAST, "--entrants", "8", "--late-share", "0.2"], "--late-share: a live run registers every entrant before"),
    ([FAST, "--entrants", "8", "--accelerated", "--rebuy-rate", "0.5"], "--rebuy-rate: the structure (Fast test) "
     "has no rebuys"),
    ([FAST, "--entrants", "8", "--accelerated", "--addon-rate", "1"], "--addon-rate: the structure (Fast test) has no "
     "addon"),
    ([SNG, "--entrants", "8", "--accelerated", "--reentry-rate", "0.1"], "--reentry-rate: the structure (Five Card "
     "Stud Sit & Go) allows no re-entry"),
    ([SNG, "--entrants", "8", "--accelerated", "--late-share", "0.1"], "--late-share: the structure (Five Card "
     "Stud Sit & Go) has no late_registration"),
])
def test_a_bad_flag_is_refused_before_anything_starts(
    flags: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["tournament", *flags, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablestorm tournament: ") and named in err and err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize(("flag", "value", "reason"), [
    ("--entrants", "many", "expected a whole number"),
    ("--late-share", "1.5", "must be at most 1, got 1.5"),
    ("--reentry-rate", "-0.1", "must be at least 0"),
    ("--rebuy-rate", "nan", "must be at least 0, got nan"),
    ("--addon-rate", "half", "expected a number"),
])
def test_flags_argparse_checks_name_the_flag(
    flag: str, value: str, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = {"--entrants": "8", flag: value}
    with pytest.raises(SystemExit) as exit_:
        main(["tournament", FAST, *[x for pair in flags.items() for x in pair], "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2 and f"argument {flag}: {reason}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_field_it_assumed_is_stated_with_the_example_days_rates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """30 entrants of a structure with late registration and one re-entry: a quarter (8) register
    late, 15 % of the players re-enter; it offers no rebuy nor add-on, so nobody buys one."""
    status, doc = _run(tmp_path, "--entrants", "30", "--seed", "3")
    field = {"entrants": 30, "late_entrants": 8, "late_share": 0.25, "reentry_rate": 0.15, "rebuy_rate": 0.0,
             "addon_rate": 0.0}
    assert status == 0 and doc["field"] == field
    assert json.loads(capsys.readouterr().out)["field"] == field
    assert doc["timeline"][0]["players"] == 22  # type: ignore[index]  # the others come once it has started
    page = (tmp_path / "out" / "tournament.html").read_text()
    assert "<td>registered late</td><td class=\"n\">8</td>" in page
    assert "<td>re-entry rate</td><td class=\"n\">15%</td>" in page


@pytest.mark.parametrize(("reentry", "entries"), [("0", 30), ("1", 31)])
def test_the_reentry_rate_decides_who_reenters(reentry: str, entries: int, tmp_path: Path) -> None:
    """Seed 3 at 0.5 s a hand busts one player while late registration is open: they re-enter only
    at a rate of 1; at 0 (and no late entrant) the entries are the entrants."""
    _, doc = _run(tmp_path, "--entrants", "30", "--seed", "3", "--hand-pause", "0.5", "--late-share", "0",
                  "--reentry-rate", reentry)
    assert (doc["entries"], doc["reentries"]) == (entries, entries - 30)
    assert doc["timeline"][0]["players"] == 30  # type: ignore[index]


@pytest.mark.parametrize(("rate", "rebuys", "add_ons"), [("0", 0, 0), ("1", 1, 28)])
def test_the_rebuy_and_addon_rates_decide_who_buys(rate: str, rebuys: int, add_ons: int, tmp_path: Path) -> None:
    """The fast test with rebuys to level 2 and an add-on after level 3: seed 3's early bust rebuys,
    and the 28 players left at the add-on take it, at a rate of 1; nobody buys anything at 0."""
    spec = yaml.safe_load(Path(FAST).read_text())
    spec |= {"rebuys": {"until_level": 2, "max_per_player": 3}, "addon": {"after_level": 3}}
    structure = tmp_path / "rebuy.yaml"
    structure.write_text(yaml.safe_dump(spec))
    out = tmp_path / "out"
    assert main(["tournament", str(structure), "--accelerated", "--think", "0", "--hand-pause", "0.5", "--out",
                 str(out), "--entrants", "30", "--seed", "3", "--late-share", "0", "--reentry-rate", "0",
                 "--rebuy-rate", rate, "--addon-rate", rate]) == 0
    doc = json.loads((out / "tournament.json").read_text())
    assert doc["field"]["rebuy_rate"] == doc["field"]["addon_rate"] == float(rate)
    assert (doc["entries"], doc["rebuys"], doc["add_ons"]) == (30, rebuys, add_ons)
    assert doc["prize_pool"] == 100 * (30 + rebuys + add_ons)
