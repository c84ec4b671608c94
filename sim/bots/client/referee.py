"""The referee: every message a seat receives checked against what the seat may see and what the
room promises, and against what the bot itself sent. Pure: no clock, no stream, no stats, no
protocol: it reads any room's traffic (:mod:`tablestorm.sim.rooms.traffic`).

A :class:`Referee` is fed what the room sends (:meth:`Referee.check`: the welcome, then results,
events and the prompt, in that order) and the bot's own actions (:meth:`Referee.sent`), and
returns the protocol violations it finds, described, as values. What it settles besides (actions
answered, the clock's actions for the seat, the turn now open) it leaves in attributes for the bot.
The violations, one check each:

* another seat's face-down card (dealt or drawn) that is not hidden, or an own card that is;
* an event sequence number that does not follow the previous one (a gap the Welcome did not
  announce, or a step backwards), or a first event beyond the Welcome's ``last_seq``;
* a Welcome to another seat, a hand that starts out of order, an event its room's adapter could
  not read (:class:`~tablestorm.sim.rooms.traffic.Malformed`: without a kind, an unknown number);
* a prompt (YourTurn) for a hand that already ended, for a seat not dealt in, ahead of the events, or
  offering nothing playable;
* a result (ActResult) for an action id the bot has no pending action for;
* an action the server accepted that was not among the legal actions it offered, an action it
  applied differently from what was sent, or an action applied that the bot never sent (and the
  clock did not take, nor the table for a tournament seat that is away: TOURN-7 folds, checks,
  posts the bring-in or stands pat for it), and a legal action refused while the turn was still
  the bot's;
* a hand whose final stacks do not add up to its starting stacks (BET-7).

A bot that takes over a seat (``takeover``: it was given the seat's token, its player was played by
another bot, say one of a fleet that died) inherits the seat's recent past: the events its first
stream replays (up to that Welcome's ``last_seq``) show the previous player's actions, which are
nobody's fault. Any action for the seat after that is judged as the bot's own.

Cost: per event a sequence test, one ``if`` chain and, for cards, one ``max`` or ``min`` (a hidden
card is -1, a real one 0..51).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, NamedTuple, Protocol

import grpc

from tablestorm.services.engine.actions import TimeoutOutcome
from tablestorm.services.engine.events import Acted, CardsDealt, Drew, HandEnded, HandStarted, TimedOut
from tablestorm.services.engine.variants import Structure
from tablestorm.sim.bots.strategies import MONEY_KINDS, Action, Legal, is_allowed
from tablestorm.sim.rooms.traffic import (
    ACCEPTED,
    HIDDEN,
    PLAYABLE,
    HandVoided,
    Malformed,
    Prompt,
    Result,
    SeatChanged,
    TableEvent,
    Traffic,
    Welcome,
)

__all__ = ["ACCEPTED", "LATE", "LOST", "Follower", "Referee", "Settled", "Turn", "Violations"]

Violations = tuple[str, ...]
_NONE: Final[Violations] = ()
LATE: Final = -1
"""Settled.code of an action refused because the clock or the hand's end came first."""
LOST: Final = -2
"""Settled.code of an action sent on a stream that ended before its result: the next stream shows it
was never applied (the turn offered again, taken by the clock, the hand over, or a join afresh)."""
_FIXED_LIMIT: Final = Structure.FIXED_LIMIT.value
_FAILED_PRECONDITION: Final = grpc.StatusCode.FAILED_PRECONDITION.value[0]
_CLOCK_FOLLOW_UP: Final = {"check": "check", "fold": "fold", "bring_in": "bring_in", "stand_pat": "draw"}
"""The Acted (or Drew) kind the engine reports after each CLOCK-2 outcome (all-in reports none)."""
_AWAY_ACTIONS: Final = frozenset({"check", "fold", "bring_in"})
"""What a tournament table does at once for an away player on its turn (TOURN-7; a draw: stand pat)."""


