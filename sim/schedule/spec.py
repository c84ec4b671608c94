"""The schedule file: a day of tournaments, each with its structure, its forecast field and its players.

One YAML file per day (examples in ``sim/schedules/``; every key in docs/schedules.md)::

    name: Online stud and draw day
    players:                                  # the default field of every event
      bots: {strength: 3, calling_station: 1, random: 1}
      think_s: {dist: uniform, min: 1, max: 5}
      sitting_out: 0.02
    dealing: {between_hands_s: 15, card_s: 0.15, action_s: 0}  # the tables' own time (default: online)
    recurring: true                           # the room runs every day: the evening's tail is the small hours'
    tournaments:                              # scheduled multi-table tournaments
      - name: Stud Daily
        start: "18:00"                        # HH:MM from midnight (or minutes)
        structure: ../tournaments/stud-mtt.yaml   # relative to this file
        entrants: {dist: lognormal, median: 180, sigma: 0.3}
        late_registration: {share: 0.3, curve: [4, 2, 1, 1]}
        reentry_rate: 0.2
        guarantee: 16000                      # money the room pays up to when the pool falls short
        fee: 9                                # the room's rake per entry
      - name: Stud Daily Satellite
        start: "16:30"
        structure: ../tournaments/stud-satellite.yaml
        entrants: {dist: lognormal, median: 50, sigma: 0.3}
        seats_to: Stud Daily                  # its pool buys seats of Stud Daily (each its buy-in)
    sit_and_gos:                              # started whenever a table's worth of players waits
      - name: 5 Card Stud SNG
        structure: ../tournaments/5stud-sng.yaml
        arrivals_per_minute: [0.4, 0.3, ...]  # by hour of day: 24 values (or one for all day)
        fee: 1

:func:`load_schedule` reads and checks the whole file before anything runs: a bad value raises a
:class:`~tablestorm.services.fields.FieldError` naming the file and the field's path
(``day.yaml: tournaments[3].entrants.sd: ...``), as scenario and structure files do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

import yaml

from tablestorm.services.director.structure import TournamentStructure
from tablestorm.services.fields import FieldError, mapping
from tablestorm.sim.bots.kinds import BOT_KINDS
from tablestorm.sim.inputs import NON_NEGATIVE, PROBABILITY, Bound, distribution
from tablestorm.sim.schedule.forecast import ENTRANT_KINDS, MINIMUM_FIELD, ArrivalCurve, EntrantForecast, HourlyRate
from tablestorm.sim.schedule.players import Players
from tablestorm.sim.tournament.profiles import ONLINE_DEALING, DealingModel
from tablestorm.sim.tournament.structure_file import load_structure

__all__ = [
    "DEALING_KEYS",
    "ENTRANTS_KEYS",
    "LATE_KEYS",
    "MINUTES_PER_DAY",
    "PLAYERS_KEYS",
    "SCHEDULE_KEYS",
    "SIT_AND_GO_KEYS",
    "TOURNAMENT_KEYS",
    "Event",
    "Satellite",
    "Schedule",
    "SitAndGos",
    "Tournament",
    "clock",
    "day_clock",
    "late_registration_closes",
    "load_schedule",
    "schedule_from_mapping",
]

SCHEDULE_KEYS: Final = ("name", "recurring", "players", "dealing", "tournaments", "sit_and_gos")
"""The keys of a schedule file (docs/schedules.md documents each; a test keeps the two in step)."""
TOURNAMENT_KEYS: Final = ("name", "start", "structure", "entrants", "late_registration", "reentry_rate", "guarantee",
                          "fee", "seats_to", "players")
SIT_AND_GO_KEYS: Final = ("name", "structure", "arrivals_per_minute", "fee", "players")
ENTRANTS_KEYS: Final = ("dist", "value", "mean", "sd", "median", "sigma", "values")
LATE_KEYS: Final = ("share", "curve")
PLAYERS_KEYS: Final = ("bots", "think_s", "sitting_out")
DEALING_KEYS: Final = ("between_hands_s", "card_s", "action_s")

MINUTES_PER_DAY: Final = 24 * 60
FIELD: Final = Bound(minimum=MINIMUM_FIELD)
WHOLE_FIELD: Final = Bound(minimum=MINIMUM_FIELD, integer=True)
MINUTE_OF_DAY: Final = Bound(maximum=24 * 60 - 1, integer=True)


@dataclass(frozen=True, slots=True)
class Satellite:
    """A satellite's prize pool buys seats of another tournament, each worth that one's buy-in."""

    target: str
    """The tournament whose seats it awards (its ``seats_to``)."""
    seat: int
    """What a seat is worth: the target's buy-in."""


