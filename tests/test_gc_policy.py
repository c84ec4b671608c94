"""The latency GC policy of host and fleet processes (services/rpc/gc_policy.py).

Each check runs in a fresh interpreter: the policy changes process-wide collector state, which
must not leak into the rest of the test run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

ROOT = __file__.rsplit("/tests/", 1)[0]


def _run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_start_up_objects_are_frozen_and_full_collections_stop() -> None:
    out = _run("""
        import gc
        from tablestorm.services.rpc.gc_policy import NO_FULL, YOUNG_THRESHOLD, tune_for_latency
        before = gc.get_freeze_count()
        tune_for_latency()
        young, middle, full = gc.get_threshold()
        assert gc.get_freeze_count() > before
        assert (young, full) == (YOUNG_THRESHOLD, NO_FULL)
        counts = []
        gc.callbacks.append(lambda phase, info: phase == "start" and counts.append(info["generation"]))
        for _ in range(300_000):  # churn of cyclic garbage: young collections, never a full one
            a = []
            a.append(a)
        print(len(counts), max(counts))
    """)
    young_runs, oldest = map(int, out.split())
    assert young_runs >= 20
    assert oldest < 2


def test_young_collections_still_reclaim_cycles_and_collect_all_reaches_the_rest() -> None:
    out = _run("""
        import gc, weakref
        from tablestorm.services.rpc.gc_policy import collect_all, tune_for_latency

        class Node:
            pass

        tune_for_latency()
        young = Node(); young.me = young
        probe = weakref.ref(young)
        del young
        for _ in range(3):
            gc.collect(1)
        print(probe() is None)
        old = Node(); old.me = old
        gc.collect(1); gc.collect(1)  # survives into the oldest generation
        gc.freeze()
        old_probe = weakref.ref(old)
        del old
        gc.collect(1)
        print(old_probe() is None, collect_all() > 0, old_probe() is None)
    """)
    assert out.split() == ["True", "False", "True", "True"]
