"""The metrics every service process exports beside its own counts, and the naming audit.

Event-loop lag (a probe on the server's loop), GC pauses by generation (``gc.callbacks``) and the
process collector, read from real servers' and fleets' /metrics over HTTP on 127.0.0.1; then every
family a table server, a tournament server, a fleet and a plan's forecast exporter export, checked
against the Prometheus naming conventions and against the catalogue in deploy/README.md (so the
documentation cannot drift from the code).
"""

from __future__ import annotations

import asyncio
import gc
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample
from support.metrics import catalogue
from support.running import run_async
from support.table_server import serving, stud_options

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import VARIANTS
from tablestorm.sim.cluster.nodes import METRICS_PORT_ENV, metrics_port
from tablestorm.sim.load.fleet_metrics import FleetMetrics
from tablestorm.sim.load.stats import RunStats

ROOT = Path(__file__).resolve().parent.parent


def exposition(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text: str = response.read().decode()
    return text


def samples(text: str) -> Iterator[Sample]:
    for family in text_string_to_metric_families(text):
        yield from family.samples


def value(text: str, name: str, **labels: str) -> float:
    """The one sample named ``name`` with exactly ``labels`` (0 when there is none)."""
    found = [s.value for s in samples(text) if s.name == name and s.labels == labels]
    assert len(found) <= 1, (name, labels, found)
    return found[0] if found else 0.0


async def scrape(port: int) -> str:
    return await asyncio.to_thread(exposition, port)


@run_async
async def test_event_loop_lag_measures_a_blocked_loop() -> None:
    """A callback that holds the server's loop for 0.6 s delays the probe due within 0.25 s of
    its start by at least 0.35 s, and the histogram shows it above the 0.25 s bucket."""
    async with serving(metrics_http=True) as (server, _stub):
        assert server.metrics_port is not None
        before = await scrape(server.metrics_port)
        loop = asyncio.get_running_loop()
        probed = asyncio.Event()
        started = loop.time()
        time.sleep(0.6)  # the stimulus: this coroutine holds the loop, as a slow handler would
        # Timers run in deadline order: the probe's (overdue) before this one, due after the block.
        loop.call_at(loop.time() + 0.01, probed.set)
        await asyncio.wait_for(probed.wait(), 10)
        assert loop.time() - started >= 0.6
        after = await scrape(server.metrics_port)
    name = "tablestorm_event_loop_lag_seconds"
    slow = value(after, f"{name}_count") - value(after, f"{name}_bucket", le="0.25")
    slow_before = value(before, f"{name}_count") - value(before, f"{name}_bucket", le="0.25")
    assert slow - slow_before == 1, (slow_before, slow)
    assert value(after, f"{name}_sum") - value(before, f"{name}_sum") >= 0.35


@run_async
async def test_gc_pauses_are_timed_by_generation_until_the_server_stops() -> None:
    async with serving(metrics_http=True) as (server, _stub):
        assert server.metrics_port is not None
        name = "tablestorm_gc_pause_seconds"
        gc.disable()  # only the collections this test runs
        try:
            before = await scrape(server.metrics_port)
            gc.collect(2)
            gc.collect(0)
            gc.collect(0)
            after = await scrape(server.metrics_port)
        finally:
            gc.enable()
        counts = {g: value(after, f"{name}_count", generation=g) - value(before, f"{name}_count", generation=g)
                  for g in ("0", "1", "2")}
        assert counts == {"0": 2, "1": 0, "2": 1}
        assert value(after, f"{name}_sum", generation="2") > value(before, f"{name}_sum", generation="2")
        total = value(after, f"{name}_count", generation="2")
        assert value(after, f"{name}_bucket", generation="2", le="+Inf") == total
        await server.stop(drain_seconds=0)
    stopped = value(generate_latest(server.metrics.registry).decode(), f"{name}_count", generation="2")
    gc.collect(2)
    later = value(generate_latest(server.metrics.registry).decode(), f"{name}_count", generation="2")
    assert later == stopped, "a stopped server no longer times collections"


@run_async
async def test_process_collector_reports_this_process() -> None:
    async with serving(metrics_http=True) as (server, _stub):
        assert server.metrics_port is not None
        text = await scrape(server.metrics_port)
    assert value(text, "process_cpu_seconds_total") > 0
    assert value(text, "process_resident_memory_bytes") > 10 * 2**20
    assert value(text, "process_open_fds") > 0


def test_fleet_exports_its_runtime_and_round_trips() -> None:
    async def run() -> str:
        metrics = FleetMetrics("127.0.0.1")
        metrics.runtime.start(asyncio.get_running_loop())
        try:
            delta = RunStats()
            delta.action(0.004, "call", "random", now=0.5, game="7stud")
            delta.action(0.3, "fold", "random", now=0.5, game="7stud")
            delta.action(1.0, "call", "random", now=0.5, game="5stud", expected_interval_s=0.4)  # + 0.6 filled in
            delta.prompted(0.002, now=0.5, game="7stud")
            delta.delivered(0.0008, now=0.5, game="7stud")
            delta.delivered(0.02, now=0.5, game="5stud")
            delta.hand(now=0.6)
            delta.error("UNAVAILABLE", now=0.7)
            metrics.update(delta, online=7)
            return await scrape(metrics.port)
        finally:
            metrics.runtime.stop()

    text = asyncio.run(run())
    assert value(text, "tablestorm_bots_online") == 7
    assert value(text, "tablestorm_bot_actions_total") == 3
    assert value(text, "tablestorm_bot_hands_total") == 1
    assert value(text, "tablestorm_bot_errors_total", kind="UNAVAILABLE") == 1
    round_trip = "tablestorm_bot_action_round_trip_seconds"
    assert value(text, f"{round_trip}_count", game="7stud") == 2
    assert value(text, f"{round_trip}_bucket", game="7stud", le="0.005") == 1
    assert value(text, f"{round_trip}_bucket", game="7stud", le="0.25") == 1
    assert value(text, f"{round_trip}_bucket", game="7stud", le="0.5") == 2
    assert value(text, f"{round_trip}_count", game="5stud") == 2, "corrected: the stall's omitted sample counts"
    assert value(text, f"{round_trip}_bucket", game="5stud", le="0.5") == 0
    assert value(text, f"{round_trip}_bucket", game="5stud", le="1.0") == 1  # 0.6 (1.0's bucket is reported above)
    assert value(text, f"{round_trip}_bucket", game="5stud", le="2.5") == 2
    prompt, broadcast = "tablestorm_bot_next_prompt_seconds", "tablestorm_bot_broadcast_seconds"
    assert value(text, f"{prompt}_count", game="7stud") == 1 and value(text, f"{prompt}_count", game="5stud") == 0
    assert value(text, f"{prompt}_bucket", game="7stud", le="0.0025") == 1
    assert value(text, f"{broadcast}_bucket", game="7stud", le="0.001") == 1
    assert value(text, f"{broadcast}_bucket", game="5stud", le="0.01") == 0
    assert value(text, f"{broadcast}_bucket", game="5stud", le="0.025") == 1
    assert value(text, "process_cpu_seconds_total") > 0
    assert 'tablestorm_gc_pause_seconds_count{generation="0"}' in text
    assert "tablestorm_event_loop_lag_seconds_count" in text


def test_metrics_port_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(METRICS_PORT_ENV, raising=False)
    assert metrics_port() == 0
    monkeypatch.setenv(METRICS_PORT_ENV, " 9100 ")
    assert metrics_port() == 9100
    for bad, message in (
        ("http", "expected a port number, got 'http'"),
        ("70000", "expected a port from 0 to 65535, got 70000"),
    ):
        monkeypatch.setenv(METRICS_PORT_ENV, bad)
        with pytest.raises(ValueError, match=f"^{METRICS_PORT_ENV}: {re.escape(message)}"):
            metrics_port()


# ----------------------------------------------------------------------------- the naming audit

LABELS_FORBIDDEN = {"table", "table_id", "player", "player_id", "seat", "token", "hand", "hand_number"}
"""Ids whose number grows with the load: never a label (each value is a new series)."""
PREFIXES = ("tablestorm_", "process_", "python_")


def _audit(text: str) -> set[str]:
    """Check every family of one exposition; returns their names as queried (see :func:`catalogue`)."""
    names = set()
    for family in text_string_to_metric_families(text):
        name, kind = family.name, family.type
        if kind == "gauge" and name.endswith("_created"):
            continue  # prometheus_client's creation time of a counter or histogram series
        names.add(f"{name}_total" if kind == "counter" else name)
        assert name.startswith(PREFIXES), name
        assert re.fullmatch(r"[a-z][a-z0-9_]*", name), name
        if kind == "counter":
            assert any(s.name == f"{name}_total" for s in family.samples), f"{name}: a counter ends in _total"
        if kind == "histogram":
            assert name.endswith("_seconds"), f"{name}: histograms here measure time, in seconds"
        if kind == "gauge" and "seconds" in name:
            assert name.endswith("_seconds"), name
        assert not re.search(r"_(ms|milliseconds|microseconds|us|kb|mb|percent)(_|$)", name), f"{name}: base units"
        for sample in family.samples:
            assert not LABELS_FORBIDDEN & set(sample.labels), (name, sample.labels)
    return names


async def _tournament_exposition() -> str:
    """A tournament server's /metrics once a tournament was created (its per-tournament series)."""
    from support.tournaments import create, fast_structure, tournament_servers

    async with tournament_servers(tables=1) as servers:
        await create(servers, "audit", fast_structure())
        return generate_latest(servers.tournaments.metrics.registry).decode()


def _forecast_exposition(tmp_path: Path) -> str:
    """The forecast gauges of ``tablestorm plan --serve-metrics`` for a steady day's inputs."""
    from support.schedules import PER_CORE, capacity_doc, steady_day, write

    from tablestorm.sim.plan.forecast_metrics import BANDS, ForecastCollector
    from tablestorm.sim.plan.inputs import read_capacity, read_schedule
    from tablestorm.sim.plan.result import QUANTITIES, Settings, minute_sizes

    schedule = read_schedule(write(tmp_path / "schedule.json", steady_day()), QUANTITIES)
    capacity = read_capacity(write(tmp_path / "capacity.json", capacity_doc(PER_CORE)))
    settings = Settings(headroom=0.3, cores_per_node=16, quantile="p90")
    registry = CollectorRegistry()
    registry.register(ForecastCollector(schedule, {band: minute_sizes(schedule, capacity, settings, band)
                                                   for band in BANDS.values()}))
    return generate_latest(registry).decode()


@run_async
async def test_every_exported_metric_follows_the_conventions_and_is_documented(tmp_path: Path) -> None:
    async with serving(metrics_http=True) as (server, stub):
        assert server.metrics_port is not None
        for k, game in enumerate(VARIANTS):
            await stub.CreateTable(pb.CreateTableRequest(table_id=f"t{k}", options=stud_options(game=game)))
        await stub.ListTables(pb.ListTablesRequest())
        server_text = await scrape(server.metrics_port)
    for game in VARIANTS:
        assert value(server_text, "tablestorm_tables_live", game=game) == 1
        assert value(server_text, "tablestorm_hands_voided_total", game=game) == 0
    fleet = FleetMetrics("127.0.0.1")
    stats = RunStats()
    stats.error("UNAVAILABLE", now=0.1)
    fleet.update(stats, online=1)
    fleet_text = exposition(fleet.port)
    exported = (_audit(server_text) | _audit(fleet_text) | _audit(await _tournament_exposition())
                | _audit(_forecast_exposition(tmp_path)))
    documented = catalogue()
    ours = "tablestorm_"
    assert {n for n in exported if n.startswith(ours)} == {n for n in documented if n.startswith(ours)}
    assert documented <= exported, documented - exported