@dataclass(frozen=True, slots=True)
class Tournament:
    """A scheduled multi-table tournament: it starts at ``start_s`` with whoever registered."""

    name: str
    start_s: float
    """Seconds from midnight."""
    structure: TournamentStructure
    structure_file: str
    """As written in the schedule (relative to it)."""
    entrants: EntrantForecast
    late_share: float
    """The share of the field that registers after the start, during late registration."""
    late_curve: ArrivalCurve
    reentry_rate: float
    """The share of the field that re-enters when busted while late registration is open."""
    players: Players
    dealing: DealingModel = ONLINE_DEALING
    """The tables' own time (the schedule's ``dealing``: the room's, shared by every event)."""
    guarantee: float | None = None
    """The prize pool the room promises: it pays the difference (the overlay) when entries fall short."""
    fee: float = 0.0
    """The room's rake per entry (re-entries included), on top of the buy-in."""
    satellite: Satellite | None = None
    """Set for a satellite: whose seats its pool buys."""

    @property
    def expected_players(self) -> float:
        return self.entrants.mean

    @property
    def registration_closes_s(self) -> float:
        """Seconds from midnight at which its registration closes: the start, or the end of late registration."""
        return self.start_s + late_registration_closes(self.structure)


@dataclass(frozen=True, slots=True)
class SitAndGos:
    """Sit-and-gos on demand: players arrive at ``rate``, a tournament starts whenever a table is full."""

    name: str
    structure: TournamentStructure
    structure_file: str
    rate: HourlyRate
    players: Players
    dealing: DealingModel = ONLINE_DEALING
    """The tables' own time (the schedule's ``dealing``)."""
    fee: float = 0.0
    """The room's rake per entry."""

    @property
    def seats(self) -> int:
        """Players per sit-and-go: the structure's ``max_entrants``."""
        return self.structure.max_entrants

    @property
    def expected_players(self) -> float:
        return self.rate.daily

    @property
    def guarantee(self) -> None:
        """A sit-and-go's pool is its seats' buy-ins: nothing to guarantee."""
        return None

    @property
    def satellite(self) -> None:
        """Sit-and-gos award no seats of another event."""
        return None


Event = Tournament | SitAndGos


@dataclass(frozen=True, slots=True)
class Schedule:
    """A day of events; every name is unique (seeds are drawn by name, so adding an event to a
    schedule leaves the others' draws as they were)."""

    name: str
    source: str
    """The file it was read from."""
    events: tuple[Event, ...]
    recurring: bool = True
    """The room runs this day every day: each replication's tail past midnight is also its small hours'."""

    @property
    def games(self) -> tuple[str, ...]:
        """The games played (their codes), in the order the schedule first names them."""
        return tuple(dict.fromkeys(e.structure.game.code for e in self.events))

    def event(self, name: str) -> Event:
        """The event called ``name`` (KeyError if none is)."""
        for event in self.events:
            if event.name == name:
                return event
        raise KeyError(name)

    def satellites_of(self, name: str) -> tuple[Tournament, ...]:
        """The satellites whose seats go to the event ``name``."""
        return tuple(e for e in self.events if isinstance(e, Tournament) and e.satellite and e.satellite.target == name)


def clock(minute: int) -> str:
    """``HH:MM`` of a minute from midnight (``25:30`` is 01:30 the next day)."""
    return f"{minute // 60:02d}:{minute % 60:02d}"


def day_clock(minute: int) -> str:
    """``HH:MM`` within the day, ``+1d`` after it for a minute of the next day (``01:30 +1d``): a
    report's clock for a room that runs every day."""
    days, within = divmod(minute, MINUTES_PER_DAY)
    return clock(within) + (f" +{days}d" if days else "")


