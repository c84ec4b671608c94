"""A run's faults on its time axis: the chaos it fired, each recovery, each server lost, each restart
of the registry, and how long the bots took to be back.

What the report draws as markers on its charts and lists as a table, and summary.json carries as
``chaos_events``, ``recoveries``, ``fleet_recoveries``, ``servers_lost`` and ``registry_restarts``.
The seconds until the bots were back are measured, not estimated: a host's recovery counts the
bots that held seats at its tables when they were rebuilt, and each is back when its first answer
from the table's new address reaches it (its :class:`~tablestorm.sim.bots.client.Return`); a
fleet's, when every seat it held is played again by the replacement's bots (their Welcome); the
registry's, when Ray's new process first answers. Times are seconds since the load began.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tablestorm.sim.load.recovery import Recovery

if TYPE_CHECKING:
    from tablestorm.sim.bots.client import Return
    from tablestorm.sim.load.table_sites import ServerLoss

__all__ = ["Timeline"]


@dataclass(slots=True)
class _Rebuilt:
    """A host recovery and its bots: those expected back, and when each was."""

    recovery: Recovery
    expected: frozenset[tuple[str, int]]
    back: dict[tuple[str, int], float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        recovery = self.recovery
        everyone = len(self.back) == len(self.expected)
        return {
            "host": recovery.host,
            "server": recovery.endpoint,
            "node_id": recovery.node_id,
            "node_address": recovery.node_address,
            "at_s": recovery.at_s,
            "cause": recovery.cause,
            "tables": len(recovery.tables),
            "voided": recovery.voided,
            "chips_refunded": recovery.chips_refunded,
            "bots": len(self.expected),
            "bots_back": len(self.back),
            "back_s": round(max(self.back.values(), default=recovery.at_s) - recovery.at_s, 2) if everyone else None,
        }


class Timeline:
    """The faults of one run, in the order they happened."""

    def __init__(self) -> None:
        self._chaos: list[dict[str, Any]] = []
        self._rebuilt: list[_Rebuilt] = []
        self._fleets: list[dict[str, Any]] = []
        self._lost: list[dict[str, Any]] = []
        self._registry: list[dict[str, Any]] = []

    def chaos(self, at_s: float, action: str, victim: str) -> None:
        """The run's chaos fired ``action`` (``kill-host``, ``kill-fleet``, ``kill-registry``) at ``victim``."""
        self._chaos.append({"at_s": at_s, "action": action, "victim": victim})

    def host_recovered(self, recovery: Recovery, seats: Iterable[tuple[str, int]]) -> None:
        """``recovery`` rebuilt a host's tables; ``seats``: (table, seat) the bots held there."""
        self._rebuilt.append(_Rebuilt(recovery, frozenset(seats)))

    def returned(self, returns: Iterable[Return]) -> None:
        """Bots back at moved tables: each counts for the latest recovery that moved its table."""
        for back in returns:
            key = (back.table_id, back.seat)
            for rebuilt in reversed(self._rebuilt):
                if key in rebuilt.expected and rebuilt.recovery.at_s <= back.at_s:
                    rebuilt.back.setdefault(key, back.at_s)
                    break

    def fleet_recovered(
        self, fleet: str, at_s: float, cause: str, seats: int, back_s: float | None, node: tuple[str, str]
    ) -> None:
        """A lost fleet's ``seats`` were handed to a new fleet, all playing ``back_s`` later (None: not
        all); ``node``: the id and the address of the node the lost fleet ran on."""
        self._fleets.append({"fleet": fleet, "node_id": node[0], "node_address": node[1], "at_s": at_s,
                             "cause": cause, "seats": seats, "back_s": None if back_s is None else round(back_s, 2)})

    def server_lost(self, loss: ServerLoss, seats: Iterable[tuple[str, int]]) -> None:
        """A given server stopped answering; ``seats``: (table, seat) the bots held on it."""
        self._lost.append({
            "server": loss.server,
            "at_s": loss.at_s,
            "tables": list(loss.tables),
            "chips_last_seen": loss.chips_last_seen,
            "seats": [f"{table}#{seat}" for table, seat in sorted(seats)],
        })

    def registry_restarted(self, at_s: float, cause: str, restart_s: float, journal_bytes: int) -> None:
        """The registry died and Ray's new one answered ``restart_s`` later, from its journal of
        ``journal_bytes`` bytes (its size then)."""
        self._registry.append({"at_s": at_s, "cause": cause, "restart_s": round(restart_s, 3),
                               "journal_bytes": journal_bytes})

    def to_summary(self) -> dict[str, list[dict[str, Any]]]:
        return {
            "chaos_events": list(self._chaos),
            "recoveries": [rebuilt.to_dict() for rebuilt in self._rebuilt],
            "fleet_recoveries": list(self._fleets),
            "servers_lost": list(self._lost),
            "registry_restarts": list(self._registry),
        }

