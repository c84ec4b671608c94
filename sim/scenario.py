"""Load scenarios: what `tablestorm load` runs, from a YAML file and command-line overrides.

A scenario names the game mix (each game with its stakes, structure, seats per table and clock),
the bot mix and their think times, the load shape (a closed model of staged bot counts, like
Locust stages or k6 ``ramping-vus``, or an open model of players arriving at a rate), the run
length and the thresholds that gate a pipeline. Every field has a default, so an empty file is a
valid (small) scenario; every bad value raises :class:`ScenarioError` naming the field's path.
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import yaml

from services.engine.variants import VARIANTS, Stakes, Structure, TableOptions, variant_named

from .thresholds import parse as parse_threshold

BOT_KINDS = ("random", "calling_station", "maniac", "shover", "sleeper", "flaky", "strength")
"""random-legal, calling station, maniac (hits raise caps), short-stack shover (side pots),
sleeper (lets the clock run: CLOCK-2), flaky (drops and resumes its stream), hand-strength."""

DEFAULT_BOT_MIX = {kind: 1.0 for kind in BOT_KINDS}

K = TypeVar("K")


class ScenarioError(ValueError):
    """A scenario value that cannot work; the message starts with the field's path."""


@dataclass(frozen=True, slots=True)
class Distribution:
    """Seconds drawn per use: ``fixed``, ``uniform`` (min..max) or ``exponential`` (mean)."""

    kind: str = "fixed"
    value: float = 0.0
    low: float = 0.0
    high: float = 0.0

    def sample(self, rng: random.Random) -> float:
        if self.kind == "uniform":
            return rng.uniform(self.low, self.high)
        if self.kind == "exponential":
            return rng.expovariate(1.0 / self.value) if self.value > 0 else 0.0
        return self.value

    @property
    def mean(self) -> float:
        return (self.low + self.high) / 2 if self.kind == "uniform" else self.value


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
    think: Distribution = Distribution("uniform", 0.0, 0.05, 0.3)
    stages: tuple[Stage, ...] = ()
    """Closed model: the bot count ramps linearly to each stage's target over its duration."""
    arrival_rate: float = 0.0
    """Open model: new players per second (each plays ``session`` seconds, then leaves)."""
    session: Distribution = Distribution("exponential", 60.0)
    hosts: int = 2
    fleets: int = 2
    thresholds: tuple[str, ...] = ()
    seed: int | None = None

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


def apportion(weights: Mapping[K, float], count: int, rng: random.Random) -> list[K]:
    """``count`` keys of ``weights`` in their proportions (largest remainders), shuffled by ``rng``."""
    total = sum(weights.values())
    shares = {k: count * w / total for k, w in weights.items() if w > 0}
    keys = [k for k, share in shares.items() for _ in range(int(share))]
    by_remainder = sorted(shares, key=lambda k: shares[k] - int(shares[k]), reverse=True)
    keys += by_remainder[: count - len(keys)]
    rng.shuffle(keys)
    return keys


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


# ----------------------------------------------------------------------------- parsing


def _number(value: Any, path: str, *, minimum: float = 0.0, integer: bool = False) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ScenarioError(f"{path}: expected a number, got {value!r}")
    if integer and (not float(value).is_integer()):
        raise ScenarioError(f"{path}: expected a whole number, got {value!r}")
    if not math.isfinite(value) or value < minimum:
        raise ScenarioError(f"{path}: must be at least {minimum}, got {value!r}")
    return int(value) if integer else float(value)