def late_registration_closes(structure: TournamentStructure) -> float:
    """Seconds from the start at which late registration closes: the end of its last play level."""
    late = structure.late_registration
    if late is None:
        return 0.0
    last = structure.play_levels[late.until_level - 1]
    return sum(level.duration_s for level in structure.levels[: last + 1])


# ----------------------------------------------------------------------------- parsing


def _text(value: Any, path: str) -> str:
    if not isinstance(value, str | int | float) or isinstance(value, bool) or value == "":
        raise FieldError(path, f"expected text, got {value!r}")
    return str(value)


def _start(value: Any, path: str) -> float:
    """``"HH:MM"``, or minutes from midnight (YAML 1.1 reads an unquoted ``18:00`` as 1080)."""
    if isinstance(value, str):
        hh, sep, mm = value.partition(":")
        if not (sep and hh.isdigit() and mm.isdigit() and len(mm) == 2):
            raise FieldError(path, f"expected HH:MM, got {value!r}")
        if not (int(hh) < 24 and int(mm) < 60):
            raise FieldError(path, f"{value!r} is not a time of day (00:00 to 23:59)")
        return 60.0 * (60 * int(hh) + int(mm))
    minutes: int = MINUTE_OF_DAY.check(value, path)
    return 60.0 * minutes


def _entrants(value: Any, path: str) -> EntrantForecast:
    if not isinstance(value, dict):
        return EntrantForecast("fixed", WHOLE_FIELD.check(value, path))
    spec = mapping(value, path, ENTRANTS_KEYS)
    kind = spec.get("dist", "fixed")
    expected = {"fixed": {"value"}, "normal": {"mean", "sd"}, "lognormal": {"median", "sigma"},
                "empirical": {"values"}}
    if kind not in expected:
        raise FieldError(f"{path}.dist", f"expected one of {', '.join(ENTRANT_KINDS)}, got {kind!r}")
    given = set(spec) - {"dist"}
    foreign, missing = sorted(given - expected[kind]), sorted(expected[kind] - given)
    if foreign:
        known = ", ".join(sorted(expected[kind]))
        raise FieldError(f"{path}.{foreign[0]}", f"not a parameter of dist {kind} ({known})")
    if missing:
        raise FieldError(f"{path}.{missing[0]}", f"required by dist {kind}")
    if kind == "fixed":
        return EntrantForecast(kind, WHOLE_FIELD.check(spec["value"], f"{path}.value"))
    if kind == "normal":
        return EntrantForecast(kind, FIELD.check(spec["mean"], f"{path}.mean"),
                               NON_NEGATIVE.check(spec["sd"], f"{path}.sd"))
    if kind == "lognormal":
        return EntrantForecast(kind, FIELD.check(spec["median"], f"{path}.median"),
                               NON_NEGATIVE.check(spec["sigma"], f"{path}.sigma"))
    values = spec["values"]
    if not isinstance(values, list) or not values:
        raise FieldError(f"{path}.values", f"expected a non-empty list of past fields, got {values!r}")
    counts = tuple(WHOLE_FIELD.check(v, f"{path}.values[{i}]") for i, v in enumerate(values))
    return EntrantForecast(kind, values=counts)


def _players(value: Any, path: str, default: Players) -> Players:
    spec = mapping(value, path, PLAYERS_KEYS, optional=True)
    bots = default.bots
    if "bots" in spec:
        given = spec["bots"]
        if isinstance(given, str):
            given = {given: 1.0}
        mix = mapping(given, f"{path}.bots", BOT_KINDS, optional=True)
        bots = {kind: NON_NEGATIVE.check(weight, f"{path}.bots.{kind}") for kind, weight in mix.items()}
        if not any(bots.values()):
            raise FieldError(f"{path}.bots", "at least one bot kind needs a positive weight")
    think = distribution(spec["think_s"], f"{path}.think_s") if "think_s" in spec else default.think
    sitting_out = PROBABILITY.check(spec.get("sitting_out", default.sitting_out), f"{path}.sitting_out")
    if sitting_out >= 1:
        raise FieldError(f"{path}.sitting_out", "must be below 1 (a field always away never finishes a hand)")
    return Players(bots, think, sitting_out)


