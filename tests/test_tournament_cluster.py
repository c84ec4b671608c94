"""Live tournaments at size and across nodes (``-m long``: minutes each, outside CI's budget): a
1,000-entrant Seven Card Stud MTT over gRPC on a local Ray, to a winner, with and without a table
host killed mid-run; the same tournament on a three-node ``ray.cluster_utils.Cluster`` with its
tables on every node and a node's host lost; and the MTT's hands and duration against the
accelerated forecast over several seeds.

The structure is ``sim/tournaments/stud-mtt-fast.yaml`` (15-second levels, a 2-second clock), so
a thousand bots finish in minutes; each run is bounded by --time-limit.
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.ray_nodes import loopback_nodes
from support.tournament_document import assert_complete

from tablestorm.sim.cli import main
from tablestorm.sim.cluster import connection

pytestmark = [pytest.mark.long, pytest.mark.timeout(1800)]  # minutes each: outside CI's 20

ROOT = Path(__file__).resolve().parent.parent
MTT = str(ROOT / "sim/tournaments/stud-mtt-fast.yaml")

def tournament(out: Path, *flags: str) -> tuple[int, dict[str, Any]]:
    status = main(["tournament", *flags, "--out", str(out)])
    return status, json.loads((out / "tournament.json").read_text())


def _report(name: str, doc: dict[str, Any]) -> None:
    """The figures a reader of the test log wants (wall time, start burst, move latency)."""
    live = doc.get("live") or {}
    print(f"\n{name}: entries={doc['entries']} hands={doc['hands']} duration_s={doc['duration_s']:.1f} "
          f"start_burst_s={live.get('start_burst_s')} move_latency_ms={live.get('move_latency_ms')} "
          f"tables_lost={live.get('tables_lost')} hands_voided={live.get('hands_voided')} errors={live.get('errors')}")


@pytest.fixture(scope="module")
def ray_here() -> Iterator[None]:
    os.environ.setdefault("RAY_TMPDIR", "/tmp/ray-tablestorm-tests")
    info = connection.connect(None)
    try:
        yield
    finally:
        if info.started_here:
            connection.disconnect()


@pytest.mark.parametrize("chaos", [(), ("--chaos", "kill-host@60s")], ids=["whole", "host-killed"])
def test_a_thousand_entrant_stud_mtt_live_to_a_winner(ray_here: None, tmp_path: Path, chaos: tuple[str, ...]) -> None:
    """TOURN-11 with a host killed: its tables rebuilt on the other two, running hands voided with
    their stacks back, every player reseated, the finishing order complete, every chip kept."""
    status, doc = tournament(tmp_path, MTT, "--entrants", "1000", "--seed", "1", "--think", "0.2",
                             "--hand-pause", "0", "--hosts", "3", "--fleets", "2", *chaos, "--time-limit", "1500")
    _report(f"1000-entrant stud MTT ({'host killed' if chaos else 'whole'})", doc)
    assert status == 0, doc["live"]
    assert doc["entries"] == 1000 and doc["game"] == "7stud"
    assert_complete(doc)
    live = doc["live"]
    assert live["seats_assigned"] >= 1000 and live["move_latency_ms"]["count"] > 0
    assert live["protocol_violations"] == 0, live["violations"]
    if chaos:
        assert len(live["hosts_killed"]) == 1 and live["tables_lost"] >= 1 and live["hands_voided"] >= 1
    else:
        assert live["tables_lost"] == 0 and live["hands_voided"] == 0


def test_the_mtt_hands_and_duration_agree_with_the_forecast(ray_here: None, tmp_path: Path) -> None:
    """Live tables finish hands in real-time order, so an MTT is not the accelerated one hand for hand;
    over several seeds the hands played and the duration of both drivers agree within their spread
    (think times and the pause between hands realized on the live tables)."""
    flags = [MTT, "--entrants", "48", "--think", "0.1", "--hand-pause", "0.2", "--bots", "strength"]
    live, accelerated = [], []
    for seed in (1, 2, 3, 4):
        status, doc = tournament(tmp_path / f"live{seed}", *flags, "--seed", str(seed), "--time-limit", "400")
        assert status == 0
        live.append(doc)
        accelerated.append(tournament(tmp_path / f"acc{seed}", *flags, "--seed", str(seed), "--accelerated")[1])
    def played(doc: dict[str, Any]) -> float:
        """Seconds from the start (the seat draw) to the winner: a live run registers first."""
        return float(doc["duration_s"] - doc["levels"][0]["start_s"])

    for key, measure in (("hands", lambda d: d["hands"]), ("duration_s", played)):
        ours, forecast = [measure(d) for d in live], [measure(d) for d in accelerated]
        spread = max(statistics.stdev(ours), statistics.stdev(forecast))
        print(f"\n{key}: live {ours} accelerated {forecast}")
        assert abs(statistics.mean(ours) - statistics.mean(forecast)) <= 2 * spread, (key, ours, forecast)


@pytest.fixture(scope="module")
def three_nodes() -> Iterator[Any]:
    with loopback_nodes(3, replace_connected=True) as nodes:  # the module's single-node Ray is done with
        yield nodes


def test_three_nodes_hold_the_tables_and_a_lost_host_is_rebuilt_elsewhere(three_nodes: Any, tmp_path: Path) -> None:
    import ray

    alive = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert len(alive) == 3
    status, doc = tournament(tmp_path, MTT, "--entrants", "200", "--seed", "3", "--think", "0.2",
                             "--hand-pause", "0", "--hosts", "3", "--fleets", "3", "--chaos", "kill-host@20s",
                             "--time-limit", "900")
    _report("3-node 200-entrant stud MTT, a host killed", doc)
    assert status == 0, doc["live"]
    assert_complete(doc)
    live = doc["live"]
    assert live["nodes"] == 3 and set(live["seats_by_node"]) == alive  # a host, and tables, on every node
    assert live["tables_lost"] >= 1 and live["hands_voided"] >= 1
