"""The engine's own account of a served table, checked event by event against what it streamed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from support.table_streams import AMOUNT_KINDS, Stream
from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import Action, ActionKind, Hand
from tablestorm.services.engine import events as ev
from tablestorm.services.engine.seated import SeatedTable
from tablestorm.services.engine.table import CashTable, HandRecord
from tablestorm.services.engine.visibility import view, views
from tablestorm.services.table import convert

T = TypeVar("T", bound=SeatedTable[Any])

TABLE_EVENTS = frozenset({"seat_changed", "hand_voided"})
"""Events of the table itself, not of a hand's engine record."""
DECISIONS = frozenset({"acted", "timed_out", "drew"})
"""The events a player's decision (or the clock's, CLOCK-2) starts with."""


def hand_events(events: Sequence[pb.Event], hand_number: int) -> list[pb.Event]:
    """The events of one hand's engine record, as a stream delivered them."""
    return [e for e in events if e.hand_number == hand_number and e.WhichOneof("kind") not in TABLE_EVENTS]


class Replay(Generic[T]):
    """The engine's own account of a served table: an engine table with the same options, seed,
    table id and seats (TABLE-2 deals from (seed, table id, hand number)), dealt by ``deal``, fed
    the decisions the server reports (actions, draws, clock expiries), checked event by event
    against what it streamed."""

    def __init__(self, table: T, deal: Callable[[], Hand]) -> None:
        self.table = table
        self.deal = deal

    @staticmethod
    def cash(table_id: str, options: pb.TableOptions, seed: int, players: int) -> Replay[CashTable]:
        """A cash table with ``players`` seated at seats 1..n with the posted buy-in."""
        table = CashTable(table_id, convert.options_from_proto(options), seed=seed)
        for seat in range(1, players + 1):
            table.sit_down(seat, f"p{seat}", table.options.posted_buy_in)
        return Replay(table, table.start_hand)

    def hand(
        self, number: int, public: Sequence[pb.Event], private: dict[int, Stream]
    ) -> HandRecord:
        """Replay hand ``number``: the spectator's ``public`` events must be the engine's public
        view of it, and every seat's stream exactly that seat's view, each event stamped with the time
        the server published it. Returns the engine's record."""
        served = hand_events(public, number)
        table = self.table
        hand = self.deal()
        assert table.hand_number == number
        if table.hand is not None:
            seats = tuple(k + 1 for k in table.hand_seats)
        else:  # over while dealing (everyone all-in on the forced bets)
            assert table.last_record is not None
            seats = table.last_record.seats
        position = 0

        def compare(new: Sequence[ev.Event]) -> None:
            nonlocal position
            for event in new:
                assert position < len(served), f"hand {number}: the engine has more events: {event}"
                got = served[position]
                want = convert.event_to_proto(view(event, None), seats, seq=got.seq, hand_number=number,
                                              server_time_us=got.server_time_us)
                assert got == want and got.server_time_us > 0, (number, position, got, want)
                position += 1

        compare(list(hand.events))
        while table.hand is not None:
            assert position < len(served), f"hand {number}: the server stopped before the engine"
            # The decision's own event: a draw's Drew may follow a Reshuffled (DRAW-4).
            decision = next((e for e in served[position:] if e.WhichOneof("kind") in DECISIONS), served[-1])
            kind = decision.WhichOneof("kind")
            if kind == "timed_out":
                assert decision.timed_out.seat == seats[table.hand.actor]
                new = table.timeout()
            elif kind == "acted":
                acted = decision.acted
                amount = acted.to if acted.kind in AMOUNT_KINDS else 0
                new = table.apply(acted.seat, Action(convert.KIND_FROM_PB[acted.kind], amount))
            elif kind == "drew":
                seat = decision.drew.seat
                own = next(e for e in private[seat].events if e.seq == decision.seq)
                new = table.apply(seat, Action(ActionKind.DRAW, 0, tuple(own.drew.discarded)))
            else:
                raise AssertionError(f"hand {number}: the engine awaits a decision, the server sent {decision}")
            compare(new)
        assert position == len(served), f"hand {number}: the server has more events: {served[position:]}"
        record = table.last_record
        assert record is not None and record.hand_number == number
        for index, seat in enumerate(record.seats):
            if seat in private:
                mine = hand_events(private[seat].events, number)
                assert len(mine) == len(record.events), (number, seat)
                want_events = [
                    convert.event_to_proto(e, record.seats, seq=got.seq, hand_number=number,
                                           server_time_us=got.server_time_us)
                    for e, got in zip(views(record.events, index), mine, strict=True)
                ]
                assert mine == want_events and all(got.server_time_us > 0 for got in mine), (number, seat)
        return record
