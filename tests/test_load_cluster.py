"""`tablestorm load` on a multi-node Ray: three nodes on this machine (``ray.cluster_utils.Cluster``),
all on 127.0.0.1, one of which is removed in the middle of a run.

Table hosts are placed with SPREAD, so they land on different nodes; removing a worker node kills
the hosts and fleets on it. The driver must notice, void the hands those hosts were running with an
exact refund, rebuild their tables on the surviving hosts from the ledger (which lives with the
registry on the driver's node), replace the lost fleets, and finish the run with every chip
accounted for. Slow: starting three nodes costs seconds.
"""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path
from typing import Any

import pytest
from support.loopback import connections_of, outside_loopback
from support.ray_nodes import LOOPBACK

from tablestorm.sim.distributions import Distribution
from tablestorm.sim.load.driver import LoadTest
from tablestorm.sim.load.scenario import from_mapping

pytestmark = pytest.mark.slow


def test_hosts_spread_and_a_node_lost_mid_run(three_nodes: Any, tmp_path: Path) -> None:
    import ray

    alive = [n for n in ray.nodes() if n["Alive"]]
    assert len(alive) == 3 and {n["NodeManagerAddress"] for n in alive} == {LOOPBACK}
    driver_node = ray.get_runtime_context().get_node_id()
    scenario = dataclasses.replace(
        from_mapping({
            "name": "cluster", "bots": 96, "hosts": 3, "fleets": 3, "duration_s": 16, "clock_seconds": 0.5,
            "seed": 3, "games": [{"game": "7stud"}, {"game": "7a5draw", "structure": "pot_limit"}],
        }),
        think=Distribution("uniform", 0.015, 0.0, 0.03),
    )
    seen: dict[str, Any] = {"removed": None, "online": [], "hands_after": 0, "outside": None}
    test: LoadTest

    def on_second(second: int, state: Any) -> None:
        if second == 3:
            seen["connections"] = connections_of()
            seen["outside"] = outside_loopback()
        if second >= 5 and seen["removed"] is None:
            # A worker node that holds a table host (never the driver's: the driver lives there),
            # taken away while one of its tables is mid-hand, so that there is a hand to void.
            hosts_by_node: dict[str, list[str]] = {}
            for actor, node in state.placements.items():
                if actor.startswith("host-"):
                    hosts_by_node.setdefault(node, []).append(actor)
            victim = next(
                n for n in sorted(three_nodes.worker_nodes, key=lambda n: n.node_id)
                if n.node_id in hosts_by_node and n.node_id != driver_node
            )
            running = ray.get([state.hosts[h].hands_running.remote() for h in hosts_by_node[victim.node_id]])
            if not sum(running) and second < 9:
                return
            seen["removed"] = victim.node_id
            seen["hosts_lost"] = sorted(hosts_by_node[victim.node_id])
            seen["fleets_lost"] = sorted(
                a for a, n in state.placements.items() if a.startswith("fleet-") and n == victim.node_id
            )
            seen["hands_at_removal"] = state.stats.hands
            three_nodes.remove_node(victim, allow_graceful=False)
        elif seen["removed"] is not None:
            seen["online"].append(state.bots_online)
            seen["hands_after"] = state.stats.hands - seen["hands_at_removal"]

    test = LoadTest(scenario, tmp_path, stream=io.StringIO(), on_second=on_second)
    result = test.run()
    summary = result.summary
    numbers = {k: summary.get(k) for k in (
        "bots", "duration_s", "hands", "by_game", "actions", "errors", "timeouts", "side_pots",
        "raise_caps", "hands_voided", "hands_voided_by_faults", "chips_start", "chips_end", "chips_conserved",
        "protocol_violations", "recoveries", "placements",
    )}
    numbers["p99_ms"] = summary["latency_ms"]["p99"]
    print(f"\ncluster: {json.dumps(numbers)}\nseen: {seen}")

    # Hosts on different nodes; the registry (and its ledger) on the driver's.
    placements = summary["placements"]
    host_nodes = {placements[f"host-{k}"] for k in range(scenario.hosts)}
    assert len(host_nodes) == 3, placements
    assert summary["registry_node"] == driver_node
    # Nothing of the cluster talked outside loopback.
    assert seen["connections"] > 0 and seen["outside"] == [], seen["outside"]
    # The lost node's hosts were rebuilt elsewhere: hands voided, refunded exactly.
    assert seen["removed"] is not None
    lost = {r["host"] for r in summary["recoveries"]}
    assert lost == set(seen["hosts_lost"]), (summary["recoveries"], seen)
    assert sum(r["tables"] for r in summary["recoveries"]) > 0
    assert summary["hands_voided_by_faults"] > 0
    assert summary["chips_conserved"] is True and summary["chips_start"] > 0, (
        summary["chips_start"], summary["chips_end"]
    )
    assert summary["protocol_violations"] == 0, summary.get("protocol_violation_samples")
    # The run completed: played on after the loss, every bot back (lost fleets replaced).
    assert summary["duration_s"] >= scenario.duration_s
    assert seen["hands_after"] > 0
    assert seen["online"] and seen["online"][-1] == scenario.bots, seen["online"]
    assert set(summary["errors"]) <= {"UNAVAILABLE"}, summary["errors"]
    assert result.files["report"].is_file()
