"""The registry of bot kinds: a name to the class that plays it, and building one from its knobs.

A new kind is a class (its knobs its fields, a frozen dataclass) and a row in :data:`_KINDS`; the
scenarios' ``bot_mix``, schedules' and tournaments' fields, the CLI and the fleets all accept
:data:`BOT_KINDS`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, Final

from tablestorm.sim.bots.regular import Recreational, Regular
from tablestorm.sim.bots.strategies import (
    CallingStation,
    Flaky,
    Maniac,
    RandomLegal,
    Shover,
    Sleeper,
    Strategy,
    Strength,
)

__all__ = ["BOT_KINDS", "strategy_for"]

_KINDS: Final[dict[str, Callable[..., Strategy]]] = {
    RandomLegal.name: RandomLegal,
    CallingStation.name: CallingStation,
    Maniac.name: Maniac,
    Shover.name: Shover,
    Sleeper.name: Sleeper,
    Flaky.name: Flaky,
    Strength.name: Strength,
    Regular.name: Regular,
    Recreational.name: Recreational,
}
BOT_KINDS: Final = tuple(_KINDS)
"""Every bot kind, by name."""


def strategy_for(kind: str, knobs: Mapping[str, Any] | None = None) -> Strategy:
    """The strategy of a bot kind, its ``knobs`` set (by field name; the others keep their
    defaults); strategies hold no per-seat state, so bots may share one. ValueError names an
    unknown kind or knob, or a knob's bad value."""
    factory = _KINDS.get(kind)
    if factory is None:
        raise ValueError(f"unknown bot kind {kind!r}; known: {', '.join(BOT_KINDS)}")
    knobs = knobs or {}
    known = inspect.signature(factory).parameters
    unknown = sorted(set(knobs) - set(known))
    if unknown:
        raise ValueError(f"{kind}: unknown knob {unknown[0]!r}; known: {', '.join(known) or 'none'}")
    return factory(**knobs)
