"""One bot: a seat's client, putting its room's line, the tracker, the referee and the lifecycle to work.

A :class:`Bot` talks to its room only through a :class:`~tablestorm.sim.rooms.base.SeatLine` its
room adapter makes (docs/rooms.md): it sits down (or takes a seat token it is given), opens the
seat's stream and plays every prompt with its strategy after a think time. It measures what a load test reports
(the round trip of each action, finished hands with their side pots and raise caps, CLOCK-2
timeouts), each under its table's game (the welcome names it), into a shared
:class:`~tablestorm.sim.load.stats.RunStats`, and counts every violation its :class:`~.referee.Referee` finds as a
``protocol_violation``.

Failures of calls are counted by gRPC status name; a transport failure (UNAVAILABLE, say) is held
until the seat's next answer tells whether the run's chaos caused it (see :mod:`.attribution`), and
a bot back at a table that moved to another server reports its return in its tally. A stream that
fails with a retryable status (UNAVAILABLE, say) is reopened with exponential backoff, asking the
injected ``resolve`` for the table's current address (a table may move to another host; the seat
token stays valid), and resumes from the last sequence number seen. A strategy that declares stream
drops (flaky) has its stream cut on that schedule and resumed the same way; a resume the server
could not serve whole (``Welcome.gap``) is counted.

Cost: the hot path is :meth:`Bot.handle`, called by the room's line for each message as it arrives:
the referee's checks and the tracker's fold, a few attribute tests for what they settled, and on a
turn the strategy. Per-bot state is a few slotted objects, reset every hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Final

import grpc

from tablestorm.services.rpc.errors import STATUS_BY_NUMBER
from tablestorm.sim.bots.client.attribution import Attribution
from tablestorm.sim.bots.client.backoff import backoff
from tablestorm.sim.bots.client.config import Assignment, BotConfig, Resolver
from tablestorm.sim.bots.client.lifecycle import GIVE_UP, Lifecycle, Next, Phase
from tablestorm.sim.bots.client.referee import ACCEPTED, LATE, LOST, Referee, Turn
from tablestorm.sim.bots.client.tally import Return, Tally
from tablestorm.sim.bots.client.tracker import REBUY, SIT_IN, HandTracker
from tablestorm.sim.bots.strategies import Action, Strategy, leaving_action
from tablestorm.sim.load.stats import PROTOCOL_VIOLATION, RunStats
from tablestorm.sim.rooms.base import PlayStream, Room, RoomError
from tablestorm.sim.rooms.traffic import Traffic, Welcome

__all__ = ["Bot"]

log = logging.getLogger(__name__)

_POLL_STREAMING: Final = 5.0
_POLL_WITHOUT_STREAM: Final = 1.0
"""Seconds between StandUp attempts of a stopping bot still live in a hand."""


def _left(deadline: float) -> float:
    """Seconds until ``deadline`` (``time.monotonic()``), as a call's timeout (0 once past it)."""
    return max(0.0, deadline - time.monotonic())


