"""The run's own table hosts: table service actors it starts on Ray, with the registry's ledger.

The default :class:`~tablestorm.sim.load.table_sites.TableSites` of a load run. The hosts are started and spread
by the :class:`~tablestorm.sim.cluster.deployment.Deployment`, the tables planned by the seat pool and dealt round
robin over the hosts; every table writes the registry's ledger, so a lost host (killed by the run's
chaos, or found dead) has its tables rebuilt on the others (:mod:`tablestorm.sim.load.recovery`), bots find them
through the registry, and the chips are counted by the ledger. At the end the hosts close their
tables, drain and stand up whoever is still seated, so every seat ends cashed out or refunded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tablestorm.sim.cluster.deployment import CALL_TIMEOUT, Deployment, within
from tablestorm.sim.load.recovery import CHAOS, LOST, rebuild_tables
from tablestorm.sim.load.scenario import Scenario
from tablestorm.sim.load.seat_pool import SeatPool
from tablestorm.sim.load.summary import merge_buckets
from tablestorm.sim.load.table_sites import ChipTally, Outages, SiteEnd, SiteFacts, TableChips

__all__ = ["OwnHosts"]


class OwnHosts:
    """``count`` table host actors of ``deployment`` (which must have its registry) and their tables;
    ``replace``: a dead host's tables are rebuilt on a host started for them (see
    :func:`~tablestorm.sim.load.recovery.rebuild_tables`)."""

    def __init__(self, deployment: Deployment, count: int, *, replace: bool = False) -> None:
        assert deployment.registry is not None, "the hosts write their ledger to the run's registry"
        self._deployment = deployment
        self._count = count
        self._replace = replace
        self._endpoints: dict[str, str] = {}
        """Every host ever started -> its gRPC endpoint."""
        self._lost_at: dict[str, float] = {}
        """Hosts lost -> when, in seconds since the load began."""

    def open(self, scenario: Scenario, pool: SeatPool) -> None:
        deployment = self._deployment
        hosts = deployment.start_hosts(self._count)
        self._endpoints.update({host: deployment.info[host].endpoint for host in hosts})
        plan = pool.plan_tables(scenario, hosts)
        within(deployment.ray, [deployment.hosts[h].create_tables.remote(specs) for h, specs in plan.items()],
               CALL_TIMEOUT, f"the table hosts opening {sum(map(len, plan.values()))} tables")

    def where(self, table_id: str) -> str | None:
        deployment = self._deployment
        endpoint: str | None = within(deployment.ray, deployment.registry.where.remote(table_id), CALL_TIMEOUT,
                                      "the run's registry")
        return endpoint

    def seat_tokens(self, seats: Sequence[tuple[str, int, str]]) -> list[str | None]:
        """The tokens the ledger holds (a player who never sat down has none)."""
        deployment = self._deployment
        tokens: list[str | None] = within(
            deployment.ray,
            [deployment.registry.seat_token.remote(table, seat, player) for table, seat, player in seats],
            CALL_TIMEOUT, "the run's registry",
        )
        return tokens

    def killable(self) -> Mapping[str, str]:
        return {host: self._endpoints[host] for host in self._deployment.hosts}

    def kill(self, server: str, at_s: float) -> Outages:
        deployment = self._deployment
        deployment.ray.kill(deployment.hosts[server], no_restart=True)
        return self._rebuild([server], at_s, CHAOS)

    def watch(self, at_s: float, chips: Mapping[str, TableChips]) -> Outages:
        """Ping every host; the dead ones' tables are rebuilt on the others (``chips``: the ledger
        knows better)."""
        dead = self._deployment.check_hosts()
        return self._rebuild(dead, at_s, LOST) if dead else Outages()

    def _rebuild(self, dead: list[str], at_s: float, cause: str) -> Outages:
        deployment = self._deployment
        recoveries = tuple(rebuild_tables(deployment, dead, at_s, cause, replace=self._replace))
        self._endpoints.update({host: deployment.info[host].endpoint for host in deployment.hosts})
        for recovery in recoveries:
            self._lost_at.setdefault(recovery.host, at_s)
        return Outages(recoveries=recoveries)

    def stop_dealing(self) -> None:
        deployment = self._deployment
        deployment.broadcast(deployment.hosts, "close_tables")

    def finish(self) -> SiteEnd:
        """Drain the hosts (a hand still running is voided with an exact refund), then have them
        stand up whoever is still seated: every seat ends cashed out or refunded."""
        deployment = self._deployment
        drained = deployment.broadcast(deployment.hosts, "drain", 0.0)
        cashed = deployment.broadcast(deployment.hosts, "cash_out_all")
        return SiteEnd(
            voided=sum(voided for _, voided in drained),
            seats_stood_up=sum(seats for seats, _ in cashed),
            chips_paid=sum(paid for _, paid in cashed),
        )

    def chips(self, bots: Mapping[str, TableChips]) -> ChipTally:
        """By the ledger, across every crash and rebuild (``bots``: a cross-check kept elsewhere)."""
        count = within(self._deployment.ray, self._deployment.registry.chips.remote(), CALL_TIMEOUT,
                       "the run's registry")
        return ChipTally(count.bought, count.on_tables + count.cashed_out, count.on_tables)

    def processing(self) -> list[tuple[float, float]]:
        deployment = self._deployment
        return merge_buckets(deployment.broadcast(deployment.hosts, "processing_histogram"))

    def describe(self) -> SiteFacts:
        deployment = self._deployment
        servers: list[dict[str, Any]] = [
            {"server": endpoint, "host": host, "lost_at_s": self._lost_at.get(host)}
            for host, endpoint in self._endpoints.items()
        ]
        return SiteFacts(tuple(servers), self._count, len({deployment.info[h].node_id for h in deployment.hosts}))
