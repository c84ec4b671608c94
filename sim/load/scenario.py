"""Load scenarios: what `tablestorm load` runs, from a YAML file and command-line overrides.

A scenario names the game mix (each game with its stakes, structure, seats per table and clock),
the bot mix and their think times, the load shape (a closed model of staged bot counts, like
Locust stages or k6 ``ramping-vus``, or an open model of players arriving at a rate), the run
length and the thresholds that gate a pipeline. Every field has a default, so an empty file is a
valid (small) scenario; every bad value raises a :class:`~tablestorm.services.fields.FieldError` naming the
field's path.
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import yaml

from tablestorm.services.engine.variants import VARIANTS, Stakes, Structure, TableOptions, variant_named
from tablestorm.services.fields import FieldError, mapping
from tablestorm.services.table.convert import MAX_CLOCK_SECONDS
from tablestorm.sim.bots.kinds import BOT_KINDS
from tablestorm.sim.distributions import Distribution
from tablestorm.sim.inputs import COUNT, NON_NEGATIVE, SEED, WHOLE, Bound, apportion, distribution
from tablestorm.sim.load.thresholds import parse as parse_threshold
from tablestorm.sim.rooms.registry import RoomChoice

DEFAULT_BOT_MIX = {kind: 1.0 for kind in BOT_KINDS}


@dataclass(frozen=True, slots=True)
class GameSpec:
    game: str = "7stud"
    weight: float = 1.0
    structure: Structure = Structure.FIXED_LIMIT
    small_bet: int = 10
    seats: int = 0
    """Seats per table (0 = the game's maximum)."""
    buy_in_big_bets: int = 0
    """Posted buy-in in big bets, big blinds in pot and no limit (0 = the table default of 100)."""

    def table_options(self, clock_seconds: float) -> TableOptions:
        options = TableOptions(
            variant_named(self.game), Stakes.default(self.small_bet), structure=self.structure,
            clock_seconds=clock_seconds, max_seats=self.seats,
        )
        return replace(options, buy_in=self.buy_in_big_bets * options.big_unit)


@dataclass(frozen=True, slots=True)
class Stage:
    duration_s: float
    bots: int


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str = "default"
    duration_s: float = 30.0
    games: tuple[GameSpec, ...] = (GameSpec(),)
    clock_seconds: float = 2.0
    bots: int = 200
    bot_mix: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_BOT_MIX))
    think: Distribution = Distribution("uniform", 0.175, 0.05, 0.3)
    """Uniform between 0.05 and 0.3 s (``value`` is the mean, as the parser sets it)."""
    stages: tuple[Stage, ...] = ()
    """Closed model: the bot count ramps linearly to each stage's target over its duration."""
    arrival_rate: float = 0.0
    """Open model: new players per second (each plays ``session`` seconds, then leaves)."""
    session: Distribution = Distribution("exponential", 60.0)
    hosts: int = 2
    fleets: int = 2
    thresholds: tuple[str, ...] = ()
    seed: int | None = None
    room: RoomChoice = field(default_factory=RoomChoice)
    """The room adapter the bots talk through, and its options (docs/rooms.md)."""

    @property
    def open_model(self) -> bool:
        return self.arrival_rate > 0

    def target_bots(self, elapsed: float) -> int:
        """Closed model: bots that should be online ``elapsed`` seconds into the run."""
        if not self.stages:
            return self.bots
        start, level = 0.0, 0
        for stage in self.stages:
            if elapsed < start + stage.duration_s:
                fraction = (elapsed - start) / stage.duration_s if stage.duration_s else 1.0
                return round(level + (stage.bots - level) * fraction)
            start, level = start + stage.duration_s, stage.bots
        return level

    @property
    def peak_bots(self) -> int:
        if self.open_model:
            return math.ceil(self.arrival_rate * self.session.mean * 1.5) + 8
        return max(s.bots for s in self.stages) if self.stages else self.bots

    def stages_run(self, elapsed: float) -> list[int]:
        """Closed model: the indexes of the stages that had begun ``elapsed`` seconds into the run."""
        begun, start = [], 0.0
        for index, stage in enumerate(self.stages):
            if start < elapsed:
                begun.append(index)
            start += stage.duration_s
        return begun

    def resolved(self) -> dict[str, Any]:
        """The scenario as it ran (file, defaults and flags merged), JSON-safe, for summary.json."""
        return asdict(self, dict_factory=lambda items: {k: _plain(v) for k, v in items})

    def bot_kinds(self, count: int, rng: random.Random) -> list[str]:
        """``count`` bot kinds in the mix's proportions (largest remainders, then shuffled)."""
        return apportion(self.bot_mix, count, rng)


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


