"""The capacity sweep: one load run stepped through bot counts, each step held until it is steady.

The sweep drives a :class:`~tablestorm.sim.load.driver.LoadTest` through two of its hooks: ``target`` gives the
closed model's bot count (the current step), ``on_second`` watches every tick. The hosts, the
tables for the largest step and the fleets are set up once; a step adds bots to the ones already
seated, which keep playing.

**Steady.** A step's measurement begins with the first whole second after the tick at which all its
bots are online (the bots joining and sitting down are left out). From then on, at every tick,
the last ``windows`` windows of ``window_s`` whole seconds are compared: the step is steady when the
actions/s of each window is within ``tolerance`` of their mean. Its measured window is then those
``windows x window_s`` seconds. A step that is not steady after ``max_hold_s`` seconds (from its
first tick) is measured over its last ``windows x window_s`` seconds all the same (fewer if its
bots were seated later than that) and marked ``steady: false``. Only whole seconds count: at tick
``t`` every fleet has reported the seconds before ``t`` (it is asked after the tick began).

**The end.** The sweep ends after its last step, or earlier once a step has missed the SLO and
carried hardly more than the step before it (:func:`~tablestorm.sim.capacity.knee.past_the_peak`):
the knee and the most the hosts carry are then measured, and larger steps would only overload them.

**CPU.** Every tick reads each host's and fleet's process CPU time (user + system, all threads) with
the wall clock beside it (:meth:`TableHostActor.cpu_seconds`); a step's cores used are, per
process, the CPU seconds between the readings at the ends of its window over the wall seconds
between them, summed. The hosts' cores are what a table service spends on the step's load; the
fleets' are what driving it cost, which on one machine is taken from the same cores unless the
sweep pins them apart (:mod:`tablestorm.sim.cluster.affinity`): the cores each host and fleet may
run on, as each reported them once started, are kept with the steps.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from tablestorm.sim.capacity.knee import past_the_peak
from tablestorm.sim.capacity.slo import SLO, Goodput
from tablestorm.sim.cluster.affinity import Pinning
from tablestorm.sim.cluster.deployment import HOST_CHECK_TIMEOUT, ActorInfo
from tablestorm.sim.cluster.interruption import Interruption
from tablestorm.sim.load.driver import LoadTest, RunResult, RunState
from tablestorm.sim.load.scenario import Scenario
from tablestorm.sim.load.stats import RunStats, SecondStats
from tablestorm.sim.load.thresholds import ThresholdResult, all_ok

__all__ = ["CpuUse", "Steadiness", "Step", "Sweep", "SweepRun", "run_sweep", "sweep_scenario"]

CpuReadings = Mapping[str, tuple[float, float]]
"""Actor id -> (CPU seconds, wall clock in Unix seconds) read together."""


@dataclass(frozen=True, slots=True)
class Steadiness:
    """When a step's rates are steady, and how long a step is held at most (see the module)."""

    window_s: int = 5
    windows: int = 3
    tolerance: float = 0.05
    max_hold_s: int = 60

    def __post_init__(self) -> None:
        if self.window_s < 1 or self.windows < 2:
            raise ValueError("steadiness compares at least 2 windows of at least 1 s")
        if not 0 < self.tolerance < 1:
            raise ValueError(f"tolerance must be between 0 and 1, got {self.tolerance}")
        if self.max_hold_s < self.measured_s:
            raise ValueError(
                f"a step held at most {self.max_hold_s} s cannot be measured over {self.windows} windows of"
                f" {self.window_s} s ({self.measured_s} s)"
            )

    @property
    def measured_s(self) -> int:
        """Seconds a steady step is measured over."""
        return self.window_s * self.windows

    def rates(self, stats: RunStats, start: int, stop: int) -> list[float]:
        """Actions/s of each whole window ending at ``stop`` that fits after ``start``, oldest first."""
        ends = range(stop, start + self.window_s - 1, -self.window_s)
        rates = [stats.window(end - self.window_s, end).actions / self.window_s for end in ends]
        return rates[: self.windows][::-1]

    def steady(self, rates: Sequence[float]) -> bool:
        """All ``windows`` rates within ``tolerance`` of their mean (and some actions at all)."""
        if len(rates) < self.windows:
            return False
        mean = statistics.fmean(rates)
        return mean > 0 and all(abs(rate - mean) <= self.tolerance * mean for rate in rates)


