"""The KubeRay ``RayCluster`` (``ray.io/v1``) that carries a plan's peak, with the autoscaler's bounds.

The groups are those of the team's cluster (deploy/kuberay/raycluster.yaml): a head that runs no
workload, ``table-hosts`` and ``bot-fleets``, each pod offering the group's custom resource so that
placement keeps hosts and fleets on their own pods. Here a worker pod is one node of the plan
(``cores_per_node`` CPUs) and offers one unit of its resource per core: a table host is one event
loop, about one core busy, which is also the unit capacity.json measures (per core of the hosts).
Each actor serves its /metrics on a port of its own choosing (``TABLESTORM_METRICS_PORT`` unset:
a pod runs several). ``table-hosts`` runs the peak's nodes and may scale down to the quietest
hour's; ``bot-fleets`` is sized to rehearse the forecast day as a load test (the capacity run's
fleet CPU per host CPU at its SLO step) and may scale to zero.
"""

from __future__ import annotations

import json
from typing import Any, Final

from tablestorm.sim.cluster.nodes import FLEET_RESOURCE, TABLE_HOST_RESOURCE

__all__ = ["BOT_FLEETS_GROUP", "FLEET_RESOURCE", "TABLE_HOSTS_GROUP", "TABLE_HOST_RESOURCE", "raycluster"]

TABLE_HOSTS_GROUP: Final = "table-hosts"
BOT_FLEETS_GROUP: Final = "bot-fleets"
"""The group names of deploy/kuberay/raycluster.yaml (their resources: :mod:`tablestorm.sim.cluster.nodes`)."""
MEMORY_GIB_PER_CORE: Final = {TABLE_HOSTS_GROUP: 2, BOT_FLEETS_GROUP: 1}
"""As the team's pods have it: a 2-core host pod has 4 GiB, a 2-core fleet pod 2 GiB."""
RAY_VERSION: Final = "2.60.0"


def _resources(name: str, units: int) -> str:
    """A ``rayStartParams.resources`` value: JSON, quoted for ``ray start``'s shell."""
    return '"' + json.dumps({name: units}).replace('"', '\\"') + '"'


def _workers(group: str, resource: str, role: str, *, replicas: int, minimum: int, maximum: int,
             cores: int, image: str) -> dict[str, Any]:
    memory = f"{MEMORY_GIB_PER_CORE[group] * cores}Gi"
    return {
        "groupName": group,
        "replicas": replicas,
        "minReplicas": minimum,
        "maxReplicas": maximum,
        "rayStartParams": {"num-cpus": str(cores), "resources": _resources(resource, cores),
                           "metrics-export-port": "8080"},
        "template": {
            "metadata": {"labels": {"app.kubernetes.io/name": "tablestorm", "tablestorm.io/role": role}},
            "spec": {"containers": [{
                "name": "ray-worker",
                "image": image,
                "imagePullPolicy": "IfNotPresent",
                "ports": [{"name": "metrics", "containerPort": 8080}],
                "resources": {"requests": {"cpu": str(cores), "memory": memory},
                              "limits": {"cpu": str(cores), "memory": memory}},
            }]},
        },
    }


def raycluster(
    *, name: str, table_nodes: int, min_table_nodes: int, fleet_nodes: int, cores_per_node: int, image: str
) -> dict[str, Any]:
    """The manifest: ``table_nodes`` host nodes (the peak; the autoscaler may go down to
    ``min_table_nodes``) and ``fleet_nodes`` fleet nodes, each of ``cores_per_node`` CPUs."""
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/name": "tablestorm"}},
        "spec": {
            "rayVersion": RAY_VERSION,
            "enableInTreeAutoscaling": True,
            "autoscalerOptions": {"upscalingMode": "Default", "idleTimeoutSeconds": 300},
            "headGroupSpec": {
                "rayStartParams": {"num-cpus": "0", "dashboard-host": "0.0.0.0", "metrics-export-port": "8080"},
                "template": {
                    "metadata": {"labels": {"app.kubernetes.io/name": "tablestorm", "tablestorm.io/role": "head"}},
                    "spec": {"containers": [{
                        "name": "ray-head",
                        "image": image,
                        "imagePullPolicy": "IfNotPresent",
                        "ports": [{"name": "gcs-server", "containerPort": 6379},
                                  {"name": "dashboard", "containerPort": 8265},
                                  {"name": "client", "containerPort": 10001},
                                  {"name": "metrics", "containerPort": 8080}],
                        "resources": {"requests": {"cpu": "1", "memory": "4Gi"},
                                      "limits": {"cpu": "2", "memory": "4Gi"}},
                    }]},
                },
            },
            "workerGroupSpecs": [
                _workers(TABLE_HOSTS_GROUP, TABLE_HOST_RESOURCE, "table_host", replicas=table_nodes,
                         minimum=min_table_nodes, maximum=table_nodes, cores=cores_per_node, image=image),
                _workers(BOT_FLEETS_GROUP, FLEET_RESOURCE, "fleet", replicas=fleet_nodes, minimum=0,
                         maximum=fleet_nodes, cores=cores_per_node, image=image),
            ],
        },
    }