# ----------------------------------------------------------------------------- parsing

DURATION_S: Final = Bound(minimum=1)
"""A run lasts at least a second: the timeline ticks once a second."""
CLOCK_SECONDS: Final = Bound(minimum=0.05, maximum=MAX_CLOCK_SECONDS)
"""CLOCK-1: the action clock, from a twentieth of a second (load tests shorten it) to the table
service's own limit."""
SMALL_BET: Final = Bound(minimum=2, integer=True)
"""The smallest small bet whose default stakes (STUD-3, DRAW-2) are whole chips."""

SCENARIO_KEYS: Final = (
    "name", "duration_s", "games", "clock_seconds", "bots", "bot_mix", "think_s", "stages",
    "arrival_rate", "session_s", "hosts", "fleets", "thresholds", "seed", "room",
)
"""The keys of a scenario file (docs/scenarios.md documents each; a test keeps the two in step)."""
GAME_KEYS: Final = ("game", "weight", "structure", "small_bet", "seats", "buy_in_big_bets")
STAGE_KEYS: Final = ("duration_s", "bots")


def _inner(path: str, key: str) -> str:
    """Where a game's key is: ``path.key`` in a file; the flag itself (``--game``) when a flag set it."""
    return path if path.startswith("--") else f"{path}.{key}"


def _game(value: Any, path: str) -> GameSpec:
    spec = mapping(value, path, GAME_KEYS, optional=True)
    game = spec.get("game", "7stud")
    if game not in VARIANTS:
        raise FieldError(_inner(path, "game"), f"unknown game {game!r} (known: {', '.join(VARIANTS)})")
    structure_name = spec.get("structure", "fixed_limit")
    try:
        structure = Structure(structure_name)
    except ValueError:
        known = ", ".join(s.value for s in Structure)
        raise FieldError(
            _inner(path, "structure"), f"unknown structure {structure_name!r} (known: {known})"
        ) from None
    variant = VARIANTS[game]
    if structure not in variant.structures:
        offered = ", ".join(sorted(s.value for s in variant.structures))
        raise FieldError(_inner(path, "structure"), f"{variant.name} is played {offered}, not {structure.value}")
    seats = WHOLE.check(spec.get("seats", 0), _inner(path, "seats"))
    if seats and not 2 <= seats <= variant.max_players:
        raise FieldError(
            _inner(path, "seats"), f"{variant.name} seats 2 to {variant.max_players} players (0: the most), got {seats}"
        )
    result = GameSpec(
        game=game,
        weight=NON_NEGATIVE.check(spec.get("weight", 1.0), _inner(path, "weight")),
        structure=structure,
        small_bet=SMALL_BET.check(spec.get("small_bet", 10), _inner(path, "small_bet")),
        seats=seats,
        buy_in_big_bets=WHOLE.check(spec.get("buy_in_big_bets", 0), _inner(path, "buy_in_big_bets")),
    )
    try:
        result.table_options(1.0)
    except FieldError as exc:
        raise exc.within(f"{path}: ") from None
    return result


def from_mapping(data: Any, source: str = "scenario", flags: Mapping[str, str] | None = None) -> Scenario:
    """Build and validate a scenario from parsed YAML.

    ``flags`` maps the keys that command-line flags set to those flags (``{"duration_s":
    "--duration"}``): a bad value is then reported under the flag's name, not the file's.
    """
    return _scenario(data, source, dict(flags or {}))


