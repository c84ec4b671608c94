"""How a long-running asyncio service process keeps up: CPU, memory, GC pauses, event-loop lag.

A table host, a bot fleet and ``tablestorm serve`` each run every table or bot on one event loop,
so the loop's health is the service's: a full garbage collection or a burst of work that holds
the loop delays every table's actions and clocks at once, and shows in no per-action timer (the
action is timed once it runs, not while it waits). Three things measure it, one registry each:

- prometheus_client's process and GC collectors: ``process_cpu_seconds_total``,
  ``process_resident_memory_bytes``, ``process_open_fds``, ``python_gc_collections_total``...;
- :class:`GcPauses`: ``tablestorm_gc_pause_seconds{generation}``, each collection's duration,
  timed by ``gc.callbacks``;
- :class:`LoopLag`: ``tablestorm_event_loop_lag_seconds``, how late the loop runs a callback
  scheduled a fixed interval ahead, the wait every coroutine on that loop suffers too.
"""

from __future__ import annotations

import asyncio
import bisect
import gc
import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, GCCollector, Histogram, ProcessCollector
from prometheus_client.core import HistogramMetricFamily
from prometheus_client.registry import Collector

GC_PAUSE_BOUNDS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
"""Young collections take tens of microseconds to milliseconds; a full one of a large heap, up to a second."""
LOOP_LAG_BOUNDS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LOOP_LAG_INTERVAL = 0.25
"""Seconds between two probes of the loop: four cheap timer callbacks a second."""


class GcPauses(Collector):
    """Times every garbage collection of this process by generation, as a Prometheus histogram.

    ``gc.callbacks`` runs in whichever thread triggered the collection, in the middle of whatever
    that thread was doing, possibly inside a prometheus_client metric's (non-reentrant) lock: so
    the callback touches no metric and takes no lock. It adds to plain per-generation lists, and
    :meth:`collect` copies them (one allocation-free copy per list, which no collection can cut).
    """

    def __init__(self) -> None:
        generations = len(gc.get_threshold())
        self._rows = [[0.0] * (len(GC_PAUSE_BOUNDS) + 2) for _ in range(generations)]
        """Per generation: a count per bucket (the last one past every bound), then the seconds' sum."""
        self._started = 0.0
        self._installed = False

    def install(self) -> None:
        """Start timing this process's collections (until :meth:`uninstall`)."""
        if not self._installed:
            gc.callbacks.append(self._on_gc)
            self._installed = True

    def uninstall(self) -> None:
        if self._installed:
            gc.callbacks.remove(self._on_gc)
            self._installed = False

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        seconds = time.perf_counter() - self._started
        row = self._rows[info["generation"]]
        row[bisect.bisect_left(GC_PAUSE_BOUNDS, seconds)] += 1
        row[-1] += seconds

    def collect(self) -> Iterator[HistogramMetricFamily]:
        family = HistogramMetricFamily(
            "tablestorm_gc_pause_seconds",
            "Garbage collections of this process by generation: how long each stopped every thread.",
            labels=["generation"],
        )
        for generation, live in enumerate(self._rows):
            row = live[:]
            buckets: list[tuple[str, float]] = []
            seen = 0.0
            for bound, count in zip((*GC_PAUSE_BOUNDS, float("inf")), row[:-1], strict=True):
                seen += count
                buckets.append(("+Inf" if bound == float("inf") else str(bound), seen))
            family.add_metric([str(generation)], buckets, sum_value=row[-1])
        yield family


class LoopLag:
    """Measures event-loop lag: how late the loop runs a timer callback due ``interval`` from now.

    Timer callbacks, not a task: one ``call_at`` a probe, nothing to cancel but its handle. The
    lag is measured on the loop's own (monotonic) clock.
    """

    def __init__(self, registry: CollectorRegistry, interval: float = LOOP_LAG_INTERVAL) -> None:
        self.interval = interval
        self._lag = Histogram(
            "tablestorm_event_loop_lag_seconds",
            "How late the service's event loop ran a timer callback: the wait every table's (or "
            "bot's) next step had on top of its own work.",
            buckets=LOOP_LAG_BOUNDS,
            registry=registry,
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._due = 0.0

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Probe ``loop`` from now on (call from the loop's thread)."""
        if self._handle is None:
            self._loop = loop
            self._schedule()

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _schedule(self) -> None:
        assert self._loop is not None
        self._due = self._loop.time() + self.interval
        self._handle = self._loop.call_at(self._due, self._probe)

    def _probe(self) -> None:
        assert self._loop is not None
        self._lag.observe(max(0.0, self._loop.time() - self._due))
        self._schedule()


class RuntimeMetrics:
    """The process, GC and event-loop metrics of one service process, registered in ``registry``."""

    def __init__(self, registry: CollectorRegistry) -> None:
        ProcessCollector(registry=registry)
        GCCollector(registry=registry)
        self.gc_pauses = GcPauses()
        registry.register(self.gc_pauses)
        self.loop_lag = LoopLag(registry)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start timing collections and probing ``loop`` (the service's loop, from its thread)."""
        self.gc_pauses.install()
        self.loop_lag.start(loop)

    def stop(self) -> None:
        self.gc_pauses.uninstall()
        self.loop_lag.stop()
