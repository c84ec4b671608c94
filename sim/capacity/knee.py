"""What a sweep's steps measured: the knee, a lower bound, or nothing; and where throughput stopped rising.

A capacity is measured only at a **knee**: a step that met the SLO with the next, larger step
missing it. When the largest step met the SLO the capacity is **at least** that step, a lower
bound: the per-core figures are those of a load below the knee, and a plan from them extrapolates.
When no step met it there is **none**. capacity.json's ``capacity.kind`` and ``capacity.headline``,
the report's badge and ``tablestorm plan``'s refusal all read these words; this module imports
nothing heavy, so that the plan reads them without the sweep's machinery.

Throughput **stopped rising** at a step that carried less than :data:`PEAK_RISE` more actions/s
than the step before it. Once such a step has also missed the SLO the sweep has seen what it is
for, the knee and the most the hosts carry, and ends (:func:`past_the_peak`): the steps above
would only pile bots onto a saturated service (errors, timeouts, bots that cannot sit down).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from tablestorm.sim.capacity.sweep import Step

__all__ = [
    "AT_LEAST", "KINDS", "KNEE", "NONE", "PEAK_RISE", "SLOCapacity", "past_the_peak", "slo_capacity", "throughput_peak",
]

KNEE: Final = "knee"
AT_LEAST: Final = "at_least"
NONE: Final = "none"
KINDS: Final = (KNEE, AT_LEAST, NONE)
PEAK_RISE: Final = 0.05
"""A larger step carrying less than this share more actions/s than the step before: throughput
stopped rising (see the module docstring)."""


@dataclass(frozen=True, slots=True)
class SLOCapacity:
    """What the steps say of the SLO capacity: only a knee is a measured one."""

    kind: str
    """:data:`KNEE`, :data:`AT_LEAST` or :data:`NONE` (see the module docstring)."""
    step: Step | None
    """The largest step that met the SLO."""
    missed: Step | None
    """The step above it, which missed the SLO (a knee's)."""
    headline: str
    """What was measured, in a few words: the report's headline."""
    reason: str
    """Which step and why, in a sentence."""
    warnings: tuple[str, ...]


def _judged(step: Step) -> str:
    """The step's SLO verdicts in words, e.g. ``p99_ms<100 with 42.1``."""
    return ", ".join(f"{r['expression']} with {'no value' if r['value'] is None else r['value']}" for r in step.slo)


def slo_capacity(steps: Sequence[Step]) -> SLOCapacity:
    """The knee (the largest step that met the SLO and the next, which missed it), a lower bound
    (the largest step met it), or nothing met; in words, with warnings."""
    if not steps:
        return SLOCapacity(NONE, None, None, "no step was measured", "no step was measured", ())
    met = [s for s in steps if s.meets_slo]
    if not met:
        first = steps[0]
        reason = f"no step met the SLO: even the smallest, {first.bots:,} bots, had {_judged(first)}"
        return SLOCapacity(NONE, None, None, "no step met the SLO", reason, ())
    best = max(met, key=lambda s: s.bots)
    reason = f"{best.bots:,} bots is the largest step that met the SLO ({_judged(best)})"
    warnings = [
        f"{s.bots:,} bots missed the SLO although the larger {best.bots:,} met it: the machine may be"
        " noisy; repeat the sweep before relying on it"
        for s in steps if s.bots < best.bots and not s.meets_slo
    ]
    if not best.steady:
        warnings.append(f"the SLO capacity step ({best.bots:,} bots) never became steady")
    above = [s for s in steps if s.bots > best.bots]
    if above:
        missed = above[0]
        reason += f"; the next, {missed.bots:,} bots, missed it ({_judged(missed)})"
        headline = f"capacity {best.bots:,} bots: the knee ({missed.bots:,} missed the SLO)"
        return SLOCapacity(KNEE, best, missed, headline, reason, tuple(warnings))
    reason += "; it is the largest step measured, so the capacity may be higher: sweep further"
    warnings.insert(0, (
        f"no step reached the SLO: the capacity is at least {best.bots:,} bots, not measured, and the per-core"
        " figures are those of a load below the knee; a plan from them extrapolates: sweep larger steps"
    ))
    headline = f"at least {best.bots:,} bots: no step reached the SLO"
    return SLOCapacity(AT_LEAST, best, None, headline, reason, tuple(warnings))


def _flat(before: Step, step: Step) -> bool:
    return step.actions_per_s < (1 + PEAK_RISE) * before.actions_per_s


def past_the_peak(steps: Sequence[Step]) -> bool:
    """The last step missed the SLO and throughput stopped rising at it: the sweep may end."""
    return len(steps) >= 2 and not steps[-1].meets_slo and _flat(steps[-2], steps[-1])


def throughput_peak(steps: Sequence[Step]) -> dict[str, Any] | None:
    """capacity.json's ``throughput_peak``: the step of the most actions/s, and ``stopped_after``,
    the step after which throughput stopped rising (None when it rose at every step); None
    without steps."""
    if not steps:
        return None
    peak = max(steps, key=lambda s: s.actions_per_s)
    stopped = next((before for before, step in itertools.pairwise(steps) if _flat(before, step)), None)
    return {"bots": peak.bots, "actions_per_s": round(peak.actions_per_s, 3),
            "stopped_after": None if stopped is None else stopped.bots}
