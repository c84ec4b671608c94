"""`tablestorm schedule` on a multi-node Ray: three nodes on this machine (``ray.cluster_utils.Cluster``),
all on 127.0.0.1. The (replication, event) tasks are spread over every node (``SPREAD``), and the day
they compute is the one a single process computes. Slow: starting three nodes costs seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from schedule_data import QUICK

from sim import cluster
from sim.schedule.replication import replicate
from sim.schedule.runner import run_schedule
from sim.schedule.spec import load_schedule

pytestmark = pytest.mark.slow

LOOPBACK = "127.0.0.1"


@pytest.fixture(scope="module")
def three_nodes() -> Iterator[Any]:
    """A head node and two workers (one CPU each), every process bound to 127.0.0.1."""
    ray = cluster._ray()  # sets RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 before Ray is imported
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        pytest.skip("another Ray is connected in this process")
    nodes = Cluster(
        initialize_head=True,
        head_node_args={"node_ip_address": LOOPBACK, "num_cpus": 1, "include_dashboard": False},
    )
    try:
        for _ in range(2):
            nodes.add_node(node_ip_address=LOOPBACK, num_cpus=1)
        nodes.wait_for_nodes(timeout=60)
        ray.init(address=nodes.address, log_to_driver=False, configure_logging=False)
        yield nodes
    finally:
        if ray.is_initialized():
            ray.shutdown()
        nodes.shutdown()


def test_the_tasks_spread_over_the_nodes(three_nodes: Any) -> None:
    import ray

    alive = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert len(alive) == 3
    quick = load_schedule(QUICK)
    run = run_schedule(quick, root_seed=3, replications=range(4), progress=False)
    assert run.cores == 3.0 and run.replications == (0, 1, 2, 3)
    assert set(run.nodes) == alive, run.nodes  # every node ran some of the 12 tasks
    assert sum(run.nodes.values()) == 4 * len(quick.events)
    alone = replicate(quick, 3, 2)
    for mine, theirs in zip(alone, [r for r in run.runs if r.replication == 2], strict=True):
        assert mine.outcomes == theirs.outcomes and np.array_equal(mine.load.counts, theirs.load.counts)
