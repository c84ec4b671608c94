"""Replications in parallel: one Ray task per (replication, event), on whatever Ray is connected.

The caller connects first (:func:`tablestorm.sim.cluster.connection.connect`: a new loopback Ray, or ``--address``);
:func:`run_schedule` submits every task at once, spread over the nodes (``SPREAD``), largest
first within each replication (the forecast's players stand for a task's size: big tasks started
early leave small ones to fill the cores at the end), and collects results as they come. A
satellite's target takes its satellites' results as arguments: Ray starts it once they are in.
Each
task reports its own wall and CPU seconds and its node, so the run can tell the simulation's time
from Ray's overhead (``wall_s`` x cores minus the tasks' seconds).

The first Ctrl-C (or SIGTERM) cancels what has not finished and keeps the replications that had
(:mod:`tablestorm.sim.cluster.interruption`); a second stops the wait at once
(:class:`~tablestorm.sim.cluster.interruption.Abort`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tablestorm.sim.cluster.interruption import Interruption, abort_in
from tablestorm.sim.schedule.progress import Progress
from tablestorm.sim.schedule.replication import EventRun, play_event, satellites_first
from tablestorm.sim.schedule.spec import Event, Schedule

__all__ = ["ScheduleRun", "TaskError", "run_schedule"]

POLL_S = 0.5
"""How often the wait looks at the interruption and redraws the progress line."""


class TaskError(RuntimeError):
    """A task failed (a bug in what it ran: a chip check, a stalled tournament); names which."""


@dataclass(frozen=True, slots=True)
class ScheduleRun:
    """What a run computed: every event of each completed replication."""

    schedule: Schedule
    root_seed: int
    replications: tuple[int, ...]
    """The replications completed, in order (all asked for, unless interrupted)."""
    runs: tuple[EventRun, ...]
    wall_s: float
    """From the first submission to the last result."""
    cores: float
    """The Ray cluster's CPUs."""
    nodes: dict[str, int]
    """Tasks completed per Ray node id."""
    interrupted: str | None = None

    @property
    def task_seconds(self) -> float:
        """The tasks' own wall seconds, summed: the simulation's share of the run."""
        return sum(r.seconds for r in self.runs)

    @property
    def ray_overhead_share(self) -> float:
        """The share of the cluster's core-seconds not spent inside a task."""
        capacity = self.wall_s * self.cores
        return max(0.0, 1.0 - self.task_seconds / capacity) if capacity > 0 else 0.0


def _task(event: Event, root: int, replication: int, *satellites: tuple[EventRun, str]) -> tuple[EventRun, str]:
    """What a Ray worker runs: one event of one replication (after its ``satellites``' tasks), and
    the node it ran on."""
    import ray

    run = play_event(event, root, replication, *(done for done, _ in satellites))
    return run, ray.get_runtime_context().get_node_id()


def run_schedule(
    schedule: Schedule,
    *,
    root_seed: int,
    replications: Sequence[int],
    interruption: Interruption | None = None,
    progress: bool = True,
) -> ScheduleRun:
    """Play ``replications`` of ``schedule`` on the connected Ray (:func:`tablestorm.sim.cluster.connection.connect`
    first); :class:`TaskError` if a task fails."""
    import ray as ray_module

    ray: Any = ray_module  # Ray's API is untyped
    interruption = interruption or Interruption()
    cores = float(ray.cluster_resources().get("CPU", 1.0))
    remote = ray.remote(num_cpus=1, scheduling_strategy="SPREAD")(_task)
    order = satellites_first(schedule, sorted(schedule.events, key=lambda e: -e.expected_players))
    jobs: dict[Any, tuple[int, Event]] = {}
    started = time.perf_counter()
    for replication in replications:
        refs: dict[str, Any] = {}
        for event in order:
            feeders = (refs[s.name] for s in schedule.satellites_of(event.name))
            refs[event.name] = remote.remote(event, root_seed, replication, *feeders)
            jobs[refs[event.name]] = (replication, event)
    work = {ref: 1.0 + event.expected_players for ref, (_, event) in jobs.items()}
    bar = Progress(len(replications), len(jobs), sum(work.values())) if progress else None
    left = {r: len(schedule.events) for r in replications}
    done: list[EventRun] = []
    nodes: Counter[str] = Counter()
    pending = list(jobs)
    work_done = 0.0
    try:
        with interruption.running():
            while pending and not interruption.requested.is_set():
                ready, pending = ray.wait(pending, num_returns=len(pending), timeout=POLL_S)
                for ref in ready:
                    replication, event = jobs[ref]
                    try:
                        run, node = ray.get(ref)
                    except Exception as exc:
                        if abort_in(exc) is not None:
                            raise
                        raise TaskError(f"replication {replication}, {event.name!r}: {_reason(exc)}") from exc
                    done.append(run)
                    nodes[node] += 1
                    left[replication] -= 1
                    work_done += work[ref]
                if bar is not None:
                    bar.update(sum(1 for n in left.values() if n == 0), len(done), work_done)
    except Exception as exc:  # a second signal's Abort, maybe wrapped by Ray's native wait: the rest is kept
        if abort_in(exc) is None:
            raise
    finally:
        with interruption.shielded("cancelling the tasks left"):
            for ref in pending:
                ray.cancel(ref, force=True)
        if bar is not None:
            bar.close()
    complete = tuple(r for r in replications if left[r] == 0)
    position = {event.name: k for k, event in enumerate(schedule.events)}
    kept = tuple(sorted((r for r in done if left[r.replication] == 0), key=lambda r: (r.replication, position[r.name])))
    return ScheduleRun(
        schedule=schedule, root_seed=root_seed, replications=complete, runs=kept,
        wall_s=time.perf_counter() - started, cores=cores, nodes=dict(nodes),
        interrupted=None if not pending else interruption.signal_name,
    )


def _reason(exc: BaseException) -> str:
    """A failed task's own exception, without Ray's wrapping traceback."""
    cause = getattr(exc, "cause", None)
    return f"{type(cause).__name__}: {cause}" if cause is not None else str(exc).strip().splitlines()[-1]
