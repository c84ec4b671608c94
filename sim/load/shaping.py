"""Load shaping: how many bots join and leave each second, by the scenario's model.

A closed model (Locust stages, k6 ``ramping-vus``) moves the bot count toward the stage's target;
an open model lets players arrive at a rate, each staying for a session drawn from the scenario's
distribution. The shape only decides counts; seating and fleets are the driver's. A closed model's
count may come from a ``target`` callable instead of the scenario's stages: a controller steering
one run (a capacity sweep holds each step until its rates are steady, for as long as that takes).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from tablestorm.sim.load.scenario import Scenario


@dataclass(frozen=True, slots=True)
class Step:
    """One second's change: bots to add, and bots to take away per fleet."""

    add: int
    remove: dict[str, int]


@dataclass(slots=True)
class LoadShape:
    """The scenario's load model, stepped once a second."""

    scenario: Scenario
    target: Callable[[float], int] | None = None
    """Closed model: bots that should be online ``elapsed`` seconds in (default: the scenario's)."""
    _arrivals_due: float = 0.0
    _sessions: list[tuple[float, str]] = field(default_factory=list)
    """Open model: (second the session ends, fleet of its player)."""

    def step(self, elapsed: float, online: Mapping[str, int]) -> Step:
        """What to change ``elapsed`` seconds into the run, given the bots ``online`` per fleet."""
        scenario = self.scenario
        if scenario.open_model:
            self._arrivals_due += scenario.arrival_rate
            arriving = int(self._arrivals_due)
            self._arrivals_due -= arriving
            leaving: dict[str, int] = {}
            for until, fleet in self._sessions:
                if until <= elapsed:
                    leaving[fleet] = leaving.get(fleet, 0) + 1
            self._sessions = [(u, f) for u, f in self._sessions if u > elapsed]
            return Step(arriving, leaving)
        target = scenario.target_bots(elapsed) if self.target is None else self.target(elapsed)
        total = sum(online.values())
        if target >= total:
            return Step(target - total, {})
        excess, remove = total - target, {}
        for fleet_id, count in online.items():
            take = min(excess, count)
            if take:
                remove[fleet_id] = take
                excess -= take
        return Step(0, remove)

    def joined(self, elapsed: float, fleet_id: str, rng: random.Random) -> None:
        """A bot joined ``fleet_id`` now; in the open model its session's end is drawn."""
        if self.scenario.open_model:
            self._sessions.append((elapsed + self.scenario.session.sample(rng), fleet_id))
