"""The tournament service's wire forms (services/tournament/convert.py): every event of the
director's record has one, structures survive the round trip, table ids are the table service's."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.director import events as ev
from tablestorm.services.engine import Stakes
from tablestorm.services.table.validation import table_id as check_table_id
from tablestorm.services.tournament import convert
from tablestorm.sim.tournament.structure_file import load_structure

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "sim" / "tournaments").glob("*.yaml"))
PRIVATE = {"seat_assigned"}
"""Oneof members the driver writes itself (a player's own events), not the director."""


def test_every_director_event_kind_has_a_wire_form() -> None:
    """A new kind of the director's record must get a TournamentEvent member before Watch can
    stream it; every public member of the oneof comes from one kind."""
    assert set(convert.EVENT_FIELDS) == set(typing.get_args(ev.TournamentEvent))
    members = {field.name for field in tpb.TournamentEvent.DESCRIPTOR.oneofs_by_name["kind"].fields}
    produced = set()
    for kind in convert.EVENT_FIELDS:
        produced.add(convert.event_to_proto(_example(kind)).WhichOneof("kind"))
    assert produced == members - PRIVATE


def _example(kind: type) -> ev.TournamentEvent:
    """An instance of ``kind`` with plain values for every field."""
    values: dict[str, object] = {}
    for name, hint in typing.get_type_hints(kind).items():
        values[name] = (
            Stakes(1, 2, 0, 1) if hint is Stakes else 1.5 if hint is float else True if hint is bool
            else "T/t3" if name.endswith(("table_id", "_table")) else 3 if hint in (int, int | None) else "x"
        )
    event: ev.TournamentEvent = kind(**values)
    return event


@given(
    kind=st.sampled_from(sorted(convert.EVENT_FIELDS, key=lambda k: k.__name__)),
    at=st.floats(min_value=0, max_value=1e7),
    number=st.integers(min_value=1, max_value=10**6),
    place=st.none() | st.integers(min_value=1, max_value=10**5),
)
def test_events_keep_their_time_and_name_tables_by_their_table_service_id(
    kind: type, at: float, number: int, place: int | None
) -> None:
    example = _example(kind)
    fields = {f.name: getattr(example, f.name) for f in dataclasses.fields(example)}
    fields["at"] = at
    for name in ("table_id", "from_table", "to_table"):
        if name in fields:
            fields[name] = f"day-1/t{number}"
    if "place" in fields and kind is ev.Eliminated:
        fields["place"], fields["prize"] = place, place
    wire = convert.event_to_proto(kind(**fields))
    assert wire.at_s == at
    body = getattr(wire, str(wire.WhichOneof("kind")))
    for name in ("table_id", "from_table", "to_table"):
        if name in fields:
            assert getattr(body, name) == f"day-1.t{number}" == check_table_id(getattr(body, name))
    if kind is ev.Eliminated:
        assert (body.place, body.prize) == ((place, place) if place is not None else (0, 0))  # 0: not final yet


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_structure_survives_the_round_trip(path: Path) -> None:
    structure = load_structure(path)
    assert convert.structure_from_proto(convert.structure_to_proto(structure)) == structure


def test_a_wire_structures_defaults_are_the_protos() -> None:
    message = tpb.TournamentStructure(
        game="7a5draw", starting_stack=500,
        levels=[tpb.Level(duration_s=60, stakes={"small_blind": 1, "big_blind": 2, "small_bet": 2, "big_bet": 4})],
        rebuys=tpb.Rebuys(until_level=1), add_on=tpb.AddOn(after_level=1),
    )
    message.levels.append(tpb.Level(break_s=30))
    structure = convert.structure_from_proto(message)
    assert (structure.buy_in, structure.clock_seconds, structure.payouts.percent_paid) == (100, 30.0, 15.0)
    assert structure.seats_per_table == 5 and structure.levels[1].is_break
    assert structure.rebuys is not None and structure.addon is not None
    assert (structure.rebuys.stack, structure.rebuys.cost) == (500, 100)  # 0: the starting stack, the buy-in
    assert structure.rebuys.max_per_player == convert.UNLIMITED_REBUYS  # 0: unlimited
    assert convert.structure_to_proto(structure).rebuys.max_per_player == 0
    assert (structure.addon.stack, structure.addon.cost) == (500, 100)
