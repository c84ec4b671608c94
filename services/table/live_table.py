"""One hosted cash table: the engine's :class:`CashTable` plus what a live service adds.

Sequence numbers, the event log, subscribers, the action clock, seat sessions (tokens and the
idempotency cache) and the automatic start of hands. Every method is synchronous and runs to
completion between two awaits of the event loop, so a table needs no lock: an action, a clock
expiry and a seat change can never interleave.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence

import grpc

from services.engine import ActionKind, IllegalAction, TableOptions
from services.engine import events as ev
from services.engine.table import CashTable, TableError
from services.engine.visibility import view

from . import convert
from . import validation as check
from .auth import SeatKey, SeatTokens
from .clock import ActionClock
from .errors import ServiceError, failed, invalid
from .hub import EVENTS, WELCOME, YOUR_TURN, EventLog, LogEntry, Outbox, Subscribers, Turn, frame, personal
from .ledger import LedgerEntry, SeatRecord, TableLedger
from .metrics import Metrics
from .proto_gen import table_service_pb2 as pb

log = logging.getLogger(__name__)

RESULT_CACHE = 64
"""Action results remembered per seat for idempotent retries (by action_id)."""

_OK = grpc.StatusCode.OK.value[0]


def _code(code: grpc.StatusCode) -> int:
    number: int = code.value[0]
    return number


class SeatSession:
    """One sit-down: its token, and the answers given to its recent action ids."""

    __slots__ = ("occupancy", "results", "token")

    def __init__(self, occupancy: int, token: str) -> None:
        self.occupancy = occupancy
        self.token = token
        self.results: OrderedDict[str, pb.ActResult] = OrderedDict()


SEQ_EPOCH_BITS = 40
"""A rebuilt table's events start at ``incarnation << 40``: past any number its earlier lives used."""


