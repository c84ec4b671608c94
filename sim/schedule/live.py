"""A schedule played live: every tournament on the real services, on the schedule's own clock,
its load sampled by minute of the day as a forecast counts it.

``tablestorm schedule --live`` checks the forecast against the service: after the replications,
:func:`play_live` deploys one :class:`~tablestorm.sim.tournament.live_run.LiveRoom` (table hosts, the
tournament server, player fleets on Ray) for the whole day, opens every tournament there and
registers its field, then starts a wall clock at the first event's start and begins each
tournament when the clock reaches its start.

[decision] The field is the forecast's median (:attr:`~.forecast.EntrantForecast.median`), the
seeds those of replication ``replication`` (:func:`~.replication.draws`; the players as the
accelerated driver makes them, :func:`~tablestorm.sim.tournament.live_run.entrants_of`). A live day checks
the forecast's model of play (think times, the tables' pace, the service) against the service;
the entrant forecast is the operator's belief, which one day cannot check. A day that also drew
its field would be one more replication, inside a p10-p90 band at about 80% of its minutes when
the model is exact: the criterion would be a coin toss (docs/schedules.md, "Validation").

Live tables and hands are read at every minute of that clock, in the bins of :mod:`.demand`:
the tables at the start of the minute, the hands dealt within it (the tournament server's
``hands_dealt``: a hand counts when the director has it dealt, as the forecast counts it).

What a live run can play is what the forecast's model and the live room share (:func:`live_problems`):
scheduled tournaments whose whole field registers before the start, on tables that deal at once
(``dealing.card_s: 0``; the pause between hands, ``dealing.between_hands_s``, is the tournament
server's before each deal), as a day played once (``recurring: false``), without satellites.
Sit-and-gos on demand, late registrants and satellites' winners would need players arriving on the
clock, which the live room does not do yet.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from tablestorm.sim.cluster.interruption import Interruption, abort_in
from tablestorm.sim.schedule.forecast import field_size
from tablestorm.sim.schedule.replication import draws
from tablestorm.sim.schedule.spec import Schedule, Tournament, clock
from tablestorm.sim.tournament.live_run import LiveRoom, entrants_of

__all__ = ["LiveDay", "LiveMinute", "live_problems", "median_field", "play_live"]

POLL_S = 1.0
"""Seconds between looks at the tournaments between minutes (to see the day end, or a signal)."""
HOSTS = 2
"""Table hosts of the live room (``tablestorm tournament``'s default)."""
FLEETS = 2
"""Player fleets of the live room: every tournament's field is split over them."""
SLACK_S = 300.0
"""The live day is stopped this long after the forecast's last minute with a table, at the latest."""


def live_problems(schedule: Schedule) -> list[str]:
    """Why the live room cannot play ``schedule`` as its forecast models it: each a field path and why."""
    problems = []
    dealing = schedule.events[0].dealing
    if dealing.card_s:
        problems.append(f"dealing.card_s: the live table deals its cards at once; a live run needs 0, got "
                        f"{dealing.card_s:g} (the forecast would model a slower table than the one measured)")
    tournaments = [e for e in schedule.events if isinstance(e, Tournament)]
    for k, event in enumerate(tournaments):
        if event.late_share:
            problems.append(f"tournaments[{k}].late_registration.share: a live run registers every player "
                            "before the start; late registrants are not played live yet")
        if event.satellite is not None:
            problems.append(f"tournaments[{k}].seats_to: a live run registers every field before the day starts; "
                            "satellites' winners are not played live yet")
    if len(tournaments) < len(schedule.events):
        problems.append("sit_and_gos: a live run plays scheduled tournaments only; sit-and-gos started on "
                        "demand are not played live yet")
    if schedule.recurring:
        problems.append("recurring: a live day is played once, from its first start; its forecast must be a single "
                        "day's too (recurring: false), not one whose small hours hold the evening's tail")
    return problems


@dataclass(frozen=True, slots=True)
class LiveMinute:
    """One minute of the live day, counted as :class:`~.demand.LoadRecorder` counts a forecast's."""

    minute: int
    """From midnight."""
    tables: int
    """Live tables at the start of the minute."""
    hands: int
    """Hands dealt within it."""


@dataclass(frozen=True, slots=True)
class LiveDay:
    """What the live day measured."""

    replication: int
    """The replication whose draw was played."""
    minutes: tuple[LiveMinute, ...]
    events: tuple[dict[str, Any], ...]
    """Per tournament: ``name``, ``start``, ``entrants``, ``finished``, ``chips_conserved``,
    ``halted``, ``duration_s``, ``hands``, ``entries``."""
    players: dict[str, Any]
    """What the fleets' players saw (:meth:`LiveRoom.players_report`, first turns left out)."""
    wall_s: float
    """From the first event's start to the end of the last."""
    setup_s: float
    """Deploying the room and registering every field, before the day's clock started."""
    stopped: str | None
    """Why the day stopped before every tournament finished (a signal's name, the time limit), if it did."""
    interrupted: bool
    """Stopped by a signal (SIGINT, SIGTERM)."""

    @property
    def complete(self) -> bool:
        """Every tournament finished with every chip."""
        return self.stopped is None and all(e["finished"] and e["chips_conserved"] for e in self.events)


def median_field(event: Tournament) -> int:
    """The forecast's median field, rounded and kept within the structure's limits as a draw is."""
    return field_size(event.entrants.median, event.structure.max_entrants)


def _tournament_id(k: int, name: str) -> str:
    """A table-id-safe tournament id (``[A-Za-z0-9_.-]``, see ``tablestorm.services.tournament.convert``)."""
    return f"e{k}-" + re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")


@dataclass(slots=True)
class _Live:
    event: Tournament
    tournament_id: str
    seed: int
    entrants: int
    begun: bool = False
    done: bool = False
    dealt: int = 0
    """Hands dealt by the last look."""


def play_live(
    schedule: Schedule,
    *,
    root_seed: int,
    replication: int,
    out: Path,
    limit_s: float,
    stream: TextIO,
    interruption: Interruption | None = None,
) -> LiveDay:
    """Play ``schedule`` live on the connected Ray (each event's median field, the seeds of
    replication ``replication``), stopping ``limit_s`` seconds after the first start at the latest
    (:func:`live_problems` must be empty). The first SIGINT or SIGTERM ends the day where it is,
    what was measured kept; a second stops at once, nothing but the minutes so far kept."""
    import ray

    problems = live_problems(schedule)
    if problems:
        raise ValueError(problems[0])
    interruption = interruption or Interruption()
    tournaments = sorted((e for e in schedule.events if isinstance(e, Tournament)), key=lambda e: e.start_s)
    room = LiveRoom(ray, out, hosts=HOSTS, fleets=FLEETS, hand_pause_s=tournaments[0].dealing.between_hands_s,
                    longest_clock_s=max(e.structure.clock_seconds for e in tournaments))
    setup = time.monotonic()
    day: list[_Live] = []
    minutes: list[LiveMinute] = []
    wall_s = setup_s = 0.0
    try:
        with interruption.running():
            try:
                room.deploy()
                for k, event in enumerate(tournaments, 1):
                    (draw,) = draws(event, root_seed, replication)
                    live = _Live(event, _tournament_id(k, event.name), draw.seed, median_field(event))
                    field = entrants_of(live.entrants, event.players.profiles(event.reentry_rate), live.seed)
                    room.create(live.tournament_id, event.structure, live.seed, field)
                    room.seat(live.tournament_id, room.register(live.tournament_id))
                    day.append(live)
                setup_s = time.monotonic() - setup
                wall_s, stopped = _play(room, day, minutes, limit_s, stream, interruption)
            except Exception as exc:  # the Abort itself, or wrapped by the native code it interrupted
                if abort_in(exc) is None:
                    raise
                return LiveDay(replication=replication, minutes=tuple(minutes), events=(), players={},
                               wall_s=0.0, setup_s=0.0, stopped=interruption.signal_name or "interrupted",
                               interrupted=True)
        with interruption.shielded("collecting the live day's record"):
            events = tuple(_outcome(room, live) for live in day)
            players = room.players_report()
        players.pop("first_turns")
        return LiveDay(replication=replication, minutes=tuple(minutes), events=events, players=players,
                       wall_s=round(wall_s, 3), setup_s=round(setup_s, 3), stopped=stopped,
                       interrupted=interruption.requested.is_set())
    finally:
        room.teardown(interruption)


def _play(room: LiveRoom, day: Sequence[_Live], minutes: list[LiveMinute], limit_s: float, stream: TextIO,
          interruption: Interruption) -> tuple[float, str | None]:
    """The day on its clock: each tournament begun at its start, the load read at every minute into
    ``minutes``; returns the seconds from the first start and why it stopped early (None: done)."""
    first = int(day[0].event.start_s // 60)
    began = time.monotonic()
    opened: tuple[int, int, int] | None = None
    """The minute under way: its number, its tables, the hands dealt by its start."""

    def close() -> None:
        if opened is not None:
            minute, tables, before = opened
            minutes.append(LiveMinute(minute, tables, sum(live.dealt for live in day) - before))

    minute = first
    while True:
        boundary = began + 60.0 * (minute - first)
        while True:  # until the minute's boundary, looking once a second
            left = boundary - time.monotonic()
            stopped = None
            if interruption.requested.is_set() or (left > 0 and interruption.requested.wait(min(POLL_S, left))):
                stopped = interruption.signal_name or "interrupted"
            elif time.monotonic() - began > limit_s:
                stopped = f"the time limit ({limit_s:g} s)"
            elif left <= 0:
                break
            _look(room, day)
            if stopped is not None or (opened is not None and all(live.done for live in day)):
                close()
                return time.monotonic() - began, stopped
        _look(room, day)  # the hands of the minute that ends here, before anything begins
        close()
        for live in day:
            if not live.begun and live.event.start_s <= 60.0 * minute:
                room.begin(live.tournament_id)
                live.begun = True
        running = [live for live in day if live.begun and not live.done]
        tables = sum(room.status(live.tournament_id)["tables"] for live in running)
        opened = (minute, tables, sum(live.dealt for live in day))
        stream.write(f"live {clock(minute)} · {len(running)} running · {tables} tables\n")
        stream.flush()
        minute += 1


def _look(room: LiveRoom, day: Sequence[_Live]) -> None:
    """Read each running tournament's hands dealt and whether it is over."""
    for live in day:
        if live.begun and not live.done:
            status = room.status(live.tournament_id)
            live.dealt = status["hands_dealt"]
            live.done = status["status"] == "finished" or status["halted"] is not None


def _outcome(room: LiveRoom, live: _Live) -> dict[str, Any]:
    """One tournament's record; its duration from its start (None: it never began)."""
    result = room.result(live.tournament_id, live.seed)
    summary, started = result["summary"], result["started_s"]
    return {
        "name": live.event.name, "start": clock(int(live.event.start_s // 60)), "entrants": live.entrants,
        "finished": result["finished"], "chips_conserved": summary.chips_conserved, "halted": result["halted"],
        "duration_s": None if started is None else round(summary.duration_s - started, 3), "hands": summary.hands,
        "entries": summary.entries,
    }
