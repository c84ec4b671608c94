"""The documents cannot drift from the code: rule IDs, scenario keys and defaults, threshold
metrics, the report's files, the structure file's keys and defaults, the field's rates.

docs/rules.md is the rule book every citation points at: each rule ID cited anywhere in the
project must be defined there, once. docs/scenarios.md documents each scenario key with its type
and default: the keys must be the parser's (sim/load/scenario.py), each documented default must be the
one the parser applies, and its full example must be a valid scenario using every key.
docs/tournament.md does the same for the structure file (services/director/structure.py).
docs/websocket.md documents exactly the WebSocket front door's messages (services/websocket/messages.py),
their fields and the event types, each with an example that decodes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from support.markdown import markdown_table

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.director import structure as structures
from tablestorm.services.websocket import messages
from tablestorm.services.websocket.codec import EVENT_TYPES
from tablestorm.sim import inputs
from tablestorm.sim.load import scenario as scenarios
from tablestorm.sim.load.report import HISTORY_COLUMNS
from tablestorm.sim.load.stats import RunStats
from tablestorm.sim.load.summary import LoadRunFacts, build_summary
from tablestorm.sim.load.thresholds import METRICS
from tablestorm.sim.tournament import field
from tablestorm.sim.tournament.command import RATES

ROOT = Path(__file__).resolve().parent.parent
RULES = (ROOT / "docs" / "rules.md").read_text()
SCENARIOS_DOC = (ROOT / "docs" / "scenarios.md").read_text()
TOURNAMENT_DOC = (ROOT / "docs" / "tournament.md").read_text()
FAMILIES = ("CARD", "BET", "STUD", "DRAW", "SHOW", "CLOCK", "TABLE", "TOURN")
RULE_ID = re.compile(rf"\b(?:{'|'.join(FAMILIES)})-\d+\b")
CITING = [ROOT / "README.md", *(ROOT / d for d in ("services", "sim", "docs", "proto", "tests"))]


def _cited() -> dict[str, set[str]]:
    """Rule ID -> the files citing it (every text file under the citing places)."""
    files = [p for place in CITING for p in ([place] if place.is_file() else sorted(place.rglob("*")))]
    cited: dict[str, set[str]] = {}
    for path in files:
        if not path.is_file() or path.suffix not in {".py", ".md", ".proto", ".yaml", ".yml", ".pyi"}:
            continue
        for rule in RULE_ID.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(rule, set()).add(str(path.relative_to(ROOT)))
    return cited


def _defined() -> list[str]:
    return re.findall(r"^- \*\*([A-Z]+-\d+)\*\*", RULES, re.M)


def test_every_cited_rule_is_defined_in_docs_rules() -> None:
    defined = set(_defined())
    missing = {rule: sorted(files) for rule, files in _cited().items() if rule not in defined}
    assert missing == {}


def test_rules_are_defined_once_and_numbered_without_gaps() -> None:
    defined = _defined()
    assert len(defined) == len(set(defined)), sorted(r for r in defined if defined.count(r) > 1)
    for family in FAMILIES:
        numbers = [int(rule.split("-")[1]) for rule in defined if rule.split("-")[0] == family]
        assert numbers and numbers == list(range(1, len(numbers) + 1)), (family, numbers)


def test_the_engine_rules_are_all_cited_by_the_code() -> None:
    """Every single-table rule the book defines is cited somewhere else: implemented, tested."""
    cited = {rule for rule, files in _cited().items() if files - {"docs/rules.md"}}
    engine_rules = {rule for rule in _defined() if not rule.startswith("TOURN-")}
    assert engine_rules - cited == set()


def test_citations_point_at_the_projects_rule_book() -> None:
    """The shared RULES.md is not part of the project: nothing a user reads names it."""
    readers = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "sim").rglob("*.py")),
               *sorted((ROOT / "services").rglob("*.py"))]
    assert [str(p.relative_to(ROOT)) for p in readers if "RULES.md" in p.read_text()] == []


# ----------------------------------------------------------------------------- docs/scenarios.md


def _keys(heading: str) -> dict[str, Any]:
    """Documented key -> its documented default (the YAML in backticks)."""
    rows = markdown_table(heading, SCENARIOS_DOC)
    return {row["key"].strip("`"): yaml.safe_load(row["default"].strip("`")) for row in rows}


def test_documented_scenario_keys_are_the_parsers() -> None:
    assert tuple(_keys("## Scenario keys")) == scenarios.SCENARIO_KEYS
    assert tuple(_keys("### Games (`games[]`)")) == scenarios.GAME_KEYS
    assert tuple(_keys("### Stages (`stages[]`)")) == scenarios.STAGE_KEYS
    assert tuple(_keys("### Distributions (`think_s`, `session_s`)")) == inputs.DISTRIBUTION_KEYS
    kinds = " ".join(SCENARIOS_DOC.split("### Bot kinds (`bot_mix`)", 1)[1].split("###", 1)[0].split())
    assert re.findall(r"`(\w+)` \(", kinds) == list(scenarios.BOT_KINDS)


@pytest.mark.parametrize("key", scenarios.SCENARIO_KEYS)
def test_documented_scenario_default_is_the_parsers(key: str) -> None:
    """Writing the documented default gives the scenario that leaving the key out gives."""
    default = _keys("## Scenario keys")[key]
    assert scenarios.from_mapping({key: default}) == scenarios.from_mapping({})


@pytest.mark.parametrize("key", scenarios.GAME_KEYS)
def test_documented_game_default_is_the_parsers(key: str) -> None:
    default = _keys("### Games (`games[]`)")[key]
    assert scenarios.from_mapping({"games": [{key: default}]}) == scenarios.from_mapping({"games": [{}]})


@pytest.mark.parametrize("key", scenarios.STAGE_KEYS)
def test_documented_stage_default_is_the_parsers(key: str) -> None:
    default = _keys("### Stages (`stages[]`)")[key]
    other = {"duration_s": 4, "bots": 3}
    other.pop(key)
    first = {"duration_s": 5, "bots": 5}
    with_default = scenarios.from_mapping({"stages": [first, {**other, key: default}]})
    assert with_default == scenarios.from_mapping({"stages": [first, other]})


@pytest.mark.parametrize(("key", "dist"), [("dist", None), ("value", "fixed"), ("mean", "exponential"),
                                           ("min", "uniform"), ("max", "uniform")])
def test_documented_distribution_default_is_the_parsers(key: str, dist: str | None) -> None:
    default = _keys("### Distributions (`think_s`, `session_s`)")[key]
    base = {} if dist is None else {"dist": dist}
    written = scenarios.from_mapping({"think_s": {**base, key: default}}).think
    assert written == scenarios.from_mapping({"think_s": base}).think


def test_documented_example_is_a_scenario_with_every_key() -> None:
    block = SCENARIOS_DOC.split("### A scenario with every key", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    data = yaml.safe_load(block)
    assert set(data) == set(scenarios.SCENARIO_KEYS)
    parsed = scenarios.from_mapping(data, "docs/scenarios.md")
    assert {key for game in data["games"] for key in game} == set(scenarios.GAME_KEYS)
    assert parsed.stages and len(parsed.games) == 3


def test_documented_threshold_metrics_are_the_parsers() -> None:
    rows = markdown_table("## Thresholds", SCENARIOS_DOC)
    documented = {row["metric"].strip("`"): row["summary.json value"].strip("`") for row in rows}
    assert documented == {metric: ".".join(path) for metric, (path, _) in METRICS.items()}


def test_documented_report_files() -> None:
    """summary.json keys (those build_summary makes and those the driver adds), history.csv's
    columns, report.html's sections and charts."""
    rows = markdown_table("### summary.json", SCENARIOS_DOC)
    documented = {key.strip("` ") for row in rows for key in row["key"].split(",")}
    facts = LoadRunFacts(
        run={}, scenario="", scenario_resolved={}, stages_run=(), warnings=(), interrupted=None, aborted=False,
        kinds_acted=(), hands_voided_by_faults=0, hands_voided_at_end=0, wind_down=None, recoveries=(),
        chips_bought_by_bots=0, nodes=0, placements={}, registry_node="",
        protocol_violation_samples=(), prometheus_url=None,
    )
    summary = build_summary(
        RunStats(), bots=0, duration_s=1.0, chips_start=None, chips_end=None, hosts=1, fleets=1, run=facts.to_dict()
    )
    assert documented == set(summary)
    columns = markdown_table("### history.csv", SCENARIOS_DOC)
    assert [row["column"].strip("`") for row in columns] == list(HISTORY_COLUMNS)
    report = (ROOT / "sim" / "load" / "report.py").read_text()
    sections, charts = re.findall(r"<h2>([^<]+)</h2>", report), re.findall(r'\bfigure\("([^"]+)"', report)
    assert sections and charts, "the report's sections and charts are no longer found where this test looks"
    for section in sections:
        assert f"**{section}**" in SCENARIOS_DOC, section
    for chart in charts:
        assert f"*{chart}*" in SCENARIOS_DOC, chart