@dataclass(frozen=True, slots=True)
class CpuUse:
    """CPU seconds some processes used over a window, each over the wall seconds it was read over."""

    cpu_s: Mapping[str, float]
    wall_s: Mapping[str, float]
    missing: tuple[str, ...] = ()
    """Processes read at one end of the window only (started or died in it, or too slow to answer):
    their use is unknown, so the sum is short of it."""

    @classmethod
    def between(cls, before: CpuReadings, after: CpuReadings) -> CpuUse:
        both = sorted(set(before) & set(after))
        return cls(
            {a: after[a][0] - before[a][0] for a in both},
            {a: after[a][1] - before[a][1] for a in both},
            tuple(sorted(set(before) ^ set(after))),
        )

    @property
    def cpu_seconds(self) -> float:
        return sum(self.cpu_s.values())

    @property
    def cores(self) -> float:
        """Cores used: each process's CPU seconds over its wall seconds, summed."""
        return sum(cpu / self.wall_s[a] for a, cpu in self.cpu_s.items() if self.wall_s[a] > 0)


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the sweep, measured over its window of run seconds ``[start_s, stop_s)``."""

    bots: int
    """Offered: the bots the step holds."""
    seated: float
    """Bots online, averaged over the window's ticks."""
    steady: bool
    held_s: int
    """Seconds from the step's first tick to the end of its window."""
    start_s: int
    stop_s: int
    window_rates: tuple[float, ...]
    """Actions/s of the steadiness windows, oldest first."""
    measured: SecondStats
    """The window's seconds merged: actions, hands, errors, round-trip latencies."""
    goodput: Goodput
    slo: tuple[ThresholdResult, ...]
    """The SLO judged over the whole window."""
    hosts: CpuUse
    fleets: CpuUse

    @property
    def seconds(self) -> int:
        return self.stop_s - self.start_s

    @property
    def actions_per_s(self) -> float:
        return self.measured.actions / self.seconds

    @property
    def hands_per_s(self) -> float:
        return self.measured.hands / self.seconds

    @property
    def meets_slo(self) -> bool:
        return all_ok(self.slo)

    def per_core(self) -> dict[str, float | None]:
        """What one core of the table hosts carried at this step, by dimension (a seated bot
        holds one Play stream); None when a host's CPU time is unknown."""
        cores = self.hosts.cores
        known = cores > 0 and not self.hosts.missing
        carried = {
            "actions_per_s": self.actions_per_s,
            "hands_per_s": self.hands_per_s,
            "seated_players": self.seated,
            "play_streams": self.seated,
        }
        return {k: (v / cores if known else None) for k, v in carried.items()}


