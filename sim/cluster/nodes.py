"""What a cluster's nodes tell the actors: which kind of actor a node is for, and its metrics port.

A KubeRay cluster (deploy/kuberay/raycluster.yaml) runs table hosts and bot fleets in worker groups
of their own. Each pod of a group offers one unit of the group's custom resource, and sets the port
its actor serves /metrics on (a declared container port, which a PodMonitor can name). Nothing
here imports Ray: the names are read by the driver's placement, the actors and the deploy tests.
"""

from __future__ import annotations

import os

TABLE_HOST_RESOURCE = "tablestorm_table_host"
"""The Ray custom resource a node offers one unit of per table host it is for (a KubeRay worker
group's pods: deploy/kuberay/raycluster.yaml); placement that asks each host for one unit keeps
hosts on their own nodes and lets the autoscaler add nodes for them."""
FLEET_RESOURCE = "tablestorm_bot_fleet"
"""The same for bot fleets."""

METRICS_PORT_ENV = "TABLESTORM_METRICS_PORT"
"""Set on a node (a Kubernetes pod running one host or one fleet): the port its actor serves
/metrics on, a container port a PodMonitor can name. Unset or 0: a free port chosen at start."""


def metrics_port() -> int:
    """This node's :data:`METRICS_PORT_ENV`, checked (ValueError naming the variable)."""
    text = os.environ.get(METRICS_PORT_ENV, "").strip()
    if not text:
        return 0
    try:
        port = int(text)
    except ValueError:
        raise ValueError(f"{METRICS_PORT_ENV}: expected a port number, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"{METRICS_PORT_ENV}: expected a port from 0 to 65535, got {port}")
    return port
