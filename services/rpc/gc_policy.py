"""Garbage-collector settings for a long-running, latency-bound process: a table host, a bot fleet.

CPython's full collections scan every tracked object. A host serving thousands of streams and
keeping thousands of finished hands for SHOW-4 holds millions of them, and its full collections
(one every few seconds under load, each time the heap had grown by a quarter) paused the event
loop for 200-600 ms: those pauses, not the work, were a load test's p99. Young collections stay
automatic (they reclaim the reference cycles asyncio and gRPC leave behind, which die young);
automatic full collections are switched off, so an object that survives two young collections
lives until the process ends or :func:`collect_all` runs. That bounds the cost to memory held by
rare long-lived cycles, which a bounded load run or a drained server can afford.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000
"""Allocations between young collections (CPython's default is 700): fewer, still short pauses."""
MIDDLE_THRESHOLD = 20
NO_FULL = 1 << 30
"""Young collections between full ones: in effect, never."""


def tune_for_latency() -> None:
    """Freeze what start-up built (it lives as long as the process) and stop automatic full collections."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, NO_FULL)


def collect_all() -> int:
    """A full collection now, frozen objects included; returns the objects found unreachable."""
    gc.unfreeze()
    return gc.collect()
