"""The structure advisor (``tablestorm structure``): levels that make a tournament last about a
target time, as a structure mapping in the team's YAML schema (``sim/tournaments/``).

**The rule of thumb.** A freezeout ends, give or take, when the big bet reaches a twentieth of the
chips in play (:data:`FINAL_BIG_BET_CHIPS`): the average stack of the last few players is then a
handful of big bets and every hand is all-in or nearly. The first level's big bet is the
starting stack over 75 (:data:`FIRST_BIG_BET_STACKS`), the middle of the 50-100 big bets real
rooms start limit events with (1,500 chips at 10/20 online, 3,000 at 20/40) and close to the
100 big blinds no-limit events start with. Between the two the stakes grow geometrically, one
level per ``level_minutes``, so that the levels and breaks fill the target: the clock time of the
tournament, breaks included (:func:`fitted_growth`). "Big bet" is the big bet in fixed limit and
the big blind in pot and no limit (draw only).

**Past the expected end.** The rule of thumb is a median, not a wall: a field that plays tight
outlasts it. So the levels keep rising at the same growth until the big bet is half the chips in
play (:data:`LAST_BIG_BET_CHIPS`), when no stack survives a lap of the table, and a long run
never outlasts the structure (a last level that lasts hours would make its end the players', not
the structure's). The rule of thumb is checked by playing it: ``tablestorm structure`` (in
``tablestorm.sim.tournament.fitting``) plays the suggestion and passes another ``growth`` to
:func:`suggest` until the played duration meets the target; this module stays pure.

**Denominations.** Each level's unit (the small bet in fixed limit, the big blind in pot and no
limit) is rounded, in log scale, to the nearest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k
(whole chips only: 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 25, ...), the steps rooms print; the other
amounts follow the rule book's ratios (docs/rules.md), each rounded to a denomination the same way: big bet twice the
small bet (BET-1), the stud ante a tenth of the small bet (0 below a small bet of 5) and the
bring-in half of it (STUD-3), the draw blinds half the small bet and the small bet (DRAW-2); in
pot and no limit the small blind is half the big blind and the ante a tenth of it, as in the
schema's example level. Rounding is monotone, so the levels never go down (the structure file
refuses a level that does); a growth below the denominations' own step (about 1.2 a level) can
repeat a level's stakes. Every suggestion loads as a structure
(:func:`~tablestorm.services.director.structure.structure_from_mapping`), with the buy-in, the
clock, the entrants' cap and the payouts it was asked for written out.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, fields
from typing import Any, Final

from tablestorm.services.director.structure import Payouts, Reentry, TournamentStructure, structure_from_mapping
from tablestorm.services.engine.variants import Stakes, Structure, Variant, variant_named
from tablestorm.services.fields import FieldError

FIRST_BIG_BET_STACKS = 75
"""The first level's big bet is about the starting stack over this."""

FINAL_BIG_BET_CHIPS = 20
"""The big bet of the level a tournament is expected to end in is about the chips in play over this."""

LAST_BIG_BET_CHIPS = 2
"""The levels keep rising until the big bet is at least the chips in play over this."""