def _read_cpu(state: RunState, actors: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
    readings, _ = state.deployment.poll(actors, "cpu_seconds", HOST_CHECK_TIMEOUT)
    return {actor_id: (float(cpu), float(at)) for actor_id, (cpu, at) in readings.items()}


class Sweep:
    """Steps a running load test through ``steps``: pass :meth:`target` and :meth:`on_second` to
    the :class:`LoadTest`; ``results`` holds every step measured so far."""

    def __init__(self, steps: Sequence[int], slo: SLO, steadiness: Steadiness, stream: TextIO) -> None:
        self.steps = tuple(steps)
        self.slo = slo
        self.steadiness = steadiness
        self.stream = stream
        self.results: list[Step] = []
        self._began = 0
        """The tick the current step began."""
        self._seated_from: int | None = None
        """The first whole second after the tick at which all the current step's bots were online."""
        self._online: dict[int, int] = {}
        self._hosts: dict[int, dict[str, tuple[float, float]]] = {}
        self._fleets: dict[int, dict[str, tuple[float, float]]] = {}
        """Tick -> what it read (bots online; CPU of each host and fleet), from the current step's first."""
        self.actors: dict[str, dict[str, ActorInfo]] = {}
        """``hosts`` and ``fleets``: each one's start report (its node and cores), as the load began."""

    @property
    def done(self) -> bool:
        """Every step measured, or throughput stopped rising past the SLO (:func:`past_the_peak`)."""
        return len(self.results) == len(self.steps) or past_the_peak(self.results)

    @property
    def current(self) -> int:
        """The bots the current step holds (the last measured step's once the sweep is done)."""
        return self.results[-1].bots if self.done else self.steps[len(self.results)]

    def target(self, elapsed: float) -> int:
        """The load test's ``target`` hook: the current step, whatever the time."""
        return self.current

    def on_second(self, second: int, state: RunState) -> None:
        """Read the CPU clocks, then measure the current step if it is steady or held long enough."""
        if self.done:
            return
        if not self.actors:
            info = state.deployment.info
            self.actors = {"hosts": {a: info[a] for a in state.deployment.hosts},
                           "fleets": {a: info[a] for a in state.deployment.fleets}}
        self._hosts[second] = _read_cpu(state, state.deployment.hosts)
        self._fleets[second] = _read_cpu(state, state.deployment.fleets)
        self._online[second] = state.bots_online
        if self._seated_from is None and state.bots_online >= self.current:
            self._seated_from = second + 1  # they may have joined during this tick's second
        measuring_from = self._began if self._seated_from is None else self._seated_from
        start = max(measuring_from, second - self.steadiness.measured_s)
        if start >= second:
            return
        rates = self.steadiness.rates(state.stats, start, second)
        steady = self._seated_from is not None and self.steadiness.steady(rates)
        if steady or second - self._began >= self.steadiness.max_hold_s:
            self._measure(state, start, second, rates, steady)

    def _measure(self, state: RunState, start: int, stop: int, rates: list[float], steady: bool) -> None:
        measured = state.stats.window(start, stop)
        step = Step(
            bots=self.current,
            seated=statistics.fmean(self._online[s] for s in range(start, stop)),
            steady=steady,
            held_s=stop - self._began,
            start_s=start,
            stop_s=stop,
            window_rates=tuple(rates),
            measured=measured,
            goodput=self.slo.goodput(state.stats, start, stop),
            slo=tuple(self.slo.check(measured)),
            hosts=CpuUse.between(self._hosts[start], self._hosts[stop]),
            fleets=CpuUse.between(self._fleets[start], self._fleets[stop]),
        )
        self.results.append(step)
        print(
            f"capacity: {step.bots} bots {'steady' if steady else 'NOT steady'} after {step.held_s} s:"
            f" {step.actions_per_s:,.1f} actions/s, goodput {step.goodput.actions_per_s:,.1f},"
            f" p99 {_p99_ms(measured)} ms, hosts {step.hosts.cores:.2f} cores, fleets"
            f" {step.fleets.cores:.2f} cores, SLO {'met' if step.meets_slo else 'missed'}",
            file=self.stream, flush=True,
        )
        self._began, self._seated_from = stop + 1, None
        for readings in (self._hosts, self._fleets, self._online):
            for old in [s for s in readings if s < stop]:
                del readings[old]
        state.load_done = self.done


def _p99_ms(window: SecondStats) -> str:
    p99 = window.corrected().percentile(99)
    return "–" if p99 is None else f"{p99 * 1000:.1f}"


def sweep_scenario(scenario: Scenario, steps: Sequence[int], steadiness: Steadiness) -> Scenario:
    """The scenario a sweep runs: its games, bots, think times, clock, hosts, fleets and seed, with
    tables for the largest step, a closed model, no thresholds of its own (the SLO judges the
    steps) and a duration that bounds the sweep (every step held its longest, with room to seat)."""
    return replace(
        scenario,
        bots=max(steps),
        stages=(),
        arrival_rate=0.0,
        thresholds=(),
        duration_s=float(len(steps) * (steadiness.max_hold_s + 10) + 30),
    )


@dataclass(frozen=True, slots=True)
class SweepRun:
    """A finished sweep: its steps, the load run that carried them (summary, files), where its
    hosts and fleets ran and how they were pinned."""

    steps: tuple[Step, ...]
    planned: tuple[int, ...]
    load: RunResult
    actors: Mapping[str, Mapping[str, ActorInfo]]
    """``hosts`` and ``fleets`` by id: each one's node and cores (empty when no step began)."""
    pinning: Pinning | None


def run_sweep(
    scenario: Scenario,
    steps: Sequence[int],
    slo: SLO,
    steadiness: Steadiness,
    out_dir: Path,
    *,
    address: str | None = None,
    stream: TextIO,
    interruption: Interruption | None = None,
    command: Sequence[str] = (),
    pinning: Pinning | None = None,
) -> SweepRun:
    """Run the sweep on Ray (a local loopback one without ``address``); the load run's own
    outputs (summary.json, history.csv, report.html: the whole sweep second by second) go to
    ``out_dir``. ``pinning``: the hosts' and the fleets' cores (the caller pins its own process,
    before Ray starts, to the others')."""
    planned = tuple(steps)
    sweep = Sweep(planned, slo, steadiness, stream)
    test = LoadTest(
        sweep_scenario(scenario, planned, steadiness), out_dir, address=address, stream=stream,
        on_second=sweep.on_second, target=sweep.target, interruption=interruption, command=command, pinning=pinning,
    )
    load = test.run()
    return SweepRun(tuple(sweep.results), planned, load, sweep.actors, pinning)
