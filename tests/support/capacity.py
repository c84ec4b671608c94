"""A capacity sweep's steps, constructed: what the capacity result, its report and the plan are
checked on."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from tablestorm.sim.capacity.result import build_capacity, pinning_dict
from tablestorm.sim.capacity.slo import SLO
from tablestorm.sim.capacity.sweep import CpuUse, Steadiness, Step
from tablestorm.sim.cluster.affinity import Pinning
from tablestorm.sim.cluster.deployment import ActorInfo
from tablestorm.sim.load.stats import RunStats


def measured_step(bots: int, actions_per_s: int, latency_s: float, *, host_cores: float = 0.5, steady: bool = True,
                  slo: SLO | None = None, missing: tuple[str, ...] = ()) -> Step:
    """A step measured over 10 s: ``actions_per_s`` actions a second at ``latency_s``, a hand per
    ten actions, the hosts on ``host_cores`` cores."""
    slo = slo or SLO.parse(["p99_ms<100"])
    stats = RunStats()
    for second in range(10):
        for k in range(actions_per_s):
            stats.action(latency_s, "call", "random", now=second + 0.5)
            if k % 10 == 0:
                stats.hand(second + 0.5)
    measured = stats.window(0, 10)
    return Step(
        bots=bots, seated=float(bots), steady=steady, held_s=15, start_s=0, stop_s=10,
        window_rates=(float(actions_per_s),) * 2, measured=measured, goodput=slo.goodput(stats, 0, 10),
        slo=tuple(slo.check(measured)), hosts=CpuUse({"host-0": host_cores * 10}, {"host-0": 10.0}, missing),
        fleets=CpuUse({"fleet-0": 2.0}, {"fleet-0": 10.0}),
    )


PINNED: Final = pinning_dict("auto", Pinning((0,), (1,), "auto"), {
    "hosts": {"host-0": ActorInfo("host-0", "node-a", 10, "127.0.0.1:9001", "127.0.0.1:9000", (0,))},
    "fleets": {"fleet-0": ActorInfo("fleet-0", "node-a", 11, "127.0.0.1:9002", cpus=(1,))},
})
"""capacity.json's ``pinning`` of a host on CPU 0 and a fleet on CPU 1 of one node."""


def capacity_of(
    steps: list[Step], tmp_path: Path, *, planned: list[int] | None = None, interrupted: str | None = None,
    pinning: Mapping[str, Any] = PINNED,
) -> dict[str, Any]:
    """capacity.json's document for ``steps`` as the command builds it (its load run's files named
    under ``tmp_path``)."""
    load = tmp_path / "load"
    return build_capacity(
        steps, planned=planned or [s.bots for s in steps], slo=SLO.parse(["p99_ms<100"]), steadiness=Steadiness(),
        run={"command_line": "tablestorm capacity", "machine": {"cores": 2}}, pinning=pinning,
        load_summary={"scenario": "constructed", "scenario_resolved": {}, "chips_conserved": True,
                      "errors_total": 0, "duration_s": 60.0, "interrupted": interrupted},
        load_files={"summary": load / "summary.json", "report": load / "report.html", "history": load / "h.csv"},
        out_dir=tmp_path,
    )
