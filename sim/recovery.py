"""Recovery from a lost table host: its tables rebuilt on the survivors from the ledger.

Every table's seats and stacks are in the registry's ledger, written before each deal (see
:mod:`services.table.ledger`), so a dead host's tables come back elsewhere with the same seat
tokens and the running hand voided with an exact refund: losing a host, or a whole node, loses no
chip. Bots find their table's new address through the registry and resume their streams. A lost
fleet is the run's own business (its seats are the run's): see :meth:`Deployment.start_fleet`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.table.ledger import RecoveryPlan

from .deployment import Deployment


@dataclass(frozen=True, slots=True)
class Recovery:
    """One dead host's tables rebuilt: when (seconds into the run), how many, hands voided."""

    host: str
    at_s: float
    tables: int
    voided: int

    def to_dict(self) -> dict[str, Any]:
        return {"host": self.host, "at_s": self.at_s, "tables": self.tables, "voided": self.voided}


def rebuild_tables(deployment: Deployment, dead: list[str], at_s: float, *, replace: bool = False) -> list[Recovery]:
    """Rebuild the tables of the ``dead`` hosts on the surviving hosts, round robin, or (with
    ``replace``) on as many new hosts started for them, as a platform restarts a crashed server:
    the survivors' load, and the run's capacity, stay what they were.

    Several hosts go at once when a node is lost, and a host chosen to rebuild on may turn out to be
    dead as well (on the same node, not yet noticed): its tables, those it was given included, are
    then rebuilt again on the others. Raises RuntimeError when no host is left.
    """
    ray = deployment.ray
    registry = deployment.registry
    recoveries: list[Recovery] = []
    pending = list(dead)
    while pending:
        tables: list[tuple[str, str]] = []
        for host_id in pending:
            deployment.remove_host(host_id)
            tables += [(host_id, t) for t in ray.get(registry.mark_dead.remote(host_id))]
        if replace:
            survivors = deployment.start_hosts(len(pending))
        elif not deployment.hosts:
            raise RuntimeError("every table host died: nothing left to rebuild the tables on")
        else:
            survivors = sorted(deployment.hosts)
        plans: dict[str, list[RecoveryPlan]] = {h: [] for h in survivors}
        origin: dict[str, list[str]] = {h: [] for h in survivors}
        for k, (host_id, table_id) in enumerate(tables):
            target = survivors[k % len(survivors)]
            ray.get(registry.move.remote(table_id, target))
            plans[target].append(ray.get(registry.plan.remote(table_id)))
            origin[target].append(host_id)
        refs = {h: deployment.hosts[h].restore_tables.remote(p) for h, p in plans.items() if p}
        voided_from = dict.fromkeys(pending, 0)
        pending = []
        for target, ref in refs.items():
            try:
                ray.get(ref)
            except ray.exceptions.RayActorError:
                pending.append(target)  # dead too: these tables move again with its own
                continue
            for plan, host_id in zip(plans[target], origin[target], strict=True):
                voided_from[host_id] += plan.hand_voided
        for host_id, voided in voided_from.items():
            moved = sum(1 for h, _ in tables if h == host_id)
            recoveries.append(Recovery(host_id, at_s, moved, voided))
    deployment.write_targets()
    return recoveries
