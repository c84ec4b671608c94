"""Tables by size, kept sorted as they change, so that no step of the director scans every table.

Breaking (TOURN-3) wants the tables with the fewest players, balancing (TOURN-4) the largest
(fewest players given, then lowest number) and the smallest (lowest number), and a seat draw
(TOURN-2) a table with an empty place: each is a lookup at one end of a sorted list, updated in
O(log tables) when a table's player count or its count of players given changes. Only tables
in play belong to the index: a table marked for breaking neither gives nor receives.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from sortedcontainers import SortedList

from tablestorm.services.director.entries import TableState


class TableIndex:
    """The tables in play, by player count."""

    __slots__ = ("_by_number", "_givers", "_receivers", "room", "seats")

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self._givers: SortedList[tuple[int, int, int]] = SortedList()
        """(-players, given, number): the first is TOURN-4's giving table."""
        self._receivers: SortedList[tuple[int, int]] = SortedList()
        """(players, number): the first is TOURN-4's receiving table; a prefix has empty places."""
        self._by_number: dict[int, TableState] = {}
        self.room = 0
        """Empty places over the tables in play (seats less players, in transit included)."""

    def __len__(self) -> int:
        return len(self._by_number)

    def __iter__(self) -> Iterator[TableState]:
        return iter(self._by_number.values())

    def add(self, table: TableState) -> None:
        assert not table.indexed, table.table_id
        table.indexed = True
        self._by_number[table.number] = table
        self._insert(table)

    def discard(self, table: TableState) -> None:
        if table.indexed:
            table.indexed = False
            del self._by_number[table.number]
            self._remove(table)

    def _insert(self, table: TableState) -> None:
        self._givers.add((-table.players, table.given, table.number))
        self._receivers.add((table.players, table.number))
        self.room += self.seats - table.players

    def _remove(self, table: TableState) -> None:
        self._givers.remove((-table.players, table.given, table.number))
        self._receivers.remove((table.players, table.number))
        self.room -= self.seats - table.players

    def resize(self, table: TableState, delta: int) -> None:
        """``delta`` players joined (or, negative, left) ``table``, indexed or not."""
        if not delta:
            return
        if table.indexed:
            self._remove(table)
        table.players += delta
        assert 0 <= table.players <= self.seats, (table.table_id, table.players)
        if table.indexed:
            self._insert(table)

    def gave(self, table: TableState) -> None:
        """``table`` gave a player to balancing."""
        self._remove(table)
        table.given += 1
        self._insert(table)

    def largest(self) -> TableState:
        """TOURN-4's giving table: the most players, then the fewest given, then the lowest number."""
        return self._by_number[self._givers[0][2]]

    def smallest(self) -> TableState:
        """TOURN-4's receiving table: the fewest players, then the lowest number."""
        return self._by_number[self._receivers[0][1]]

    def draw_fewest(self, rng: random.Random) -> TableState:
        """One of the tables with the fewest players, at random (TOURN-3's table to break)."""
        fewest = self._receivers[0][0]
        count = self._receivers.bisect_left((fewest + 1, -1))
        return self._by_number[self._receivers[rng.randrange(count)][1]]

    def draw_with_room(self, rng: random.Random) -> TableState | None:
        """A table with an empty place, each equally likely (TOURN-3's "table, then seat"); None if full."""
        count = self._receivers.bisect_left((self.seats, -1))
        if not count:
            return None
        return self._by_number[self._receivers[rng.randrange(count)][1]]
