"""What one seat may see of a hand (SHOW-4): the events with other players' face-down cards hidden.

A seat sees its own down cards and draws, everyone's up cards, and the cards of hands shown at
showdown (``HandShown``); it never sees another player's down cards before showdown, nor a mucked
hand, nor burns (which are never events). Spectators (``seat=None``) see only public events.
"""

from __future__ import annotations

from collections.abc import Iterable

from tablestorm.services.engine.events import CardsDealt, Drew, Event

HIDDEN = -1
"""Stands for a card the viewer may not see; the count of cards stays public."""


def _hidden(count: int) -> tuple[int, ...]:
    return (HIDDEN,) * count


def view(event: Event, player: int | None) -> Event:
    """``event`` as player index ``player`` (``None`` for a spectator) may see it."""
    if type(event) is CardsDealt:
        if event.player != player and event.down:
            return CardsDealt(event.player, event.street, _hidden(len(event.down)), event.up)
    elif type(event) is Drew and event.player != player:
        return Drew(event.player, _hidden(len(event.discarded)), _hidden(len(event.drawn)))
    return event


def views(events: Iterable[Event], player: int | None) -> list[Event]:
    return [view(e, player) for e in events]
