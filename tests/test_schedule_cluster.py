"""`tablestorm schedule` on a multi-node Ray: three nodes on this machine (``ray.cluster_utils.Cluster``),
all on 127.0.0.1. The (replication, event) tasks are spread over every node (``SPREAD``), and the day
they compute is the one a single process computes. Slow: starting three nodes costs seconds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from support.schedules import QUICK

from tablestorm.sim.schedule.replication import replicate
from tablestorm.sim.schedule.runner import run_schedule
from tablestorm.sim.schedule.spec import load_schedule

pytestmark = pytest.mark.slow


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