def _dealing(value: Any, path: str) -> DealingModel:
    """The room's tables: seconds between hands, per card dealt and per action (:class:`DealingModel`)."""
    spec = mapping(value, path, DEALING_KEYS, optional=True)
    return DealingModel(**{
        key: NON_NEGATIVE.check(spec.get(key, getattr(ONLINE_DEALING, key)), f"{path}.{key}") for key in DEALING_KEYS
    })


def _structure(value: Any, path: str, base: Path) -> tuple[TournamentStructure, str]:
    written = _text(value, path)
    try:
        return load_structure(base / written), written
    except FieldError as exc:  # named from the structure file on
        raise exc.within(f"{path}: ") from None


def _late(value: Any, path: str, structure: TournamentStructure, where: str) -> tuple[float, ArrivalCurve]:
    spec = mapping(value, path, LATE_KEYS, optional=True)
    share = PROBABILITY.check(spec.get("share", 0.0), f"{path}.share")
    curve = spec.get("curve", [1.0])
    if not isinstance(curve, list) or not curve:
        raise FieldError(f"{path}.curve", f"expected a non-empty list of weights, got {curve!r}")
    weights = tuple(NON_NEGATIVE.check(w, f"{path}.curve[{i}]") for i, w in enumerate(curve))
    if not any(weights):
        raise FieldError(f"{path}.curve", "at least one weight must be positive")
    if share and structure.late_registration is None:
        raise FieldError(f"{path}.share", f"the structure ({where}) has no late_registration")
    return share, ArrivalCurve(weights)


def _tournament(value: Any, path: str, base: Path, players: Players, dealing: DealingModel) -> Tournament:
    spec = mapping(value, path, TOURNAMENT_KEYS, optional=True)
    for key in ("name", "start", "structure", "entrants"):
        if key not in spec:
            raise FieldError(f"{path}.{key}", "required")
    structure, written = _structure(spec["structure"], f"{path}.structure", base)
    share, curve = _late(spec.get("late_registration"), f"{path}.late_registration", structure, written)
    reentry = PROBABILITY.check(spec.get("reentry_rate", 0.0), f"{path}.reentry_rate")
    if reentry and structure.reentry.max_entries < 2:
        raise FieldError(f"{path}.reentry_rate", f"the structure ({written}) allows no re-entry (reentry.max_entries)")
    guarantee = spec.get("guarantee")
    seats_to = spec.get("seats_to")
    return Tournament(
        name=_text(spec["name"], f"{path}.name"),
        start_s=_start(spec["start"], f"{path}.start"),
        structure=structure,
        structure_file=written,
        entrants=_entrants(spec["entrants"], f"{path}.entrants"),
        late_share=share,
        late_curve=curve,
        reentry_rate=reentry,
        players=_players(spec.get("players"), f"{path}.players", players),
        dealing=dealing,
        guarantee=None if guarantee is None else NON_NEGATIVE.check(guarantee, f"{path}.guarantee"),
        fee=NON_NEGATIVE.check(spec.get("fee", 0.0), f"{path}.fee"),
        satellite=None if seats_to is None else Satellite(_text(seats_to, f"{path}.seats_to"), seat=0),
    )


def _sit_and_gos(value: Any, path: str, base: Path, players: Players, dealing: DealingModel) -> SitAndGos:
    spec = mapping(value, path, SIT_AND_GO_KEYS, optional=True)
    for key in ("name", "structure", "arrivals_per_minute"):
        if key not in spec:
            raise FieldError(f"{path}.{key}", "required")
    structure, written = _structure(spec["structure"], f"{path}.structure", base)
    if structure.max_entrants < MINIMUM_FIELD:
        raise FieldError(f"{path}.structure", f"{written} sets no max_entrants: a sit-and-go starts when full")
    if structure.late_registration is not None:
        raise FieldError(f"{path}.structure", f"{written} has late registration: a sit-and-go starts full")
    rates = spec["arrivals_per_minute"]
    where = f"{path}.arrivals_per_minute"
    if not isinstance(rates, list):
        rates = [rates] * 24
    if len(rates) != 24:
        raise FieldError(where, f"expected one rate or 24 (one per hour from 00:00), got {len(rates)}")
    per_minute = tuple(NON_NEGATIVE.check(r, f"{where}[{h}]") for h, r in enumerate(rates))
    if not any(per_minute):
        raise FieldError(where, "at least one hour needs arrivals")
    return SitAndGos(
        name=_text(spec["name"], f"{path}.name"),
        structure=structure,
        structure_file=written,
        rate=HourlyRate(per_minute),
        players=_players(spec.get("players"), f"{path}.players", players),
        dealing=dealing,
        fee=NON_NEGATIVE.check(spec.get("fee", 0.0), f"{path}.fee"),
    )


