"""The cash seats of a load run: the tables opened for it, and which bot plays which seat.

Enough tables are opened for the scenario's peak, split by the game mix's weights. Bots take free
seats in order, a table at a time, so the order of the seats is the order in which games fill: the
tables are interleaved by weight (the game with the fewest seats queued per unit of weight comes
next), so that at any bot count, during a ramp or as players arrive, the games are played in the
mix's proportions, not one game after another. Tables found on servers the run is given
(``--target --tables existing``) are adopted with their free seats instead.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from tablestorm.services.table.host import TableSpec
from tablestorm.sim.load.scenario import Scenario


@dataclass(frozen=True, slots=True)
class Seat:
    table_id: str
    seat: int


@dataclass(frozen=True, slots=True)
class Occupant:
    """Who plays a seat: the bot's fleet and player id."""

    fleet_id: str
    player_id: str


class SeatPool:
    """Free seats in fill order, and the bot at every seat handed out and not given back."""

    def __init__(self) -> None:
        self.free: deque[Seat] = deque()
        self.seated: dict[tuple[str, int], Occupant] = {}
        self.games: dict[str, str] = {}
        """table -> game."""

    def plan_tables(self, scenario: Scenario, hosts: list[str], prefix: str = "") -> dict[str, list[TableSpec]]:
        """The run's tables, in fill order, dealt round robin over ``hosts``; their seats become free.
        Table ids are ``{prefix}{game}-{number}``."""
        games = [g for g in scenario.games if g.weight > 0]
        total_weight = sum(g.weight for g in games)
        queue = []
        for index, spec in enumerate(games):
            options = spec.table_options(scenario.clock_seconds)
            tables = max(1, math.ceil(scenario.peak_bots * spec.weight / total_weight / options.seats))
            queue += [(k * options.seats / spec.weight, index, k, spec.game, options) for k in range(tables)]
        by_host: dict[str, list[TableSpec]] = {h: [] for h in hosts}
        for number, (_, _, _, game, options) in enumerate(sorted(queue, key=lambda t: t[:3])):
            table_id = f"{prefix}{game}-{number}"
            seed = None if scenario.seed is None else scenario.seed + number
            by_host[hosts[number % len(hosts)]].append(TableSpec(table_id, options, seed))
            self.free.extend(Seat(table_id, s) for s in range(1, options.seats + 1))
            self.games[table_id] = game
        return by_host

    def adopt(self, table_id: str, game: str, seats: Iterable[int]) -> None:
        """A table found open elsewhere joins the run: its free ``seats`` go to the back of the queue."""
        self.games[table_id] = game
        self.free.extend(Seat(table_id, s) for s in seats)

    def drop_tables(self, table_ids: Iterable[str]) -> list[tuple[Seat, Occupant]]:
        """These tables are lost with their server: none of their seats is handed out again.
        Returns the seats bots held there."""
        lost = set(table_ids)
        self.free = deque(seat for seat in self.free if seat.table_id not in lost)
        held = [(Seat(t, n), occupant) for (t, n), occupant in self.seated.items() if t in lost]
        for seat, _ in held:
            del self.seated[(seat.table_id, seat.seat)]
        return held

    def take(self, count: int) -> list[Seat]:
        """Up to ``count`` free seats, in fill order."""
        return [self.free.popleft() for _ in range(min(count, len(self.free)))]

    def give_back(self, seat: Seat) -> None:
        """A seat taken and not played after all goes to the back of the queue."""
        self.free.append(seat)

    def occupy(self, seat: Seat, occupant: Occupant) -> None:
        self.seated[(seat.table_id, seat.seat)] = occupant

    def reassign(self, seat: Seat, fleet_id: str) -> None:
        """The seat's player is played by another fleet now (its fleet died)."""
        key = (seat.table_id, seat.seat)
        self.seated[key] = Occupant(fleet_id, self.seated[key].player_id)

    def vacate(self, seat: Seat) -> None:
        """The seat's player left (or never sat down): it is free again."""
        self.seated.pop((seat.table_id, seat.seat), None)
        self.free.append(seat)

    def lose(self, seat: Seat) -> None:
        """The seat's player stays seated at its server with nobody to play it (its fleet was lost
        and no ledger holds its token): the seat is never handed out again."""
        self.seated.pop((seat.table_id, seat.seat), None)

    def freed(self, fleet_id: str, seats: Iterable[tuple[str, int]]) -> None:
        """``fleet_id``'s bots stood up from ``seats``: those it still held are free again."""
        for table_id, number in seats:
            occupant = self.seated.get((table_id, number))
            if occupant is not None and occupant.fleet_id == fleet_id:
                self.vacate(Seat(table_id, number))

    def held_by(self, fleet_id: str) -> list[tuple[Seat, Occupant]]:
        """Every seat ``fleet_id``'s bots play."""
        return [
            (Seat(table_id, number), occupant)
            for (table_id, number), occupant in self.seated.items()
            if occupant.fleet_id == fleet_id
        ]