# ----------------------------------------------------------------------------- docs/tournament.md

STRUCTURE_BASE: dict[str, Any] = {
    "game": "7stud", "starting_stack": 1000,
    "levels": [{"duration_s": 60, "ante": 1, "bring_in": 2, "small_bet": 4, "big_bet": 8}] * 3,
}
"""The smallest structure every section's key can be written into (three play levels)."""
SECTION_REQUIRED = {"rebuys": {"until_level": 1}, "payouts": {}}
"""What a section needs besides the key whose default is tested (the sections with such keys)."""


def _literal_defaults(heading: str) -> dict[str, Any]:
    """Documented key -> its default, where the default is a YAML literal in backticks."""
    return {row["key"].strip("`"): yaml.safe_load(row["default"].strip("`"))
            for row in markdown_table(heading, TOURNAMENT_DOC) if re.fullmatch(r"`[^`]*`", row["default"])}


def test_documented_structure_keys_are_the_parsers() -> None:
    assert tuple(row["key"].strip("`") for row in markdown_table("### Structure keys", TOURNAMENT_DOC)) == \
        structures.STRUCTURE_KEYS
    assert tuple(row["key"].strip("`") for row in markdown_table("### Level keys (`levels[]`)", TOURNAMENT_DOC)) == \
        structures.LEVEL_KEYS
    documented = [row["key"].strip("`").split(".") for row in markdown_table("### Section keys", TOURNAMENT_DOC)]
    assert {section: tuple(key for s, key in documented if s == section) for section, _ in documented} == \
        structures.SECTION_KEYS


