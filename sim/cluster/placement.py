"""Where a run's actors go: every table host and bot fleet on its own node, spread evenly.

Ray's own SPREAD is best effort and, for actors that reserve no CPU as these, can put two hosts on
one node of three; so can a soft node affinity. Each actor is therefore pinned (hard node affinity)
to the live node that runs the fewest of the run's actors so far, counted here, so the spread is
exact. A start that fails on a node that was dying is retried elsewhere (``avoid``): Ray may believe
a lost node alive for seconds.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any


class Placement:
    """The node of every actor a run started (dead ones included) and the choice of the next."""

    def __init__(self, ray: Any) -> None:
        self._ray = ray
        self.nodes: dict[str, str] = {}
        """Every host and fleet ever started -> the Ray node it ran on."""
        self._placing: list[str] = []
        """Nodes chosen for actors being started now (not in ``nodes`` yet)."""

    def strategy(self, running: Iterable[str], avoid: Collection[str] = ()) -> Any:
        """A scheduling strategy for the next actor: the live node offering CPUs (a head node
        started with no CPUs for workloads offers none) that runs fewest of ``running`` and of the
        actors being placed now, ties in node order, never one in ``avoid``. Call :meth:`placed`
        or :meth:`abandoned` once the actor has started or failed to."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        alive = [n for n in self._ray.nodes() if n.get("Alive") and n["NodeID"] not in avoid]
        working = [n for n in alive if n.get("Resources", {}).get("CPU", 0) > 0] or alive
        if not working:
            return "SPREAD"
        load = [self.nodes[actor] for actor in running if actor in self.nodes] + self._placing
        node = min(sorted(n["NodeID"] for n in working), key=load.count)
        self._placing.append(node)
        return NodeAffinitySchedulingStrategy(node, soft=False)

    def choosing(self) -> frozenset[str]:
        """The nodes chosen since the last :meth:`placed` or :meth:`abandoned`."""
        return frozenset(self._placing)

    def placed(self, nodes: dict[str, str]) -> None:
        """The actors being placed started: ``{actor id: node id}``."""
        self._placing.clear()
        self.nodes.update(nodes)

    def abandoned(self) -> None:
        """The actors being placed did not start."""
        self._placing.clear()
