"""Engine values to protobuf and back: options, actions, legal actions and events.

The engine numbers players by their index in the hand; the wire numbers them by seat (1-based),
which is what a client can act on across hands. Every converter here takes ``seats``, the seat
number of each player index of the hand the value belongs to. Cards keep the engine's integer
encoding, and ``visibility.HIDDEN`` (-1) is the proto's CARD_HIDDEN.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import (
    VARIANTS,
    Action,
    ActionKind,
    LegalAction,
    Stakes,
    Structure,
    TableOptions,
    TimeoutOutcome,
    variant_named,
)
from tablestorm.services.engine import events as ev
from tablestorm.services.engine.tournament_table import HandResult, SeatResult
from tablestorm.services.fields import FieldError

STRUCTURE_TO_PB = {
    Structure.FIXED_LIMIT: pb.STRUCTURE_FIXED_LIMIT,
    Structure.POT_LIMIT: pb.STRUCTURE_POT_LIMIT,
    Structure.NO_LIMIT: pb.STRUCTURE_NO_LIMIT,
}
STRUCTURE_FROM_PB = {v: k for k, v in STRUCTURE_TO_PB.items()} | {
    pb.STRUCTURE_UNSPECIFIED: Structure.FIXED_LIMIT
}

KIND_TO_PB: dict[ActionKind, pb.ActionKind] = {
    kind: getattr(pb, f"ACTION_KIND_{kind.name}") for kind in ActionKind
}
KIND_FROM_PB = {v: k for k, v in KIND_TO_PB.items()}
OUTCOME_TO_PB: dict[TimeoutOutcome, pb.TimeoutOutcome] = {
    o: getattr(pb, f"TIMEOUT_OUTCOME_{o.name}") for o in TimeoutOutcome
}
FORCED_TO_PB = {
    "ante": pb.FORCED_BET_KIND_ANTE,
    "small_blind": pb.FORCED_BET_KIND_SMALL_BLIND,
    "big_blind": pb.FORCED_BET_KIND_BIG_BLIND,
    "dead_small_blind": pb.FORCED_BET_KIND_DEAD_SMALL_BLIND,
}
SHARE_TO_PB = {"whole": pb.POT_SHARE_WHOLE, "high": pb.POT_SHARE_HIGH, "low": pb.POT_SHARE_LOW}

DEFAULT_CLOCK_SECONDS = 10.0  # CLOCK-1
MIN_CLOCK_SECONDS = 0.01
"""Shorter clocks would time every turn out on the next loop iteration: no one could act."""
MAX_CLOCK_SECONDS = 3600.0
DEFAULT_CAP = 4  # BET-2
MAX_CHIPS = 1 << 48
"""Largest stake, buy-in and bet amount accepted: eight stacks of it still fit an int64 pot."""
MAX_GAME_LENGTH = 16
STAKES_FIELDS = ("small_bet", "big_bet", "ante", "bring_in", "small_blind", "big_blind")


# ----------------------------------------------------------------- table options


def options_from_proto(msg: pb.TableOptions) -> TableOptions:
    """Build engine options, filling the defaults of docs/rules.md; :class:`FieldError` names the field at fault."""
    if len(msg.game) > MAX_GAME_LENGTH:
        known = ", ".join(VARIANTS)
        raise FieldError("options.game", f"unknown game of {len(msg.game)} characters; known games: {known}")
    try:
        variant = variant_named(msg.game)
    except ValueError as exc:
        raise FieldError("options.game", str(exc)) from None
    if msg.structure not in STRUCTURE_FROM_PB:
        raise FieldError("options.structure", f"unknown value {msg.structure}")
    stakes = stakes_from_proto(msg.stakes)
    clock = msg.clock_seconds or DEFAULT_CLOCK_SECONDS
    if not MIN_CLOCK_SECONDS <= clock <= MAX_CLOCK_SECONDS:  # also false for NaN
        raise FieldError(
            "options.clock_seconds", f"must be between {MIN_CLOCK_SECONDS:g} and {MAX_CLOCK_SECONDS:g}"
            f" (0 = {DEFAULT_CLOCK_SECONDS:g}), got {clock}"
        )
    try:
        options = TableOptions(
            variant=variant,
            stakes=stakes,
            structure=STRUCTURE_FROM_PB[msg.structure],
            open_pair=msg.open_pair if msg.HasField("open_pair") else None,
            heads_up_uncapped=msg.heads_up_uncapped if msg.HasField("heads_up_uncapped") else True,
            cap=msg.cap or DEFAULT_CAP,
            clock_seconds=clock,
            max_seats=msg.max_seats,
            buy_in=msg.buy_in,
        )
    except FieldError as exc:  # the engine names its own field
        raise exc.within("options.") from None
    if options.posted_buy_in > MAX_CHIPS:
        # The stakes alone can imply it (100 big bets): every stack must stay far inside int64.
        raise FieldError(
            "options.buy_in", f"the posted buy-in of {options.posted_buy_in} chips is above"
            f" 2**{MAX_CHIPS.bit_length() - 1}"
        )
    return options


def stakes_from_proto(s: pb.Stakes) -> Stakes:
    """The stakes a client asked for, every omitted field filled with its default for the small bet
    (STUD-3, DRAW-2 in docs/rules.md: :meth:`Stakes.default`), whatever else is set. Without a small
    bet, a big blind stands for it (DRAW-2: the big blind is the small bet)."""
    for name in STAKES_FIELDS:
        if getattr(s, name) > MAX_CHIPS:
            raise FieldError(f"options.stakes.{name}", f"at most 2**{MAX_CHIPS.bit_length() - 1} chips")
    small_bet = s.small_bet if s.HasField("small_bet") else s.big_blind if s.HasField("big_blind") else 0
    defaults = Stakes.default(max(small_bet, 0))
    given = {name: getattr(s, name) for name in STAKES_FIELDS if s.HasField(name)}
    return replace(defaults, **{"small_bet": small_bet, **given})


def stakes_as_given(s: pb.Stakes, path: str = "stakes") -> Stakes:
    """The stakes exactly as named, every omitted field 0 (a tournament level's: TOURN-1; no
    defaults are filled in). :class:`FieldError` names ``path.<field>`` for an amount above 2**48."""
    for name in STAKES_FIELDS:
        if getattr(s, name) > MAX_CHIPS:
            raise FieldError(f"{path}.{name}", f"at most 2**{MAX_CHIPS.bit_length() - 1} chips")
    return Stakes(**{name: getattr(s, name) for name in STAKES_FIELDS})


def stakes_to_proto(s: Stakes) -> pb.Stakes:
    return pb.Stakes(
        small_bet=s.small_bet,
        big_bet=s.big_bet,
        ante=s.ante,
        bring_in=s.bring_in,
        small_blind=s.small_blind,
        big_blind=s.big_blind,
    )


def options_to_proto(options: TableOptions) -> pb.TableOptions:
    return pb.TableOptions(
        game=options.variant.code,
        stakes=stakes_to_proto(options.stakes),
        structure=STRUCTURE_TO_PB[options.structure],
        open_pair=options.open_pair_active,
        heads_up_uncapped=options.heads_up_uncapped,
        cap=options.cap,
        clock_seconds=options.clock_seconds,
        max_seats=options.seats,
        buy_in=options.posted_buy_in,
    )


# ----------------------------------------------------------------- actions


def action_from_proto(msg: pb.ActRequest) -> Action:
    """The engine action a client asked for; :class:`FieldError` names the field at fault.

    TIMEOUT is the service's to send (CLOCK-2), never a client's.
    """
    kind = KIND_FROM_PB.get(msg.kind)
    if kind is None or kind is ActionKind.TIMEOUT:
        name = pb.ActionKind.Name(msg.kind) if msg.kind in pb.ActionKind.values() else str(msg.kind)
        raise FieldError("kind", f"{name} is not an action a player may send")
    if kind is ActionKind.DRAW:
        if len(msg.discard) > 5:
            raise FieldError("discard", f"at most 5 cards, got {len(msg.discard)}")
        if any(not 0 <= card < 52 for card in msg.discard):
            raise FieldError("discard", "cards are integers 0..51 (rank * 4 + suit)")
        return Action(kind, 0, tuple(msg.discard))
    if msg.discard:
        raise FieldError("discard", f"only a DRAW discards cards, not {kind.value}")
    if not 0 <= msg.amount <= MAX_CHIPS:
        raise FieldError("amount", f"must be between 0 and 2**48 chips, got {msg.amount}")
    return Action(kind, msg.amount)


def legal_to_proto(legal: Sequence[LegalAction]) -> list[pb.LegalAction]:
    return [pb.LegalAction(kind=KIND_TO_PB[a.kind], min=a.min, max=a.max) for a in legal]


# ----------------------------------------------------------------- events

Seats = Sequence[int]
"""Seat number of each player index of the hand."""


def _hand_started(e: ev.HandStarted, seats: Seats) -> dict[str, Any]:
    button = seats[e.button] if e.button >= 0 else 0
    return {
        "hand_started": pb.HandStarted(
            seats=seats, stacks=e.stacks, button_seat=button, deck_size=e.deck_size
        )
    }


def _forced_bet(e: ev.ForcedBet, seats: Seats) -> dict[str, Any]:
    return {
        "forced_bet": pb.ForcedBet(
            seat=seats[e.player], kind=FORCED_TO_PB[e.kind], amount=e.amount, live=e.live
        )
    }


def _cards_dealt(e: ev.CardsDealt, seats: Seats) -> dict[str, Any]:
    return {"cards_dealt": pb.CardsDealt(seat=seats[e.player], street=e.street, down=e.down, up=e.up)}


def _community(e: ev.CommunityCard, seats: Seats) -> dict[str, Any]:
    return {"community_card": pb.CommunityCard(street=e.street, card=e.card)}


def _reshuffled(e: ev.Reshuffled, seats: Seats) -> dict[str, Any]:
    return {"reshuffled": pb.Reshuffled(street=e.street, cards=e.cards)}


def _round_started(e: ev.RoundStarted, seats: Seats) -> dict[str, Any]:
    first = seats[e.first] if e.first >= 0 else 0
    return {"round_started": pb.RoundStarted(street=e.street, first_seat=first)}


def _acted(e: ev.Acted, seats: Seats) -> dict[str, Any]:
    return {
        "acted": pb.Acted(
            seat=seats[e.player], kind=KIND_TO_PB[e.kind], to=e.to, added=e.added, all_in=e.all_in
        )
    }


def _timed_out(e: ev.TimedOut, seats: Seats) -> dict[str, Any]:
    return {"timed_out": pb.TimedOut(seat=seats[e.player], outcome=OUTCOME_TO_PB[e.outcome])}


def _drew(e: ev.Drew, seats: Seats) -> dict[str, Any]:
    return {"drew": pb.Drew(seat=seats[e.player], discarded=e.discarded, drawn=e.drawn)}


def _cap_reached(e: ev.CapReached, seats: Seats) -> dict[str, Any]:
    return {"cap_reached": pb.CapReached(street=e.street)}


def _bet_returned(e: ev.BetReturned, seats: Seats) -> dict[str, Any]:
    return {"bet_returned": pb.BetReturned(seat=seats[e.player], amount=e.amount)}


def _pots_formed(e: ev.PotsFormed, seats: Seats) -> dict[str, Any]:
    pots = [pb.Pot(amount=p.amount, eligible_seats=[seats[i] for i in p.eligible]) for p in e.pots]
    return {"pots_formed": pb.PotsFormed(street=e.street, pots=pots)}


def _hand_shown(e: ev.HandShown, seats: Seats) -> dict[str, Any]:
    return {"hand_shown": pb.HandShown(seat=seats[e.player], cards=e.cards, high=e.high, low=e.low)}


def _hand_mucked(e: ev.HandMucked, seats: Seats) -> dict[str, Any]:
    return {"hand_mucked": pb.HandMucked(seat=seats[e.player])}


def _pot_awarded(e: ev.PotAwarded, seats: Seats) -> dict[str, Any]:
    return {
        "pot_awarded": pb.PotAwarded(
            pot=e.pot, seat=seats[e.player], amount=e.amount, share=SHARE_TO_PB[e.share]
        )
    }


def _hand_ended(e: ev.HandEnded, seats: Seats) -> dict[str, Any]:
    return {"hand_ended": pb.HandEnded(seats=seats, stacks=e.stacks, showdown=e.showdown)}


_EVENT_FIELDS: dict[type, Callable[[Any, Seats], dict[str, Any]]] = {
    ev.HandStarted: _hand_started,
    ev.ForcedBet: _forced_bet,
    ev.CardsDealt: _cards_dealt,
    ev.CommunityCard: _community,
    ev.Reshuffled: _reshuffled,
    ev.RoundStarted: _round_started,
    ev.Acted: _acted,
    ev.TimedOut: _timed_out,
    ev.Drew: _drew,
    ev.CapReached: _cap_reached,
    ev.BetReturned: _bet_returned,
    ev.PotsFormed: _pots_formed,
    ev.HandShown: _hand_shown,
    ev.HandMucked: _hand_mucked,
    ev.PotAwarded: _pot_awarded,
    ev.HandEnded: _hand_ended,
}


def event_to_proto(
    event: ev.Event, seats: Seats, *, seq: int = 0, hand_number: int = 0, server_time_us: int = 0
) -> pb.Event:
    """One engine event as the wire carries it (already filtered by ``visibility.view``), stamped
    with when it was published (0 in histories)."""
    return pb.Event(
        seq=seq, hand_number=hand_number, server_time_us=server_time_us, **_EVENT_FIELDS[type(event)](event, seats)
    )


# ----------------------------------------------------------------- tournament hands


def hand_result_to_proto(r: HandResult) -> pb.HandResult:
    return pb.HandResult(
        table_id=r.table_id,
        hand_number=r.hand_number,
        voided=r.voided,
        seats=[
            pb.SeatResult(seat=s.seat, player_id=s.player_id, start=s.start, end=s.end, away=s.away)
            for s in r.seats
        ],
        big_blind_order=r.big_blind_order,
        waiting_seats=r.waiting_seats,
    )


def hand_result_from_proto(m: pb.HandResult) -> HandResult:
    return HandResult(
        m.table_id,
        m.hand_number,
        tuple(SeatResult(s.seat, s.player_id, s.start, s.end, s.away) for s in m.seats),
        m.voided,
        tuple(m.big_blind_order),
        tuple(m.waiting_seats),
    )
