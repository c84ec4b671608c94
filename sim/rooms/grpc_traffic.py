"""``tablestorm.v1`` messages read as :mod:`.traffic`: the gRPC adapter's half of the protocol checks.

:func:`traffic` reads one ``ServerMessage``. What only this protocol can get wrong (an event whose
``kind`` is unset, an action kind or a timeout outcome the proto does not define, where the engine
has an enum) becomes a :class:`~.traffic.Malformed` event for the referee to report; a forced bet's
kind, a pot's share or a seat's status it does not know reads ``"unspecified"``. Everything else is
a rule or a promise every room makes, and the referee judges it on the neutral values.

Cost: one dict lookup and one record per event; :class:`Reader` reads each distinct event's bytes
once (the seats of a table receive its public events as equal bytes), not once per seat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import events as ev
from tablestorm.services.engine.actions import ActionKind
from tablestorm.services.table.convert import FORCED_TO_PB, KIND_FROM_PB, OUTCOME_TO_PB, SHARE_TO_PB
from tablestorm.sim.bots.client.protocol import KIND_NAMES, STRUCTURE_NAMES
from tablestorm.sim.bots.strategies import Legal
from tablestorm.sim.rooms.traffic import (
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

__all__ = ["EVENTS_KEPT", "Reader", "traffic"]


_KINDS: Final[dict[int, ActionKind]] = {int(number): kind for number, kind in KIND_FROM_PB.items()}
_OUTCOMES: Final = {int(number): outcome for outcome, number in OUTCOME_TO_PB.items()}
_FORCED: Final = {int(number): name for name, number in FORCED_TO_PB.items()}
_SHARES: Final = {int(number): name for name, number in SHARE_TO_PB.items()}
_UNSPECIFIED: Final = "unspecified"
"""A kind or share the proto leaves unset (or does not define) where the engine's field is a name."""
_STATUSES: Final = {
    int(number): name.removeprefix("SEAT_STATUS_").lower() for name, number in pb.SeatStatus.items()
}


def _hand_started(e: pb.Event) -> Body:
    started = e.hand_started
    return ev.HandStarted(tuple(started.stacks), started.button_seat or -1, started.deck_size)


def _forced_bet(e: pb.Event) -> Body:
    forced = e.forced_bet
    return ev.ForcedBet(forced.seat, _FORCED.get(forced.kind, _UNSPECIFIED), forced.amount, forced.live)


def _cards_dealt(e: pb.Event) -> Body:
    dealt = e.cards_dealt
    return ev.CardsDealt(dealt.seat, dealt.street, tuple(dealt.down), tuple(dealt.up))


def _community_card(e: pb.Event) -> Body:
    return ev.CommunityCard(e.community_card.street, e.community_card.card)


def _reshuffled(e: pb.Event) -> Body:
    return ev.Reshuffled(e.reshuffled.street, e.reshuffled.cards)


def _round_started(e: pb.Event) -> Body:
    return ev.RoundStarted(e.round_started.street, e.round_started.first_seat or -1)


def _acted(e: pb.Event) -> Body:
    acted = e.acted
    kind = _KINDS.get(acted.kind)
    if kind is None:
        return Malformed(f"event {e.seq}: action kind {acted.kind}")
    return ev.Acted(acted.seat, kind, acted.to, acted.added, acted.all_in)


def _timed_out(e: pb.Event) -> Body:
    timed_out = e.timed_out
    outcome = _OUTCOMES.get(timed_out.outcome)
    if outcome is None:
        return Malformed(f"timeout with outcome {timed_out.outcome}")
    return ev.TimedOut(timed_out.seat, outcome)


def _drew(e: pb.Event) -> Body:
    drew = e.drew
    return ev.Drew(drew.seat, tuple(drew.discarded), tuple(drew.drawn))


def _cap_reached(e: pb.Event) -> Body:
    return ev.CapReached(e.cap_reached.street)


def _bet_returned(e: pb.Event) -> Body:
    return ev.BetReturned(e.bet_returned.seat, e.bet_returned.amount)


def _pots_formed(e: pb.Event) -> Body:
    formed = e.pots_formed
    return ev.PotsFormed(formed.street, tuple(ev.Pot(pot.amount, tuple(pot.eligible_seats)) for pot in formed.pots))


def _hand_shown(e: pb.Event) -> Body:
    shown = e.hand_shown
    return ev.HandShown(shown.seat, tuple(shown.cards), shown.high, shown.low)


def _hand_mucked(e: pb.Event) -> Body:
    return ev.HandMucked(e.hand_mucked.seat)


def _pot_awarded(e: pb.Event) -> Body:
    awarded = e.pot_awarded
    return ev.PotAwarded(awarded.pot, awarded.seat, awarded.amount, _SHARES.get(awarded.share, _UNSPECIFIED))


