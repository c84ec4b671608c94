"""From a minute's demand to the cores and nodes that carry it: the arithmetic of ``tablestorm plan``.

For each minute and each dimension (:data:`DIMENSIONS`, data rows: what the schedule forecasts,
what the capacity run measured per core), the cores that dimension needs are the demand at the
chosen quantile over the capacity per core at the SLO; the minute needs the most of them (the
*binding* dimension), times ``1 + headroom`` and rounded up to whole cores, and those in nodes of
``cores_per_node``, rounded up. Pure: numbers in, numbers out, no files.

The day's autoscaling schedule is the nodes each hour needs (its busiest minute's), consecutive
hours needing as many merged into one span; the autoscaler's bounds are the quietest hour's nodes
(at least one: the first table of the day should not wait for a node to start) and the peak's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["DIMENSIONS", "Dimension", "MinuteSize", "Span", "autoscaling", "size", "whole"]


@dataclass(frozen=True, slots=True)
class Dimension:
    """One thing a table host runs out of: its demand in schedule.json, its capacity in capacity.json."""

    name: str
    demand: str
    """The schedule's per-minute quantity (``tablestorm.sim.schedule.result.DEMAND``)."""
    capacity: str
    """The key of capacity.json's ``capacity.per_core``."""
    label: str
    """How a report names it."""


DIMENSIONS: Final = (
    Dimension("hands_per_s", "hands_per_s", "hands_per_s", "hands/s"),
    Dimension("actions_per_s", "actions_per_s", "actions_per_s", "actions/s"),
    Dimension("seated_players", "seated_players", "seated_players", "seated players"),
    # every seated player holds one Play stream
    Dimension("play_streams", "seated_players", "play_streams", "Play streams"),
)


@dataclass(frozen=True, slots=True)
class MinuteSize:
    """What one minute needs."""

    cores_by_dimension: Mapping[str, float]
    """Cores each dimension needs, before headroom."""
    binding: str
    """The dimension needing the most cores (the first listed on a tie)."""
    cores: int
    """Whole cores with the headroom."""
    nodes: int


def whole(value: float) -> int:
    """Rounded up, but not past a float's last digit (1.3 x 10 is 13, not 14)."""
    return math.ceil(round(value, 9))


def size(
    demand: Mapping[str, float], per_core: Mapping[str, float], *, headroom: float, cores_per_node: int
) -> MinuteSize:
    """The cores and nodes for ``demand`` (by dimension name) at ``per_core`` (by capacity key)."""
    needs = {d.name: demand[d.name] / per_core[d.capacity] for d in DIMENSIONS}
    binding = max(needs, key=lambda name: needs[name])  # max keeps the first of equals
    cores = whole(needs[binding] * (1.0 + headroom))
    return MinuteSize(needs, binding, cores, whole(cores / cores_per_node))


@dataclass(frozen=True, slots=True)
class Span:
    """Hours ``start_hour`` to ``stop_hour`` (exclusive, from midnight) that need ``nodes`` nodes."""

    start_hour: int
    stop_hour: int
    nodes: int
    cores: int


def autoscaling(sizes: Sequence[MinuteSize]) -> list[Span]:
    """The hourly spans of the day's minutes (``sizes[m]`` for minute ``m`` from midnight)."""
    spans: list[Span] = []
    for hour in range(math.ceil(len(sizes) / 60)):
        busiest = max(sizes[hour * 60 : (hour + 1) * 60], key=lambda s: (s.nodes, s.cores))
        if spans and spans[-1].nodes == busiest.nodes:
            last = spans[-1]
            spans[-1] = Span(last.start_hour, hour + 1, last.nodes, max(last.cores, busiest.cores))
        else:
            spans.append(Span(hour, hour + 1, busiest.nodes, busiest.cores))
    return spans
