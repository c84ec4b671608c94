"""The tournament structure file: the game, the stacks, the levels and the optional extras (TOURN-1).

One YAML file per tournament, shared by the whole team (example files in ``sim/tournaments/``;
every key, its type, default and constraints in docs/tournament.md, *Structure files*)::

    name: Seven Card Stud MTT
    game: 7stud                         # required: 7stud | 7stud8 | 5stud | 7a5draw
    betting: fixed_limit                # fixed_limit | pot_limit | no_limit (7a5draw only)
    seats: 8                            # per table (0 or omitted: the game's maximum)
    starting_stack: 3000                # required: chips per entry (also the re-entry stack)
    buy_in: 100                         # money per entry, the prize pool's unit
    clock_seconds: 30                   # action clock (CLOCK-1)
    max_entrants: 0                     # 0 = unlimited; a sit-and-go starts when full
    levels:                             # required, in play order: play levels and breaks
      - {duration_s: 600, ante: 5, bring_in: 10, small_bet: 40, big_bet: 80}
      - {break_s: 300}
    late_registration: {until_level: 6}
    reentry: {max_entries: 2}
    rebuys: {until_level: 4, threshold: 0, max_per_player: 3, stack: 3000, cost: 100}
    addon: {after_level: 4, stack: 5000, cost: 100}
    payouts: {percent_paid: 15}         # or {table: [50, 30, 20]}

Parsing (:func:`structure_from_mapping`; ``tablestorm.sim.tournament.structure_file`` reads the file)
checks types and names and rejects unknown keys; the dataclasses check what the values mean when
they are built. Either way a bad value raises a :class:`~tablestorm.services.fields.FieldError` naming the field's
path (``levels[3].small_bet: ...``). Play levels are numbered from 1 and breaks are not counted:
``until_level`` and ``after_level`` name play levels.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Final

from tablestorm.services.engine import VARIANTS, Stakes, Structure, TableOptions, Variant
from tablestorm.services.fields import FieldError, mapping, number

__all__ = [
    "LEVEL_KEYS",
    "SECTION_KEYS",
    "STRUCTURE_KEYS",
    "AddOn",
    "LateRegistration",
    "Level",
    "Payouts",
    "Rebuys",
    "Reentry",
    "TournamentStructure",
    "structure_from_mapping",
]

STUD_STAKES = ("ante", "bring_in", "small_bet", "big_bet")
BLINDS = ("small_blind", "big_blind")
LIMIT_BETS = ("small_bet", "big_bet")


@dataclass(frozen=True, slots=True)
class Level:
    """One level: play at ``stakes`` for ``duration_s`` seconds, or a break (``stakes`` None)."""

    duration_s: float
    stakes: Stakes | None = None

    @property
    def is_break(self) -> bool:
        return self.stakes is None


@dataclass(frozen=True, slots=True)
class LateRegistration:
    until_level: int
    """Registration stays open until the end of this play level (TOURN-10)."""


@dataclass(frozen=True, slots=True)
class Reentry:
    max_entries: int = 1
    """Entries per player, the first included (1: no re-entry); only while late registration is open."""


@dataclass(frozen=True, slots=True)
class Rebuys:
    until_level: int
    """The rebuy period ends with this play level."""
    stack: int
    cost: int
    threshold: int = 0
    """A player at or below this many chips may rebuy (TOURN-10)."""
    max_per_player: int = 1
    """Rebuys per player, over all their entries."""


@dataclass(frozen=True, slots=True)
class AddOn:
    after_level: int
    """Taken in the break after this play level or, with no break there, before the player's
    table deals its first hand of the next level; once per entry (TOURN-10)."""
    stack: int
    cost: int


@dataclass(frozen=True, slots=True)
class Payouts:
    percent_paid: float = 15.0
    table: tuple[float, ...] | None = None
    """Explicit percents by place (index 0: the winner), non-increasing, summing to 100."""

    def __post_init__(self) -> None:
        if not 0 < self.percent_paid <= 100:
            raise FieldError("payouts.percent_paid", f"must be above 0 and at most 100, got {self.percent_paid}")
        if self.table is not None:
            if not self.table or any(p <= 0 for p in self.table):
                raise FieldError("payouts.table", "expected positive percents by place")
            if any(later > earlier for earlier, later in zip(self.table, self.table[1:], strict=False)):
                raise FieldError("payouts.table", "percents must not increase from one place to the next")
            if not math.isclose(sum(self.table), 100.0, abs_tol=1e-6):
                raise FieldError("payouts.table", f"percents must sum to 100, got {sum(self.table):g}")


@dataclass(frozen=True, slots=True)
class TournamentStructure:
    """A whole tournament's rules (TOURN-1, TOURN-9, TOURN-10); valid once built."""

    game: Variant
    starting_stack: int
    levels: tuple[Level, ...]
    name: str = ""
    betting: Structure = Structure.FIXED_LIMIT
    seats: int = 0
    """Seats per table; 0 means the game's maximum."""
    buy_in: int = 100
    clock_seconds: float = 30.0
    max_entrants: int = 0
    late_registration: LateRegistration | None = None
    reentry: Reentry = field(default_factory=Reentry)
    rebuys: Rebuys | None = None
    addon: AddOn | None = None
    payouts: Payouts = field(default_factory=Payouts)

    def __post_init__(self) -> None:
        game = self.game
        if self.betting not in game.structures:
            offered = ", ".join(sorted(s.value for s in game.structures))
            raise FieldError("betting", f"{game.name} is played {offered}, not {self.betting.value}")
        if self.seats and not 2 <= self.seats <= game.max_players:
            raise FieldError(
                "seats", f"{game.name} seats 2 to {game.max_players} players (0: the most), got {self.seats}"
            )
        _positive(self.starting_stack, "starting_stack")
        if self.buy_in < 0:
            raise FieldError("buy_in", f"must not be negative, got {self.buy_in}")
        if not self.clock_seconds > 0:
            raise FieldError("clock_seconds", f"must be positive, got {self.clock_seconds}")
        if self.max_entrants == 1 or self.max_entrants < 0:
            raise FieldError("max_entrants", f"0 (unlimited) or at least 2, got {self.max_entrants}")
        if not self.levels:
            raise FieldError("levels", "at least one play level is needed")
        for i, level in enumerate(self.levels):
            if not level.duration_s > 0 or not math.isfinite(level.duration_s):
                key = "break_s" if level.is_break else "duration_s"
                raise FieldError(f"levels[{i}].{key}", "must be a positive number of seconds")
            if level.stakes is not None:
                try:
                    level.stakes.validate(game, self.betting)
                except FieldError as exc:  # the level's own key: levels[i].small_bet
                    raise FieldError(f"levels[{i}].{exc.field.removeprefix('stakes.')}", exc.reason) from None
        plays = self.play_levels
        if not plays:
            raise FieldError("levels", "at least one play level is needed (breaks alone deal no hand)")
        if self.levels[0].is_break:
            raise FieldError("levels[0]", "a tournament starts with a play level, not a break")
        _never_down(self.levels, plays)
        if self.late_registration is not None:
            until = self.late_registration.until_level
            _play_level(until, plays, "late_registration.until_level")
            if plays[until - 1] == len(self.levels) - 1:
                raise FieldError(
                    "late_registration.until_level", f"play level {until} is the last level, which lasts until"
                    " the tournament ends: registration would never close"
                )
        if self.reentry.max_entries < 1:
            raise FieldError("reentry.max_entries", f"at least 1, got {self.reentry.max_entries}")
        if self.reentry.max_entries > 1 and self.late_registration is None:
            raise FieldError(
                "reentry.max_entries", "re-entry is only open during late_registration, which is missing"
            )
        if self.rebuys is not None:
            rebuys = self.rebuys
            _play_level(rebuys.until_level, plays, "rebuys.until_level")
            _positive(rebuys.stack, "rebuys.stack")
            _positive(rebuys.max_per_player, "rebuys.max_per_player")
            for key in ("threshold", "cost"):
                if getattr(rebuys, key) < 0:
                    raise FieldError(f"rebuys.{key}", f"must not be negative, got {getattr(rebuys, key)}")
        if self.addon is not None:
            _play_level(self.addon.after_level, plays, "addon.after_level")
            if self.addon.after_level == len(plays) and not self.levels[-1].is_break:
                raise FieldError(
                    "addon.after_level", f"play level {self.addon.after_level} is the last level:"
                    " no break or level follows it"
                )
            _positive(self.addon.stack, "addon.stack")
            if self.addon.cost < 0:
                raise FieldError("addon.cost", f"must not be negative, got {self.addon.cost}")

    @property
    def seats_per_table(self) -> int:
        return self.seats or self.game.max_players

    @property
    def play_levels(self) -> tuple[int, ...]:
        """Index in :attr:`levels` of each play level: ``play_levels[0]`` is play level 1."""
        return tuple(i for i, level in enumerate(self.levels) if not level.is_break)

    def digest(self) -> str:
        """A short hash of these rules, the same wherever the file that wrote them lives and however
        it was laid out: what a what-if compares to tell a changed structure from a moved file."""
        rules = [(f.name, self.game.code if f.name == "game" else getattr(self, f.name)) for f in fields(self)]
        return hashlib.sha256(repr(rules).encode()).hexdigest()[:16]

    def table_options(self) -> TableOptions:
        """The options every table of the tournament is opened with (the first level's stakes)."""
        first = self.levels[0].stakes
        assert first is not None
        return TableOptions(
            self.game, first, structure=self.betting, clock_seconds=self.clock_seconds,
            max_seats=self.seats_per_table, buy_in=self.starting_stack,
        )