@pytest.mark.parametrize("key", list(_literal_defaults("### Structure keys")))
def test_documented_structure_default_is_the_parsers(key: str) -> None:
    default = _literal_defaults("### Structure keys")[key]
    assert structures.structure_from_mapping({**STRUCTURE_BASE, key: default}) == \
        structures.structure_from_mapping(STRUCTURE_BASE)


@pytest.mark.parametrize("path", list(_literal_defaults("### Section keys")))
def test_documented_section_default_is_the_parsers(path: str) -> None:
    section, key = path.split(".")
    default = _literal_defaults("### Section keys")[path]
    written = {**STRUCTURE_BASE, section: {**SECTION_REQUIRED[section], key: default}}
    left_out = {**written, section: SECTION_REQUIRED[section]}
    assert structures.structure_from_mapping(written) == structures.structure_from_mapping(left_out)


def test_documented_structure_uses_every_key_and_loads() -> None:
    block = TOURNAMENT_DOC.split("### A structure with every key", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    data = yaml.safe_load(block)
    assert tuple(data) == structures.STRUCTURE_KEYS
    for section, keys in structures.SECTION_KEYS.items():
        assert set(data[section]) == set(keys) - {"table"}  # percent_paid or table, not both
    assert {key for level in data["levels"] for key in level} == set(structures.LEVEL_KEYS) - set(structures.BLINDS)
    built = structures.structure_from_mapping(data, "docs/tournament.md")
    assert built.rebuys is not None and built.addon is not None and built.reentry.max_entries == 2


def test_documented_field_rates_are_the_commands_flags_and_defaults() -> None:
    rows = markdown_table("### The field's rates", TOURNAMENT_DOC)
    assert [row["flag"].split()[0].strip("`") for row in rows] == list(RATES.values())
    defaults = [float(row["default (where the structure offers it)"].split()[0]) for row in rows]
    assert defaults == [field.LATE_SHARE, field.REENTRY_RATE, field.REBUY_RATE, field.ADDON_RATE]


# ----------------------------------------------------------------- the WebSocket front door

WEBSOCKET_DOC = (ROOT / "docs" / "websocket.md").read_text()


def _section(doc: str, heading: str) -> str:
    """The text under ``## heading`` up to the next ``## `` heading."""
    return doc.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def _documented_messages(section: str) -> dict[str, tuple[list[str], str]]:
    """Each ``### `type``` of a section: its field table's names and its JSON example."""
    found = {}
    for block in section.split("\n### ")[1:]:
        name = re.fullmatch(r"`([a-z_]+)`", block.splitlines()[0])
        assert name is not None, block.splitlines()[0]
        fields = [row["field"].strip("`") for row in markdown_table(block.splitlines()[0], "\n" + block)]
        example = re.search(r"```json\n(.*?)\n```", block, re.S)
        assert example is not None, f"{name[1]} has no example"
        found[name[1]] = (fields, example[1])
    return found


@pytest.mark.parametrize(("heading", "classes"), [("Client messages", "CLIENT_MESSAGES"),
                                                  ("Server messages", "SERVER_MESSAGES")])
def test_websocket_doc_lists_exactly_the_messages_the_code_defines(heading: str, classes: str) -> None:
    """docs/websocket.md documents every message type of services/websocket/messages.py and no
    other, each with exactly its fields and an example that decodes as that message."""
    defined = {messages.message_type(cls): cls for cls in getattr(messages, classes)}
    documented = _documented_messages(_section(WEBSOCKET_DOC, heading))
    assert sorted(documented) == sorted(defined)
    for name, (fields, example) in documented.items():
        cls = defined[name]
        assert sorted(fields) == sorted(f.name for f in msgspec.structs.fields(cls)), name
        decoded = messages.decode(example) if classes == "CLIENT_MESSAGES" else msgspec.json.decode(example, type=cls)
        assert type(decoded) is cls


def test_websocket_doc_lists_every_event_type_with_its_fields() -> None:
    rows = markdown_table("## Tables, seats and events", WEBSOCKET_DOC)
    assert [row["event type"].strip("`") for row in rows] == list(EVENT_TYPES)
    for row in rows:
        kind = row["event type"].strip("`")
        named = re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", row["fields"]))
        message = pb.Event.DESCRIPTOR.fields_by_name[kind].message_type
        assert named == [field.name for field in message.fields], kind
