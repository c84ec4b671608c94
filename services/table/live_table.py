"""What every hosted table shares, whatever its kind: the live machinery around an engine table.

Sequence numbers, the event log, subscribers, the action clock, seat sessions (tokens and the
idempotency cache), publishing, histories and the chip check. The kinds differ in who seats
players and when hands are dealt: :class:`~.live_cash.LiveCashTable` (players buy in, hands start
by themselves) and :class:`~.live_tournament.LiveTournamentTable` (a director seats players and
deals each hand). Every method is synchronous and runs to completion between two awaits of the
event loop, so a table needs no lock: an action, a clock expiry and a seat change can never
interleave.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

import grpc

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.engine import Action, ActionKind, IllegalAction, TableOptions
from tablestorm.services.engine import events as ev
from tablestorm.services.engine.seated import SeatedTable, TableError
from tablestorm.services.engine.visibility import view
from tablestorm.services.rpc.errors import ServiceError
from tablestorm.services.table import convert
from tablestorm.services.table import validation as check
from tablestorm.services.table.auth import SeatKey, SeatTokens, handle_of
from tablestorm.services.table.clock import ActionClock, Timers
from tablestorm.services.table.hub import (
    EVENTS,
    WELCOME,
    YOUR_TURN,
    EventLog,
    LogEntry,
    Outbox,
    Subscribers,
    Turn,
    Wire,
    frame,
    personal,
)
from tablestorm.services.table.metrics import Metrics

log = logging.getLogger(__name__)

RESULT_CACHE = 16
"""Action answers remembered per seat for idempotent retries (by action_id). A client acts once per
turn and retries the action whose answer it lost, so a retry concerns the seat's last action or
two; an older id is an action anew (refused once its ``turn_seq`` has passed). Every seat of a host
keeps this many, so it is what a host of thousands of seats holds for retries: 16 answers fill in
a couple of minutes of play, where 64 took a quarter of an hour at a 1 s think time (the soak)."""

_OK = grpc.StatusCode.OK.value[0]

Outcome = tuple[int, str]
"""An action's answer as a seat remembers it: status code and message (a protobuf message kept
instead costs about 730 bytes of native memory an answer)."""

_APPLIED: Outcome = (_OK, "")


def _code(code: grpc.StatusCode) -> int:
    number: int = code.value[0]
    return number


class TableKind(enum.Enum):
    """Who runs a table: its players (cash) or a tournament director."""

    CASH = "cash"
    TOURNAMENT = "tournament"


TABLE_KIND_TO_PB = {TableKind.CASH: pb.TABLE_KIND_CASH, TableKind.TOURNAMENT: pb.TABLE_KIND_TOURNAMENT}


class SeatSession:
    """One occupancy of a seat: its token, and the answers given to its recent action ids."""

    __slots__ = ("occupancy", "results", "token")

    def __init__(self, occupancy: int, token: str) -> None:
        self.occupancy = occupancy
        self.token = token
        self.results: OrderedDict[str, Outcome] = OrderedDict()


T = TypeVar("T", bound=SeatedTable[Any])


class LiveTable(ABC, Generic[T]):
    """A table being served: an engine table plus everything live play adds (event numbering and
    log, subscribers, the action clock, seat sessions, the chip check)."""

    kind: TableKind

    def __init__(
        self,
        table: T,
        *,
        loop: asyncio.AbstractEventLoop,
        timers: Timers,
        metrics: Metrics,
        tokens: SeatTokens,
        outbox_limit: int,
        max_spectators: int,
    ) -> None:
        self.table = table
        self.table_id = table.table_id
        self.options: TableOptions = table.options
        self.log = EventLog()
        self.subscribers = Subscribers(max_spectators)
        self.draining = False
        self.closing = False
        """CloseTable was called: no new seats or hands; the host removes the table once it may go."""
        self.idle = asyncio.Event()
        """Set while no hand is running (shutdown waits on it)."""
        self.idle.set()
        self._loop = loop
        self._metrics = metrics.game(table.options.variant.code)
        self._hands_by_kind = metrics.hands_by_kind.labels(self.kind.value)
        self.hands_completed = 0
        """Hands played to the end at this table (voided ones are not)."""
        self._tokens = tokens
        self.incarnation = 0
        """How many times this table id was rebuilt on another server before this one (a cash
        table restored from the ledger; 0 for a table opened here)."""
        self._outbox_limit = outbox_limit
        self._clock = ActionClock(timers, self._on_clock)
        self._sessions: dict[int, SeatSession] = {}
        self._occupancies = 0
        self._chips = 0
        """Chips that came onto the table minus those that left: what ``table.total_chips()`` must equal."""
        self._turn: Turn | None = None
        self._turn_seq = 0
        """YourTurn.seq of the turn armed now (an action naming another turn is refused)."""
        self._seats: tuple[int, ...] = ()
        """Seat number of each player index of the current hand."""
        self._owners: tuple[int, ...] = ()
        """Occupancy of each player index of the current hand (who may see its down cards)."""
        self._last_pots: tuple[ev.Pot, ...] = ()
        self._status: dict[int, int] = {}
        """The SeatStatus last published per seat."""

    # ----------------------------------------------------------------- hooks

    @abstractmethod
    def _sitting_out(self, seat_no: int) -> bool:
        """Whether the occupied seat shows SITTING_OUT (a cash player sitting out; a tournament
        player away)."""

    def _auto_action(self, seat_no: int) -> Action | None:
        """An action the table takes at once for the seat whose turn it is (None: prompt the player)."""
        return None

    def _after_timeout(self, seat_no: int) -> None:
        """The clock just acted for the seat's player (CLOCK-2)."""

    @abstractmethod
    def _after_hand(self) -> None:
        """The hand ended or was voided (the turn, clock and chip check are done)."""

    # ----------------------------------------------------------------- views

    def seat_state(self, seat_no: int) -> pb.SeatState:
        seat = self.table.seats[seat_no - 1]
        if seat is None:
            return pb.SeatState(seat=seat_no, status=pb.SEAT_STATUS_EMPTY)
        stack = seat.stack
        hand = self.table.hand
        if hand is not None and seat_no - 1 in self.table.hand_seats:
            stack = hand.stacks[self.table.hand_seats.index(seat_no - 1)]
        status = pb.SEAT_STATUS_SITTING_OUT if self._sitting_out(seat_no) else pb.SEAT_STATUS_PLAYING
        return pb.SeatState(seat=seat_no, player_id=seat.player_id, stack=stack, status=status)

    @property
    def posted_buy_in(self) -> int:
        """The buy-in a lobby shows (cash tables; a tournament table takes none)."""
        return 0

    def state(self) -> pb.TableState:
        return pb.TableState(
            table_id=self.table_id,
            options=convert.options_to_proto(self.options),
            seats=[self.seat_state(k) for k in range(1, self.options.seats + 1)],
            hand_number=self.table.hand_number,
            hand_running=self.table.hand is not None,
            last_seq=self.log.last_seq,
            posted_buy_in=self.posted_buy_in,
            closing=self.closing,
            kind=TABLE_KIND_TO_PB[self.kind],
        )

    @property
    def seats_taken(self) -> int:
        return sum(seat is not None for seat in self.table.seats)

    def summary(self) -> pb.TableSummary:
        """The table as a lobby lists it (ListTables)."""
        options = self.options
        return pb.TableSummary(
            table_id=self.table_id,
            game=options.variant.code,
            structure=convert.STRUCTURE_TO_PB[options.structure],
            stakes=convert.stakes_to_proto(options.stakes),
            max_seats=options.seats,
            seats_taken=self.seats_taken,
            hand_number=self.table.hand_number,
            hand_running=self.table.hand is not None,
            closing=self.closing,
            posted_buy_in=self.posted_buy_in,
            clock_seconds=options.clock_seconds,
            kind=TABLE_KIND_TO_PB[self.kind],
        )

    def holder(self, seat_no: int) -> dict[str, object]:
        """What the table holds for ``seat_no``, as a refused seat call logs it: nothing secret
        (the handle of the seat's token, never its secret)."""
        session = self._sessions.get(seat_no)
        return {
            "table_id": self.table_id,
            "table_incarnation": self.incarnation,
            "seat": seat_no,
            "seat_token_handle": handle_of(session.token) if session is not None else None,
            "seat_occupancy": session.occupancy if session is not None else None,
        }

    def session(self, key: SeatKey) -> SeatSession:
        session = self._sessions.get(key.seat)
        if session is None or session.occupancy != key.occupancy:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "the seat token is no longer valid")
        return session

    @abstractmethod
    def sit_out(self, key: SeatKey) -> pb.SeatState:
        """The player asks to sit out (a tournament player: to be away)."""

    @abstractmethod
    def sit_in(self, key: SeatKey, post_to_play: bool) -> pb.SeatState:
        """The player asks to play again (a tournament player: back from away)."""

    def history(self, key: SeatKey) -> pb.History:
        """SHOW-4: the seat's last 50 hands as its player saw them (no sequence numbers)."""
        self.session(key)
        hands = []
        for record, seen in self.table.history(key.seat):
            events = [convert.event_to_proto(e, record.seats, hand_number=record.hand_number) for e in seen]
            hands.append(pb.HandHistory(hand_number=record.hand_number, voided=record.voided, events=events))
        return pb.History(hands=hands)

    # ----------------------------------------------------------------- sessions

    def _check_free(self, seat_no: int, player_id: str) -> None:
        """A new player may take ``seat_no``: it is empty and they sit nowhere else here."""
        if self.table.seats[seat_no - 1] is not None:
            raise ServiceError(grpc.StatusCode.ALREADY_EXISTS, f"seat {seat_no} is taken")
        taken = self.table.seat_of(player_id)
        if taken is not None:
            raise ServiceError(
                grpc.StatusCode.ALREADY_EXISTS, f"player {player_id!r} already sits at seat {taken}"
            )

    def _open_session(self, seat_no: int) -> str:
        """A new occupancy of ``seat_no`` (its player just took it): issue its token."""
        self._occupancies += 1
        token = self._tokens.issue(SeatKey(self.table_id, seat_no, self._occupancies))
        self._sessions[seat_no] = SeatSession(self._occupancies, token)
        self._metrics.seats_live.inc()
        return token

    def _restore_session(self, seat_no: int, token: str) -> None:
        """A new occupancy of ``seat_no`` that keeps a token issued before (a rebuilt table)."""
        self._occupancies += 1
        self._tokens.restore(SeatKey(self.table_id, seat_no, self._occupancies), token)
        self._sessions[seat_no] = SeatSession(self._occupancies, token)
        self._metrics.seats_live.inc()

    def _end_session(self, seat_no: int, reason: str) -> None:
        """The seat's player left: its token dies and its stream ends OK after what is pending."""
        session = self._sessions.pop(seat_no)
        self._tokens.revoke(session.token)
        self._metrics.seats_live.dec()
        outbox = self.subscribers.seats.get(seat_no)
        if outbox is not None:
            outbox.close(None, reason, flush=True)

    # ----------------------------------------------------------------- actions

    def act(self, key: SeatKey, request: pb.ActRequest) -> pb.ActResult:
        """Apply one action for the seat of ``key``; the answer is cached by ``action_id``."""
        started = time.perf_counter()
        session = self.session(key)
        action_id = request.action_id
        cached = session.results.get(action_id)
        if cached is not None:
            return pb.ActResult(action_id=action_id, code=cached[0], message=cached[1])
        check.action_id(action_id)
        code, message = _OK, ""
        try:
            action = convert.action_from_proto(request)
            hand = self.table.hand
            if hand is None or hand.actor < 0:
                raise TableError("no hand is running")
            actor = self._seats[hand.actor]
            if actor != key.seat:
                raise TableError(f"it is seat {actor}'s turn, not seat {key.seat}'s")
            if request.HasField("turn_seq") and request.turn_seq != self._turn_seq:
                when = "has passed" if request.turn_seq < self._turn_seq else "has not come (no turn had it)"
                raise TableError(
                    f"turn_seq: the turn at seq {request.turn_seq} {when}; seat {key.seat}'s turn"
                    f" now is at seq {self._turn_seq}"
                )
            events = self.table.apply(key.seat, action)
        except (IllegalAction, TableError) as exc:
            code, message = _code(grpc.StatusCode.FAILED_PRECONDITION), str(exc)
        except ValueError as exc:
            code, message = _code(grpc.StatusCode.INVALID_ARGUMENT), str(exc)
        results = session.results
        results[action_id] = _APPLIED if code == _OK else (code, message)
        if len(results) > RESULT_CACHE:
            results.popitem(last=False)
        if code == _OK:
            self._metrics.actions[action.kind].inc()
            self._step(events)
            self._metrics.processing.observe(time.perf_counter() - started)
        return pb.ActResult(action_id=action_id, code=code, message=message)

    def answer(self, key: SeatKey | None, request: pb.ActRequest) -> pb.ActResult:
        """An action sent on a stream (``key`` None: a spectator's): always answered with an
        ActResult, a refusal as its code, never raised."""
        if key is None:
            return pb.ActResult(
                action_id=request.action_id,
                code=_code(grpc.StatusCode.PERMISSION_DENIED),
                message="spectators cannot act",
            )
        try:
            return self.act(key, request)
        except ServiceError as exc:
            return pb.ActResult(action_id=request.action_id, code=_code(exc.code), message=exc.message)

    def _on_clock(self) -> None:
        """CLOCK-2: the turn's clock ran out; the engine acts for the player."""
        hand = self.table.hand
        if hand is None or hand.actor < 0:
            return
        seat_no = self._seats[hand.actor]
        try:
            events = self.table.timeout()
        except TableError:
            log.exception("action clock fired with nothing to time out", extra={"table_id": self.table_id})
            return
        self._metrics.actions[ActionKind.TIMEOUT].inc()
        self._publish(events)
        self._after_timeout(seat_no)
        self._step(())

    # ----------------------------------------------------------------- hands

    def _begin_hand(self) -> None:
        """Publish the hand the engine table just dealt and arm its first turn."""
        table = self.table
        if table.hand is not None:
            seat_indexes = table.hand_seats
            events: Sequence[ev.Event] = table.hand.events
        else:  # over as soon as dealt (everyone all-in on the forced bets)
            assert table.last_record is not None
            seat_indexes = tuple(s - 1 for s in table.last_record.seats)
            events = table.last_record.events
        self._seats = tuple(k + 1 for k in seat_indexes)
        self._owners = tuple(self._sessions[k + 1].occupancy for k in seat_indexes)
        self.idle.clear()
        self._step(list(events))

    def _step(self, events: Sequence[ev.Event]) -> None:
        """Publish what one table operation produced, act for the seats the table acts for
        (:meth:`_auto_action`), then arm the next turn or close the hand."""
        while True:
            self._publish(events)
            hand = self.table.hand
            if hand is None:
                self._hand_over()
                return
            if hand.actor < 0:
                return
            seat = self._seats[hand.actor]
            action = self._auto_action(seat)
            if action is None:
                break
            self._metrics.actions[action.kind].inc()
            events = self.table.apply(seat, action)
        if self._turn is not None:
            self._turn.live = False
        deadline = self._clock.restart(self.options.clock_seconds)
        self._turn_seq = self.log.last_seq
        prompt = pb.YourTurn(
            hand_number=self.table.hand_number,
            seq=self._turn_seq,
            legal=convert.legal_to_proto(hand.legal_actions()),
            deadline_unix_ms=deadline,
        )
        turn = self._turn = Turn(seat, lambda: frame(YOUR_TURN, prompt))
        outbox = self.subscribers.seats.get(seat)
        if outbox is not None:
            outbox.offer_turn(turn)

    def _act_now_if_turn(self, seat_no: int) -> None:
        """Give the table's own action (:meth:`_auto_action`) for ``seat_no`` if it is its turn now."""
        hand = self.table.hand
        if hand is None or hand.actor < 0 or self._seats[hand.actor] != seat_no:
            return
        action = self._auto_action(seat_no)
        if action is not None:
            self._metrics.actions[action.kind].inc()
            self._step(self.table.apply(seat_no, action))

    def _publish(self, events: Sequence[ev.Event]) -> None:
        """Number, stamp with the time (the same for all: one step's events are published at
        once), convert (once per visibility class), log and fan out engine events."""
        hand_number = self.table.hand_number
        seats, owners = self._seats, self._owners
        metrics = self._metrics
        seq = self.log.last_seq
        now_us = time.time_ns() // 1000
        entries = []
        for event in events:
            seq += 1
            kind = type(event)
            public_event = view(event, None)
            public = frame(
                EVENTS,
                convert.event_to_proto(public_event, seats, seq=seq, hand_number=hand_number, server_time_us=now_us),
            )
            if public_event is event:
                entry = LogEntry(seq, public, 0, b"")
            else:
                owner = owners[event.player]  # type: ignore[union-attr]
                private = frame(
                    EVENTS,
                    convert.event_to_proto(event, seats, seq=seq, hand_number=hand_number, server_time_us=now_us),
                )
                entry = LogEntry(seq, public, owner, private)
            self.log.append(entry, hand_start=kind is ev.HandStarted)
            entries.append(entry)
            if kind is ev.PotsFormed:
                self._last_pots = event.pots  # type: ignore[union-attr]
            elif kind is ev.TimedOut:
                metrics.timeouts[event.outcome].inc()  # type: ignore[union-attr]
            elif kind is ev.CapReached:
                metrics.raise_caps.inc()
            elif kind is ev.HandEnded:
                self.hands_completed += 1
                metrics.hands_completed.inc()
                self._hands_by_kind.inc()
                if len(self._last_pots) > 1:
                    metrics.side_pots.inc(len(self._last_pots) - 1)
        self.subscribers.broadcast(entries)

    def _publish_table_event(self, event: pb.Event) -> None:
        """Number, log and fan out an event of the table itself (public, outside the engine)."""
        event.seq = seq = self.log.last_seq + 1
        event.hand_number = self.table.hand_number
        event.server_time_us = time.time_ns() // 1000
        entry = LogEntry(seq, frame(EVENTS, event), 0, b"")
        self.log.append(entry)
        self.subscribers.broadcast([entry])

    def _seat_changed(self, seat_no: int) -> None:
        state = self.seat_state(seat_no)
        self._status[seat_no] = state.status
        self._publish_table_event(pb.Event(seat_changed=pb.SeatChanged(seat=state)))

    def _hand_over(self) -> None:
        if self._turn is not None:
            self._turn.live = False
            self._turn = None
        self._clock.cancel()
        self._last_pots = ()
        self._check_chips()
        self._after_hand()
        self.idle.set()

    def _check_chips(self) -> None:
        total = self.table.total_chips()
        if total != self._chips:
            self._metrics.chip_conservation_violations.inc()
            log.error(
                "chip conservation violated",
                extra={
                    "table_id": self.table_id,
                    "hand_number": self.table.hand_number,
                    "chips": total,
                    "expected": self._chips,
                },
            )

    # ----------------------------------------------------------------- streams and shutdown

    def subscribe(self, seat: int, owner: int, resume_after: int | None, wire: Wire | None = None) -> Outbox:
        """A new Play stream (with ``wire``, a subscriber reading that encoding): welcome it,
        replay what it missed, and add it to the fan-out.

        Runs without awaiting, so no event can fall between the replay and the subscription.
        """
        if not seat and len(self.subscribers.spectators) >= self.subscribers.max_spectators:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED, f"table {self.table_id!r} has its maximum of spectators"
            )
        if resume_after is None:
            entries, gap = (self.log.current_hand() if self.table.hand is not None else []), False
        elif resume_after > self.log.last_seq:
            raise ServiceError(
                grpc.StatusCode.OUT_OF_RANGE,
                f"resume_after_seq: {resume_after} is ahead of the table's last seq {self.log.last_seq}",
            )
        else:
            entries, gap = self.log.after(resume_after)
        outbox = Outbox(seat, owner, self._outbox_limit, wire)
        welcome = frame(WELCOME, pb.Welcome(seat=seat, table=self.state(), gap=gap))
        outbox.push_message(welcome + personal(entries, owner))
        self.subscribers.add(outbox)
        turn = self._turn
        if seat and turn is not None and turn.seat == seat:
            outbox.offer_turn(turn)
        return outbox

    def unsubscribe(self, outbox: Outbox) -> None:
        self.subscribers.remove(outbox)

    def void_hand(self, reason: str) -> None:
        """Cancel the running hand with an exact refund of every player's starting stack."""
        table = self.table
        hand = table.hand
        if hand is None:
            return
        # A player who folded and stood up was cashed out without the chips already in the pot;
        # the refund of those goes back to them (off the table), the rest to the seats.
        departed = sum(hand.committed[i] for i, k in enumerate(table.hand_seats) if table.seats[k] is None)
        self._chips -= departed
        self._refunded_off_table(departed)
        record = table.void_hand()
        stacks = [self.seat_state(s).stack for s in record.seats]
        self._metrics.hands_voided.inc()
        self._publish_table_event(
            pb.Event(hand_voided=pb.HandVoided(seats=record.seats, stacks=stacks, reason=reason))
        )
        self._hand_over()

    def _refunded_off_table(self, chips: int) -> None:
        """A voided hand refunded ``chips`` to players who had already left the table."""

    def abandon(self) -> None:
        """Stop where the table stands, as a crashed server would: no clock expiry and no deal
        from now on, nothing refunded (its record outside this server is what a rebuild uses)."""
        self.draining = True
        self._clock.cancel()

    def close_streams(self, code: grpc.StatusCode | None, message: str) -> None:
        """End every stream after it has written what is pending."""
        for outbox in self.subscribers.all():
            outbox.close(code, message, flush=True)

    def release(self, message: str) -> None:
        """The table leaves the server: every remaining seat's token dies and every stream ends OK."""
        for seat_no in list(self._sessions):
            self._end_session(seat_no, message)
        self.close_streams(None, message)