def _positive(value: int, path: str) -> None:
    if value <= 0:
        raise FieldError(path, f"must be positive, got {value}")


RISING = ("big_bet", "big_blind", "ante")
"""The amounts no play level may lower: the pressure on a stack only grows."""


def _never_down(levels: tuple[Level, ...], plays: tuple[int, ...]) -> None:
    """[decision] Refuse a play level that lowers the big bet, the big blind or the ante of the
    play level before it: a typo (a lost zero) in a file the team shares, and a structure whose
    blinds fall lets a tournament outlast its levels."""
    for play, (before, after) in enumerate(itertools.pairwise(plays), 2):
        old, new = levels[before].stakes, levels[after].stakes
        assert old is not None and new is not None
        for key in RISING:
            if getattr(new, key) < getattr(old, key):
                raise FieldError(
                    f"levels[{after}].{key}", f"play level {play} lowers the {key.replace('_', ' ')} to "
                    f"{getattr(new, key)} from play level {play - 1}'s {getattr(old, key)}: it may only stay or rise"
                )


def _play_level(level: int, plays: tuple[int, ...], path: str) -> None:
    if not 1 <= level <= len(plays):
        raise FieldError(path, f"must name a play level between 1 and {len(plays)}, got {level}")


# ----------------------------------------------------------------------------- parsing