def _mapping(value: Any, path: str, allowed: set[str]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ScenarioError(f"{path}: expected a mapping, got {type(value).__name__}")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise ScenarioError(f"{path}.{unknown[0]}: unknown field (known: {', '.join(sorted(allowed))})")
    return value


def _distribution(value: Any, path: str) -> Distribution:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Distribution("fixed", _number(value, path))
    spec = _mapping(value, path, {"dist", "value", "mean", "min", "max"})
    kind = spec.get("dist", "fixed")
    if kind == "fixed":
        return Distribution("fixed", _number(spec.get("value", 0.0), f"{path}.value"))
    if kind == "exponential":
        return Distribution("exponential", _number(spec.get("mean", 1.0), f"{path}.mean"))
    if kind == "uniform":
        low = _number(spec.get("min", 0.0), f"{path}.min")
        high = _number(spec.get("max", 1.0), f"{path}.max")
        if high < low:
            raise ScenarioError(f"{path}.max: must not be below {path}.min")
        return Distribution("uniform", (low + high) / 2, low, high)
    raise ScenarioError(f"{path}.dist: expected fixed, uniform or exponential, got {kind!r}")


def _game(value: Any, path: str) -> GameSpec:
    spec = _mapping(value, path, {"game", "weight", "structure", "small_bet", "seats", "buy_in_big_bets"})
    game = spec.get("game", "7stud")
    if game not in VARIANTS:
        raise ScenarioError(f"{path}.game: unknown game {game!r} (known: {', '.join(VARIANTS)})")
    structure_name = spec.get("structure", "fixed_limit")
    try:
        structure = Structure(structure_name)
    except ValueError:
        known = ", ".join(s.value for s in Structure)
        raise ScenarioError(
            f"{path}.structure: unknown structure {structure_name!r} (known: {known})"
        ) from None
    variant = VARIANTS[game]
    if structure not in variant.structures:
        offered = ", ".join(sorted(s.value for s in variant.structures))
        raise ScenarioError(f"{path}.structure: {variant.name} is played {offered}, not {structure.value}")
    seats = _number(spec.get("seats", 0), f"{path}.seats", integer=True)
    if seats and not 2 <= seats <= variant.max_players:
        raise ScenarioError(
            f"{path}.seats: {variant.name} seats 2 to {variant.max_players} players (0: the most), got {seats}"
        )
    result = GameSpec(
        game=game,
        weight=_number(spec.get("weight", 1.0), f"{path}.weight"),
        structure=structure,
        small_bet=_number(spec.get("small_bet", 10), f"{path}.small_bet", minimum=2, integer=True),
        seats=seats,
        buy_in_big_bets=_number(spec.get("buy_in_big_bets", 0), f"{path}.buy_in_big_bets", integer=True),
    )
    try:
        result.table_options(1.0)
    except ValueError as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    return result


_FIELDS = {
    "name", "duration_s", "games", "clock_seconds", "bots", "bot_mix", "think_s", "stages",
    "arrival_rate", "session_s", "hosts", "fleets", "thresholds", "seed",
}


def from_mapping(data: Any, source: str = "scenario") -> Scenario:
    """Build and validate a scenario from parsed YAML."""
    spec = _mapping(data, source, _FIELDS)
    s = Scenario()
    games = spec.get("games")
    if games is not None:
        if not isinstance(games, list) or not games:
            raise ScenarioError(f"{source}.games: expected a non-empty list")
        s = replace(s, games=tuple(_game(g, f"{source}.games[{i}]") for i, g in enumerate(games)))
        if not any(g.weight > 0 for g in s.games):
            raise ScenarioError(f"{source}.games: at least one game needs a positive weight")
    mix = _mapping(spec.get("bot_mix"), f"{source}.bot_mix", set(BOT_KINDS))
    if mix:
        weights = {k: _number(v, f"{source}.bot_mix.{k}") for k, v in mix.items()}
        if not any(weights.values()):
            raise ScenarioError(f"{source}.bot_mix: at least one bot kind needs a positive weight")
        s = replace(s, bot_mix=weights)
    stages = spec.get("stages") or []
    if not isinstance(stages, list):
        raise ScenarioError(f"{source}.stages: expected a list of {{duration_s, bots}}")
    parsed_stages = []
    for i, stage in enumerate(stages):
        st = _mapping(stage, f"{source}.stages[{i}]", {"duration_s", "bots"})
        parsed_stages.append(Stage(
            _number(st.get("duration_s", 0), f"{source}.stages[{i}].duration_s"),
            _number(st.get("bots", 0), f"{source}.stages[{i}].bots", integer=True),
        ))
    thresholds = spec.get("thresholds") or []
    if not isinstance(thresholds, list) or not all(isinstance(t, str) for t in thresholds):
        raise ScenarioError(f"{source}.thresholds: expected a list of strings like 'p99_ms<100'")
    for i, expression in enumerate(thresholds):
        try:
            parse_threshold(expression)
        except ValueError as exc:
            raise ScenarioError(f"{source}.thresholds[{i}]: {exc}") from None
    name = spec.get("name", s.name)
    if not isinstance(name, str | int | float) or isinstance(name, bool):
        raise ScenarioError(f"{source}.name: expected a string, got {name!r}")
    seed = spec.get("seed")
    s = replace(
        s,
        name=str(name),
        duration_s=_number(spec.get("duration_s", s.duration_s), f"{source}.duration_s", minimum=1),
        clock_seconds=_number(
            spec.get("clock_seconds", s.clock_seconds), f"{source}.clock_seconds", minimum=0.05
        ),
        bots=_number(spec.get("bots", s.bots), f"{source}.bots", integer=True),
        think=_distribution(spec["think_s"], f"{source}.think_s") if "think_s" in spec else s.think,
        stages=tuple(parsed_stages),
        arrival_rate=_number(spec.get("arrival_rate", 0.0), f"{source}.arrival_rate"),
        session=_distribution(spec["session_s"], f"{source}.session_s") if "session_s" in spec else s.session,
        hosts=_number(spec.get("hosts", s.hosts), f"{source}.hosts", minimum=1, integer=True),
        fleets=_number(spec.get("fleets", s.fleets), f"{source}.fleets", minimum=1, integer=True),
        thresholds=tuple(thresholds),
        seed=None if seed is None else _number(seed, f"{source}.seed", integer=True),
    )
    if s.stages and s.open_model:
        raise ScenarioError(
            f"{source}.stages: a scenario uses stages (closed model) or arrival_rate (open), not both"
        )
    if not s.open_model and s.peak_bots < 1:
        field_name = "stages" if s.stages else "bots"
        raise ScenarioError(f"{source}.{field_name}: a run needs at least one bot at some point")
    return s


def load(path: str | Path) -> Scenario:
    """Read a scenario file; errors name the file and the field."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{path}: not valid YAML: {exc}") from None
    return from_mapping(data, str(path))
