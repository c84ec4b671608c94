"""Connect to a Ray cluster, or start a local one that stays on loopback.

A local Ray started without care binds its own processes (GCS, raylets, object manager) to the
machine's external address; `tablestorm load` must only ever talk to 127.0.0.1 when it starts
Ray itself, so the node IP is pinned to loopback and ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` is set
before Ray is imported. ``--address auto|HOST:PORT`` joins an existing cluster instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True, slots=True)
class ClusterInfo:
    started_here: bool
    """True when this process started the local Ray and must shut it down."""
    nodes: int
    cpus: float


def _ray() -> Any:
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    return ray


def connect(address: str | None, *, num_cpus: int | None = None) -> ClusterInfo:
    """Join ``address`` (``auto`` or ``HOST:PORT``), or start a loopback-only local Ray when None."""
    ray = _ray()
    if ray.is_initialized():
        started = False
    elif address is None:
        ray.init(
            _node_ip_address=LOOPBACK,
            include_dashboard=False,
            num_cpus=num_cpus,
            log_to_driver=False,
            configure_logging=False,
        )
        started = True
    else:
        ray.init(address=address, log_to_driver=False, configure_logging=False)
        started = False
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    cpus = float(ray.cluster_resources().get("CPU", 0.0))
    return ClusterInfo(started_here=started, nodes=len(nodes), cpus=cpus)


def disconnect() -> None:
    """Stop the local Ray this process started; leave a joined cluster running."""
    ray = _ray()
    if ray.is_initialized():
        ray.shutdown()