_REQUIRED: Any = object()


def _field(spec: Mapping[str, Any], key: str, prefix: str, default: Any, *, integer: bool) -> Any:
    if key not in spec and default is _REQUIRED:
        raise FieldError(f"{prefix}{key}", "required")
    return number(spec.get(key, default), f"{prefix}{key}", integer=integer)


def _int(spec: Mapping[str, Any], key: str, prefix: str = "", default: Any = _REQUIRED) -> int:
    value: int = _field(spec, key, prefix, default, integer=True)
    return value


def _float(spec: Mapping[str, Any], key: str, prefix: str = "", default: Any = _REQUIRED) -> float:
    value: float = _field(spec, key, prefix, default, integer=False)
    return value


def _level(value: Any, path: str, game: Variant, betting: Structure) -> Level:
    if isinstance(value, dict) and "break_s" in value:
        spec = mapping(value, path, {"break_s"})
        return Level(_float(spec, "break_s", f"{path}."))
    if game.is_stud:
        required: tuple[str, ...] = STUD_STAKES
    elif betting is Structure.FIXED_LIMIT:
        required = BLINDS + LIMIT_BETS
    else:
        required = BLINDS
    optional = ("ante",) if not game.is_stud else ()
    spec = mapping(value, path, {"duration_s", *required, *optional})
    amounts = {key: _int(spec, key, f"{path}.") for key in required}
    for key in optional:
        amounts[key] = _int(spec, key, f"{path}.", 0)
    return Level(_float(spec, "duration_s", f"{path}."), Stakes(**{"small_bet": 0, "big_bet": 0, **amounts}))


STRUCTURE_KEYS: Final = (
    "name", "game", "betting", "seats", "starting_stack", "buy_in", "clock_seconds", "max_entrants", "levels",
    "late_registration", "reentry", "rebuys", "addon", "payouts",
)
"""The file's keys, in the order docs/tournament.md documents them."""
SECTION_KEYS: Final = {
    "late_registration": ("until_level",),
    "reentry": ("max_entries",),
    "rebuys": ("until_level", "threshold", "max_per_player", "stack", "cost"),
    "addon": ("after_level", "stack", "cost"),
    "payouts": ("percent_paid", "table"),
}
"""The keys of each section that is a mapping."""
LEVEL_KEYS: Final = ("duration_s", *STUD_STAKES, *BLINDS, "break_s")
"""Every key a level may have: a play level's (which stakes, by game and betting) or a break's."""


