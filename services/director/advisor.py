"""The structure advisor (``tablestorm structure``): levels that make a tournament last about a
target time, as a structure mapping in the team's YAML schema (``sim/tournaments/``).

**The rule of thumb.** A freezeout ends, give or take, when the big bet reaches a twentieth of the
chips in play (:data:`FINAL_BIG_BET_CHIPS`): the average stack of the last few players is then a
handful of big bets and every hand is all-in or nearly. The first level's big bet is the
starting stack over 75 (:data:`FIRST_BIG_BET_STACKS`), the middle of the 50-100 big bets real
rooms start limit events with (1,500 chips at 10/20 online, 3,000 at 20/40) and close to the
100 big blinds no-limit events start with. Between the two the stakes grow geometrically, one
level per ``level_minutes``, so that the levels and breaks fill the target: the clock time of the
tournament, breaks included. "Big bet" is the big bet in fixed limit and the big blind in pot
and no limit (draw only).

**Denominations.** Each level's unit (the small bet in fixed limit, the big blind in pot and no
limit) is rounded, in log scale, to the nearest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k
(whole chips only: 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 25, ...), the steps rooms print; the other
amounts follow the rule book's ratios (docs/rules.md), each rounded to a denomination the same way: big bet twice the
small bet (BET-1), the stud ante a tenth of the small bet (0 below a small bet of 5) and the
bring-in half of it (STUD-3), the draw blinds half the small bet and the small bet (DRAW-2); in
pot and no limit the small blind is half the big blind and the ante a tenth of it, as in the
schema's example level. Rounding is monotone, so the levels never go down; a growth below the
denominations' own step (about 1.2 a level) can repeat a level's stakes. Every level passes
``tablestorm.services.engine.Stakes.validate`` for its game and betting structure.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Any

from tablestorm.services.engine.variants import Stakes, Structure, Variant, variant_named
from tablestorm.services.fields import FieldError

FIRST_BIG_BET_STACKS = 75
"""The first level's big bet is about the starting stack over this."""

FINAL_BIG_BET_CHIPS = 20
"""The last level's big bet is about the chips in play over this."""

_TENTHS = (10, 15, 20, 25, 30, 40, 50, 60, 80)
DENOMINATIONS: tuple[int, ...] = tuple(
    sorted({tenths * 10**k // 10 for k in range(20) for tenths in _TENTHS if tenths * 10**k % 10 == 0})
)
"""The amounts a level may post: 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100, ..."""

MAX_PLAY_LEVELS = 500
"""The most play levels a suggestion holds (a month of 1-minute levels is not a structure)."""

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


def denomination(amount: float) -> int:
    """The denomination nearest ``amount`` in log scale (ties go up); 1 for anything below 1."""
    if amount <= DENOMINATIONS[0]:
        return DENOMINATIONS[0]
    above = bisect.bisect_left(DENOMINATIONS, amount)
    if above == len(DENOMINATIONS):
        raise ValueError(f"{amount:g} chips is beyond the largest denomination {DENOMINATIONS[-1]}")
    high, low = DENOMINATIONS[above], DENOMINATIONS[above - 1]
    return high if high * low <= amount * amount else low


def suggest(request: StructureRequest) -> dict[str, Any]:
    """The structure mapping (the YAML schema's keys, in its order) for ``request``; raises
    :class:`~tablestorm.services.fields.FieldError` naming the :class:`StructureRequest` field that cannot work."""
    variant, structure = _validated(request)
    level_s, break_s = round(request.level_minutes * 60), round(request.break_minutes * 60)
    plays = _play_levels(request, level_s, break_s)
    stack, chips = request.starting_stack, request.entrants * request.starting_stack
    first, last = stack / FIRST_BIG_BET_STACKS, chips / FINAL_BIG_BET_CHIPS
    growth = (last / first) ** (1 / (plays - 1))
    levels: list[dict[str, int]] = []
    for number in range(1, plays + 1):
        stakes = _stakes(variant, structure, first * growth ** (number - 1))
        stakes.validate(variant, structure)
        if number == 1 and _big_bet(stakes) > stack / 50:
            raise FieldError(
                "starting_stack", f"{stack} chips is under 50 first-level big bets ({_big_bet(stakes)})"
            )
        levels.append({"duration_s": level_s, **_level_amounts(variant, structure, stakes)})
        if request.breaks_every and number % request.breaks_every == 0 and number < plays:
            levels.append({"break_s": break_s})
    result: dict[str, Any] = {
        "name": f"{variant.name} {structure.value.replace('_', ' ')}: {request.entrants} entrants, "
        f"about {request.target_hours:g} h",
        "game": variant.code,
        "betting": structure.value,
        "seats": request.seats or variant.max_players,
        "starting_stack": stack,
        "levels": levels,
    }
    if request.late_reg_levels:
        result["late_registration"] = {"until_level": request.late_reg_levels}
    return result


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
    for name in ("target_hours", "level_minutes", "break_minutes"):
        value = getattr(request, name)
        if not math.isfinite(value) or value <= 0:
            raise FieldError(name, f"must be a positive number, not {value:g}")
    return variant, structure


def _play_levels(request: StructureRequest, level_s: int, break_s: int) -> int:
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
            "late_reg_levels", f"must be between 0 and the {plays} play levels, not {request.late_reg_levels}"
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