def _scenario(data: Any, source: str, origin: dict[str, str]) -> Scenario:
    def where(key: str) -> str:
        return origin.get(key, f"{source}.{key}")

    spec = mapping(data, source, SCENARIO_KEYS, optional=True)
    s = Scenario()
    games = spec.get("games")
    if games is not None:
        if not isinstance(games, list) or not games:
            raise FieldError(where("games"), "expected a non-empty list")
        paths = [origin.get("games", f"{source}.games[{i}]") for i in range(len(games))]
        s = replace(s, games=tuple(_game(g, path) for g, path in zip(games, paths, strict=True)))
        if not any(g.weight > 0 for g in s.games):
            raise FieldError(where("games"), "at least one game needs a positive weight")
    mix = mapping(spec.get("bot_mix"), where("bot_mix"), BOT_KINDS, optional=True)
    if mix:
        weights = {k: NON_NEGATIVE.check(v, f"{where('bot_mix')}.{k}") for k, v in mix.items()}
        if not any(weights.values()):
            raise FieldError(where("bot_mix"), "at least one bot kind needs a positive weight")
        s = replace(s, bot_mix=weights)
    stages = spec.get("stages") or []
    if not isinstance(stages, list):
        raise FieldError(where("stages"), "expected a list of {duration_s, bots}")
    parsed_stages = []
    for i, stage in enumerate(stages):
        path = f"{where('stages')}[{i}]"
        st = mapping(stage, path, STAGE_KEYS, optional=True)
        parsed_stages.append(Stage(
            NON_NEGATIVE.check(st.get("duration_s", 0), f"{path}.duration_s"),
            WHOLE.check(st.get("bots", 0), f"{path}.bots"),
        ))
    thresholds = spec.get("thresholds") or []
    if not isinstance(thresholds, list) or not all(isinstance(t, str) for t in thresholds):
        raise FieldError(where("thresholds"), "expected a list of strings like 'p99_ms<100'")
    for i, expression in enumerate(thresholds):
        try:
            parse_threshold(expression)
        except ValueError as exc:
            raise FieldError(f"{where('thresholds')}[{i}]", str(exc)) from None
    name = spec.get("name", s.name)
    if not isinstance(name, str | int | float) or isinstance(name, bool):
        raise FieldError(where("name"), f"expected a string, got {name!r}")
    seed = spec.get("seed")
    s = replace(
        s,
        name=str(name),
        duration_s=DURATION_S.check(spec.get("duration_s", s.duration_s), where("duration_s")),
        clock_seconds=CLOCK_SECONDS.check(spec.get("clock_seconds", s.clock_seconds), where("clock_seconds")),
        bots=WHOLE.check(spec.get("bots", s.bots), where("bots")),
        think=distribution(spec["think_s"], where("think_s")) if "think_s" in spec else s.think,
        stages=tuple(parsed_stages),
        arrival_rate=NON_NEGATIVE.check(spec.get("arrival_rate", 0.0), where("arrival_rate")),
        session=distribution(spec["session_s"], where("session_s")) if "session_s" in spec else s.session,
        hosts=COUNT.check(spec.get("hosts", s.hosts), where("hosts")),
        fleets=COUNT.check(spec.get("fleets", s.fleets), where("fleets")),
        thresholds=tuple(thresholds),
        seed=None if seed is None else SEED.check(seed, where("seed")),
        room=RoomChoice.parse(spec.get("room"), f"{source}.room", origin.get("room")),
    )
    if s.stages and s.open_model:
        raise FieldError(where("stages"), "a scenario uses stages (closed model) or arrival_rate (open), not both")
    if not s.open_model and s.peak_bots < 1:
        raise FieldError(where("stages" if s.stages else "bots"), "a run needs at least one bot at some point")
    return s


def read(path: str | Path) -> Any:
    """A scenario file's parsed YAML, not yet validated (the command line merges its flags in)."""
    path = Path(path)
    try:
        return yaml.safe_load(path.read_text())
    except OSError as exc:
        raise FieldError(str(path), f"cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise FieldError(str(path), f"not valid YAML: {exc}") from None


def load(path: str | Path) -> Scenario:
    """Read a scenario file; errors name the file and the field."""
    return from_mapping(read(path), str(path))
