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
    ([FAST, "--entrants", "8", "--hosts", "3", "--chaos", "kill-fleet@5s"], "--chaos: a tournament takes kill-host"),
    ([FAST, "--entrants", "8", "--chaos", "kill-host"], "--chaos: expected kill-host@SECONDS"),
    ([FAST, "--entrants", "8", "--accelerated", "--hosts", "2"], "--hosts: a live run's flag"),
    ([FAST, "--entrants", "8", "--fleets", "9"], "--fleets: 9 fleets for 8 entrants"),
    ([FAST, "--entrants", "8", "--address", "nowhere"], "--address: expected auto, HOST:PORT"),
])
def test_a_bad_flag_is_refused_before_anything_starts(
    flags: list[str], named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["tournament", *flags, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablestorm tournament: ") and named in err and err.count("\n") == 1
    assert not out.exists()


def test_flags_argparse_checks_name_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["tournament", FAST, "--entrants", "many", "--out", str(tmp_path)])
    assert exit_.value.code == 2 and "--entrants" in capsys.readouterr().err


def test_an_unwritable_out_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["tournament", FAST, "--entrants", "4", "--accelerated", "--out", str(blocker)]) == 2
    assert "--out: " in capsys.readouterr().err
