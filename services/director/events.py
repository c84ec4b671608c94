"""The tournament's own record: an append-only list of what happened, for the service to stream.

Each event carries ``at``, the tournament time in seconds (the ``now`` of the input that caused
it). Entries are named by ``entry_id`` (a re-entry is a new entry of the same ``player_id``).
A place or prize that is not final yet (an elimination while late registration is open, or a
prize before the pool is final) is ``None`` in :class:`Eliminated`; a :class:`Placed` event gives
it once known.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablestorm.services.engine import Stakes


@dataclass(frozen=True, slots=True)
class Registered:
    at: float
    player_id: str
    entry_id: str
    reentry: bool


@dataclass(frozen=True, slots=True)
class Unregistered:
    at: float
    player_id: str


@dataclass(frozen=True, slots=True)
class Started:
    at: float
    entries: int
    tables: int


@dataclass(frozen=True, slots=True)
class Seated:
    """A seat drawn at random (TOURN-2): the start, a late entry or a re-entry."""

    at: float
    entry_id: str
    table_id: str
    seat: int
    stack: int
    reason: str
    """``"start"``, ``"late"`` or ``"reentry"``."""


@dataclass(frozen=True, slots=True)
class Moved:
    """A player taken from one table to another: a broken table (drawn seat, TOURN-3) or a
    balancing move (the seat TOURN-4 names)."""

    at: float
    entry_id: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int
    reason: str
    """``"break"`` or ``"balance"``."""


@dataclass(frozen=True, slots=True)
class TableBroken:
    at: float
    table_id: str


@dataclass(frozen=True, slots=True)
class TableOpened:
    """A table opened after the start (late entries with no seat left)."""

    at: float
    table_id: str


@dataclass(frozen=True, slots=True)
class LevelUp:
    """A play level begins (TOURN-1): hands dealt from now on use its stakes."""

    at: float
    level: int
    """Index in the structure's levels."""
    play_level: int
    """1-based, breaks not counted."""
    stakes: Stakes


@dataclass(frozen=True, slots=True)
class BreakStarted:
    at: float
    level: int
    duration_s: float


@dataclass(frozen=True, slots=True)
class LateRegistrationClosed:
    at: float
    entries: int


@dataclass(frozen=True, slots=True)
class AddOnWindow:
    """The add-on window opens (or closes) (TOURN-10)."""

    at: float
    open: bool


@dataclass(frozen=True, slots=True)
class HandForHand:
    """TOURN-5: hand-for-hand play begins (one elimination from the money) or ends."""

    at: float
    on: bool


@dataclass(frozen=True, slots=True)
class Eliminated:
    at: float
    entry_id: str
    player_id: str
    table_id: str
    place: int | None
    prize: int | None


@dataclass(frozen=True, slots=True)
class Placed:
    """The final place and prize of an entry whose :class:`Eliminated` event could not give them."""

    at: float
    entry_id: str
    place: int
    prize: int


@dataclass(frozen=True, slots=True)
class Rebuy:
    at: float
    entry_id: str
    chips: int
    cost: int


@dataclass(frozen=True, slots=True)
class AddOn:
    at: float
    entry_id: str
    chips: int
    cost: int


@dataclass(frozen=True, slots=True)
class Paused:
    at: float


@dataclass(frozen=True, slots=True)
class Resumed:
    at: float


@dataclass(frozen=True, slots=True)
class HandVoided:
    """A table was lost mid-hand: the hand is void and every stack is back to its start (TOURN-11)."""

    at: float
    table_id: str
    hand_number: int


@dataclass(frozen=True, slots=True)
class Finished:
    at: float
    winner_entry_id: str
    winner_player_id: str
    prize: int


TournamentEvent = (
    Registered | Unregistered | Started | Seated | Moved | TableBroken | TableOpened | LevelUp | BreakStarted
    | LateRegistrationClosed | AddOnWindow | HandForHand | Eliminated | Placed | Rebuy | AddOn | Paused
    | Resumed | HandVoided | Finished
)