class Bot:
    """One seat's client. ``start()`` seats it and opens its stream; ``stop()`` takes it away."""

    __slots__ = (
        "_act_handle",
        "_attribution",
        "_busy",
        "_call",
        "_chores",
        "_config",
        "_hand_over",
        "_jitter",
        "_leave_gate",
        "_lifecycle",
        "_line",
        "_next_id",
        "_referee",
        "_resolve",
        "_run_task",
        "_start",
        "_stats",
        "_tally",
        "_tracker",
        "_turn_hook",
        "_welcomed",
        "kind",
        "player_id",
        "rng",
        "seat",
        "strategy",
        "table_id",
        "think",
    )

    def __init__(
        self,
        assignment: Assignment,
        *,
        room: Room,
        stats: RunStats,
        tally: Tally,
        start: float,
        config: BotConfig | None = None,
        resolve: Resolver | None = None,
        strategy: Strategy | None = None,
        leave_gate: asyncio.Semaphore | None = None,
        chaos: Mapping[str, float] | None = None,
        rng: random.Random | None = None,
        on_turn: Callable[[], None] | None = None,
    ) -> None:
        """``start`` is the run's start in Unix seconds (stats times are seconds since it);
        ``strategy`` lets bots of a kind share one instance (strategies hold no seat state);
        ``leave_gate`` bounds the calls in flight of the leaving bots that share it (see
        :meth:`_leave`; alone, a bot makes one at a time anyway); ``chaos``: the endpoints the
        run's chaos killed and when, in seconds since ``start`` (its fleet's, filled in before each
        kill: see :mod:`.attribution`); ``rng`` is the player's own when one player plays several
        seats in turn (a tournament's moves: one stream of decisions, as the accelerated driver
        draws them), else ``random.Random(assignment.seed)``; ``on_turn`` is called on each of the
        bot's turns as it opens (what a move's latency is measured to)."""
        config = config or BotConfig()
        self.table_id = assignment.table_id
        self.seat = assignment.seat
        self.player_id = assignment.player_id
        self.kind = assignment.bot_kind
        self.think = assignment.think
        self.strategy = strategy or config.strategy(self.kind)
        self.rng = random.Random(assignment.seed) if rng is None else rng
        self._turn_hook = on_turn
        self._line = room.line(
            assignment.endpoint, self.table_id, self.seat, self.player_id, assignment.seat_token or ""
        )
        self._stats = stats
        self._tally = tally
        self._start = start
        self._config = config
        self._resolve = resolve
        self._leave_gate = leave_gate or asyncio.Semaphore(1)
        self._attribution = Attribution({} if chaos is None else chaos)
        self._lifecycle = Lifecycle(removable=config.tournament)
        self._referee = Referee(self.seat, takeover=assignment.seat_token is not None)
        self._tracker = HandTracker(self.seat, needs_board=self.strategy.needs_board)
        self._call: PlayStream | None = None
        self._run_task: asyncio.Task[None] | None = None
        self._act_handle: asyncio.TimerHandle | None = None
        self._chores: set[asyncio.Task[None]] = set()
        self._busy: set[str] = set()
        """The unary chores (sit_in, rebuy) in flight: each runs once at a time."""
        self._welcomed = asyncio.Event()
        self._hand_over = asyncio.Event()
        self._next_id = 0
        self._jitter: random.Random | None = None
        """The backoff's draws (see :meth:`_waits`)."""

    # ----------------------------------------------------------------- lifecycle

    @property
    def endpoint(self) -> str:
        return self._line.endpoint

    @property
    def removed(self) -> bool:
        """A tournament seat the director took away (the player moved or out): it is not coming back."""
        return self._lifecycle.removed

    @property
    def _streaming(self) -> bool:
        """Whether the stream loop runs (on a stream, or reconnecting)."""
        return self._run_task is not None and not self._run_task.done()

    @property
    def running(self) -> bool:
        """Started and neither stopped nor given up."""
        return self._run_task is not None and not self._run_task.done() and self._lifecycle.active

    def _now(self) -> float:
        return time.time() - self._start

    def _error(self, code: grpc.StatusCode | str) -> None:
        """Count a failure of this seat's calls or stream, or hold it for its verdict (a transport
        failure: see :mod:`.attribution`)."""
        kind, now = code if isinstance(code, str) else code.name, self._now()
        if not self._attribution.failed(kind, now, self._line.endpoint):
            self._stats.error(kind, now)

    def _answered(self) -> None:
        """The seat got an answer from its server: judge the held failures, and report the return
        of a bot whose table moved."""
        if not self._attribution.holding:
            return
        verdict = self._attribution.answered(self._line.endpoint)
        for failure in verdict.chaos:
            self._stats.error(failure.kind, failure.at_s, chaos=True)
        for failure in verdict.unexpected:
            self._stats.error(failure.kind, failure.at_s)
        if verdict.moved:
            self._tally.returns.append(Return(self.table_id, self.seat, self._now()))

    def _release(self) -> None:
        """The bot stops: failures still held never got a verdict, so they are unexpected."""
        for failure in self._attribution.release():
            self._stats.error(failure.kind, failure.at_s)

    def _violation(self, what: str) -> None:
        self._stats.error(PROTOCOL_VIOLATION, self._now())
        self._tally.violation(f"{self.table_id}#{self.seat} ({self.kind}): {what}")

    async def start(self) -> bool:
        """Sit down (unless given a token), open the stream and wait for its Welcome.

        Returns whether the bot is playing; a failure is counted by status name and leaves
        nothing behind but, if SitDown succeeded, the seat (its chips count as bought; a tournament
        seat stays the director's, nobody stands it up).
        """
        config = self._config
        if not self._line.token:
            try:
                seated = await self._line.sit(None, config.rpc_timeout)
            except RoomError as exc:
                self._error(exc.code)
                self._release()
                self._line.release()
                return False
            self._tally.bought(self.table_id, seated.stack)
        self._run_task = asyncio.ensure_future(self._run())
        welcomed = asyncio.ensure_future(self._welcomed.wait())
        done, _ = await asyncio.wait(
            (welcomed, self._run_task), timeout=config.rpc_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if self._welcomed.is_set():
            return True
        welcomed.cancel()
        if not done:  # otherwise the stream's failure was counted already
            self._error(grpc.StatusCode.DEADLINE_EXCEEDED)
        await self.stop(stand_up=not self._config.tournament)  # a tournament seat is the director's
        return False

    async def stop(self, stand_up: bool = True) -> int:
        """Stop playing and return the chips cashed out.

        From now on the bot only leaves: on its turns it checks or folds at once (or, with
        ``BotConfig.leave_idle``, sends nothing and lets the clock act). With ``stand_up`` it
        stands up once it is out of the hand it is dealt into (see :meth:`_leave`), waiting at most
        ``stop_timeout``; without, it just closes its stream and leaves the seat (and its chips) at
        the table. Closing its own stream and calls is not an error: nothing the bot does because
        it was told to stop is counted, only what fails on the way out.
        """
        before = self._lifecycle.stop()
        if before is None:
            return 0
        self._cancel_think()
        self._leave_turn()
        chips = 0
        if stand_up and self._line.token and before is not Phase.GAVE_UP:
            chips = await self._leave()
        self._lifecycle.stopped()
        task = self._run_task
        if task is not None:
            if self._call is not None:
                self._call.cancel()  # the stream ends CANCELLED and, stopped, the loop returns
            else:
                task.cancel()  # between streams: in a backoff wait or a resolve
            await asyncio.gather(task, return_exceptions=True)
        for chore in list(self._chores):
            chore.cancel()
        self._release()
        self._line.release()
        return chips

    async def _leave(self) -> int:
        """Stand up once out of the running hand, within ``stop_timeout``; returns the chips.

        The server refuses StandUp while the seat is dealt into a hand, folded or not. A bot whose
        stream shows it dealt in does not ask: it sits out (so that the table deals it no further
        hand), plays the hand out (:meth:`_leave_turn`) and stands up when the stream says the hand
        is over; a StandUp refused all the same (a hand dealt before the bot saw it) does likewise.
        It asks only when its stream loop has ended (gave up, or the stream ended before the hand
        showed): while the loop lives, a bot dealt in waits for the stream to show the hand's end,
        which its table's count may need (see :mod:`.lifecycle`); a refusal restarts the loop.

        At the end of a run every bot leaves at once, and the bots' own burst must not be what
        fails. A gRPC server queues only about 1,000 calls it has not handed to its handlers yet and
        refuses the rest with CANCELLED, so the calls go through the fleet's leave gate (held for a
        call, never while waiting for a hand). A busy host answers them in turn, so each may take
        what is left of ``stop_timeout``, not ``rpc_timeout``: a call that waits is queued, not
        failed, and a retry after a shorter deadline would only queue again. Running out of
        ``stop_timeout`` is one DEADLINE_EXCEEDED; any other failure is counted as it happens.
        """
        deadline = time.monotonic() + self._config.stop_timeout
        waits = self._waits()
        sit_out = True
        while (remaining := deadline - time.monotonic()) > 0:
            self._hand_over.clear()
            if not self._tracker.dealt_in or not self._streaming:
                try:
                    async with self._leave_gate:
                        chips = await self._line.stand_up(_left(deadline))
                except RoomError as exc:
                    code = exc.code
                    if code is grpc.StatusCode.DEADLINE_EXCEEDED:
                        continue  # out of time: counted once, below
                    if code is not grpc.StatusCode.FAILED_PRECONDITION:
                        self._error(code)
                        if code in GIVE_UP:
                            return 0
                        await asyncio.sleep(min(next(waits), remaining))
                        await self._relocate()
                        continue
                    sit_out = True  # dealt into a hand: maybe after an earlier SitOut was undone
                    if not self._streaming:
                        self._run_task = asyncio.ensure_future(self._run())  # to see the hand end
                else:
                    self._lifecycle.stood_up()
                    self._answered()
                    self._tally.cashed_out(self.table_id, chips)
                    return chips
            if sit_out:
                sit_out = not await self._sit_out(deadline)
            # The stream says when the hand ends; without a stream, poll. A stream that went quiet
            # is caught by the longer backstop.
            poll = _POLL_STREAMING if self._call is not None else _POLL_WITHOUT_STREAM
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._hand_over.wait(), min(deadline - time.monotonic(), poll))
        self._error(grpc.StatusCode.DEADLINE_EXCEEDED)
        return 0

    async def _sit_out(self, deadline: float) -> bool:
        """SitOut before ``deadline`` (monotonic); returns success. Running out of time is left to
        :meth:`_leave` to count; any other failure is counted here."""
        try:
            async with self._leave_gate:
                await self._line.sit_out(_left(deadline))
        except RoomError as exc:
            if exc.code is not grpc.StatusCode.DEADLINE_EXCEEDED:
                self._error(exc.code)
            return False
        self._answered()
        return True

    async def _unary_chore(self, what: str) -> None:
        """SitIn or Rebuy for this seat; failures are counted."""
        line, timeout = self._line, self._config.rpc_timeout
        try:
            if what == "sit_in":
                await line.sit_in(timeout)
            else:
                stack = await line.rebuy(timeout)
                self._tally.bought(self.table_id, stack)
                self._tracker.broke = False
            self._answered()
        except RoomError as exc:
            code = exc.code
            if what == "rebuy" and code is grpc.StatusCode.FAILED_PRECONDITION and await self._table_closing():
                return  # a closing table takes no rebuys: the seat waits to be stood up
            self._error(code)

    async def _table_closing(self) -> bool:
        """Whether the table is closing (CloseTable): it deals no more hands and takes no rebuys."""
        try:
            return await self._line.closing(self._config.rpc_timeout)
        except RoomError:
            return False

    def _chore(self, what: str) -> None:
        """Run :meth:`_unary_chore` in the background (it must not hold up the stream), once at a time."""
        rebuys = self._config.rebuy and not self._config.tournament
        if what in self._busy or self._lifecycle.leaving or (what == "rebuy" and not rebuys):
            return
        self._busy.add(what)

        async def run() -> None:
            try:
                await self._unary_chore(what)
            finally:
                self._busy.discard(what)

        self._background(run())

    def _background(self, work: Awaitable[None]) -> None:
        """Run ``work`` as a task the bot holds (and cancels when it stops)."""
        task = asyncio.ensure_future(work)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    async def _relocate(self) -> None:
        """Ask ``resolve`` where the table is now and move to that endpoint if it changed."""
        if self._resolve is None:
            return
        try:
            endpoint = await self._resolve(self.table_id)
        except Exception:  # the resolver is the caller's code: its failure costs one more retry
            self._error("RESOLVE_FAILED")
            return
        if endpoint is not None:
            self._line.move(endpoint)

    # ----------------------------------------------------------------- the stream

    async def _run(self) -> None:
        """Streams until the bot stops. A bug here must not make a bot vanish unnoticed: it is
        logged and counted as the error ``BOT_CRASHED``, and the bot gives up."""
        try:
            await self._stream_on()
        except Exception:
            log.exception("bot crashed", extra={"table_id": self.table_id, "seat": self.seat})
            self._error("BOT_CRASHED")
            self._lifecycle.give_up()

    async def _stream_on(self) -> None:
        """Reopen and resume the stream after drops and retryable failures (the lifecycle says which)."""
        waits = self._waits()
        trouble_since: float | None = None
        while True:
            code = await self._session()
            if self._welcomed.is_set():
                trouble_since, waits = None, self._waits()
            then, counts = self._lifecycle.after_stream(code, dealt_in=self._tracker.dealt_in)
            if counts:
                self._error(code)
            if then is Next.DONE or then is Next.GIVE_UP:
                return
            if then is Next.REOPEN:
                continue
            if code is grpc.StatusCode.OUT_OF_RANGE:
                self._referee.forget()  # the server never had our seq (a new host): join afresh
                continue
            now = time.monotonic()
            trouble_since = now if trouble_since is None else trouble_since
            if now - trouble_since > self._config.reconnect_window:
                self._lifecycle.give_up()
                return
            await asyncio.sleep(next(waits))
            await self._relocate()

    def _waits(self) -> Iterator[float]:
        """A retry loop's waits (:func:`.backoff.backoff`). Their jitter is a stream of its own, not
        ``rng`` (retries must not shift a player's decisions), made at the first wait: most bots
        never retry."""
        if self._jitter is None:
            self._jitter = random.Random(f"tablestorm/backoff|{self.table_id}|{self.seat}|{self.player_id}")
        yield from backoff(*self._config.backoff, self._jitter)

    async def _session(self) -> grpc.StatusCode:
        """One stream from its opening to its end; returns the status it ended with."""
        self._welcomed.clear()
        try:
            call = await self._line.play(self.handle, self._referee.hello())
        except OSError:
            return grpc.StatusCode.UNAVAILABLE  # no connection: retried like a stream cut by one
        self._call = call
        drop: asyncio.TimerHandle | None = None
        drops = self.strategy.stream_drops
        if drops is not None:
            drop = asyncio.get_running_loop().call_later(self.rng.uniform(*drops), self._drop)
        self._tally.streams += 1
        try:
            return await asyncio.shield(call.ended)
        finally:
            self._tally.streams -= 1
            if drop is not None:
                drop.cancel()
            if not call.ended.done():  # this task was cancelled: the stream goes with it
                call.cancel()
            self._call = None
            self._cancel_think()
            self._referee.stream_closed()

    def _drop(self) -> None:
        if self._call is not None and self._lifecycle.drop():
            self._call.cancel()

    # ----------------------------------------------------------------- messages

    def handle(self, message: Traffic) -> None:
        """Handle one (possibly coalesced) message in order: welcome, results, events, then the
        prompt. Public so that tests can feed it messages a server never sends."""
        tally, referee, tracker = self._tally, self._referee, self._tracker
        tally.messages += 1
        tally.events += len(message.events)
        for violation in referee.check(message, tracker):
            self._violation(violation)
        if referee.welcomed is not None:
            self._on_welcome(referee.welcomed)
        if referee.settled:
            self._settle()
        if referee.broadcasts:
            self._time_broadcasts()
        if referee.clock_outcomes:
            for outcome in referee.clock_outcomes:
                self._stats.timeout(outcome, tracker.game)
            referee.clock_outcomes.clear()
            self._cancel_think()
        if referee.hand_over:
            self._cancel_think()
            self._hand_over.set()
        if tracker.finished:
            self._count_hands()
        if tracker.wants:
            self._do_chores()
        if referee.turn_opened:
            self._on_turn()

    def _on_welcome(self, welcome: Welcome) -> None:
        if self._referee.resuming:
            self._tally.resumes += 1
            if welcome.gap:
                self._tally.resume_gaps += 1
        self._lifecycle.welcomed()
        self._welcomed.set()
        self._answered()

    def _settle(self) -> None:
        """Count what became of the bot's actions. Each applied or unapplied one is timed from its
        intended send time (see :meth:`_on_turn`), its table's pace the bot's mean think time
        (docs/scenarios.md, Latency under a stall)."""
        stats, now, game = self._stats, self._now(), self._tracker.game
        clock, pace = time.perf_counter(), self.think.mean
        for action, intended, code, _ in self._referee.settled:
            if code == ACCEPTED:
                stats.action(clock - intended, action.kind, self.kind, now, game, pace)
                self._tally.acted_kinds.add(self.kind)
            elif code in (LATE, LOST):
                stats.unapplied(clock - intended, now, game, pace)
                if code == LATE:
                    self._tally.late_actions += 1
            else:
                status = STATUS_BY_NUMBER.get(code)
                self._error(str(code) if status is None else status)
        self._referee.settled.clear()

    def _time_broadcasts(self) -> None:
        """Time the other seats' actions just received against their events' server times (0 from
        a server that does not stamp them: not timed); docs/scenarios.md, Player latencies."""
        stats, now, game = self._stats, self._now(), self._tracker.game
        clock_us = time.time() * 1e6
        for server_us in self._referee.broadcasts:
            if server_us:
                stats.delivered((clock_us - server_us) / 1e6, now, game)
        self._referee.broadcasts.clear()

    def _count_hands(self) -> None:
        stats, tally, game = self._stats, self._tally, self._tracker.game
        for voided, counted, side_pots, raise_caps in self._tracker.finished:
            if not counted:
                continue
            if voided:
                stats.hand_voided(game)
            else:
                stats.hand(self._now(), side_pots=side_pots, raise_caps=raise_caps, game=game)
            tally.hand_counted.set()
        self._tracker.finished.clear()

    def _do_chores(self) -> None:
        tracker = self._tracker
        wants, tracker.wants = tracker.wants, 0
        if wants & SIT_IN:
            self._chore("sit_in")
        if wants & REBUY:
            self._chore("rebuy")

    # ----------------------------------------------------------------- turns

    def _on_turn(self) -> None:
        turn, acted_us = self._referee.turn, self._referee.prompted_after
        assert turn is not None
        if acted_us:
            self._stats.prompted(time.time() - acted_us / 1e6, self._now(), self._tracker.game)
        self._cancel_think()
        if self._turn_hook is not None:
            self._turn_hook()
        if self._lifecycle.leaving:
            self._leave_turn()
            return
        view = self._tracker.view(turn.legal, turn.hand_number)
        action = self.strategy.decide(view, self.rng)
        if action is None:
            self._tally.slept += 1
            return
        # The intended send time: when the think is over. A send the fleet's loop delays, or one
        # held up by the stream, is timed from it all the same.
        delay = self.think.sample(self.rng)
        intended = time.perf_counter() + delay
        if delay > 0:
            self._act_handle = asyncio.get_running_loop().call_later(delay, self._send, action, turn, intended)
        else:
            self._send(action, turn, intended)

    def _leave_turn(self) -> None:
        """A stopping bot's answer to an open turn: check or fold now (unless it leaves idle)."""
        turn = self._referee.turn
        if turn is not None and not self._referee.in_flight and not self._config.leave_idle:
            self._send(leaving_action(turn.legal), turn, time.perf_counter())

    def _cancel_think(self) -> None:
        if self._act_handle is not None:
            self._act_handle.cancel()
            self._act_handle = None

    def _send(self, action: Action, turn: Turn, intended: float) -> None:
        """Send ``action`` for ``turn``, unless the turn went away while the bot thought; its latency
        counts from ``intended`` (``time.perf_counter()``)."""
        self._act_handle = None
        call, referee = self._call, self._referee
        if call is None or referee.turn is not turn or referee.in_flight:
            return
        self._next_id += 1
        action_id = str(self._next_id)
        hand = self._tracker.hand
        referee.sent(action_id, action, intended, tuple(hand.down) if hand is not None else ())
        written = call.act(action_id, action, turn.seq)
        if written is not None:
            self._background(written)
