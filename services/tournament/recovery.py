"""A restarted tournament server's tables: the director rebuilt from the journal, set against the
copies the table servers kept, decides what becomes of each. Pure: the live driver lists the copies
and carries the verdicts out (:meth:`~.live.LiveTournament.recover`).

While the tournament server was down its tables dealt nothing new (a table deals only when told)
but finished the hands they were dealing; the table service keeps the last result and answers a
DealHand for that hand again with it. Each of the director's tables is then, by its copy:

* ADOPT: between hands as the director holds it (same hand, same players with the same stacks);
* COLLECT: it dealt the hand the director is waiting on: ask for its result again (it comes when
  the hand ends, or at once if it ended during the outage);
* DEAL: the director dealt a hand whose DealHand never reached the table (the server died while
  carrying out that input's commands), and the table is as the director holds it: deal it now;
* REBUILD: no copy, or none as the director holds it (a command of the last input went missing):
  the director's ``table_lost`` voids its hand, if any, and opens it again with the stacks it holds.

Any other copy is stale, and closed. Chips are conserved either way (TOURN-11).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from tablestorm.services.director.director import TableSeating
from tablestorm.services.tournament.remote import TableCopy

__all__ = ["Found", "Reconciled", "Verdict", "reconcile"]


class Verdict(enum.Enum):
    ADOPT = "adopt"
    COLLECT = "collect"
    DEAL = "deal"
    REBUILD = "rebuild"


@dataclass(frozen=True, slots=True)
class Found:
    """A copy of a table on one server."""

    endpoint: str
    copy: TableCopy


@dataclass(frozen=True, slots=True)
class Reconciled:
    verdict: Verdict
    kept: Found | None
    """The copy that is the table from now on (None: REBUILD)."""
    stale: tuple[Found, ...]
    """The other copies, to close."""


def _verdict(table: TableSeating, copy: TableCopy) -> Verdict | None:
    """What ``copy`` can be of ``table`` (None: nothing, it is stale)."""
    if copy.closing:
        return None
    same = copy.seats == tuple((s.seat, s.entry_id, s.stack) for s in table.seats)
    if table.dealing and copy.hand_number == table.hand_number:
        return Verdict.COLLECT
    between = not copy.hand_running and same
    if table.dealing and copy.hand_number == table.hand_number - 1 and between:
        return Verdict.DEAL
    if not table.dealing and copy.hand_number == table.hand_number and between:
        return Verdict.ADOPT
    return None


def reconcile(table: TableSeating, copies: Sequence[Found]) -> Reconciled:
    """The verdict for ``table`` given its ``copies`` on the servers up (in the servers' order)."""
    for found in copies:
        verdict = _verdict(table, found.copy)
        if verdict is not None:
            return Reconciled(verdict, found, tuple(c for c in copies if c is not found))
    return Reconciled(Verdict.REBUILD, None, tuple(copies))
