"""What the director tells the tables to do: the commands a driver carries out, in order.

The director never calls a table: every input returns a list of these, and a driver (the
accelerated one in ``tablestorm.sim.tournament``, or the live one over gRPC) applies them one after the
other. A table deals only when it receives :class:`DealHand`, so every hold of the director
(balancing, hand-for-hand, breaks, pauses) is simply a deal it has not issued.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablestorm.services.engine import Stakes, TableOptions


@dataclass(frozen=True, slots=True)
class OpenTable:
    table_id: str
    options: TableOptions
    hand_number: int = 0
    """Hands this table id already dealt: a table rebuilt after a fault numbers on from there."""


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    """Seat an entry with the chips it carries (between hands, or into an empty seat mid-hand)."""

    table_id: str
    seat: int
    entry_id: str
    """The id the table knows the player by: one per entry, so a re-entry is a new one."""
    player_id: str
    stack: int


@dataclass(frozen=True, slots=True)
class RemovePlayer:
    """Take an entry off its table (moved, table broken, or eliminated with no chips left)."""

    table_id: str
    seat: int
    entry_id: str


@dataclass(frozen=True, slots=True)
class AddChips:
    """A rebuy or an add-on (TOURN-10), given between the player's hands."""

    table_id: str
    seat: int
    entry_id: str
    chips: int
    reason: str
    """``"rebuy"`` or ``"add_on"``."""


@dataclass(frozen=True, slots=True)
class SetAway:
    """TOURN-7: mark a player away (dealt in, folded on their turns) or back."""

    table_id: str
    seat: int
    entry_id: str
    away: bool


@dataclass(frozen=True, slots=True)
class DealHand:
    """Deal hand ``hand_number`` of the table with the stakes of the level in force (TOURN-1)."""

    table_id: str
    hand_number: int
    stakes: Stakes


@dataclass(frozen=True, slots=True)
class CloseTable:
    table_id: str


@dataclass(frozen=True, slots=True)
class TournamentFinished:
    winner_entry_id: str
    winner_player_id: str


Command = OpenTable | SeatPlayer | RemovePlayer | AddChips | SetAway | DealHand | CloseTable | TournamentFinished
