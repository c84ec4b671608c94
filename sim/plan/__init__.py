"""`tablestorm plan`: the cores and nodes that carry a simulated day, from its two inputs.

``inputs`` reads schedule.json and capacity.json, ``sizing`` is the arithmetic (dimensions as data
rows, the binding one, headroom, nodes, the autoscaling spans), ``result`` assembles plan.json,
``kuberay`` writes the RayCluster for the peak, ``report`` plan.html, ``forecast_metrics`` serves
the current minute's forecast to Prometheus.
"""
