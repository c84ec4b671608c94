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

A satellite's pool buys seats of its target (:func:`~.money.seats_won`), won when the satellite
ends (:attr:`EventRun.seats`): the target of the same replication is played after its satellites
and its field gains their winners on top of its own draw, which stays the one it draws alone.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from tablestorm.services.engine import Hand
from tablestorm.sim.schedule.demand import Load, LoadRecorder
from tablestorm.sim.schedule.forecast import MINIMUM_FIELD
from tablestorm.sim.schedule.money import seats_won
from tablestorm.sim.schedule.spec import Event, Schedule, Tournament, late_registration_closes
from tablestorm.sim.tournament.accelerated import AcceleratedTournament

__all__ = ["Draw", "EventRun", "Outcome", "draws", "play", "play_event", "replicate", "satellites_first", "seed_of"]


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
    seat_entries: int = 0
    """Satellite winners among the entrants and late arrivals."""
    seats_lost: int = 0
    """Satellite seats won after the registration closed (or once the field was full): not played."""


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
    sanity: tuple[tuple[str, str], ...] = ()
    """``(code, message)`` of each reason it does not look like a real event (:mod:`.sanity` of the
    tournament package)."""

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
    seats: tuple[float, ...] = ()
    """A satellite's: when each seat of its target was won (seconds from midnight: its tournaments' ends)."""
    seat_entries: int = 0
    """A satellite's target's: the satellite winners who played."""
    seats_lost: int = 0
    """A satellite's target's: seats won too late to be played (:attr:`Draw.seats_lost`)."""


def draws(event: Event, root: int, replication: int, winners: Sequence[float] = ()) -> list[Draw]:
    """The tournaments ``event`` holds in ``replication`` of a run seeded ``root``; a tournament's
    field gains its satellites' seat ``winners`` (seconds from midnight each won) on top of its draw."""
    rng = random.Random(seed_of(root, replication, event.name))
    if isinstance(event, Tournament):
        field = event.entrants.draw(rng, event.structure.max_entrants)
        late = min(round(event.late_share * field), field - MINIMUM_FIELD)
        closes = late_registration_closes(event.structure)
        arrivals = event.late_curve.times(late, closes, rng)
        room = event.structure.max_entrants - field if event.structure.max_entrants else len(winners)
        usable = sorted(t - event.start_s for t in winners if t <= event.start_s or t - event.start_s < closes)[:room]
        early = sum(1 for t in usable if t <= 0)
        return [Draw(event.start_s, field - late + early, tuple(sorted([*arrivals, *usable[early:]])),
                     seed_of(root, replication, event.name, "play"), seat_entries=len(usable),
                     seats_lost=len(winners) - len(usable))]
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
        chips_conserved=result.chips_conserved, sanity=tuple((f["code"], f["message"]) for f in result.sanity),
    )


def play_event(event: Event, root: int, replication: int, *satellites: EventRun) -> EventRun:
    """Every tournament of ``event`` in ``replication``, its field joined by the seats its
    ``satellites`` (their runs in the same replication) won: the work of one Ray task."""
    wall, cpu = time.perf_counter(), time.process_time()
    recorder = LoadRecorder()
    drawn = draws(event, root, replication, [t for run in satellites for t in run.seats])
    outcomes = tuple(play(event, draw, recorder) for draw in drawn)
    seats: tuple[float, ...] = ()
    if event.satellite is not None:
        seat = event.satellite.seat
        seats = tuple(o.end_s for o in outcomes for _ in range(seats_won(o.prize_pool, event.guarantee, seat)))
    return EventRun(
        name=event.name, replication=replication, game=event.structure.game.code, load=recorder.load(),
        outcomes=outcomes, seconds=time.perf_counter() - wall, cpu_seconds=time.process_time() - cpu,
        seats=seats, seat_entries=sum(d.seat_entries for d in drawn), seats_lost=sum(d.seats_lost for d in drawn),
    )


def replicate(schedule: Schedule, root: int, replication: int) -> list[EventRun]:
    """One whole replication in this process, event by event (what the Ray run computes in parts),
    each satellite before its target; in the schedule's order."""
    runs: dict[str, EventRun] = {}
    for event in satellites_first(schedule):
        runs[event.name] = play_event(event, root, replication,
                                      *(runs[s.name] for s in schedule.satellites_of(event.name)))
    return [runs[event.name] for event in schedule.events]


def satellites_first(schedule: Schedule, events: Sequence[Event] | None = None) -> list[Event]:
    """``events`` (default: the schedule's), stably reordered so that every satellite comes before
    its target: deeper in a chain of satellites first."""

    def depth(event: Event) -> int:
        return 0 if event.satellite is None else 1 + depth(schedule.event(event.satellite.target))

    listed = list(schedule.events if events is None else events)
    return sorted(listed, key=lambda e: -depth(e))
