"""A multi-node Ray on one machine for the cluster tests: ``ray.cluster_utils.Cluster`` with every
node's processes bound to 127.0.0.1, and this process connected to it (one per test module)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tablestorm.sim.cluster import connection

LOOPBACK = "127.0.0.1"


@contextmanager
def loopback_nodes(count: int = 3, *, replace_connected: bool = False) -> Iterator[Any]:
    """A head node and ``count - 1`` workers, one CPU each, on 127.0.0.1; yields the ``Cluster``.

    A Ray this process is already connected to is shut down first with ``replace_connected`` (a
    module whose single-node Ray is done with), otherwise the test is skipped."""
    ray = connection._ray()  # sets RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 before Ray is imported
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        if not replace_connected:
            pytest.skip("another Ray is connected in this process")
        ray.shutdown()
    nodes = Cluster(
        initialize_head=True,
        head_node_args={"node_ip_address": LOOPBACK, "num_cpus": 1, "include_dashboard": False},
    )
    try:
        for _ in range(count - 1):
            nodes.add_node(node_ip_address=LOOPBACK, num_cpus=1)
        nodes.wait_for_nodes(timeout=60)
        ray.init(address=nodes.address, log_to_driver=False, configure_logging=False)
        yield nodes
    finally:
        if ray.is_initialized():
            ray.shutdown()
        nodes.shutdown()
