"""The director's inputs as frozen values: what a journal records, and what replays a tournament.

Each :class:`Director` method that changes the tournament has one value here; :func:`apply` calls
it. Because the director is deterministic with time as an argument, a tournament is its structure,
its seed and the list of ``(now, input)`` it was given: :func:`replay` rebuilds it exactly,
refusals included (an input the director refused changed nothing, and is refused again).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tablestorm.services.director.commands import Command
from tablestorm.services.director.director import Director, DirectorError
from tablestorm.services.engine.tournament_table import HandResult

__all__ = [
    "AddOn",
    "HandFinished",
    "Input",
    "Pause",
    "Rebuy",
    "Register",
    "Resume",
    "SetAway",
    "Start",
    "TableLost",
    "Tick",
    "Unregister",
    "apply",
    "replay",
]


@dataclass(frozen=True, slots=True)
class Register:
    player_id: str
    auto_rebuy: bool = False


@dataclass(frozen=True, slots=True)
class Unregister:
    player_id: str


@dataclass(frozen=True, slots=True)
class Start:
    pass


@dataclass(frozen=True, slots=True)
class Tick:
    pass


@dataclass(frozen=True, slots=True)
class HandFinished:
    result: HandResult


@dataclass(frozen=True, slots=True)
class Rebuy:
    player_id: str


@dataclass(frozen=True, slots=True)
class AddOn:
    player_id: str


@dataclass(frozen=True, slots=True)
class SetAway:
    player_id: str
    away: bool


@dataclass(frozen=True, slots=True)
class Pause:
    pass


@dataclass(frozen=True, slots=True)
class Resume:
    pass


@dataclass(frozen=True, slots=True)
class TableLost:
    table_id: str


Input = Register | Unregister | Start | Tick | HandFinished | Rebuy | AddOn | SetAway | Pause | Resume | TableLost


def apply(director: Director, given: Input, now: float) -> list[Command]:
    """Give ``director`` the input at ``now``; its commands (DirectorError: refused, nothing changed)."""
    match given:
        case Register(player_id, auto_rebuy):
            return director.register(player_id, now, auto_rebuy=auto_rebuy)
        case Unregister(player_id):
            return director.unregister(player_id, now)
        case Start():
            return director.start(now)
        case Tick():
            return director.tick(now)
        case HandFinished(result):
            return director.hand_finished(result, now)
        case Rebuy(player_id):
            return director.rebuy(player_id, now)
        case AddOn(player_id):
            return director.add_on(player_id, now)
        case SetAway(player_id, away):
            return director.set_away(player_id, away, now)
        case Pause():
            return director.pause(now)
        case Resume():
            return director.resume(now)
        case TableLost(table_id):
            return director.table_lost(table_id, now)
    raise TypeError(f"not a director input: {given!r}")


def replay(
    director: Director, inputs: Iterable[tuple[float, Input]],
    seen: Callable[[Input, list[Command]], None] = lambda given, commands: None,
) -> Director:
    """Give ``director`` every ``(now, input)`` in order, as it was given them; returns it.
    ``seen(input, commands)`` is told of each input taken (a refused one changed nothing)."""
    for now, given in inputs:
        with contextlib.suppress(DirectorError):  # refused then too
            seen(given, apply(director, given, now))
    return director