class LiveTable:
    """A table being served: an engine table plus everything live play adds (event numbering and
    log, subscribers, the action clock, seat sessions, chip checks, the ledger hooks)."""

    def __init__(
        self,
        table_id: str,
        options: TableOptions,
        *,
        seed: int | None,
        loop: asyncio.AbstractEventLoop,
        metrics: Metrics,
        tokens: SeatTokens,
        hand_pause: float,
        outbox_limit: int,
        max_spectators: int,
        ledger: TableLedger | None = None,
    ) -> None:
        self.table = CashTable(table_id, options, seed=seed)
        self.table_id = table_id
        self.options = options
        self.log = EventLog()
        self.subscribers = Subscribers(max_spectators)
        self.draining = False
        self.closing = False
        """CloseTable was called: no new seats or hands; the host removes the table once it is empty."""
        self.idle = asyncio.Event()
        """Set while no hand is running (shutdown waits on it)."""
        self.idle.set()
        self._loop = loop
        self._metrics = metrics.game(options.variant.code)
        self.hands_completed = 0
        """Hands played to the end at this table (voided ones are not)."""
        self._tokens = tokens
        self._hand_pause = hand_pause
        self._outbox_limit = outbox_limit
        self._clock = ActionClock(loop, self._on_clock)
        self._sessions: dict[int, SeatSession] = {}
        self._occupancies = 0
        self._chips = 0
        """Buy-ins and rebuys minus cash-outs: what ``table.total_chips()`` must equal."""
        self.bought = 0
        self.cashed_out = 0
        """Chips that came onto and left this table, for the ledger (``_chips`` is their difference)."""
        self._turn: Turn | None = None
        self._turn_seq = 0
        """YourTurn.seq of the turn armed now (an action naming another turn is refused)."""
        self._seats: tuple[int, ...] = ()
        """Seat number of each player index of the current hand."""
        self._owners: tuple[int, ...] = ()
        """Occupancy of each player index of the current hand (who may see its down cards)."""
        self._last_pots: tuple[ev.Pot, ...] = ()
        self._status: dict[int, int] = {}
        """The SeatStatus last published per seat, to announce CLOCK-3 sit-outs after a hand."""
        self._start_pending = False
        self._ledger = ledger

    # ----------------------------------------------------------------- views

    def seat_state(self, seat_no: int) -> pb.SeatState:
        seat = self.table.seats[seat_no - 1]
        if seat is None:
            return pb.SeatState(seat=seat_no, status=pb.SEAT_STATUS_EMPTY)
        stack = seat.stack
        hand = self.table.hand
        if hand is not None and seat_no - 1 in self.table.hand_seats:
            stack = hand.stacks[self.table.hand_seats.index(seat_no - 1)]
        status = pb.SEAT_STATUS_SITTING_OUT if seat.sitting_out else pb.SEAT_STATUS_PLAYING
        return pb.SeatState(seat=seat_no, player_id=seat.player_id, stack=stack, status=status)

    def state(self) -> pb.TableState:
        return pb.TableState(
            table_id=self.table_id,
            options=convert.options_to_proto(self.options),
            seats=[self.seat_state(k) for k in range(1, self.options.seats + 1)],
            hand_number=self.table.hand_number,
            hand_running=self.table.hand is not None,
            last_seq=self.log.last_seq,
            posted_buy_in=self.options.posted_buy_in,
            closing=self.closing,
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
            posted_buy_in=options.posted_buy_in,
            clock_seconds=options.clock_seconds,
        )

    def session(self, key: SeatKey) -> SeatSession:
        session = self._sessions.get(key.seat)
        if session is None or session.occupancy != key.occupancy:
            raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "the seat token is no longer valid")
        return session

    # ----------------------------------------------------------------- seats

    def sit_down(
        self, seat_no: int, player_id: str, buy_in: int, post_to_play: bool
    ) -> tuple[str, pb.SeatState, int]:
        """Seat a player with the posted buy-in (TABLE-1); returns the seat token, the seat, and
        the seq to resume a stream after so that no event from the sit-down on is missed."""
        check.seat(seat_no, self.options.seats)
        if self.closing:
            raise failed(f"table {self.table_id!r} is closing: it takes no new players")
        posted = self.options.posted_buy_in
        if buy_in and buy_in != posted:
            raise invalid(f"buy_in: must be the posted {posted} chips (TABLE-1), got {buy_in}")
        if self.table.seats[seat_no - 1] is not None:
            raise ServiceError(grpc.StatusCode.ALREADY_EXISTS, f"seat {seat_no} is taken")
        taken = self.table.seat_of(player_id)
        if taken is not None:
            raise ServiceError(
                grpc.StatusCode.ALREADY_EXISTS, f"player {player_id!r} already sits at seat {taken}"
            )
        try:
            self.table.sit_down(seat_no, player_id, posted, post_to_play=post_to_play)
        except TableError as exc:
            raise failed(str(exc)) from None
        self._occupancies += 1
        token = self._tokens.issue(SeatKey(self.table_id, seat_no, self._occupancies))
        self._sessions[seat_no] = SeatSession(self._occupancies, token)
        self._chips += posted
        self.bought += posted
        self._metrics.seats_live.inc()
        resume_after = self.log.last_seq
        self._seat_changed(seat_no)
        self._maybe_start()
        return token, self.seat_state(seat_no), resume_after

    def stand_up(self, key: SeatKey) -> int:
        session = self.session(key)
        table = self.table
        if table.hand is not None and key.seat - 1 in table.hand_seats:
            # Even folded: cashing out now would pay the stack without the chips already in the
            # pot, and a hand voided later (shutdown) could no longer refund those to anyone.
            raise failed(
                f"seat {key.seat} is dealt into hand {table.hand_number}, live or folded:"
                " stand up once the hand ends"
            )
        try:
            chips = self.table.stand_up(key.seat)
        except TableError as exc:
            raise failed(str(exc)) from None
        del self._sessions[key.seat]
        self._tokens.revoke(session.token)
        self._chips -= chips
        self.cashed_out += chips
        self._metrics.seats_live.dec()
        outbox = self.subscribers.seats.get(key.seat)
        if outbox is not None:
            outbox.close(None, "stood up", flush=True)
        self._seat_changed(key.seat)
        return chips

    def seat_keys(self) -> list[SeatKey]:
        """The key of every seat taken now (what the host stands up at the very end of a run)."""
        return [SeatKey(self.table_id, seat, session.occupancy) for seat, session in self._sessions.items()]

    def sit_out(self, key: SeatKey) -> pb.SeatState:
        self.session(key)
        self.table.sit_out(key.seat)
        self._seat_changed(key.seat)
        return self.seat_state(key.seat)

    def sit_in(self, key: SeatKey, post_to_play: bool) -> pb.SeatState:
        self.session(key)
        self.table.sit_in(key.seat, post_to_play=post_to_play)
        self._seat_changed(key.seat)
        self._maybe_start()
        return self.seat_state(key.seat)

    def rebuy(self, key: SeatKey) -> pb.SeatState:
        self.session(key)
        if self.closing:
            raise failed(f"table {self.table_id!r} is closing: no rebuys")
        try:
            chips = self.table.rebuy(key.seat)
            self._chips += chips
            self.bought += chips
        except TableError as exc:
            raise failed(str(exc)) from None
        self._seat_changed(key.seat)
        self._maybe_start()
        return self.seat_state(key.seat)

    def history(self, key: SeatKey) -> pb.History:
        """SHOW-4: the seat's last 50 hands as its player saw them (no sequence numbers)."""
        self.session(key)
        seat = self.table.seats[key.seat - 1]
        assert seat is not None
        hands = []
        for record in seat.history:
            events = [
                convert.event_to_proto(e, record.seats, hand_number=record.hand_number)
                for e in record.view_for(seat.player_id)
            ]
            hands.append(pb.HandHistory(hand_number=record.hand_number, voided=record.voided, events=events))
        return pb.History(hands=hands)

    # ----------------------------------------------------------------- actions

    def act(self, key: SeatKey, request: pb.ActRequest) -> pb.ActResult:
        """Apply one action for the seat of ``key``; the answer is cached by ``action_id``."""
        started = time.perf_counter()
        session = self.session(key)
        action_id = request.action_id
        cached = session.results.get(action_id)
        if cached is not None:
            return cached
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
        result = pb.ActResult(action_id=action_id, code=code, message=message)
        results = session.results
        results[action_id] = result
        if len(results) > RESULT_CACHE:
            results.popitem(last=False)
        if code == _OK:
            self._metrics.actions[action.kind].inc()
            self._step(events)
            self._metrics.processing.observe(time.perf_counter() - started)
        return result

    def _on_clock(self) -> None:
        """CLOCK-2: the turn's clock ran out; the engine acts for the player."""
        hand = self.table.hand
        if hand is None or hand.actor < 0:
            return
        try:
            events = self.table.timeout()
        except TableError:
            log.exception("action clock fired with nothing to time out", extra={"table_id": self.table_id})
            return
        self._metrics.actions[ActionKind.TIMEOUT].inc()
        self._step(events)

    # ----------------------------------------------------------------- hands

    def _maybe_start(self) -> None:
        """Deal the next hand on a later loop iteration (after the pause) if one can start."""
        if self._start_pending or self.draining or self.closing or not self.table.ready():
            return
        self._start_pending = True
        if self._hand_pause > 0:
            self._loop.call_later(self._hand_pause, self._start)
        else:
            self._loop.call_soon(self._start)

    def _start(self) -> None:
        if self.draining or self.closing:  # CloseTable or shutdown came during the pause
            self._start_pending = False
            return
        if self._ledger is None:
            self._deal()
        else:
            self._loop.create_task(self._record_then_deal(self._ledger))

    async def _record_then_deal(self, ledger: TableLedger) -> None:
        """Put the stacks everyone starts the hand with outside this server before dealing."""
        number = self.table.hand_number + 1
        try:
            await ledger.record(self.ledger_entry("hand_started", number))
        except Exception:
            self._start_pending = False
            log.exception("ledger unreachable: hand not dealt", extra={"table_id": self.table_id})
            return
        self._deal()
        if self.table.hand_number < number and self._ledger is not None:
            # Not dealt after all (CloseTable, shutdown, or players left during the write): the
            # ledger's last word must not be a hand start that never happened. (Abandoned: the
            # table writes nothing more.)
            ledger.note(self.ledger_entry("seats", self.table.hand_number))

    def _deal(self) -> None:
        self._start_pending = False
        if self.draining or self.closing or not self.table.ready():
            return
        table = self.table
        hand = table.start_hand()
        if table.hand is not None:
            seat_indexes = table.hand_seats
        else:  # over as soon as dealt (everyone all-in on the forced bets)
            assert table.last_record is not None
            seat_indexes = tuple(s - 1 for s in table.last_record.seats)
        self._seats = tuple(k + 1 for k in seat_indexes)
        self._owners = tuple(self._sessions[k + 1].occupancy for k in seat_indexes)
        self.idle.clear()
        self._step(list(hand.events))

    def _step(self, events: Sequence[ev.Event]) -> None:
        """Publish what one table operation produced, then arm the next turn or close the hand."""
        self._publish(events)
        hand = self.table.hand
        if hand is None:
            self._hand_over()
            return
        if hand.actor < 0:
            return
        seat = self._seats[hand.actor]
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

    def _publish(self, events: Sequence[ev.Event]) -> None:
        """Number, convert (once per visibility class), log and fan out engine events."""
        hand_number = self.table.hand_number
        seats, owners = self._seats, self._owners
        metrics = self._metrics
        seq = self.log.last_seq
        entries = []
        for event in events:
            seq += 1
            kind = type(event)
            public_event = view(event, None)
            public = frame(
                EVENTS, convert.event_to_proto(public_event, seats, seq=seq, hand_number=hand_number)
            )
            if public_event is event:
                entry = LogEntry(seq, public, 0, b"")
            else:
                owner = owners[event.player]  # type: ignore[union-attr]
                private = frame(
                    EVENTS, convert.event_to_proto(event, seats, seq=seq, hand_number=hand_number)
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
                if len(self._last_pots) > 1:
                    metrics.side_pots.inc(len(self._last_pots) - 1)
        self.subscribers.broadcast(entries)

    def _publish_table_event(self, event: pb.Event) -> None:
        """Number, log and fan out an event of the table itself (public, outside the engine)."""
        event.seq = seq = self.log.last_seq + 1
        event.hand_number = self.table.hand_number
        entry = LogEntry(seq, frame(EVENTS, event), 0, b"")
        self.log.append(entry)
        self.subscribers.broadcast([entry])

    # ----------------------------------------------------------------- the ledger

    def ledger_entry(self, kind: str, hand_number: int) -> LedgerEntry:
        """Every seat with its stack outside any running hand (the stack it started the hand with)."""
        seats = []
        for k, seat in enumerate(self.table.seats):
            if seat is not None and k + 1 in self._sessions:
                token = self._sessions[k + 1].token
                seats.append(SeatRecord(k + 1, seat.player_id, seat.stack, token, seat.sitting_out))
        return LedgerEntry(
            self.table_id, kind, hand_number, tuple(seats), bought=self.bought, cashed_out=self.cashed_out
        )

    async def persist_seats(self) -> None:
        """Seat changes move chips on or off the table: answer only once the ledger holds them."""
        if self._ledger is not None:
            await self._ledger.record(self.ledger_entry("seats", self.table.hand_number))

    def restore(self, entry: LedgerEntry, incarnation: int) -> None:
        """Rebuild this (new) table's seats from a ledger entry, keeping every seat token valid.

        Event numbers belong to one incarnation of a table: this one numbers its events from
        ``incarnation << SEQ_EPOCH_BITS`` on, so a client resuming after an event of a dead
        incarnation is told of a gap instead of being served other events under those numbers.
        """
        self.log.last_seq = incarnation << SEQ_EPOCH_BITS
        self.table.hand_number = entry.hand_number
        self.bought, self.cashed_out = entry.bought, entry.cashed_out
        seats = entry.seats
        for record in seats:
            try:
                self.table.restore_seat(
                    record.seat, record.player_id, record.stack, sitting_out=record.sitting_out
                )
            except TableError as exc:
                raise failed(str(exc)) from None
            self._occupancies += 1
            self._tokens.restore(SeatKey(self.table_id, record.seat, self._occupancies), record.token)
            self._sessions[record.seat] = SeatSession(self._occupancies, record.token)
            self._chips += record.stack
            self._metrics.seats_live.inc()
            self._seat_changed(record.seat)
        self._maybe_start()

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
        if self._ledger is not None:
            self._ledger.note(self.ledger_entry("hand_ended", self.table.hand_number))
        for seat_no in self._seats:
            seat = self.table.seats[seat_no - 1]
            if seat is not None and self._status.get(seat_no) == pb.SEAT_STATUS_PLAYING and seat.sitting_out:
                self._seat_changed(seat_no)  # CLOCK-3: timed out, sits out from now on
        self.idle.set()
        self._maybe_start()

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

    def subscribe(self, seat: int, owner: int, resume_after: int | None) -> Outbox:
        """A new Play stream: welcome it, replay what it missed, and add it to the fan-out.

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
        outbox = Outbox(seat, owner, self._outbox_limit)
        welcome = frame(WELCOME, pb.Welcome(seat=seat, table=self.state(), gap=gap))
        outbox.push(welcome + personal(entries, owner))
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
        self.cashed_out += departed
        record = table.void_hand()
        stacks = [self.seat_state(s).stack for s in record.seats]
        self._metrics.hands_voided.inc()
        self._publish_table_event(
            pb.Event(hand_voided=pb.HandVoided(seats=record.seats, stacks=stacks, reason=reason))
        )
        self._hand_over()

    def abandon(self) -> None:
        """Stop where the table stands, as a crashed server would: no clock expiry, no deal and no
        ledger write from now on, nothing refunded (the ledger's last entry is what a rebuild uses)."""
        self.draining = True
        self._ledger = None
        self._clock.cancel()

    def close_streams(self, code: grpc.StatusCode | None, message: str) -> None:
        """End every stream after it has written what is pending."""
        for outbox in self.subscribers.all():
            outbox.close(code, message, flush=True)