def _satellites(tournaments: Sequence[Tournament], series: Sequence[SitAndGos]) -> list[Tournament]:
    """``tournaments`` with each satellite's seat worth its target's buy-in, once every ``seats_to``
    names a tournament that is still registering when the satellite starts, and no chain loops."""
    by_name = {t.name: t for t in tournaments}
    resolved = []
    for k, event in enumerate(tournaments):
        if event.satellite is None:
            resolved.append(event)
            continue
        path, name = f"tournaments[{k}].seats_to", event.satellite.target
        target = by_name.get(name)
        if target is None:
            kind = "a sit-and-go series" if any(s.name == name for s in series) else "not a tournament of the schedule"
            raise FieldError(path, f"{name!r} is {kind}: seats go to a scheduled tournament")
        chain = [event.name]
        while target is not None and target.name not in chain:
            chain.append(target.name)
            target = by_name[target.satellite.target] if target.satellite else None
        if target is not None:
            raise FieldError(path, f"the seats go round in a loop: {' -> '.join([*chain, target.name])}")
        target = by_name[name]
        if target.structure.buy_in <= 0:
            raise FieldError(path, f"{name!r} has no buy-in ({target.structure_file}): a seat would be worth nothing")
        if event.start_s >= target.registration_closes_s:
            closes, starts = (clock(round(s / 60)) for s in (target.registration_closes_s, event.start_s))
            raise FieldError(path, f"{name!r} closes its registration at {closes}, before this satellite starts "
                             f"({starts})")
        resolved.append(replace(event, satellite=Satellite(name, target.structure.buy_in)))
    return resolved




def schedule_from_mapping(data: Any, source: str, base: Path) -> Schedule:
    """Build and check a schedule from parsed YAML; structure files are read relative to ``base``;
    errors start with ``source: <field path>``."""
    if not isinstance(data, dict):
        raise FieldError(source, f"expected a mapping of {', '.join(SCHEDULE_KEYS)}, got {type(data).__name__}")
    try:
        return _schedule(data, source, base)
    except FieldError as exc:
        raise exc.within(f"{source}: ") from None


def _listed(spec: dict[str, Any], key: str) -> list[Any]:
    listed = spec.get(key) or []
    if not isinstance(listed, list):
        raise FieldError(key, f"expected a list, got {type(listed).__name__}")
    return listed


def _schedule(data: dict[str, Any], source: str, base: Path) -> Schedule:
    spec = mapping(data, "schedule", SCHEDULE_KEYS)
    players = _players(spec.get("players"), "players", Players())
    dealing = _dealing(spec.get("dealing"), "dealing")
    recurring = spec.get("recurring", True)
    if not isinstance(recurring, bool):
        raise FieldError("recurring", f"expected true or false, got {recurring!r}")
    tournaments = [_tournament(item, f"tournaments[{i}]", base, players, dealing)
                   for i, item in enumerate(_listed(spec, "tournaments"))]
    series = [_sit_and_gos(item, f"sit_and_gos[{i}]", base, players, dealing)
              for i, item in enumerate(_listed(spec, "sit_and_gos"))]
    events: list[Event] = [*tournaments, *series]
    if not events:
        raise FieldError("tournaments", "a schedule needs at least one tournament or sit_and_gos entry")
    names = [e.name for e in events]
    for name in names:
        if names.count(name) > 1:
            raise FieldError("name", f"{name!r} is used twice; every event needs its own name")
    return Schedule(name=_text(spec.get("name", Path(source).stem), "name"), source=source,
                    events=(*_satellites(tournaments, series), *series), recurring=recurring)


def load_schedule(path: str | Path) -> Schedule:
    """Read and check a schedule file and every structure it names."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise FieldError(str(path), f"cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise FieldError(str(path), f"not valid YAML: {exc}") from None
    return schedule_from_mapping(data, str(path), path.parent)

