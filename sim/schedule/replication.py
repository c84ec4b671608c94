"""One replication of one event: draw its field from the forecast, play it with the accelerated driver.

A replication of a day is its events played independently (each event's players are its own), so
the unit of work is one (replication, event) pair, :func:`play_event`, which is what a Ray task
runs. Everything it draws comes from seeds derived from the run's root seed, the replication's
number and the event's name (:func:`seed_of`): any replication of any event re-runs exactly, alone
or among others, on any machine, and adding an event to a schedule changes no other's draws.

A scheduled tournament draws its field (:class:`~.forecast.EntrantForecast`), splits off the late
registrants and draws when they arrive (:class:`~.forecast.ArrivalCurve`); sit-and-gos draw the
day's arrivals (:class:`~.forecast.HourlyRate`) and start one tournament whenever a table's worth
of players has arrived. Every hand of every tournament is dealt and played by the engine
(:class:`~tablestorm.sim.tournament.accelerated.AcceleratedTournament`); its load is counted by minute of the
day (:class:`~.demand.LoadRecorder`).
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass

from tablestorm.services.engine import Hand
from tablestorm.sim.schedule.demand import Load, LoadRecorder
from tablestorm.sim.schedule.forecast import MINIMUM_FIELD
from tablestorm.sim.schedule.spec import Event, Schedule, Tournament, late_registration_closes
from tablestorm.sim.tournament.accelerated import AcceleratedTournament

__all__ = ["Draw", "EventRun", "Outcome", "draws", "play", "play_event", "replicate", "seed_of"]


def seed_of(root: int, replication: int, *names: object) -> int:
    """A 63-bit seed for what ``names`` designate in replication ``replication`` of a run."""
    text = "|".join(["tablestorm/schedule", str(root), str(replication), *map(str, names)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


@dataclass(frozen=True, slots=True)
class Draw:
    """One tournament as a replication drew it."""

    start_s: float
    """Seconds from midnight: the scheduled start, or the arrival that filled a sit-and-go."""
    entrants: int
    """Registered by the start."""
    late_arrivals: tuple[float, ...]
    """Seconds from the start at which each late registrant arrives."""
    seed: int
    """The tournament's root seed (cards, decisions, the director's draws)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one tournament of a replication came to."""

    start_s: float
    duration_s: float
    players: int
    """Distinct players (late ones included)."""
    entries: int
    """Entries, re-entries included."""
    prize_pool: int
    hands: int
    chips_conserved: bool

    @property
    def end_s(self) -> float:
        """Seconds from midnight (past 86,400 when it ends the next day)."""
        return self.start_s + self.duration_s


@dataclass(frozen=True, slots=True)
class EventRun:
    """One event in one replication: its load by minute and its tournaments' outcomes."""

    name: str
    replication: int
    game: str
    load: Load
    outcomes: tuple[Outcome, ...]
    seconds: float
    """Wall seconds the simulation took where it ran (a Ray task's own time)."""
    cpu_seconds: float


def draws(event: Event, root: int, replication: int) -> list[Draw]:
    """The tournaments ``event`` holds in ``replication`` of a run seeded ``root``."""
    rng = random.Random(seed_of(root, replication, event.name))
    if isinstance(event, Tournament):
        field = event.entrants.draw(rng, event.structure.max_entrants)
        late = min(round(event.late_share * field), field - MINIMUM_FIELD)
        arrivals = sorted(event.late_curve.times(late, late_registration_closes(event.structure), rng))
        return [Draw(event.start_s, field - late, tuple(arrivals), seed_of(root, replication, event.name, "play"))]
    arrivals = event.rate.arrivals(rng)
    seats = event.seats
    return [
        Draw(arrivals[(k + 1) * seats - 1], seats, (), seed_of(root, replication, event.name, "play", k))
        for k in range(len(arrivals) // seats)
    ]


def play(event: Event, draw: Draw, recorder: LoadRecorder) -> Outcome:
    """Play one drawn tournament of ``event`` to its winner, its load counted by ``recorder``."""
    profiles = event.players.profiles(event.reentry_rate if isinstance(event, Tournament) else 0.0)
    dealt: list[tuple[float, Hand]] = []

    def observe(table_id: str, hand: Hand) -> None:
        # Called as a hand is dealt; the driver plays it through before anything else happens,
        # so the previous one is over by now.
        if dealt:
            recorder.hand(*dealt.pop())
        dealt.append((draw.start_s + tournament.now, hand))

    tournament = AcceleratedTournament(
        event.structure, entrants=draw.entrants, late_entrants=len(draw.late_arrivals),
        late_arrivals=draw.late_arrivals, seed=draw.seed, profiles=profiles, dealing=event.dealing, observe=observe,
        tournament_id=event.name,
    )
    result = tournament.run()
    if dealt:
        recorder.hand(*dealt.pop())
    recorder.timeline(draw.start_s, result.timeline)
    return Outcome(
        start_s=draw.start_s, duration_s=result.duration_s, players=draw.entrants + len(draw.late_arrivals),
        entries=result.entries, prize_pool=result.prize_pool, hands=result.hands,
        chips_conserved=result.chips_conserved,
    )


def play_event(event: Event, root: int, replication: int) -> EventRun:
    """Every tournament of ``event`` in ``replication``: the work of one Ray task."""
    wall, cpu = time.perf_counter(), time.process_time()
    recorder = LoadRecorder()
    outcomes = tuple(play(event, draw, recorder) for draw in draws(event, root, replication))
    return EventRun(
        name=event.name, replication=replication, game=event.structure.game.code, load=recorder.load(),
        outcomes=outcomes, seconds=time.perf_counter() - wall, cpu_seconds=time.process_time() - cpu,
    )


def replicate(schedule: Schedule, root: int, replication: int) -> list[EventRun]:
    """One whole replication in this process, event by event (what the Ray run computes in parts)."""
    return [play_event(event, root, replication) for event in schedule.events]
