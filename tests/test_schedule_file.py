"""The schedule file: the examples, every refusal naming the file and the field, and docs/schedules.md
in step with the parser (every key documented, in order, with the default the parser applies)."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.markdown import markdown_table
from support.schedules import ONLINE_DAY, QUICK, ROOT

from tablestorm.services.engine import VARIANTS
from tablestorm.services.fields import FieldError
from tablestorm.sim.cli import main
from tablestorm.sim.schedule import spec
from tablestorm.sim.schedule.spec import SitAndGos, Tournament, load_schedule, schedule_from_mapping
from tablestorm.sim.tournament.profiles import DealingModel

DOC = (ROOT / "docs" / "schedules.md").read_text()
BASE = ROOT / "sim" / "schedules"


def _parse(data: Any) -> spec.Schedule:
    return schedule_from_mapping(data, "day.yaml", BASE)


def _minimal() -> dict[str, Any]:
    return {"tournaments": [{"name": "Stud", "start": "18:00", "structure": "../tournaments/stud-mtt.yaml",
                             "entrants": 100}]}


def test_the_online_day_is_a_realistic_day_of_all_four_games() -> None:
    day = load_schedule(ONLINE_DAY)
    tournaments = [e for e in day.events if isinstance(e, Tournament)]
    series = [e for e in day.events if isinstance(e, SitAndGos)]
    assert len(day.events) >= 30 and tournaments and series
    assert set(day.games) == set(VARIANTS)
    starts = sorted(t.start_s for t in tournaments)
    assert starts[0] < 3600 and starts[-1] >= 23 * 3600  # from midnight to the last hour
    assert {t.entrants.kind for t in tournaments} >= {"lognormal", "normal", "empirical"}
    assert all(sum(s.rate.per_minute[18:23]) > sum(s.rate.per_minute[3:8]) for s in series)  # busier evenings


def test_the_quick_day_is_small() -> None:
    day = load_schedule(QUICK)
    assert 2 <= len([e for e in day.events if isinstance(e, Tournament)]) <= 3
    assert all(level.duration_s <= 10 for e in day.events for level in e.structure.levels)
    assert all(e.entrants.mean < 500 for e in day.events if isinstance(e, Tournament))


def test_a_start_is_a_time_of_day_or_minutes() -> None:
    quoted = _parse(yaml.safe_load('tournaments: [{name: a, start: "18:05", structure: ../tournaments/stud-mtt.yaml,'
                                   " entrants: 9}]"))
    bare = _parse(yaml.safe_load("tournaments: [{name: a, start: 18:05, structure: ../tournaments/stud-mtt.yaml,"
                                 " entrants: 9}]"))
    assert quoted.events[0].start_s == bare.events[0].start_s == 60 * (18 * 60 + 5)


def test_an_events_players_override_the_schedules_one_by_one() -> None:
    data = _minimal()
    data["players"] = {"bots": {"strength": 2, "maniac": 1}, "sitting_out": 0.1}
    data["tournaments"][0]["players"] = {"think_s": 2}
    players = _parse(data).events[0].players
    assert players.bots == {"strength": 2, "maniac": 1} and players.sitting_out == 0.1 and players.think.value == 2


def _set(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    *parents, last = re.split(r"\.(?![^\[]*\])", path)
    node: Any = data
    for part in parents:
        name, _, index = part.partition("[")
        node = node[name] if not index else node[name][int(index.rstrip("]"))]
    name, _, index = last.partition("[")
    if index:
        node[name][int(index.rstrip("]"))] = value
    elif value is _DELETE:
        del node[name]
    else:
        node[name] = value
    return data


_DELETE = object()
BAD = [
    ("tournaments[0].start", "25:00", "tournaments[0].start: '25:00' is not a time of day"),
    ("tournaments[0].start", "noon", "tournaments[0].start: expected HH:MM"),
    ("tournaments[0].start", 1440, "tournaments[0].start: must be at most 1439"),
    ("tournaments[0].entrants", 1, "tournaments[0].entrants: must be at least 2"),
    ("tournaments[0].entrants", {"dist": "normal", "mean": 100}, "tournaments[0].entrants.sd: required by dist normal"),
    ("tournaments[0].entrants", {"dist": "normal", "mean": 100, "sd": -4},
     "tournaments[0].entrants.sd: must be at least 0, got -4"),
    ("tournaments[0].entrants", {"dist": "lognormal", "median": 90, "sd": 3},
     "tournaments[0].entrants.sd: not a parameter of dist lognormal"),
    ("tournaments[0].entrants", {"dist": "poisson"}, "tournaments[0].entrants.dist: expected one of fixed, normal"),
    ("tournaments[0].entrants", {"dist": "empirical", "values": []}, "tournaments[0].entrants.values: expected a"),
    ("tournaments[0].entrants", {"dist": "empirical", "values": [10, 1.5]},
     "tournaments[0].entrants.values[1]: expected a whole number"),
    ("tournaments[0].structure", "../tournaments/missing.yaml", "tournaments[0].structure: "),
    ("tournaments[0].late_registration", {"share": 1.5}, "tournaments[0].late_registration.share: must be at most 1"),
    ("tournaments[0].late_registration", {"share": 0.2, "curve": [0, 0]},
     "tournaments[0].late_registration.curve: at least one weight must be positive"),
    ("tournaments[0].late_registration", {"when": 1}, "tournaments[0].late_registration.when: unknown field"),
    ("tournaments[0].reentry_rate", -0.1, "tournaments[0].reentry_rate: must be at least 0"),
    ("tournaments[0].players", {"bots": {"robot": 1}}, "tournaments[0].players.bots.robot: unknown field"),
    ("tournaments[0].players", {"bots": {"strength": 0}}, "tournaments[0].players.bots: at least one bot kind"),
    ("tournaments[0].players", {"sitting_out": 1}, "tournaments[0].players.sitting_out: must be below 1"),
    ("tournaments[0].players", {"think_s": {"dist": "gamma"}}, "tournaments[0].players.think_s.dist: expected fixed"),
    ("tournaments[0].name", _DELETE, "tournaments[0].name: required"),
    ("tournaments[0].colour", "red", "tournaments[0].colour: unknown field"),
    ("tournaments[0].guarantee", -1, "tournaments[0].guarantee: must be at least 0, got -1"),
    ("tournaments[0].guarantee", "lots", "tournaments[0].guarantee: expected a number, got 'lots'"),
    ("tournaments[0].fee", -0.5, "tournaments[0].fee: must be at least 0, got -0.5"),
    ("tournaments[0].seats_to", "Nowhere", "tournaments[0].seats_to: 'Nowhere' is not a tournament of the schedule"),
    ("tournaments[0].seats_to", "Stud", "tournaments[0].seats_to: the seats go round in a loop: Stud -> Stud"),
    ("tournaments[0].seats_to", ["Stud"], "tournaments[0].seats_to: expected text"),
    ("recurring", "yes", "recurring: expected true or false, got 'yes'"),
    ("dealing", {"card_s": -1}, "dealing.card_s: must be at least 0, got -1"),
    ("dealing", {"pause_s": 1}, "dealing.pause_s: unknown field"),
    ("tournaments", {"a": 1}, "tournaments: expected a list"),
    ("tournaments", [], "tournaments: a schedule needs at least one"),
]


@pytest.mark.parametrize(("path", "value", "message"), BAD, ids=[f"{p}={v!r}" for p, v, _ in BAD])
def test_a_bad_value_is_refused_naming_the_file_and_the_field(path: str, value: Any, message: str) -> None:
    with pytest.raises(FieldError) as caught:
        _parse(_set(_minimal(), path, value))
    assert str(caught.value).startswith(f"day.yaml: {message}"), str(caught.value)


def test_what_the_structure_does_not_offer_is_refused() -> None:
    draw_nl = _set(_minimal(), "tournaments[0].structure", "../tournaments/draw-nl-mtt.yaml")  # no re-entry
    with pytest.raises(FieldError, match=r"tournaments\[0\]\.reentry_rate: the structure .* allows no re-entry"):
        _parse(_set(draw_nl, "tournaments[0].reentry_rate", 0.2))
    turbo = _set(_minimal(), "tournaments[0].structure", "../tournaments/5stud-sng.yaml")
    with pytest.raises(FieldError, match=r"late_registration\.share: the structure .* has no late_registration"):
        _parse(_set(turbo, "tournaments[0].late_registration", {"share": 0.2}))
    sng = {"sit_and_gos": [{"name": "s", "structure": "../tournaments/stud-mtt.yaml", "arrivals_per_minute": 1}]}
    with pytest.raises(FieldError, match=r"sit_and_gos\[0\]\.structure: .* sets no max_entrants"):
        _parse(sng)
    hours = {"sit_and_gos": [{"name": "s", "structure": "../tournaments/5stud-sng.yaml",
                              "arrivals_per_minute": [1, 2]}]}
    with pytest.raises(FieldError, match=r"sit_and_gos\[0\]\.arrivals_per_minute: expected one rate or 24"):
        _parse(hours)
    twice = _minimal()
    twice["tournaments"].append(dict(twice["tournaments"][0]))
    with pytest.raises(FieldError, match="name: 'Stud' is used twice"):
        _parse(twice)


def test_a_satellite_needs_a_registering_tournament_with_a_buy_in_and_no_loop(tmp_path: Path) -> None:
    def day(*tournaments: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"tournaments": [{"start": "18:00", "structure": "../tournaments/stud-mtt.yaml", "entrants": 50, **t}
                                for t in tournaments], **extra}

    main = {"name": "Main"}
    parsed = _parse(day(main, {"name": "Sat", "start": "17:00", "structure": "../tournaments/stud-satellite.yaml",
                                "seats_to": "Main"}))
    assert parsed.event("Sat").satellite == spec.Satellite("Main", 100) and parsed.event("Main").satellite is None
    assert parsed.satellites_of("Main") == (parsed.event("Sat"),)
    late = {"name": "Sat", "start": "23:00", "seats_to": "Main"}  # Main's late registration ends at 21:10
    with pytest.raises(FieldError, match=r"tournaments\[1\]\.seats_to: 'Main' closes its registration at 21:10, "
                                         r"before this satellite starts \(23:00\)"):
        _parse(day(main, late))
    loop = day({"name": "A", "seats_to": "B"}, {"name": "B", "seats_to": "C"}, {"name": "C", "seats_to": "A"})
    with pytest.raises(FieldError, match=r"tournaments\[0\]\.seats_to: the seats go round in a loop: A -> B -> C -> A"):
        _parse(loop)
    chain = _parse(day(main, {"name": "Sat", "seats_to": "Main"}, {"name": "Mega", "seats_to": "Sat"}))
    assert chain.event("Mega").satellite == spec.Satellite("Sat", 100)
    sng = day({"name": "Sat", "seats_to": "Spin"},
              sit_and_gos=[{"name": "Spin", "structure": "../tournaments/5stud-sng.yaml", "arrivals_per_minute": 1}])
    with pytest.raises(FieldError, match=r"seats_to: 'Spin' is a sit-and-go series: seats go to a scheduled"):
        _parse(sng)
    free = tmp_path / "freeroll.yaml"
    free.write_text((BASE.parent / "tournaments" / "stud-mtt.yaml").read_text().replace("buy_in: 100", "buy_in: 0"))
    freeroll = day({"name": "Free", "structure": str(free)}, {"name": "Sat", "seats_to": "Free"})
    with pytest.raises(FieldError, match=r"seats_to: 'Free' has no buy-in .*: a seat would be worth nothing"):
        _parse(freeroll)
    series = {"sit_and_gos": [{"name": "Spin", "structure": "../tournaments/5stud-sng.yaml", "arrivals_per_minute": 1,
                               "fee": -1}]}
    with pytest.raises(FieldError, match=r"sit_and_gos\[0\]\.fee: must be at least 0, got -1"):
        _parse(series)
    with pytest.raises(FieldError, match=r"sit_and_gos\[0\]\.guarantee: unknown field"):
        _parse({"sit_and_gos": [{**series["sit_and_gos"][0], "fee": 1, "guarantee": 100}]})


def test_the_command_refuses_a_bad_file_before_ray_starts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "day.yaml"
    bad.write_text("tournaments: [{name: a, start: '18:00', structure: nowhere.yaml, entrants: 9}]")
    assert main(["schedule", str(bad), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"tablestorm schedule: {bad}: tournaments[0].structure: ") and "cannot read" in error
    assert not (tmp_path / "out").exists()
    assert main(["schedule", str(QUICK), "--address", "nowhere", "--out", str(tmp_path / "out")]) == 2
    assert "tablestorm schedule: --address: expected auto, HOST:PORT or ray://HOST:PORT" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    with pytest.raises(SystemExit) as caught:
        main(["schedule", str(QUICK), "--replications", "0"])
    assert caught.value.code == 2
    assert "argument --replications: must be at least 1, got 0" in capsys.readouterr().err
    with pytest.raises(SystemExit) as caught:
        main(["schedule", str(QUICK), "--overlay-risk", "0.7"])
    assert caught.value.code == 2
    assert "argument --overlay-risk: must be at most 0.5, got 0.7" in capsys.readouterr().err


# ----------------------------------------------------------------------------- docs/schedules.md


def _table(heading: str) -> dict[str, dict[str, str]]:
    """Key -> its row of the first Markdown table after ``heading``."""
    return {row["key"].strip("`"): row for row in markdown_table(heading, DOC)}


TABLES = {
    "## Schedule keys": spec.SCHEDULE_KEYS,
    "### Tournaments (`tournaments[]`)": spec.TOURNAMENT_KEYS,
    "### Sit-and-gos (`sit_and_gos[]`)": spec.SIT_AND_GO_KEYS,
    "### Entrant forecasts (`entrants`)": spec.ENTRANTS_KEYS,
    "### Late registration (`late_registration`)": spec.LATE_KEYS,
    "### Players (`players`)": spec.PLAYERS_KEYS,
    "### Dealing (`dealing`)": spec.DEALING_KEYS,
}


@pytest.mark.parametrize("heading", TABLES)
def test_documented_keys_are_the_parsers(heading: str) -> None:
    assert tuple(_table(heading)) == TABLES[heading]


def _default(heading: str, key: str) -> Any:
    return yaml.safe_load(_table(heading)[key]["default"].strip("`"))


@pytest.mark.parametrize("key", ["late_registration", "reentry_rate"])
def test_documented_tournament_default_is_the_parsers(key: str) -> None:
    written = _set(_minimal(), f"tournaments[0].{key}", _default("### Tournaments (`tournaments[]`)", key))
    assert _parse(written) == _parse(_minimal())


@pytest.mark.parametrize("key", spec.LATE_KEYS)
def test_documented_late_registration_default_is_the_parsers(key: str) -> None:
    written = _set(_minimal(), "tournaments[0].late_registration", {key: _default("### Late registration "
                                                                                   "(`late_registration`)", key)})
    assert _parse(written) == _parse(_minimal())


@pytest.mark.parametrize("key", spec.PLAYERS_KEYS)
def test_documented_players_default_is_the_parsers(key: str) -> None:
    written = _set(_minimal(), "players", {key: _default("### Players (`players`)", key)})
    assert _parse(written) == _parse(_minimal())


@pytest.mark.parametrize("key", spec.DEALING_KEYS)
def test_documented_dealing_default_is_the_parsers(key: str) -> None:
    written = _set(_minimal(), "dealing", {key: _default("### Dealing (`dealing`)", key)})
    assert _parse(written) == _parse(_minimal())


def test_the_dealing_is_the_rooms_for_every_event() -> None:
    data = _set(_minimal(), "dealing", {"between_hands_s": 0.5, "card_s": 0})
    data["sit_and_gos"] = [{"name": "s", "structure": "../tournaments/5stud-sng.yaml", "arrivals_per_minute": 1}]
    assert {e.dealing for e in _parse(data).events} == {DealingModel(between_hands_s=0.5, card_s=0.0)}


def test_the_documented_schedule_uses_every_key_and_parses() -> None:
    text = DOC.split("### A schedule with every key", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    data = yaml.safe_load(text)
    schedule = _parse(data)
    used = set(data) | {k for t in data["tournaments"] for k in t} | {k for s in data["sit_and_gos"] for k in s}
    used |= {k for t in data["tournaments"] for k in (t.get("late_registration") or {})}
    used |= {k for t in data["tournaments"] for k in (t["entrants"] if isinstance(t["entrants"], dict) else {})}
    used |= set(data["players"]) | set(data["dealing"])
    every = {*spec.SCHEDULE_KEYS, *spec.TOURNAMENT_KEYS, *spec.SIT_AND_GO_KEYS, *spec.LATE_KEYS, *spec.PLAYERS_KEYS,
             *spec.ENTRANTS_KEYS, *spec.DEALING_KEYS}
    assert every - used == set()
    assert {e.entrants.kind for e in schedule.events if isinstance(e, Tournament)} == {"fixed", "normal", "lognormal",
                                                                                      "empirical"}
