"""A tournament room for the director's rule tests: its commands carried out on real engine tables.

:class:`Room` plays the part of a driver: every command the director returns is applied to a real
``TournamentTable`` (seats, removals, chips, away marks, deals). A test then ends a table's hand
with :meth:`Room.finish`: the hand is played out on the table (everyone checks and calls), and the
test may decide who ends with what (``ends``, the remainder to ``winner``), which the room writes
into the table's seats and into the result it reports, so that a rule scenario has exact chips
while seats, positions and deals stay the engine's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tablestorm.services.director import commands as cmd
from tablestorm.services.director import events as ev
from tablestorm.services.director.director import Director
from tablestorm.services.director.structure import TournamentStructure, structure_from_mapping
from tablestorm.services.engine import Action, ActionKind
from tablestorm.services.engine.tournament_table import HandResult, TournamentTable

__all__ = ["Room", "draw_structure", "passive", "stud_structure"]


def stud_structure(levels: int = 3, duration_s: float = 600, **extra: Any) -> TournamentStructure:
    """8-max stud, 1000 chips; level k (from 1): ante k, bring-in 2k, bets 4k/8k."""
    rows = [
        {"duration_s": duration_s, "ante": k, "bring_in": 2 * k, "small_bet": 4 * k, "big_bet": 8 * k}
        for k in range(1, levels + 1)
    ]
    return structure_from_mapping({"game": "7stud", "starting_stack": 1000, "levels": rows, **extra})


def draw_structure(
    levels: int = 3, duration_s: float = 600, *, doubling: bool = False, **extra: Any
) -> TournamentStructure:
    """5-max fixed-limit 7-to-A draw, 1000 chips; level k: blinds k/2k, bets 2k/4k (``doubling``:
    with 2^(k-1) for k, limits that keep up with the chips so that a field plays out in time)."""
    units = [2 ** (k - 1) if doubling else k for k in range(1, levels + 1)]
    rows = [
        {"duration_s": duration_s, "small_blind": k, "big_blind": 2 * k, "small_bet": 2 * k, "big_bet": 4 * k}
        for k in units
    ]
    return structure_from_mapping({"game": "7a5draw", "starting_stack": 1000, "levels": rows, **extra})


class Room:
    """A director and the engine tables it commands."""

    def __init__(self, structure: TournamentStructure, *, seed: int = 1) -> None:
        self.director = Director(structure, seed=seed, tournament_id="T")
        self.tables: dict[str, TournamentTable] = {}
        self.commands: list[cmd.Command] = []
        self.results: dict[str, HandResult] = {}
        """The last result each table reported (taken before the director deals again)."""
        self.now = 0.0

    # ----------------------------------------------------------------- inputs

    def register(self, *players: str, auto_rebuy: bool = False) -> list[cmd.Command]:
        out: list[cmd.Command] = []
        for player in players:
            out += self.run(self.director.register(player, self.now, auto_rebuy=auto_rebuy))
        return out

    def start(self) -> list[cmd.Command]:
        return self.run(self.director.start(self.now))

    def at(self, now: float) -> Room:
        self.now = now
        return self

    def tick(self) -> list[cmd.Command]:
        return self.run(self.director.tick(self.now))

    def finish(
        self, table_id: str, ends: Mapping[str, int] | None = None, *, winner: str | None = None
    ) -> list[cmd.Command]:
        """End the hand running at ``table_id`` and report it: players named in ``ends`` (entry ids)
        end with those stacks, ``winner`` takes what balances, the others end as they started.
        With neither, the hand's own outcome (everyone checked and called) stands."""
        table = self.tables[table_id]
        while table.hand is not None:
            table.apply(table.hand_seats[table.hand.actor] + 1, passive(table))
        result = table.result()
        if ends is not None or winner is not None:
            result = self._settle(table, result, dict(ends or {}), winner)
        self.results[table_id] = result
        return self.run(self.director.hand_finished(result, self.now))

    def _settle(
        self, table: TournamentTable, result: HandResult, ends: dict[str, int], winner: str | None
    ) -> HandResult:
        total = sum(r.start for r in result.seats)
        final = {r.player_id: ends.get(r.player_id, r.start) for r in result.seats}
        if winner is not None:
            final[winner] = 0
            final[winner] = total - sum(final.values())
        assert sum(final.values()) == total and min(final.values()) >= 0, (final, total)
        for r in result.seats:
            seat = table.seats[r.seat - 1]
            assert seat is not None
            seat.stack = final[r.player_id]
        return result._replace(seats=tuple(r._replace(end=final[r.player_id]) for r in result.seats))

    def run(self, commands: list[cmd.Command]) -> list[cmd.Command]:
        """Carry out ``commands`` on the tables, in order; returns them."""
        for command in commands:
            self.commands.append(command)
            if type(command) is cmd.OpenTable:
                self.tables[command.table_id] = TournamentTable(
                    command.table_id, command.options, seed=7, hand_number=command.hand_number
                )
            elif type(command) is cmd.SeatPlayer:
                self.tables[command.table_id].seat_player(command.seat, command.entry_id, command.stack)
            elif type(command) is cmd.RemovePlayer:
                assert self.tables[command.table_id].seats[command.seat - 1].player_id == command.entry_id  # type: ignore[union-attr]
                self.tables[command.table_id].remove_player(command.seat)
            elif type(command) is cmd.AddChips:
                self.tables[command.table_id].add_chips(command.seat, command.chips)
            elif type(command) is cmd.SetAway:
                self.tables[command.table_id].set_away(command.seat, command.away)
            elif type(command) is cmd.DealHand:
                table = self.tables[command.table_id]
                table.start_hand(command.stakes)
                assert table.hand_number == command.hand_number
            elif type(command) is cmd.CloseTable:
                del self.tables[command.table_id]
        return commands

    # ----------------------------------------------------------------- what the room shows

    def seats(self, table_id: str) -> dict[int, str]:
        """Seat number -> entry id at the engine table."""
        return {k + 1: s.player_id for k, s in enumerate(self.tables[table_id].seats) if s is not None}

    def entry_at(self, table_id: str, seat: int) -> str:
        return self.seats(table_id)[seat]

    def stack(self, entry_id: str) -> int:
        for table in self.tables.values():
            for seat in table.seats:
                if seat is not None and seat.player_id == entry_id:
                    return seat.stack
        raise KeyError(entry_id)

    def dealing(self) -> set[str]:
        """Tables with a hand running."""
        return {table_id for table_id, table in self.tables.items() if table.hand is not None}

    def events(self, kind: type[Any]) -> list[Any]:
        return [e for e in self.director.events if type(e) is kind]

    def chips(self) -> int:
        """Chips on every table plus those of players in transit (TOURN-11)."""
        return sum(t.total_chips() for t in self.tables.values()) + sum(s for _, s in self.director.in_transit())

    def check(self) -> None:
        """TOURN-11, counted from the tables, and the director's own books."""
        self.director.audit()
        assert self.chips() == self.director.expected_chips, (self.chips(), self.director.expected_chips)

    def moved(self) -> list[tuple[str, str, int, str, int]]:
        return [(e.entry_id, e.from_table, e.from_seat, e.to_table, e.to_seat) for e in self.events(ev.Moved)]


def passive(table: TournamentTable) -> Action:
    assert table.hand is not None
    legal = {option.kind: option for option in table.hand.legal_actions()}
    for kind in (ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN, ActionKind.DRAW):
        if kind in legal:
            return Action(kind, legal[kind].min if kind is ActionKind.BRING_IN else 0)
    raise AssertionError(legal)
