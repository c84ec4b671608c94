"""The WebSocket front door's messages read as :mod:`.traffic`: the WebSocket adapter's half of the
protocol checks.

:func:`traffic` reads one streamed message (``snapshot``, ``events``, ``your_turn``, ``ack``,
``reject``) of :mod:`tablestorm.services.websocket.messages`. Its events are JSON objects
(docs/websocket.md, Tables, seats and events): what only this protocol can get wrong (an event
whose ``type`` is unknown, a field missing or of the wrong type, an action kind or a timeout
outcome the engine does not define) becomes a :class:`~.traffic.Malformed` event for the referee to
report; a forced bet's kind, a pot's share or a seat's status is passed on as named. Everything
else is a rule or a promise every room makes, and the referee judges it on the neutral values.

A refusal's code (a ``reject``'s) is read as the gRPC status it names
(:data:`~.websocket_client.STATUS_BY_CODE`), the number every error count of a load run uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from tablestorm.services.engine import events as ev
from tablestorm.services.engine.actions import ActionKind, TimeoutOutcome
from tablestorm.services.websocket import messages as ws
from tablestorm.sim.bots.strategies import Legal
from tablestorm.sim.rooms.traffic import (
    ACCEPTED,
    Body,
    HandVoided,
    Malformed,
    Prompt,
    Result,
    SeatChanged,
    TableEvent,
    Traffic,
    Welcome,
)
from tablestorm.sim.rooms.websocket_client import status

__all__ = ["event", "traffic"]

Json = dict[str, Any]

_KINDS: Final = {kind.value: kind for kind in ActionKind}
_OUTCOMES: Final = {outcome.value: outcome for outcome in TimeoutOutcome}


def _hand_started(e: Json) -> Body:
    return ev.HandStarted(tuple(e["stacks"]), e["button_seat"] or -1, e["deck_size"])


def _forced_bet(e: Json) -> Body:
    return ev.ForcedBet(e["seat"], e["kind"], e["amount"], e["live"])


def _cards_dealt(e: Json) -> Body:
    return ev.CardsDealt(e["seat"], e["street"], tuple(e["down"]), tuple(e["up"]))


def _community_card(e: Json) -> Body:
    return ev.CommunityCard(e["street"], e["card"])


def _reshuffled(e: Json) -> Body:
    return ev.Reshuffled(e["street"], e["cards"])


def _round_started(e: Json) -> Body:
    return ev.RoundStarted(e["street"], e["first_seat"] or -1)


def _acted(e: Json) -> Body:
    kind = _KINDS.get(e["kind"])
    if kind is None:
        return Malformed(f"event {e['seq']}: action kind {e['kind']!r}")
    return ev.Acted(e["seat"], kind, e["to"], e["added"], e["all_in"])


def _timed_out(e: Json) -> Body:
    outcome = _OUTCOMES.get(e["outcome"])
    if outcome is None:
        return Malformed(f"timeout with outcome {e['outcome']!r}")
    return ev.TimedOut(e["seat"], outcome)


def _drew(e: Json) -> Body:
    return ev.Drew(e["seat"], tuple(e["discarded"]), tuple(e["drawn"]))


def _cap_reached(e: Json) -> Body:
    return ev.CapReached(e["street"])


def _bet_returned(e: Json) -> Body:
    return ev.BetReturned(e["seat"], e["amount"])


def _pots_formed(e: Json) -> Body:
    return ev.PotsFormed(e["street"], tuple(ev.Pot(pot["amount"], tuple(pot["eligible_seats"])) for pot in e["pots"]))


def _hand_shown(e: Json) -> Body:
    return ev.HandShown(e["seat"], tuple(e["cards"]), e["high"], e["low"])


def _hand_mucked(e: Json) -> Body:
    return ev.HandMucked(e["seat"])


def _pot_awarded(e: Json) -> Body:
    return ev.PotAwarded(e["pot"], e["seat"], e["amount"], e["share"])


def _hand_ended(e: Json) -> Body:
    return ev.HandEnded(tuple(e["stacks"]), e["showdown"])


def _seat_changed(e: Json) -> Body:
    state = e["seat"]
    return SeatChanged(state["seat"], state["status"], state["stack"])


def _hand_voided(e: Json) -> Body:
    return HandVoided(tuple(e["seats"]), tuple(e["stacks"]))


_READERS: Final[dict[str, Callable[[Json], Body]]] = {
    "hand_started": _hand_started,
    "forced_bet": _forced_bet,
    "cards_dealt": _cards_dealt,
    "community_card": _community_card,
    "reshuffled": _reshuffled,
    "round_started": _round_started,
    "acted": _acted,
    "timed_out": _timed_out,
    "drew": _drew,
    "cap_reached": _cap_reached,
    "bet_returned": _bet_returned,
    "pots_formed": _pots_formed,
    "hand_shown": _hand_shown,
    "hand_mucked": _hand_mucked,
    "pot_awarded": _pot_awarded,
    "hand_ended": _hand_ended,
    "seat_changed": _seat_changed,
    "hand_voided": _hand_voided,
}
_LISTS_SEATS: Final = frozenset({"hand_started", "hand_ended"})
"""The events whose ``stacks`` follow the seats in their ``seats``."""


def event(e: Json) -> TableEvent:
    """One event object of a ``snapshot`` or ``events`` message (see the module docstring)."""
    seq, kind = e.get("seq", 0), e.get("type")
    reader = _READERS.get(kind) if isinstance(kind, str) else None
    try:
        body = Malformed(f"event {seq} has an unknown type {kind!r}") if reader is None else reader(e)
        seats = tuple(e["seats"]) if kind in _LISTS_SEATS else ()
        return TableEvent(seq, e["hand_number"], e["server_time_us"], body, seats)
    except (KeyError, TypeError, ValueError) as exc:
        return TableEvent(seq if isinstance(seq, int) else 0, 0, 0, Malformed(f"event {seq} ({kind}): {exc!r}"))


def _welcome(snapshot: ws.Snapshot) -> Welcome:
    table, seat = snapshot.table, snapshot.seat
    options = table["options"]
    state = next((s for s in table["seats"] if s["seat"] == seat), None)
    return Welcome(
        seat=seat,
        gap=snapshot.gap,
        game=options["game"],
        structure=options["structure"],
        last_seq=table["last_seq"],
        hand_number=table["hand_number"],
        hand_running=table["hand_running"],
        sitting_out=state is not None and state["status"] == "sitting_out",
        stack=None if state is None else state["stack"],
    )


def _prompt(turn: ws.YourTurn) -> Prompt:
    legal = tuple([Legal(option["kind"], option["min"], option["max"]) for option in turn.legal])
    return Prompt(turn.turn_seq, turn.hand_number, legal, turn.deadline_unix_ms)


def traffic(message: ws.ServerMessage) -> Traffic | None:
    """A streamed message as neutral traffic (None: not a part of a seat's traffic, a ``pong``,
    ``left`` or ``error``, which end or keep the stream rather than feed it)."""
    if isinstance(message, ws.Events):
        return Traffic(events=tuple([event(e) for e in message.events]))
    if isinstance(message, ws.YourTurn):
        return Traffic(prompt=_prompt(message))
    if isinstance(message, ws.Ack):
        return Traffic(results=(Result(message.action_id, ACCEPTED),))
    if isinstance(message, ws.Reject):
        return Traffic(results=(Result(message.action_id, status(message.code).value[0], message.message),))
    if isinstance(message, ws.Snapshot):
        return Traffic(welcome=_welcome(message), events=tuple([event(e) for e in message.events]))
    return None
