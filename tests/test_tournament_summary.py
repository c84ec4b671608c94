"""tournament.json's record read off a director: what a live run's record (times from the
tournament's creation, registrations before the start) and an accelerated one's (started at 0) share."""

from __future__ import annotations

from support.tournament_room import Room, stud_structure

from tablestorm.sim.tournament.summary import summarize


def test_the_timeline_counts_minutes_from_the_start_with_the_field_at_minute_0() -> None:
    """20 players register one every half second, as a live fleet does, and the start comes 75 s
    after the creation: minute 0 is the field as it was dealt in (20 players at 3 tables), not the
    empty room of the registration, and the last row is the end's minute from the start."""
    room = Room(stud_structure(), seed=3)
    for k in range(1, 21):
        room.at(0.5 * k).register(f"p{k}")
    room.at(75.0).start()
    busted = room.entry_at("T/t1", 1)
    winner = room.entry_at("T/t1", 2)
    room.at(175.0).finish("T/t1", {busted: 0}, winner=winner)
    result = summarize(room.director, seed=3, hands=1, hands_by_players={7: 1}, chips_conserved=False)
    assert result.timeline == [
        {"minute": 0, "players": 20, "tables": 3},
        {"minute": 1, "players": 20, "tables": 3},
        {"minute": 2, "players": 19, "tables": 3},
    ]