class Follower(Protocol):
    """What follows a stream beside the referee (the hand tracker), fed as the referee reads it, so
    that each message's parts are walked once."""

    def welcome(self, welcome: Welcome, continues: bool) -> None: ...

    def fold(self, event: TableEvent) -> None: ...


class Turn(NamedTuple):
    """A prompt the seat may answer."""

    seq: int
    """Prompt.seq: sent back with the action, so a late action never lands on a later turn."""
    hand_number: int
    legal: tuple[Legal, ...]


class Settled(NamedTuple):
    """An action of the bot's whose fate is known: ``code`` is ACCEPTED, LATE, LOST or the refusal's
    gRPC status number (not FAILED_PRECONDITION: refusing a legal action is a violation). ``sent`` is
    what the bot gave :meth:`Referee.sent`."""

    action: Action
    sent: float
    code: int
    message: str


class _Pending(NamedTuple):
    action: Action
    sent: float
    legal: tuple[Legal, ...]
    down: tuple[int, ...]
    """Own down cards when it was sent (what a draw may throw)."""


_NOTHING_PENDING: Final = _Pending(Action("unknown"), 0.0, (), ())
"""What a second refusal of one action id in one message settles (the first took the pending)."""


class Referee:
    """The checks of one seat's stream (see the module docstring)."""

    __slots__ = (
        "_acted_at",
        "_away",
        "_clock_acted",
        "_ended_hand",
        "_fixed_limit",
        "_found",
        "_hand",
        "_in_hand",
        "_inflight",
        "_inherited_until",
        "_last_hand",
        "_late",
        "_orphan",
        "_pending",
        "_rejections",
        "_takeover",
        "_total",
        "_welcome_seq",
        "broadcasts",
        "clock_outcomes",
        "hand_over",
        "last_seq",
        "prompted_after",
        "resuming",
        "seat",
        "settled",
        "turn",
        "turn_opened",
        "welcomed",
    )

    def __init__(self, seat: int, *, takeover: bool = False) -> None:
        self.seat = seat
        self._takeover = takeover
        self._inherited_until = 0
        """During a takeover: events up to this seq are the seat's past (see the module docstring)."""
        self.last_seq: int | None = None
        """The last event seq seen: the next stream resumes after it (None: join afresh)."""
        self._welcome_seq = 0
        self.resuming = False
        """Whether the stream being opened resumes (it asks for the events after :attr:`last_seq`)."""
        self._last_hand = 0
        """Number of the last HandStarted seen (0: unknown, e.g. after a gap)."""
        self._ended_hand = 0
        self._hand = 0
        """The hand in progress, as its HandStarted told (0: none, or unknown after a gap)."""
        self._in_hand = False
        """Whether this seat is dealt into it."""
        self._total = 0
        """Sum of its starting stacks: the final stacks must add up to it (BET-7)."""
        self._fixed_limit = True
        self._pending: dict[str, _Pending] = {}
        self._orphan: _Pending | None = None
        """The action in flight when a stream ended: settled by what the next stream shows of it."""
        self._late: set[str] = set()
        """Pending action ids whose turn the clock (or the hand's end) took first."""
        self._rejections: list[Result] = []
        self._inflight: Action | None = None
        """The action sent for the open turn, until the server applies it (or the turn passes)."""
        self._clock_acted = ""
        """The kind of action the clock just took for the seat (CLOCK-2), until its event comes."""
        self._away = False
        """Whether the seat shows SITTING_OUT: at a tournament table, away and acted for (TOURN-7)."""
        self._found: list[str] = []
        self.turn: Turn | None = None
        """The turn the server offered and the seat has not answered yet."""
        self.turn_opened = False
        """Whether the last message checked opened :attr:`turn` (the bot should decide)."""
        self.hand_over = False
        """Whether the last message checked ended (or voided) a hand."""
        self.welcomed: Welcome | None = None
        """The Welcome of the last message checked, if it had one."""
        self.settled: list[Settled] = []
        """Actions answered since the bot last took them."""
        self.clock_outcomes: list[str] = []
        """CLOCK-2 outcomes for this seat since the bot last took them."""
        self._acted_at = 0
        """Server time (Unix µs) of the last action applied in the running hand, 0: none live."""
        self.broadcasts: list[int] = []
        """Server times (Unix µs) of other seats' actions received live since the bot last took them."""
        self.prompted_after = 0
        """Server time of the action the turn the last message opened followed (0: none live)."""

    @property
    def in_flight(self) -> bool:
        """Whether an action sent for the open turn has not been applied yet."""
        return self._inflight is not None

    # ----------------------------------------------------------------- what the bot does

    def hello(self) -> int | None:
        """A stream opens: the seq it resumes after (None: join afresh)."""
        self.resuming = self.last_seq is not None
        return self.last_seq

    def sent(self, action_id: str, action: Action, sent: float, down: tuple[int, ...]) -> None:
        """The bot sent ``action`` for the open turn (at ``sent``, its own clock's reading)."""
        turn = self.turn
        legal = turn.legal if turn is not None else ()
        self._pending[action_id] = _Pending(action, sent, legal, down)
        self._inflight = action

    def stream_closed(self) -> None:
        """The stream ended: its results will never come, its turn is gone (a resumed stream offers
        it again). An action sent just before may still have been applied: it stays in flight, so
        that its Acted in the resumed stream's replay is recognised as the seat's own, and is
        settled then (ACCEPTED) or once the next stream shows it never was (LOST)."""
        self.turn = None
        inflight = self._inflight
        if inflight is not None:
            self._orphan = next((p for p in self._pending.values() if p.action is inflight), self._orphan)
        self._pending.clear()
        self._late.clear()

    def _settle_orphan(self, code: int) -> None:
        """The fate of the action a closed stream left in flight is known (see :meth:`stream_closed`)."""
        orphan = self._orphan
        if orphan is not None:
            self._orphan = None
            self.settled.append(Settled(orphan.action, orphan.sent, code, ""))

    def forget(self) -> None:
        """The server never had the seq resumed from (a new host): the next stream joins afresh."""
        self.last_seq = None

    # ----------------------------------------------------------------- what the server sends

    def check(self, message: Traffic, follower: Follower | None = None) -> Violations:
        """Check one (possibly coalesced) message in order: welcome, results, events, then the
        prompt; returns what it breaks. ``follower`` is handed the welcome and each event right
        after the referee has read them."""
        found = self._found
        self.turn_opened = self.hand_over = False
        self.prompted_after = 0
        welcome = self.welcomed = message.welcome
        if welcome is not None:
            self._welcome(welcome)
            if follower is not None:
                follower.welcome(welcome, self.continues(welcome))
        results = message.results
        if results:
            self._results(results)
        check = self._event
        if follower is None:
            for event in message.events:
                check(event)
        else:
            fold = follower.fold
            for event in message.events:
                check(event)
                fold(event)
        if self._rejections:
            self._judge_rejections()
        prompt = message.prompt
        if prompt is not None:
            self._turn(prompt)
        if not found:
            return _NONE
        violations = tuple(found)
        found.clear()
        return violations

    def continues(self, welcome: Welcome) -> bool:
        """Whether the stream this Welcome opens picks up where the last one stopped (no gap)."""
        return self.resuming and not welcome.gap

    def _welcome(self, welcome: Welcome) -> None:
        if welcome.seat != self.seat:
            self._found.append(f"welcomed to seat {welcome.seat}")
        self._fixed_limit = welcome.structure == _FIXED_LIMIT
        if welcome.stack is not None:
            self._away = welcome.sitting_out
        if not self.continues(welcome):
            self._settle_orphan(LOST)
            self.last_seq = None
            self._hand = self._total = 0
            # A running hand is replayed from its HandStarted (after a gap: unknown).
            self._last_hand = 0 if self.resuming else welcome.hand_number - welcome.hand_running
            if self._takeover and not self._inherited_until:
                self._inherited_until = welcome.last_seq
        self._welcome_seq = welcome.last_seq

    def _results(self, results: Iterable[Result]) -> None:
        for result in results:
            pending = self._pending.pop(result.action_id, None)
            if pending is None:
                self._found.append(f"ActResult for unknown action id {result.action_id!r}")
                continue
            if result.code == ACCEPTED:
                self._late.discard(result.action_id)
                action = pending.action
                self.settled.append(Settled(action, pending.sent, ACCEPTED, ""))
                if not is_allowed(action, pending.legal, self._fixed_limit, pending.down):
                    self._found.append(f"accepted {action} outside the legal actions {pending.legal}")
            else:
                if self._inflight is pending.action:
                    self._inflight = None
                # Still pending until judged after this message's events: a coalesced message
                # carries the refusal of an action that came too late beside the TimedOut (or the
                # hand's end) that made it late, and those mark only what is pending as late.
                self._pending[result.action_id] = pending
                self._rejections.append(result)

    def _judge_rejections(self) -> None:
        """After the message's events: a refusal is late (the clock or the hand's end came first),
        a broken promise (a legal action refused on the seat's turn), or an error by status."""
        for result in self._rejections:
            pending = self._pending.pop(result.action_id, _NOTHING_PENDING)
            if result.action_id in self._late:
                self._late.discard(result.action_id)
                self.settled.append(Settled(pending.action, pending.sent, LATE, result.message))
            elif result.code == _FAILED_PRECONDITION:
                self._found.append(f"legal action refused: {result.message}")
            else:
                self.settled.append(Settled(pending.action, pending.sent, result.code, result.message))
        self._rejections.clear()

    def _event(self, event: TableEvent) -> None:
        found = self._found
        seq = event.seq
        last = self.last_seq
        if last is None:
            if seq > self._welcome_seq + 1:
                found.append(f"first event seq {seq} is past the welcome's last seq {self._welcome_seq}")
        elif seq != last + 1:
            found.append(f"event seq {seq} after {last}" + (" (backwards)" if seq <= last else " (gap)"))
        self.last_seq = seq
        body = event.event
        if isinstance(body, Acted):
            if body.player == self.seat:
                if self._hand:
                    self._own_acted(body, seq)
            elif seq > self._welcome_seq:
                self.broadcasts.append(event.server_time_us)
            if seq > self._welcome_seq:
                self._acted_at = event.server_time_us
        elif isinstance(body, CardsDealt):
            down = body.down
            if body.player == self.seat:
                if down and min(down) <= HIDDEN:
                    found.append(f"own down card hidden in hand {event.hand_number}")
            elif down and max(down) > HIDDEN:
                found.append(f"seat {body.player}'s down cards visible in hand {event.hand_number}")
        elif isinstance(body, HandStarted):
            self._started(event, body)
        elif isinstance(body, HandEnded):
            if self._hand == event.hand_number and sum(body.stacks) != self._total:
                found.append(f"hand {self._hand}: stacks {sum(body.stacks)} != {self._total} at start")
            self._hand_done(event.hand_number)
        elif isinstance(body, TimedOut):
            if body.player == self.seat:
                self._timed_out(body.outcome)
            if seq > self._welcome_seq:  # the clock acted: CLOCK-2's all-in cap has no Acted after it
                self._acted_at = event.server_time_us
        elif isinstance(body, Drew):
            self._drew(body, event.hand_number, seq)
            if seq > self._welcome_seq:
                self._acted_at = event.server_time_us
                if body.player != self.seat:
                    self.broadcasts.append(event.server_time_us)
        elif isinstance(body, HandVoided):
            self._hand_done(event.hand_number)
        elif isinstance(body, SeatChanged):
            if body.seat == self.seat:
                self._away = body.status == "sitting_out"
        elif isinstance(body, Malformed):
            found.append(body.what)

    def _started(self, event: TableEvent, started: HandStarted) -> None:
        number = event.hand_number
        if self._last_hand and number != self._last_hand + 1:
            self._found.append(f"hand {number} started after hand {self._last_hand}")
        self._last_hand = self._hand = number
        self._acted_at = 0
        self._total = sum(started.stacks)
        self._in_hand = self.seat in event.seats

    def _hand_done(self, number: int) -> None:
        """The hand ended or was voided: no turn, no pending action of it can still count."""
        self._ended_hand = number
        self._hand = self._total = 0
        self._in_hand = False
        self.hand_over = True
        self.turn = None
        self._late.update(self._pending)
        self._settle_orphan(LOST)
        self._inflight = None
        self._clock_acted = ""

    def _timed_out(self, outcome: TimeoutOutcome) -> None:
        name = outcome.value
        self.clock_outcomes.append(name)
        self.turn = None
        self._late.update(self._pending)
        self._settle_orphan(LOST)
        self._inflight = None
        self._clock_acted = _CLOCK_FOLLOW_UP.get(name, "")

    def _inherited(self, seq: int) -> bool:
        """Whether the event at ``seq`` is from before this bot took the seat over."""
        return seq <= self._inherited_until

    def _own_acted(self, acted: Acted, seq: int) -> None:
        """Check an action applied for this seat against what the bot sent (or the clock did)."""
        kind = acted.kind.value
        inflight = self._inflight
        if inflight is not None:
            self._inflight = None
            self.turn = None
            if self._orphan is not None and self._orphan.action is inflight:
                self._settle_orphan(ACCEPTED)
            if kind != inflight.kind:
                self._found.append(f"sent {inflight.kind}, the server applied {kind}")
            elif kind in MONEY_KINDS and kind != "bring_in" and acted.to != inflight.amount:
                self._found.append(f"sent {kind} to {inflight.amount}, the server applied {kind} to {acted.to}")
        elif self._clock_acted == kind:
            self._clock_acted = ""
        elif not self._inherited(seq) and not (self._away and kind in _AWAY_ACTIONS):
            self._found.append(f"the server applied {kind} that this seat never sent")

    def _drew(self, drew: Drew, hand_number: int, seq: int) -> None:
        found = self._found
        discarded, drawn = drew.discarded, drew.drawn
        if drew.player != self.seat:
            if (discarded and max(discarded) > HIDDEN) or (drawn and max(drawn) > HIDDEN):
                found.append(f"seat {drew.player}'s draw visible in hand {hand_number}")
            return
        if (discarded and min(discarded) <= HIDDEN) or (drawn and min(drawn) <= HIDDEN):
            found.append(f"own draw hidden in hand {hand_number}")
        inflight = self._inflight
        if inflight is not None:
            self._inflight = None
            self.turn = None
            if self._orphan is not None and self._orphan.action is inflight:
                self._settle_orphan(ACCEPTED)
            if inflight.kind != "draw" or sorted(inflight.discard) != sorted(discarded):
                found.append(f"sent {inflight}, the server drew {list(discarded)}")
        elif self._clock_acted == "draw" and not discarded:
            self._clock_acted = ""
        elif not self._inherited(seq) and not (self._away and not discarded):
            found.append(f"the server drew {list(discarded)} for this seat, which sent no draw")

    def _turn(self, turn: Prompt) -> None:
        number = turn.hand_number
        if number <= self._ended_hand:
            self._found.append(f"YourTurn for hand {number}, which ended")
            return
        if self.last_seq is not None and turn.seq > self.last_seq:
            self._found.append(f"YourTurn after seq {turn.seq}, but the last event received is {self.last_seq}")
        if self._hand and (self._hand != number or not self._in_hand):
            self._found.append(f"YourTurn for hand {number}, which this seat is not dealt in")
            return
        legal = turn.legal
        if not legal or any(option.kind not in PLAYABLE for option in legal):
            self._found.append(f"YourTurn in hand {number} offers {legal}")
            return
        # A new turn: whatever was in flight before it was applied (and seen) or never will be.
        self._settle_orphan(LOST)
        self._inflight = None
        self.prompted_after, self._acted_at = self._acted_at, 0
        self.turn = Turn(turn.seq, number, legal)
        self.turn_opened = True
