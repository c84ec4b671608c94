"""CPU affinity: the table hosts on cores of their own, every other process of the run on the rest.

On one machine the table hosts, the bot fleets, the driver and Ray share the cores, so whichever
needs more CPU takes it from the others, and a sweep cannot say how many cores the hosts had: a
per-core figure is then divided by whatever share the hosts happened to get. Pinned, the hosts have
a known, bounded set of cores that nothing else of the run takes, and a small machine can drive
them to saturation with the fleets on the other cores (docs/capacity.md).

Linux sets the mask of one thread at a time (``sched_setaffinity`` takes a thread id), so a
process is pinned by setting the mask of each of its threads (``/proc/self/task``); the threads and
processes it starts afterwards inherit it. The command pins its own process before it starts the
local Ray, so Ray's own processes, the registry and the worker pool inherit the rest; each host
and fleet actor pins itself when it starts and reports the mask it then has. Programs outside the
run are not bound by it: the hosts' cores are theirs alone only on an otherwise quiet machine.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Final

__all__ = ["AUTO", "OFF", "Pinning", "choose", "current", "parse_cpus", "pin_process", "pinned", "supported"]

AUTO: Final = "auto"
OFF: Final = "off"


@dataclass(frozen=True, slots=True)
class Pinning:
    """Which cores the table hosts run on, and which every other process of the run."""

    hosts: tuple[int, ...]
    others: tuple[int, ...]
    chosen: str
    """How it was chosen: ``auto`` or the CPU list asked for."""


def supported() -> bool:
    """Whether this platform sets CPU affinity (Linux does; macOS does not)."""
    return hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity")


def current() -> tuple[int, ...] | None:
    """The cores this process may run on; None where affinity is not supported."""
    return tuple(sorted(os.sched_getaffinity(0))) if supported() else None


def parse_cpus(text: str) -> tuple[int, ...]:
    """``0``, ``0-1``, ``0,2-3`` (taskset's list) -> the cores, sorted; ValueError says what is wrong."""
    cpus: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            low, high = int(first), int(last if dash else first)
        except ValueError:
            raise ValueError(f"expected auto, off or a CPU list such as 0 or 0-1 or 0,2, got {text!r}") from None
        if low < 0 or high < low:
            raise ValueError(f"{part.strip()!r} is not a range of CPU numbers")
        cpus.update(range(low, high + 1))
    return tuple(sorted(cpus))


def choose(choice: str, *, hosts: int, local: bool) -> Pinning | None:
    """The pinning ``choice`` (``auto``, ``off`` or a CPU list for the hosts) means for a run of
    ``hosts`` table hosts; None: nothing is pinned. ``auto`` pins on a machine of at least two usable
    cores when the run starts its own local Ray (``local``), its hosts on the first of them, one
    core a host up to half of them; a joined cluster's hosts run on nodes of their own. ValueError
    names what is wrong with an explicit list: not on this machine, all of its cores, not local."""
    if choice == OFF:
        return None
    usable = current()
    if choice == AUTO:
        if not local or usable is None or len(usable) < 2:
            return None
        count = max(1, min(hosts, len(usable) // 2))
        return Pinning(usable[:count], usable[count:], AUTO)
    wanted = parse_cpus(choice)
    if not local:
        raise ValueError("pins the processes of this machine: only for a local Ray (without --address)")
    if usable is None:
        raise ValueError("this platform does not set CPU affinity: use off")
    outside = sorted(set(wanted) - set(usable))
    if outside:
        raise ValueError(f"CPU {', '.join(map(str, outside))} is not usable here (usable: {_listed(usable)})")
    others = tuple(c for c in usable if c not in wanted)
    if not others:
        raise ValueError(f"leaves no core for the fleets, the driver and Ray (usable: {_listed(usable)})")
    return Pinning(wanted, others, choice)


def _listed(cpus: Collection[int]) -> str:
    return ",".join(map(str, sorted(cpus)))


def pin_process(cpus: Collection[int]) -> tuple[int, ...]:
    """Pin every thread of this process to ``cpus``; returns the cores it may run on now."""
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
            os.sched_setaffinity(int(task), set(cpus))
    return tuple(sorted(os.sched_getaffinity(0)))


@contextlib.contextmanager
def pinned(cpus: Collection[int] | None) -> Iterator[None]:
    """This process pinned to ``cpus`` (nothing done for None) while the block runs, so that the
    processes it starts inherit them; its own cores restored after."""
    if cpus is None:
        yield
        return
    before = os.sched_getaffinity(0)
    pin_process(cpus)
    try:
        yield
    finally:
        pin_process(before)