_TENTHS = (10, 15, 20, 25, 30, 40, 50, 60, 80)
DENOMINATIONS: tuple[int, ...] = tuple(
    sorted({tenths * 10**k // 10 for k in range(20) for tenths in _TENTHS if tenths * 10**k % 10 == 0})
)
"""The amounts a level may post: 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100, ..."""

MAX_PLAY_LEVELS = 500
"""The most play levels a suggestion holds, and fits into the target (a month of 1-minute levels is
not a structure): a very slow growth stops rising there, short of half the chips in play."""

_FILE_DEFAULTS: Final[dict[str, Any]] = {
    f.name: f.default for cls in (TournamentStructure, Payouts, Reentry) for f in fields(cls)
}
"""The structure file's own defaults, which a request starts from."""
_REQUEST_FIELDS: Final = {
    "payouts.percent_paid": "percent_paid", "reentry.max_entries": "max_entries",
    "late_registration.until_level": "late_reg_levels",
}
"""The structure file's paths that are named otherwise in a request (the others read alike)."""

MAX_CHIPS = 10**18
"""The most chips a requested tournament may hold (every level then stays within the denominations)."""


@dataclass(frozen=True, slots=True)
class StructureRequest:
    """What the operator asks for: the game, the field, the stack and the time it should take."""

    game: str
    entrants: int
    starting_stack: int
    target_hours: float
    level_minutes: float = 20.0
    betting: str = Structure.FIXED_LIMIT.value
    seats: int = 0
    """Seats per table; 0 means the game's maximum."""
    breaks_every: int = 0
    """A break after every this many play levels (not after the last); 0 means none."""
    break_minutes: float = 5.0
    late_reg_levels: int = 0
    """Late registration open until the end of this play level; 0 means none."""
    max_entries: int = _FILE_DEFAULTS["max_entries"]
    """Entries per player, the first included (re-entry while late registration is open); 1: none."""
    buy_in: int = _FILE_DEFAULTS["buy_in"]
    clock_seconds: float = _FILE_DEFAULTS["clock_seconds"]
    max_entrants: int = _FILE_DEFAULTS["max_entrants"]
    """0: no cap."""
    percent_paid: float = _FILE_DEFAULTS["percent_paid"]
    name: str = ""
    """The tournament's name; empty: the game, the betting, the field and the target."""


@dataclass(frozen=True, slots=True)
class Plan:
    """How a suggestion's levels grow: by ``growth`` a level from the starting stack / 75, the big bet
    about the chips in play / 20 in play level ``expected_end``, ``plays`` play levels in all."""

    growth: float
    expected_end: int
    plays: int


def denomination(amount: float) -> int:
    """The denomination nearest ``amount`` in log scale (ties go up); 1 for anything below 1."""
    if amount <= DENOMINATIONS[0]:
        return DENOMINATIONS[0]
    above = bisect.bisect_left(DENOMINATIONS, amount)
    if above == len(DENOMINATIONS):
        raise ValueError(f"{amount:g} chips is beyond the largest denomination {DENOMINATIONS[-1]}")
    high, low = DENOMINATIONS[above], DENOMINATIONS[above - 1]
    return high if high * low <= amount * amount else low


def fitted_growth(request: StructureRequest) -> float:
    """The growth a level that brings the big bet from the starting stack / 75 to the chips in play
    / 20 in as many levels (with their breaks) as come nearest the target; :class:`FieldError` as
    :func:`suggest`."""
    _validated(request)
    level_s, break_s = _seconds(request)
    final = _chips(request) / FINAL_BIG_BET_CHIPS
    return float((final / _first_big_bet(request)) ** (1 / (_fitted_plays(request, level_s, break_s) - 1)))


def plan(request: StructureRequest, growth: float | None = None) -> Plan:
    """The levels' growth (``growth``, by default :func:`fitted_growth`), the level the rule of
    thumb expects the end in, and how many play levels keep rising past it; :class:`FieldError`
    naming the request's field that cannot work."""
    fitted = fitted_growth(request)  # the request checked
    growth = fitted if growth is None else growth
    if not (math.isfinite(growth) and growth > 1):
        raise ValueError(f"growth: a level's stakes must grow, by more than 1, not {growth:g}")
    first, chips = _first_big_bet(request), _chips(request)
    expected_end = 1 + round(math.log(chips / FINAL_BIG_BET_CHIPS / first) / math.log(growth))
    # the first level at or above half the chips in play (1e-9: a float a hair under a whole level)
    rising = 1 + math.ceil(math.log(chips / LAST_BIG_BET_CHIPS / first) / math.log(growth) - 1e-9)
    plays = min(max(rising, request.late_reg_levels + 1, 2), MAX_PLAY_LEVELS)
    return Plan(growth, min(expected_end, plays), plays)


def suggest(request: StructureRequest, growth: float | None = None) -> dict[str, Any]:
    """The structure mapping (the YAML schema's keys, in its order) for ``request``, its levels
    growing as :func:`plan` says; raises :class:`~tablestorm.services.fields.FieldError` naming the
    :class:`StructureRequest` field that cannot work."""
    variant, structure = _validated(request)
    level_s, break_s = _seconds(request)
    levels_plan = plan(request, growth)
    stack, first = request.starting_stack, _first_big_bet(request)
    levels: list[dict[str, int]] = []
    for number in range(1, levels_plan.plays + 1):
        stakes = _stakes(variant, structure, first * levels_plan.growth ** (number - 1))
        stakes.validate(variant, structure)
        if number == 1 and _big_bet(stakes) > stack / 50:
            raise FieldError(
                "starting_stack", f"{stack} chips is under 50 first-level big bets ({_big_bet(stakes)})"
            )
        levels.append({"duration_s": level_s, **_level_amounts(variant, structure, stakes)})
        if request.breaks_every and number % request.breaks_every == 0 and number < levels_plan.plays:
            levels.append({"break_s": break_s})
    result: dict[str, Any] = {
        "name": request.name or f"{variant.name} {structure.value.replace('_', ' ')}: {request.entrants} entrants, "
        f"about {request.target_hours:g} h",
        "game": variant.code,
        "betting": structure.value,
        "seats": request.seats or variant.max_players,
        "starting_stack": stack,
        "buy_in": request.buy_in,
        "clock_seconds": _plain(request.clock_seconds),
        "max_entrants": request.max_entrants,
        "levels": levels,
    }
    if request.late_reg_levels:
        result["late_registration"] = {"until_level": request.late_reg_levels}
    if request.max_entries != 1:
        result["reentry"] = {"max_entries": request.max_entries}
    result["payouts"] = {"percent_paid": _plain(request.percent_paid)}
    try:
        structure_from_mapping(result, "suggestion")
    except FieldError as exc:  # the request's own field: the buy-in, the clock, the payouts
        path = exc.field.removeprefix("suggestion: ")
        raise FieldError(_REQUEST_FIELDS.get(path, path), exc.reason) from None
    return result


def _seconds(request: StructureRequest) -> tuple[int, int]:
    """A level's and a break's whole seconds, as the file holds them."""
    return round(request.level_minutes * 60), round(request.break_minutes * 60)


def _first_big_bet(request: StructureRequest) -> float:
    """The first level's big bet, before rounding."""
    return request.starting_stack / FIRST_BIG_BET_STACKS


def _chips(request: StructureRequest) -> int:
    """The chips in play, as the request expects them (re-entries not counted)."""
    return request.entrants * request.starting_stack


def _plain(value: float) -> float:
    """A whole number as an int (``30``, not ``30.0``, in the file)."""
    return int(value) if float(value).is_integer() else value


def _validated(request: StructureRequest) -> tuple[Variant, Structure]:
    """The game and betting structure, once the request's game, seats, field, stack and times can work."""
    try:
        variant = variant_named(request.game)
    except ValueError as exc:
        raise FieldError("game", str(exc)) from None
    try:
        structure = Structure(request.betting)
    except ValueError:
        known = ", ".join(s.value for s in Structure)
        raise FieldError("betting", f"unknown betting structure {request.betting!r}; known: {known}") from None
    if structure not in variant.structures:
        offered = ", ".join(sorted(s.value for s in variant.structures))
        raise FieldError("betting", f"{variant.name} is played {offered}, not {structure.value}")
    if request.seats != 0 and not 2 <= request.seats <= variant.max_players:
        raise FieldError("seats", f"{variant.name} seats 2 to {variant.max_players} a table, not {request.seats}")
    if request.entrants < 2:
        raise FieldError("entrants", f"a tournament needs at least 2 entrants, not {request.entrants}")
    if request.starting_stack <= 0:
        raise FieldError("starting_stack", f"must be positive, not {request.starting_stack}")
    if request.entrants * request.starting_stack > MAX_CHIPS:
        raise FieldError("starting_stack", f"entrants x starting stack is over {MAX_CHIPS:.0e} chips")
    if request.max_entrants and request.entrants > request.max_entrants:
        raise FieldError("max_entrants", f"{request.entrants} entrants do not fit in {request.max_entrants}")
    for name in ("target_hours", "level_minutes", "break_minutes"):
        value = getattr(request, name)
        if not math.isfinite(value) or value <= 0:
            raise FieldError(name, f"must be a positive number, not {value:g}")
    return variant, structure


def _fitted_plays(request: StructureRequest, level_s: int, break_s: int) -> int:
    """How many play levels of ``level_s`` seconds, with their breaks, come nearest the target (at
    least 2); the fit is made in the whole seconds the file will hold."""
    for name, whole_seconds in (("level_minutes", level_s), ("break_minutes", break_s)):
        if whole_seconds < 1:
            raise FieldError(name, f"{getattr(request, name):g} minutes is under a second")
    if request.breaks_every < 0:
        raise FieldError("breaks_every", f"must be 0 (no breaks) or more, not {request.breaks_every}")
    target = request.target_hours * 3600
    if target < 2 * level_s:
        raise FieldError(
            "target_hours", f"{request.target_hours:g} h is shorter than two {request.level_minutes:g}-minute levels"
        )

    if target > MAX_PLAY_LEVELS * level_s:
        raise FieldError(
            "target_hours",
            f"{request.target_hours:g} h needs over {MAX_PLAY_LEVELS} {request.level_minutes:g}-minute levels",
        )

    def seconds(plays: int) -> int:
        breaks = (plays - 1) // request.breaks_every if request.breaks_every else 0
        return plays * level_s + breaks * break_s

    plays = min(range(2, math.ceil(target / level_s) + 2), key=lambda n: abs(seconds(n) - target))
    if not 0 <= request.late_reg_levels <= plays:
        raise FieldError(
            "late_reg_levels", f"must be between 0 and the {plays} play levels of the target, not "
            f"{request.late_reg_levels}"
        )
    return plays


def _stakes(variant: Variant, structure: Structure, big_bet: float) -> Stakes:
    """One level's stakes for a target big bet (the big blind in pot and no limit)."""
    if structure is not Structure.FIXED_LIMIT:
        big_blind = denomination(big_bet)
        return Stakes(
            small_bet=0,
            big_bet=0,
            small_blind=denomination(big_blind / 2),
            big_blind=big_blind,
            ante=_ante(big_blind),
        )
    small_bet = denomination(big_bet / 2)
    if variant.is_stud:
        return Stakes(
            small_bet=small_bet, big_bet=2 * small_bet, ante=_ante(small_bet), bring_in=denomination(small_bet / 2)
        )
    return Stakes(
        small_bet=small_bet, big_bet=2 * small_bet, small_blind=denomination(small_bet / 2), big_blind=small_bet
    )


def _ante(unit: int) -> int:
    """A tenth of the unit as a denomination; none below a unit of 5 (a tenth of it rounds to 0)."""
    return denomination(unit / 10) if unit >= 5 else 0


def _big_bet(stakes: Stakes) -> int:
    return stakes.big_bet or stakes.big_blind


def _level_amounts(variant: Variant, structure: Structure, stakes: Stakes) -> dict[str, int]:
    """The schema's keys for a play level of this game and structure, in the schema's order."""
    if variant.is_stud:
        keys: tuple[str, ...] = ("ante", "bring_in", "small_bet", "big_bet")
    elif structure is Structure.FIXED_LIMIT:
        keys = ("small_blind", "big_blind", "small_bet", "big_bet")
    else:
        keys = ("small_blind", "big_blind", "ante")
    return {key: getattr(stakes, key) for key in keys}
