"""Each name set is defined once, and every reader reads the registry (issue: one registry per name set)."""

from __future__ import annotations

import argparse

from tablestorm.services.engine import VARIANTS, Structure
from tablestorm.services.engine.phh.codes import PHH_CODES, phh_code
from tablestorm.sim.bots import kinds, strategies
from tablestorm.sim.bots.client.protocol import STRUCTURE_NAMES
from tablestorm.sim.cli import COMMANDS, _build_parser
from tablestorm.sim.load.scenario import BOT_KINDS, DEFAULT_BOT_MIX


def _choices(command: str, flag: str) -> list[str]:
    parser = _build_parser()
    sub = next(a for a in parser._subparsers._actions if isinstance(a, argparse._SubParsersAction))  # type: ignore[union-attr]
    action = next(a for a in sub.choices[command]._actions if flag in a.option_strings)
    return list(action.choices or ())


def test_every_games_streets_are_named_in_its_row() -> None:
    for variant in VARIANTS.values():
        assert len(variant.street_names) == len(variant.streets), variant.code


def test_every_phh_code_names_a_registered_game_and_structure_and_back() -> None:
    for code, (game, structure) in PHH_CODES.items():
        assert structure in VARIANTS[game].structures
        assert phh_code(VARIANTS[game], structure) == code
    assert {(g, s) for g, s in PHH_CODES.values()} == {(v.code, s) for v in VARIANTS.values() for s in v.structures}


def test_the_cli_offers_exactly_the_registered_games_and_structures() -> None:
    for command in ("simulate", "structure"):
        assert _choices(command, "--game") == list(VARIANTS)
    assert _choices("load", "--game") == list(VARIANTS)
    assert _choices("simulate", "--structure") == [s.value for s in Structure]
    assert _choices("structure", "--betting") == [s.value for s in Structure]


def test_each_command_row_registers_the_command_of_its_name() -> None:
    """``tablestorm NAME`` runs the module of NAME's row: a module registers its own name and no other
    (a row of two words, a command within the first word's, its second word)."""
    for name, command in COMMANDS.items():
        sub = argparse.ArgumentParser().add_subparsers()
        command.register(sub)
        assert list(sub.choices) == [name.split()[-1]]


def test_bot_kinds_are_the_kinds_registry() -> None:
    assert BOT_KINDS is kinds.BOT_KINDS
    assert set(DEFAULT_BOT_MIX) == set(BOT_KINDS)
    assert [kinds.strategy_for(kind).name for kind in BOT_KINDS] == list(BOT_KINDS)


def test_the_wire_names_of_structures_are_the_engines() -> None:
    assert set(STRUCTURE_NAMES.values()) == {s.value for s in Structure}


def test_strategies_read_the_variant_not_the_code() -> None:
    """A strength bot rates a short-deck flush above a full house (CARD-5) from the variant's own
    ranking for the deck in play, and a Hi-Lo low only where the variant has one."""
    view = strategies.View("7a5draw", "fixed_limit", (strategies.Legal("check"),), deck_size=36)
    assert view.high_ranking is VARIANTS["7a5draw"].deck_rule(5).high
    assert strategies.View("7a5draw", "fixed_limit", (), deck_size=32).high_ranking is VARIANTS["7a5draw"].decks[0].high
    assert strategies.View("7stud8", "fixed_limit", ()).variant.low is not None
    assert strategies.View("7stud", "fixed_limit", ()).variant.low is None