def structure_from_mapping(data: Any, source: str = "structure") -> TournamentStructure:
    """Build and validate a structure from parsed YAML; errors start with ``source: <field path>``."""
    try:
        return _structure(data)
    except FieldError as exc:
        raise exc.within(f"{source}: ") from None


def _structure(data: Any) -> TournamentStructure:
    spec = mapping(data, "structure", STRUCTURE_KEYS)
    if "game" not in spec:
        raise FieldError("game", "required")
    code = spec["game"]
    if code not in VARIANTS:
        raise FieldError("game", f"expected one of {', '.join(VARIANTS)}, got {code!r}")
    game = VARIANTS[code]
    betting_name = spec.get("betting", Structure.FIXED_LIMIT.value)
    try:
        betting = Structure(betting_name)
    except ValueError:
        known = ", ".join(s.value for s in Structure)
        raise FieldError("betting", f"expected one of {known}, got {betting_name!r}") from None
    levels = spec.get("levels")
    if not isinstance(levels, list) or not levels:
        raise FieldError("levels", "expected a non-empty list of levels")
    name = spec.get("name", "")
    if not isinstance(name, str | int | float) or isinstance(name, bool):
        raise FieldError("name", f"expected text, got {name!r}")
    starting_stack = _int(spec, "starting_stack")
    buy_in = _int(spec, "buy_in", default=100)
    late = spec.get("late_registration")
    reentry = spec.get("reentry")
    rebuys = spec.get("rebuys")
    addon = spec.get("addon")
    return TournamentStructure(
        game=game,
        starting_stack=starting_stack,
        levels=tuple(_level(level, f"levels[{i}]", game, betting) for i, level in enumerate(levels)),
        name=str(name),
        betting=betting,
        seats=_int(spec, "seats", default=0),
        buy_in=buy_in,
        clock_seconds=_float(spec, "clock_seconds", default=30.0),
        max_entrants=_int(spec, "max_entrants", default=0),
        late_registration=None if late is None else LateRegistration(
            _int(mapping(late, "late_registration", SECTION_KEYS["late_registration"]), "until_level",
                 "late_registration.")
        ),
        reentry=Reentry() if reentry is None else Reentry(
            _int(mapping(reentry, "reentry", SECTION_KEYS["reentry"]), "max_entries", "reentry.")
        ),
        rebuys=None if rebuys is None else _rebuys(rebuys, starting_stack, buy_in),
        addon=None if addon is None else _addon(addon, starting_stack, buy_in),
        payouts=_payouts(spec.get("payouts")),
    )


def _rebuys(value: Any, starting_stack: int, buy_in: int) -> Rebuys:
    spec = mapping(value, "rebuys", SECTION_KEYS["rebuys"])
    return Rebuys(
        until_level=_int(spec, "until_level", "rebuys."),
        stack=_int(spec, "stack", "rebuys.", starting_stack),
        cost=_int(spec, "cost", "rebuys.", buy_in),
        threshold=_int(spec, "threshold", "rebuys.", 0),
        max_per_player=_int(spec, "max_per_player", "rebuys.", 1),
    )


def _addon(value: Any, starting_stack: int, buy_in: int) -> AddOn:
    spec = mapping(value, "addon", SECTION_KEYS["addon"])
    return AddOn(
        after_level=_int(spec, "after_level", "addon."),
        stack=_int(spec, "stack", "addon.", starting_stack),
        cost=_int(spec, "cost", "addon.", buy_in),
    )


def _payouts(value: Any) -> Payouts:
    if value is None:
        return Payouts()
    spec = mapping(value, "payouts", SECTION_KEYS["payouts"])
    if "table" in spec:
        if "percent_paid" in spec:
            raise FieldError("payouts", "give percent_paid or table, not both")
        table = spec["table"]
        if not isinstance(table, list):
            raise FieldError("payouts.table", f"expected a list of percents, got {table!r}")
        percents = tuple(number(p, f"payouts.table[{i}]") for i, p in enumerate(table))
        return Payouts(table=percents)
    return Payouts(percent_paid=_float(spec, "percent_paid", "payouts.", 15.0))