def _hand_ended(e: pb.Event) -> Body:
    return ev.HandEnded(tuple(e.hand_ended.stacks), e.hand_ended.showdown)


def _seat_changed(e: pb.Event) -> Body:
    state = e.seat_changed.seat
    return SeatChanged(state.seat, _STATUSES.get(state.status, _UNSPECIFIED), state.stack)


def _hand_voided(e: pb.Event) -> Body:
    return HandVoided(tuple(e.hand_voided.seats), tuple(e.hand_voided.stacks))


_READERS: Final[dict[str | None, Callable[[pb.Event], Body]]] = {
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


def _event(e: pb.Event) -> TableEvent:
    kind = e.WhichOneof("kind")
    reader = _READERS.get(kind)
    body = Malformed(f"event {e.seq} has no kind") if reader is None else reader(e)
    seats: tuple[int, ...] = ()
    if kind == "hand_started":
        seats = tuple(e.hand_started.seats)
    elif kind == "hand_ended":
        seats = tuple(e.hand_ended.seats)
    return TableEvent(e.seq, e.hand_number, e.server_time_us, body, seats)


def _welcome(welcome: pb.Welcome) -> Welcome:
    table, seat = welcome.table, welcome.seat
    options = table.options
    state = table.seats[seat - 1] if 1 <= seat <= len(table.seats) else None
    return Welcome(
        seat=seat,
        gap=welcome.gap,
        game=options.game,
        structure=STRUCTURE_NAMES.get(options.structure, "fixed_limit"),
        last_seq=table.last_seq,
        hand_number=table.hand_number,
        hand_running=table.hand_running,
        sitting_out=state is not None and state.status == pb.SEAT_STATUS_SITTING_OUT,
        stack=None if state is None else state.stack,
    )


def _prompt(turn: pb.YourTurn) -> Prompt:
    names = KIND_NAMES
    legal = tuple([Legal(names.get(option.kind, "unknown"), option.min, option.max) for option in turn.legal])
    return Prompt(turn.seq, turn.hand_number, legal, turn.deadline_unix_ms)


def traffic(message: pb.ServerMessage, events: tuple[TableEvent, ...] = ()) -> Traffic:
    """``message`` as neutral traffic (see the module docstring), after ``events`` read already."""
    return Traffic(
        _welcome(message.welcome) if message.HasField("welcome") else None,
        tuple([Result(r.action_id, r.code, r.message) for r in message.results]) if message.results else (),
        events + tuple(map(_event, message.events)) if message.events else events,
        _prompt(message.your_turn) if message.HasField("your_turn") else None,
    )


_EVENTS_TAG: Final = 1 << 3 | 2
"""ServerMessage.events (field 1), length-delimited: the key byte that starts each event."""
EVENTS_KEPT: Final = 8192
"""Events a :class:`Reader` keeps read per generation (two: the older one dropped whole when the
newer fills). The seats of a table receive an event within milliseconds of each other."""


class Reader:
    """``ServerMessage`` bytes as :class:`~.traffic.Traffic`, each distinct event's bytes read once.

    The server serializes an event once for all the seats allowed the same view of it, but
    coalesces each seat's events into messages of its own (a seat's turn and results ride along,
    and streams are written as they drain), so whole messages seldom repeat while their events do.
    The events come first in a message (field 1; serializers write fields in number order): each
    is sliced off its key and length and looked up by its bytes; the rest of the message (results,
    turn, welcome, and any event after them) is parsed as a ``ServerMessage``.
    """

    __slots__ = ("_before", "_read")

    def __init__(self) -> None:
        self._read: dict[bytes, TableEvent] = {}
        self._before: dict[bytes, TableEvent] = {}

    def __call__(self, raw: bytes) -> Traffic:
        events: list[TableEvent] = []
        start, size = 0, len(raw)
        while start < size and raw[start] == _EVENTS_TAG:
            length, shift, start = 0, 0, start + 1
            while True:  # the length, a varint
                byte = raw[start]
                start += 1
                length |= (byte & 0x7F) << shift
                if byte < 0x80:
                    break
                shift += 7
            stop = start + length
            if stop > size:
                raise ValueError("a ServerMessage event runs past the message's end")
            events.append(self._event(raw[start:stop]))
            start = stop
        read = tuple(events)
        if start == size:
            return Traffic(None, (), read, None)
        return traffic(pb.ServerMessage.FromString(raw[start:]), read)

    def _event(self, raw: bytes) -> TableEvent:
        event = self._read.get(raw)
        if event is None:
            event = self._before.get(raw)
            if event is None:
                event = _event(pb.Event.FromString(raw))
            self._read[raw] = event
            if len(self._read) >= EVENTS_KEPT:
                self._before, self._read = self._read, {}
        return event
