"""The director rebuilt from its inputs, and from a snapshot of its state plus the inputs after it.

Hypothesis draws a tournament (stud or draw, with or without late entry, re-entry, rebuys and an
add-on) and a random sequence of inputs: hands ending with chips moved between the players the
director seated (read from its seating view), some voided; level changes; rebuys, add-ons, away;
tables lost; pauses; late entries. The property: replaying every input, and restoring a snapshot
taken at any point then replaying the rest, both give a director equal to the original, attribute
for attribute (the random generator's state included), which then answers the next inputs alike.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.object_graph import canonical
from support.tournament_room import draw_structure, stud_structure

from tablestorm.services.director import inputs as di
from tablestorm.services.director.director import Director, DirectorError, SeatView, TableSeating
from tablestorm.services.director.snapshot import SnapshotError, restore, snapshot
from tablestorm.services.director.structure import TournamentStructure
from tablestorm.services.engine.tournament_table import HandResult, SeatResult

OPTIONS = {
    "late_registration": {"until_level": 2},
    "reentry": {"max_entries": 2},
    "rebuys": {"until_level": 2, "max_per_player": 2, "threshold": 1000},
    "addon": {"after_level": 1, "stack": 1000},
}
KINDS = ("hand", "hand", "hand", "hand", "void", "tick", "rebuy", "add_on", "away", "lost", "pause", "register")


def structure_of(draw_game: bool, options: list[str]) -> TournamentStructure:
    extra = {name: OPTIONS[name] for name in options if name != "reentry" or "late_registration" in options}
    if draw_game:
        return draw_structure(levels=4, duration_s=120, doubling=True, **extra)
    return stud_structure(levels=4, duration_s=120, **extra)


def result_of(table: TableSeating, number: int, voided: bool, seats: int) -> HandResult:
    """Table ``table``'s running hand ended: ``number`` picks who loses how much to whom."""
    players = table.seats
    loser, winner = players[number % len(players)], players[(number // 7 + 1) % len(players)]
    moved = 0 if voided or loser is winner else (number // 3) % (loser.stack + 1)
    ends = {loser.seat: loser.stack - moved, winner.seat: winner.stack + moved} if moved else {}
    results = tuple(
        SeatResult(s.seat, s.entry_id, s.stack, ends.get(s.seat, s.stack), s.away) for s in players
    )
    order = tuple((k + number) % seats + 1 for k in range(seats))
    return HandResult(table.table_id, table.hand_number, results, voided, order, ())


def next_input(director: Director, kind: str, number: int, players: list[str]) -> di.Input | None:
    """The input of ``kind`` that ``number`` picks for the tournament as it stands (None: none fits)."""
    tables = director.seating()
    dealing = [t for t in tables if t.dealing]
    seated = [s for t in tables for s in t.seats]
    if kind in ("hand", "void"):
        if not dealing:
            return di.Tick()
        table = dealing[number % len(dealing)]
        return di.HandFinished(result_of(table, number, kind == "void", director.structure.seats_per_table))
    if kind == "tick":
        return di.Tick()
    if kind == "lost":
        return di.TableLost(tables[number % len(tables)].table_id) if tables else None
    if kind == "pause":
        return di.Resume() if director.paused else di.Pause()
    if kind == "register":
        return di.Register(players[number % len(players)], auto_rebuy=number % 2 == 0)
    if not seated:
        return None
    seat: SeatView = seated[number % len(seated)]
    if kind == "rebuy":
        return di.Rebuy(seat.player_id)
    if kind == "add_on":
        return di.AddOn(seat.player_id)
    return di.SetAway(seat.player_id, not seat.away)


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[TournamentStructure, int, list[tuple[float, di.Input]]]:
    """A structure, a seed and the inputs a tournament of it was given."""
    structure = structure_of(draw(st.booleans()), draw(st.lists(st.sampled_from(sorted(OPTIONS)), unique=True)))
    seed = draw(st.integers(0, 2**32))
    players = [f"p{k}" for k in range(draw(st.integers(2, 30)))]
    director = Director(structure, seed=seed, tournament_id="T")
    given: list[tuple[float, di.Input]] = [(0.0, di.Register(p)) for p in players] + [(1.0, di.Start())]
    steps = draw(st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 10**6), st.floats(0, 40)), max_size=150))
    now = 1.0
    for when, item in given:
        di.apply(director, item, when)
    for kind, number, elapsed in steps:
        if director.finished:
            break
        now += elapsed
        item = next_input(director, kind, number, players)
        if item is None:
            continue
        given.append((now, item))
        with contextlib.suppress(DirectorError):
            di.apply(director, item, now)
        director.audit()
    return structure, seed, given


def fresh(structure: TournamentStructure, seed: int) -> Director:
    return Director(structure, seed=seed, tournament_id="T")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=tournaments(), split=st.floats(0, 1))
def test_snapshot_and_tail_equal_full_replay_and_the_original(
    drawn: tuple[TournamentStructure, int, list[tuple[float, di.Input]]], split: float
) -> None:
    structure, seed, given = drawn
    original = di.replay(fresh(structure, seed), given)
    full = di.replay(fresh(structure, seed), given)
    cut = int(split * len(given))
    head = di.replay(fresh(structure, seed), given[:cut])
    restored = di.replay(restore(structure, snapshot(head)), given[cut:])
    assert canonical(full) == canonical(original)
    assert canonical(restored) == canonical(original)
    assert restored.seating() == original.seating() and restored.events == original.events
    restored.audit()
    if not original.finished:  # and they answer the next input alike
        later = max(now for now, _ in given) + 500.0
        assert di.apply(restored, di.Tick(), later) == di.apply(original, di.Tick(), later)
        assert canonical(restored) == canonical(original)


def test_the_seating_view_shows_seats_stacks_and_the_next_big_blind() -> None:
    director = fresh(draw_structure(), 3)
    for player in ("a", "b", "c"):
        director.register(player, 0.0)
    director.start(1.0)
    (table,) = director.seating()
    assert [director.seat_of(s.player_id) for s in table.seats] == [("T/t1", s.seat) for s in table.seats]
    assert [s.seat for s in table.seats] == sorted(s.seat for s in table.seats)
    assert {s.player_id for s in table.seats} == {"a", "b", "c"} and {s.stack for s in table.seats} == {1000}
    assert table.dealing and table.hand_number == 1 and table.positions == () and table.next_big_blind is None
    seats = [s.seat for s in table.seats]
    empty = [k for k in range(1, 6) if k not in seats]
    order = (empty[0], seats[1], empty[1], seats[2], seats[0])  # an empty seat first: not "next"
    result = result_of(table, 0, True, 5)._replace(big_blind_order=order)
    director.hand_finished(result, 2.0)
    (table,) = director.seating()
    assert table.positions == order and table.next_big_blind == seats[1]
    assert table.hand_number == 2 and table.dealing


def test_restore_refuses_what_is_not_a_director() -> None:
    import pickle

    structure = stud_structure()
    with pytest.raises(SnapshotError, match=r"posix\.system is not part of a director"):
        restore(structure, pickle.dumps(__import__("os").system))
    with pytest.raises(SnapshotError, match="unreadable"):
        restore(structure, b"not a pickle")
    with pytest.raises(SnapshotError, match="not a director"):
        restore(structure, pickle.dumps([1, 2]))
