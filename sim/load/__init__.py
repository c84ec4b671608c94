"""``tablestorm load``: the load test of table services by bot fleets on Ray (docs/scenarios.md)."""
