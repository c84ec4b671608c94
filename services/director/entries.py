"""The director's record of one entry, and of one table as the director sees it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True, eq=False)
class Entry:
    """One buy-in of one player: chips, seat and fate. A re-entry is a new Entry (TOURN-10)."""

    entry_id: str
    player_id: str
    number: int
    """Registration order over all entries (0 first): TOURN-6's order for an indivisible remainder."""
    stack: int = 0
    table: TableState | None = None
    seat: int = 0
    """The seat number at ``table``; 0 while in transit to it."""
    alive: bool = True
    away: bool = False
    auto_rebuy: bool = False
    """[decision] How a busted player rebuys in a pure director: a standing preference given at
    registration (as online rooms offer), applied when their hand ends, before the table's next deal."""
    rebuy_pending: bool = False
    add_on_taken: bool = False
    place: int | None = None
    prize: int | None = None


@dataclass(slots=True, eq=False)
class TableState:
    """A table as the director knows it: who sits where, and what it is doing."""

    table_id: str
    number: int
    seats: list[Entry | None]
    players: int = 0
    """Seated players plus those in transit to it: what breaking and balancing count
    (changed only through :class:`~.tables.TableIndex`)."""
    given: int = 0
    """Players it gave in balancing moves (TOURN-4's tie-break among the largest tables)."""
    dealt: int = 0
    """Number of the last hand it was told to deal."""
    running: bool = False
    breaking: bool = False
    indexed: bool = False
    level: int = -1
    """Index of the level its last hand was dealt in."""
    reported: bool = False
    """Whether the table reported a hand since it was opened (or rebuilt): the positions below are known."""
    big_blind_order: tuple[int, ...] = ()
    """Draw game: the seats in the order they post the big blind from the next hand (the last is the
    small blind's; those just before it, between the button and the small blind, would wait)."""
    opened: list[int] = field(default_factory=list)
    """Empty seat numbers, the one opened last at the end (TOURN-4's stud seat)."""
    arriving: list[tuple[Entry, str, int]] = field(default_factory=list)
    """Balancing moves waiting for its running hand to end: (entry, from table, from seat)."""
    queued: list[tuple[Entry, int, int, str]] = field(default_factory=list)
    """Chips (rebuys, add-ons) asked for while it was dealing or for a player in transit to it:
    (entry, chips, cost, reason)."""

    @property
    def seated(self) -> int:
        return self.players - len(self.arriving)

    def empty_seats(self) -> list[int]:
        return [k + 1 for k, entry in enumerate(self.seats) if entry is None]

    def take(self, entry: Entry, seat: int) -> None:
        """Seat ``entry`` in empty seat ``seat``."""
        assert self.seats[seat - 1] is None, (self.table_id, seat)
        self.seats[seat - 1] = entry
        self.opened.remove(seat)
        entry.table, entry.seat = self, seat

    def vacate(self, seat: int) -> Entry:
        """Empty seat ``seat``; returns who sat there."""
        entry = self.seats[seat - 1]
        assert entry is not None, (self.table_id, seat)
        self.seats[seat - 1] = None
        self.opened.append(seat)
        return entry
