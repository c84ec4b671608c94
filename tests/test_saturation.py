"""tablestorm.sim.load.saturation: more load, no more throughput, rising latency: flagged, and only then."""

from __future__ import annotations

from tablestorm.sim.load.live import render_block, render_line, snapshot
from tablestorm.sim.load.saturation import SaturationWatch
from tablestorm.sim.load.stats import RunStats


def run(seconds: list[tuple[int, int, float]]) -> tuple[RunStats, dict[int, int]]:
    """Per second: (bots online, actions answered, their round trip in seconds)."""
    stats, online = RunStats(), {}
    for second, (bots, actions, latency) in enumerate(seconds):
        online[second] = bots
        for k in range(actions):
            stats.action(latency, "call", "random", second + k / (actions + 1))
    return stats, online


def test_a_ramp_past_the_servers_capacity_is_flagged_where_throughput_stops_growing() -> None:
    healthy = [(100 * (1 + s // 10), 100 * (1 + s // 10), 0.010) for s in range(30)]  # 100..300 bots, linear
    flat = [(400 + 100 * (s // 10), 300, 0.080) for s in range(20)]  # 400, 500 bots: still 300/s, p99 80 ms
    stats, online = run(healthy + flat)
    watch = SaturationWatch()
    watch.update(stats, online, 50.0)
    assert [w.actions_per_s for w in watch.windows] == [100, 200, 300, 300, 300]
    assert watch.first is not None and watch.first.at_s == 30
    assert watch.first.best.start_s == 20 and watch.first.window.bots == 400
    assert watch.now
    assert "saturated from 30 s" in watch.first.describe()
    assert watch.first.to_dict()["best_actions_per_s"] == 300


def test_a_healthy_ramp_and_a_steady_run_are_not_flagged() -> None:
    ramp = [(100 * (1 + s // 10), 100 * (1 + s // 10), 0.010) for s in range(50)]
    steady = [(500, 500, 0.040) for _ in range(60)]  # p99 above the floor but flat
    for seconds in (ramp, steady):
        stats, online = run(seconds)
        watch = SaturationWatch()
        watch.update(stats, online, float(len(seconds)))
        assert watch.first is None and not watch.now


def test_latency_rising_at_flat_load_is_flagged_but_not_under_the_floor() -> None:
    rising = [(500, 500, 0.030) for _ in range(20)] + [(500, 480, 0.090) for _ in range(10)]
    stats, online = run(rising)
    watch = SaturationWatch()
    watch.update(stats, online, 30.0)
    assert watch.first is not None and watch.first.at_s == 20
    tiny = [(500, 500, 0.002) for _ in range(20)] + [(500, 480, 0.010) for _ in range(10)]  # 2 ms -> 10 ms
    stats, online = run(tiny)
    watch = SaturationWatch()
    watch.update(stats, online, 30.0)
    assert watch.first is None


def test_windows_are_taken_once_as_they_complete() -> None:
    stats, online = run([(10, 10, 0.01)] * 25)
    watch = SaturationWatch()
    for elapsed in (5.0, 9.9, 10.0, 19.0, 25.0):
        watch.update(stats, online, elapsed)
    assert [w.start_s for w in watch.windows] == [0, 10]


def test_the_live_view_says_so() -> None:
    stats, _ = run([(10, 10, 0.01)] * 12)
    snap = snapshot(stats, 12.0, bots_online=10, saturated=True)
    assert "SATURATED" in render_block(snap)[0] and render_line(snap).endswith("SATURATED")
    assert "SATURATED" not in render_line(snapshot(stats, 12.0, bots_online=10))
