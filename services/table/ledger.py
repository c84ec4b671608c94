"""A record of every table's seats and stacks kept outside the server, so a crash loses no chip.

A table service may be given a :class:`TableLedger`. It then writes a :class:`LedgerEntry` when a
table is created, when its seats change (a sit-down's buy-in, a stand-up's cash-out, a rebuy), when
a hand is about to be dealt (the stacks every player had at the start of that hand) and when a hand
ends. Seat changes and hand starts are *awaited* before they take effect, so whatever moment the
server dies at, the ledger's last entry for a table is a consistent set of stacks: the start of
the hand that was running (which voiding refunds exactly) or the state between hands. A
replacement server rebuilds the table from that entry with the same seat tokens, so players only
reconnect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    player_id: str
    stack: int
    token: str
    sitting_out: bool


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    table_id: str
    kind: str
    """``"created"``, ``"seats"``, ``"hand_started"``, ``"hand_ended"`` or ``"closed"``."""
    hand_number: int
    seats: tuple[SeatRecord, ...]
    options: bytes = b""
    """The table's ``TableOptions`` message, serialized (``"created"`` entries only)."""
    seed: int | None = None
    bought: int = 0
    """Chips that ever came onto this table: buy-ins and rebuys (carried across rebuilds)."""
    cashed_out: int = 0
    """Chips that ever left it with players standing up; ``bought - cashed_out`` is on the table."""


@dataclass(frozen=True, slots=True)
class RecoveryPlan:
    """How to rebuild one table on another server: its options, seed, seats and stacks."""

    options: bytes
    """The ``"created"`` entry's serialized ``TableOptions``."""
    seed: int | None
    last: LedgerEntry
    """The table's last consistent entry: the seats, stacks and tokens to restore."""
    hand_voided: bool
    """The last entry was a hand start: that hand was running and is refunded by these stacks."""
    incarnation: int = 0
    """How many times the table has been rebuilt, this time included (0: never moved)."""


class TableLedger(Protocol):
    async def record(self, entry: LedgerEntry) -> None:
        """Store ``entry``; return once it is durable outside this server."""
        ...

    def note(self, entry: LedgerEntry) -> None:
        """Store ``entry`` without waiting: for entries whose loss only makes recovery older."""
        ...
