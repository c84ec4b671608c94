"""Recovery from a lost table host: its tables rebuilt on the survivors from the ledger.

Every table's seats and stacks are in the registry's ledger, written before each deal (see
:mod:`tablestorm.services.table.ledger`), so a dead host's tables come back elsewhere with the same seat
tokens and the running hand voided with an exact refund: losing a host, or a whole node, loses no
chip. Bots find their table's new address through the registry and resume their streams. A lost
fleet is the run's own business (its seats are the run's): see :meth:`Deployment.start_fleet`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tablestorm.services.table.ledger import RecoveryPlan
from tablestorm.sim.cluster.deployment import ActorInfo, Deployment

CHAOS: Final = "chaos"
"""A host lost because the run's chaos killed it."""
LOST: Final = "lost"
"""A host found dead (its node lost, its process gone): nobody planned it."""


@dataclass(frozen=True, slots=True)
class Recovery:
    """One dead host's tables rebuilt: when (seconds into the run) and why (:data:`CHAOS` or
    :data:`LOST`), the tables moved, and those whose running hand was voided (one hand each) with
    the chips that gave back."""

    host: str
    endpoint: str
    node_id: str
    """The Ray node the host ran on."""
    node_address: str
    """That node's address (its IP)."""
    at_s: float
    cause: str
    tables: tuple[str, ...]
    voided_tables: tuple[str, ...]
    chips_refunded: int
    """The stacks the voided hands' players were dealt in with, which they got back: a voided
    hand refunds every player to its stack at the deal (the ledger's ``hand_started`` entry)."""

    @property
    def voided(self) -> int:
        return len(self.voided_tables)


def rebuild_tables(
    deployment: Deployment, dead: list[str], at_s: float, cause: str, *, replace: bool = False
) -> list[Recovery]:
    """Rebuild the tables of the ``dead`` hosts on the surviving hosts, round robin, or (with
    ``replace``) on as many new hosts started for them, as a platform restarts a crashed server:
    the survivors' load, and the run's capacity, stay what they were.

    Several hosts go at once when a node is lost, and a host chosen to rebuild on may turn out to be
    dead as well (on the same node, not yet noticed): its tables, those it was given included, are
    then rebuilt again on the others (its loss is :data:`LOST`, whatever ``cause`` the first had).
    Raises RuntimeError when no host is left.
    """
    ray = deployment.ray
    registry = deployment.registry
    recoveries: list[Recovery] = []
    pending = list(dead)
    lost: dict[str, ActorInfo] = {}
    while pending:
        tables: list[tuple[str, str]] = []
        for host_id in pending:
            lost.setdefault(host_id, deployment.info[host_id])
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
        voided_from: dict[str, list[RecoveryPlan]] = {host_id: [] for host_id in pending}
        pending = []
        for target, ref in refs.items():
            try:
                ray.get(ref)
            except ray.exceptions.RayActorError:
                pending.append(target)  # dead too: these tables move again with its own
                continue
            for plan, host_id in zip(plans[target], origin[target], strict=True):
                if plan.hand_voided:
                    voided_from[host_id].append(plan)
        for host_id, voided in voided_from.items():
            recoveries.append(Recovery(
                host=host_id,
                endpoint=lost[host_id].endpoint,
                node_id=lost[host_id].node_id,
                node_address=deployment.node_address(lost[host_id].node_id),
                at_s=at_s,
                cause=cause,
                tables=tuple(t for h, t in tables if h == host_id),
                voided_tables=tuple(plan.last.table_id for plan in voided),
                chips_refunded=sum(seat.stack for plan in voided for seat in plan.last.seats if not seat.sitting_out),
            ))
        cause = LOST
    deployment.write_targets()
    return recoveries
