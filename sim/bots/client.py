"""One bot: a seat's asyncio client of the table service, and the referee of what it receives.

A :class:`Bot` sits down (or takes a seat token it is given), opens a Play stream with Hello and
plays every YourTurn with its strategy after a think time. It measures what a load test reports
(the round trip of each action, finished hands with their side pots and raise caps, CLOCK-2
timeouts) into a shared :class:`~sim.stats.RunStats`, and it checks every message against what the
seat may see and what the API promises, counting each breach as a ``protocol_violation``:

* another seat's face-down card (dealt or drawn) that is not hidden, or an own card that is;
* an event sequence number that does not follow the previous one (a gap the Welcome did not
  announce, or a step backwards), or a first event beyond the Welcome's ``last_seq``;
* a YourTurn for a hand that already ended, for a seat not dealt in, or ahead of the events;
* an ActResult for an action id the bot has no pending action for;
* an action the server accepted that was not among the legal actions it offered, an action it
  applied differently from what was sent, or an action applied that the bot never sent (and the
  clock did not take), and a legal action refused while the turn was still the bot's;
* a hand whose final stacks do not add up to its starting stacks (BET-7).

Failures of calls are counted by gRPC status name. A stream that fails with a retryable status
(UNAVAILABLE, say) is reopened with exponential backoff, asking the injected ``resolve`` for the
table's current address (a table may move to another host; the seat token stays valid), and
resumes from the last sequence number seen. Flaky bots drop their own stream now and then and
resume the same way; a resume the server could not serve whole (``Welcome.gap``) is counted.

Hands are counted once per table, not once per bot: by the bot in the lowest seat of the hand
that is still seated when it ends (every bot sees the same events, so they agree without talking).
A table whose counting seat is not a bot of any fleet is not counted.

Cost: the hot path is :meth:`Bot.handle`: a field test per part of the message, then one
``WhichOneof`` and a short ``if`` chain per event, with checks that run in C where they can (a
hidden-card check is one ``max``). Per-bot state is a few slotted objects, reset every hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple, TypeAlias, TypeVar

import grpc  # type: ignore[import-untyped, unused-ignore]  # typed once types-grpcio is installed
from google.protobuf.message import Message

from services.table.proto_gen import table_service_pb2 as pb
from sim.scenario import Distribution
from sim.stats import PROTOCOL_VIOLATION, TIMEOUT_OUTCOMES, RunStats

from .strategies import MONEY_KINDS, Action, Legal, Strategy, View, is_allowed, leaving_action, strategy_for

__all__ = [
    "Assignment",
    "Bot",
    "BotConfig",
    "ChannelPool",
    "Resolver",
    "TableClient",
    "Tally",
]

log = logging.getLogger(__name__)
M = TypeVar("M", bound=Message)
Resolver = Callable[[str], Awaitable[str | None]]
"""``resolve(table_id) -> "host:port"``: where a table lives now (it may have moved after a crash);
None while nobody knows (its new host is still being made): the bot keeps its address and retries."""
PlayCall: TypeAlias = "grpc.aio.StreamStreamCall[pb.ClientMessage, pb.ServerMessage]"

SERVICE: Final = "/tablestorm.v1.TableService/"
TOKEN_KEY: Final = "x-seat-token"
HIDDEN: Final = -1
"""CARD_HIDDEN: a face-down card the receiver may not see. Real cards are 0..51, so one ``max``
(or ``min``) of a card list tells whether any card in it is visible (or hidden)."""

KIND_NUMBERS: Final[dict[str, pb.ActionKind]] = {
    "unspecified": pb.ACTION_KIND_UNSPECIFIED,
    "fold": pb.ACTION_KIND_FOLD,
    "check": pb.ACTION_KIND_CHECK,
    "call": pb.ACTION_KIND_CALL,
    "bring_in": pb.ACTION_KIND_BRING_IN,
    "complete": pb.ACTION_KIND_COMPLETE,
    "bet": pb.ACTION_KIND_BET,
    "raise": pb.ACTION_KIND_RAISE,
    "draw": pb.ACTION_KIND_DRAW,
    "timeout": pb.ACTION_KIND_TIMEOUT,
}
"""Proto action kinds by the names strategies and RunStats use."""
KIND_NAMES: Final = {int(number): name for name, number in KIND_NUMBERS.items()}
"""Action kind names by proto enum number; a number the proto does not define reads "unknown"."""
OUTCOME_NAMES: Final = tuple(
    pb.TimeoutOutcome.Name(number).removeprefix("TIMEOUT_OUTCOME_").lower()
    for number in sorted(pb.TimeoutOutcome.values())
)
"""CLOCK-2 outcome names by proto enum number ("unspecified" first, then TIMEOUT_OUTCOMES)."""
STRUCTURE_NAMES: Final = {
    pb.STRUCTURE_UNSPECIFIED: "fixed_limit",
    pb.STRUCTURE_FIXED_LIMIT: "fixed_limit",
    pb.STRUCTURE_POT_LIMIT: "pot_limit",
    pb.STRUCTURE_NO_LIMIT: "no_limit",
}
_OK: Final = grpc.StatusCode.OK.value[0]
_FAILED_PRECONDITION: Final = grpc.StatusCode.FAILED_PRECONDITION.value[0]
_STATUS_NAMES: Final = {code.value[0]: code.name for code in grpc.StatusCode}
_CLOCK_FOLLOW_UP: Final = {"check": "check", "fold": "fold", "bring_in": "bring_in", "stand_pat": "draw"}
"""The Acted (or Drew) kind the engine reports after each CLOCK-2 outcome (all-in reports none)."""
_PLAYABLE: Final = frozenset(KIND_NUMBERS) - {"unspecified", "timeout"}
"""The kinds a YourTurn may offer."""
_POLL_STREAMING: Final = 5.0
_POLL_WITHOUT_STREAM: Final = 1.0
"""Seconds between StandUp attempts of a stopping bot still live in a hand."""
NO_THINK: Final = Distribution()
"""Act the moment the turn comes."""
GIVE_UP: Final = frozenset(
    {
        grpc.StatusCode.UNAUTHENTICATED,  # the token died: somebody stood the seat up
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.ABORTED,  # another stream took the seat over: two bots share a token
        grpc.StatusCode.UNIMPLEMENTED,
    }
)
"""Stream failures that a reconnect cannot cure; the bot stops (the seat stays at the table)."""


@dataclass(frozen=True, slots=True)
class Assignment:
    """One seat for one bot: where, who, how it plays and how long it thinks."""

    endpoint: str
    """The table server's address, "host:port"."""
    table_id: str
    seat: int
    player_id: str
    bot_kind: str
    think: Distribution = NO_THINK
    seed: int = 0
    seat_token: str | None = None
    """An already-seated player's token: the bot plays that seat without SitDown (and without
    counting a buy-in: whoever sat down bought the chips)."""


@dataclass(frozen=True, slots=True)
class BotConfig:
    """Knobs shared by the bots of a fleet (defaults suit a load test with a 10 s clock)."""

    sleep_probability: float = 0.15
    """Sleepers let the clock run out on this fraction of their turns."""
    flaky_interval: tuple[float, float] = (20.0, 60.0)
    """Flaky bots drop their stream after a uniform draw from this range of seconds, each time."""
    backoff: tuple[float, float] = (0.2, 5.0)
    """First and largest wait before reopening a failed stream (doubling, with jitter)."""
    reconnect_window: float = 120.0
    """A bot that cannot get a stream back for this long gives up."""
    stop_timeout: float = 120.0
    """How long :meth:`Bot.stop` waits for the bot's hand to end before it gives up standing."""
    rpc_timeout: float = 10.0
    """Deadline of each unary call, and of the Welcome after a Hello."""
    rebuy: bool = True
    """Buy in again when broke (TABLE-1), so tables keep playing."""
    leave_idle: bool = False
    """How a stopping bot leaves a hand it is live in. False: it checks or folds at once on each
    turn, so the hand (and the stop) is over in moments. True: it sends nothing and the clock acts
    for it (CLOCK-2), like a player who walked away; every such turn lasts the whole clock."""


class Tally:
    """Counters the bots of a fleet share, beside the RunStats (what RunStats has no field for)."""

    __slots__ = (
        "acted_kinds",
        "chips_bought",
        "chips_cashed_out",
        "events",
        "hand_counted",
        "late_actions",
        "messages",
        "resume_gaps",
        "resumes",
        "slept",
        "streams",
        "violations",
    )
    MAX_SAMPLES: Final = 50

    def __init__(self) -> None:
        self.chips_bought = 0
        """Buy-ins and rebuys paid by these bots (for chip conservation over the run)."""
        self.chips_cashed_out = 0
        """Chips returned by StandUp."""
        self.resumes = 0
        """Streams reopened with ``resume_after_seq`` and welcomed."""
        self.resume_gaps = 0
        """Resumes whose Welcome said events were already dropped."""
        self.late_actions = 0
        """Actions refused because the clock had acted first (think time too close to the clock)."""
        self.slept = 0
        """Turns a strategy let the clock take (sleepers)."""
        self.messages = 0
        self.events = 0
        self.streams = 0
        """Play streams open now."""
        self.acted_kinds: set[str] = set()
        """Bot kinds with at least one accepted action."""
        self.violations: list[str] = []
        """The first MAX_SAMPLES protocol violations, described (the counts are in RunStats)."""
        self.hand_counted = asyncio.Event()
        """Set whenever a bot counts a finished or voided hand: waiters re-check their condition."""

    def violation(self, what: str) -> None:
        if len(self.violations) < self.MAX_SAMPLES:
            self.violations.append(what)


# ----------------------------------------------------------------- typed calls and channels


def _left(deadline: float) -> float:
    """Seconds until ``deadline`` (``time.monotonic()``), as a call's timeout (0 once past it)."""
    return max(0.0, deadline - time.monotonic())


def _token(token: str) -> tuple[tuple[str, str]]:
    return ((TOKEN_KEY, token),)


def _serializer(kind: type[M]) -> Callable[[M], bytes]:
    """``kind``'s serializer typed for ``kind``, so that each call is typed by its messages."""
    serialize: Callable[[M], bytes] = kind.SerializeToString
    return serialize


class TableClient:
    """The TableService calls on one channel, typed (the generated stub module is untyped).

    ``streams`` counts the Play streams the pool has placed on this channel.
    """

    __slots__ = (
        "_get_table",
        "_play",
        "_rebuy",
        "_sit_down",
        "_sit_in",
        "_sit_out",
        "_stand_up",
        "channel",
        "endpoint",
        "streams",
    )

    def __init__(self, endpoint: str, channel: grpc.aio.Channel) -> None:
        self.endpoint = endpoint
        self.channel = channel
        self.streams = 0
        self._play = channel.stream_stream(
            SERVICE + "Play",
            request_serializer=_serializer(pb.ClientMessage),
            response_deserializer=pb.ServerMessage.FromString,
        )
        self._sit_down = channel.unary_unary(
            SERVICE + "SitDown",
            request_serializer=_serializer(pb.SitDownRequest),
            response_deserializer=pb.SitDownResponse.FromString,
        )
        self._get_table = channel.unary_unary(
            SERVICE + "GetTable",
            request_serializer=_serializer(pb.GetTableRequest),
            response_deserializer=pb.TableState.FromString,
        )
        self._stand_up = channel.unary_unary(
            SERVICE + "StandUp",
            request_serializer=_serializer(pb.SeatRequest),
            response_deserializer=pb.StandUpResponse.FromString,
        )
        self._sit_out = channel.unary_unary(
            SERVICE + "SitOut",
            request_serializer=_serializer(pb.SeatRequest),
            response_deserializer=pb.SeatState.FromString,
        )
        self._sit_in = channel.unary_unary(
            SERVICE + "SitIn",
            request_serializer=_serializer(pb.SitInRequest),
            response_deserializer=pb.SeatState.FromString,
        )
        self._rebuy = channel.unary_unary(
            SERVICE + "Rebuy",
            request_serializer=_serializer(pb.SeatRequest),
            response_deserializer=pb.SeatState.FromString,
        )

    def play(self, token: str) -> PlayCall:
        call: PlayCall = self._play(metadata=_token(token))
        return call

    async def sit_down(self, request: pb.SitDownRequest, timeout: float) -> pb.SitDownResponse:
        reply: pb.SitDownResponse = await self._sit_down(request, timeout=timeout)
        return reply

    async def get_table(self, table_id: str, timeout: float) -> pb.TableState:
        state: pb.TableState = await self._get_table(pb.GetTableRequest(table_id=table_id), timeout=timeout)
        return state

    async def stand_up(self, table_id: str, seat: int, token: str, timeout: float) -> int:
        """Cash out; returns the chips."""
        request = pb.SeatRequest(table_id=table_id, seat=seat)
        reply: pb.StandUpResponse = await self._stand_up(request, timeout=timeout, metadata=_token(token))
        return reply.chips

    async def sit_out(self, table_id: str, seat: int, token: str, timeout: float) -> pb.SeatState:
        request = pb.SeatRequest(table_id=table_id, seat=seat)
        state: pb.SeatState = await self._sit_out(request, timeout=timeout, metadata=_token(token))
        return state

    async def sit_in(self, table_id: str, seat: int, token: str, timeout: float) -> pb.SeatState:
        request = pb.SitInRequest(table_id=table_id, seat=seat)
        state: pb.SeatState = await self._sit_in(request, timeout=timeout, metadata=_token(token))
        return state

    async def rebuy(self, table_id: str, seat: int, token: str, timeout: float) -> pb.SeatState:
        request = pb.SeatRequest(table_id=table_id, seat=seat)
        state: pb.SeatState = await self._rebuy(request, timeout=timeout, metadata=_token(token))
        return state


class ChannelPool:
    """Channels per endpoint, each carrying at most ``streams_per_channel`` Play streams.

    A server caps concurrent streams per connection (1,000 by default), and one HTTP/2 connection
    is one socket and one set of flow-control windows; past a few hundred busy streams a second
    connection spreads the load. Each channel gets a local subchannel pool, so channels to the same
    address really are separate connections.
    """

    __slots__ = ("_clients", "streams_per_channel")

    def __init__(self, streams_per_channel: int = 500) -> None:
        if streams_per_channel < 1:
            raise ValueError("streams_per_channel must be at least 1")
        self.streams_per_channel = streams_per_channel
        self._clients: dict[str, list[TableClient]] = {}

    def acquire(self, endpoint: str) -> TableClient:
        """A client for ``endpoint`` with room for one more stream (opening a channel if needed)."""
        clients = self._clients.setdefault(endpoint, [])
        for client in clients:
            if client.streams < self.streams_per_channel:
                client.streams += 1
                return client
        channel = grpc.aio.insecure_channel(endpoint, options=[("grpc.use_local_subchannel_pool", 1)])
        client = TableClient(endpoint, channel)
        client.streams = 1
        clients.append(client)
        return client

    @staticmethod
    def release(client: TableClient) -> None:
        client.streams -= 1

    @property
    def channels(self) -> int:
        return sum(len(clients) for clients in self._clients.values())

    async def close(self) -> None:
        clients = [client for group in self._clients.values() for client in group]
        self._clients.clear()
        await asyncio.gather(*(client.channel.close() for client in clients))


# ----------------------------------------------------------------- the bot


class _Hand:
    """What the seat knows of the hand in progress (a new one per hand)."""

    __slots__ = (
        "bet",
        "bet_street",
        "caps",
        "community",
        "deck_size",
        "departed",
        "down",
        "folded",
        "in_hand",
        "number",
        "others_up",
        "pot",
        "pots",
        "seats",
        "stack",
        "street",
        "total",
        "up",
    )

    def __init__(self, number: int, seats: tuple[int, ...], total: int, deck_size: int) -> None:
        self.number = number
        self.seats = seats
        self.total = total
        """Sum of the starting stacks: the final stacks must add up to it (BET-7)."""
        self.deck_size = deck_size
        self.in_hand = False
        self.stack = 0
        self.street = 0
        self.pot = 0
        self.bet = 0
        """Own street total, valid while ``bet_street == street``."""
        self.bet_street = 0
        self.caps = 0
        self.pots = 0
        self.down: list[int] = []
        self.up: list[int] = []
        self.community: list[int] = []
        self.others_up: dict[int, list[int]] = {}
        self.folded: set[int] = set()
        self.departed: set[int] = set()
        """Seats of this hand whose player stood up before it ended (they cannot count it)."""


class _Turn(NamedTuple):
    seq: int
    """YourTurn.seq: sent back as ActRequest.turn_seq, so a late action never lands on a later turn."""
    legal: tuple[Legal, ...]
    down: tuple[int, ...]
    """Own down cards when the turn came (what a draw may throw)."""


class _Pending(NamedTuple):
    sent: float
    action: Action
    turn: _Turn


class Bot:
    """One seat's client. ``start()`` seats it and opens its stream; ``stop()`` takes it away."""

    __slots__ = (
        "_act_handle",
        "_broke",
        "_call",
        "_chores",
        "_client",
        "_clock_acted",
        "_closing",
        "_config",
        "_dropping",
        "_ended_hand",
        "_gave_up",
        "_hand",
        "_hand_over",
        "_inflight",
        "_last_hand",
        "_last_seq",
        "_late",
        "_leave_gate",
        "_next_id",
        "_pending",
        "_pool",
        "_rebuying",
        "_rejections",
        "_resolve",
        "_resuming",
        "_run_task",
        "_sitting_in",
        "_start",
        "_stats",
        "_stood_up",
        "_stopping",
        "_tally",
        "_token",
        "_turn",
        "_welcome_seq",
        "_welcomed",
        "game",
        "kind",
        "player_id",
        "rng",
        "seat",
        "strategy",
        "structure",
        "table_id",
        "think",
    )

    def __init__(
        self,
        assignment: Assignment,
        *,
        pool: ChannelPool,
        stats: RunStats,
        tally: Tally,
        start: float,
        config: BotConfig = BotConfig(),
        resolve: Resolver | None = None,
        strategy: Strategy | None = None,
        leave_gate: asyncio.Semaphore | None = None,
    ) -> None:
        """``start`` is the run's start in Unix seconds (stats times are seconds since it);
        ``strategy`` lets bots of a kind share one instance (strategies hold no seat state);
        ``leave_gate`` bounds the calls in flight of the leaving bots that share it (see
        :meth:`_leave`; alone, a bot makes one at a time anyway)."""
        self.table_id = assignment.table_id
        self.seat = assignment.seat
        self.player_id = assignment.player_id
        self.kind = assignment.bot_kind
        self.think = assignment.think
        self.strategy = strategy or strategy_for(self.kind, sleep_probability=config.sleep_probability)
        self.rng = random.Random(assignment.seed)
        self.game = ""
        self.structure = "fixed_limit"
        self._pool = pool
        self._client = pool.acquire(assignment.endpoint)
        self._stats = stats
        self._tally = tally
        self._start = start
        self._config = config
        self._resolve = resolve
        self._leave_gate = leave_gate or asyncio.Semaphore(1)
        self._token = assignment.seat_token or ""
        self._call: PlayCall | None = None
        self._run_task: asyncio.Task[None] | None = None
        self._act_handle: asyncio.TimerHandle | None = None
        self._chores: set[asyncio.Task[None]] = set()
        self._welcomed = asyncio.Event()
        self._hand_over = asyncio.Event()
        self._hand: _Hand | None = None
        self._last_seq: int | None = None
        self._welcome_seq = 0
        self._last_hand = 0
        """Number of the last HandStarted seen (0: unknown, e.g. after a gap)."""
        self._ended_hand = 0
        self._resuming = False
        self._pending: dict[str, _Pending] = {}
        self._late: set[str] = set()
        """Pending action ids whose turn the clock (or the hand's end) took first."""
        self._rejections: list[pb.ActResult] = []
        self._inflight: Action | None = None
        self._clock_acted = ""
        """The kind of action the clock just took for the seat (CLOCK-2), until its event comes."""
        self._broke = False
        """The seat's stack was seen at 0 and no rebuy went through yet."""
        self._turn: _Turn | None = None
        """The turn the server offered and the seat has not answered yet."""
        self._next_id = 0
        self._stopping = False
        self._closing = False
        self._dropping = False
        self._stood_up = False
        self._gave_up = False
        self._rebuying = False
        self._sitting_in = False

    # ----------------------------------------------------------------- lifecycle

    @property
    def endpoint(self) -> str:
        return self._client.endpoint

    @property
    def running(self) -> bool:
        """Started and neither stopped nor given up."""
        return self._run_task is not None and not self._run_task.done() and not self._stopping

    def _now(self) -> float:
        return time.time() - self._start

    def _error(self, code: grpc.StatusCode | str) -> None:
        self._stats.error(code if isinstance(code, str) else code.name, self._now())

    def _violation(self, what: str) -> None:
        self._stats.error(PROTOCOL_VIOLATION, self._now())
        self._tally.violation(f"{self.table_id}#{self.seat} ({self.kind}): {what}")

    async def start(self) -> bool:
        """Sit down (unless given a token), open the stream and wait for its Welcome.

        Returns whether the bot is playing; a failure is counted by status name and leaves
        nothing behind but, if SitDown succeeded, the seat (its chips count as bought).
        """
        config = self._config
        if not self._token:
            request = pb.SitDownRequest(table_id=self.table_id, seat=self.seat, player_id=self.player_id)
            try:
                reply = await self._client.sit_down(request, config.rpc_timeout)
            except grpc.aio.AioRpcError as exc:
                self._error(exc.code())
                self._pool.release(self._client)
                return False
            self._token = reply.seat_token
            self._tally.chips_bought += reply.seat.stack
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
        await self.stop(stand_up=True)
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
        if self._stopping:
            return 0
        self._stopping = True
        self._cancel_think()
        self._leave_turn()
        chips = 0
        if stand_up and self._token and not self._gave_up:
            chips = await self._leave()
        self._closing = True
        task = self._run_task
        if task is not None:
            if self._call is not None:
                self._call.cancel()  # the reader sees CANCELLED and, closing, returns
            else:
                task.cancel()  # between streams: in a backoff wait or a resolve
            await asyncio.gather(task, return_exceptions=True)
        for chore in list(self._chores):
            chore.cancel()
        self._pool.release(self._client)
        return chips

    async def _leave(self) -> int:
        """Stand up once out of the running hand, within ``stop_timeout``; returns the chips.

        The server refuses StandUp while the seat is dealt into a hand, folded or not. A bot whose
        stream shows it dealt in does not ask: it sits out (so that the table deals it no further
        hand), plays the hand out (:meth:`_leave_turn`) and stands up when the stream says the hand
        is over; a StandUp refused all the same (a hand dealt before the bot saw it) does likewise.

        At the end of a run every bot leaves at once, and the bots' own burst must not be what
        fails. A gRPC server queues only about 1,000 calls it has not handed to its handlers yet and
        refuses the rest with CANCELLED, so the calls go through the fleet's leave gate (held for a
        call, never while waiting for a hand). A busy host answers them in turn, so each may take
        what is left of ``stop_timeout``, not ``rpc_timeout``: a call that waits is queued, not
        failed, and a retry after a shorter deadline would only queue again. Running out of
        ``stop_timeout`` is one DEADLINE_EXCEEDED; any other failure is counted as it happens.
        """
        config = self._config
        deadline = time.monotonic() + config.stop_timeout
        backoff = config.backoff[0]
        sit_out = True
        while (remaining := deadline - time.monotonic()) > 0:
            self._hand_over.clear()
            hand = self._hand
            if self._call is None or hand is None or not hand.in_hand:
                try:
                    async with self._leave_gate:
                        chips = await self._client.stand_up(self.table_id, self.seat, self._token, _left(deadline))
                except grpc.aio.AioRpcError as exc:
                    code = exc.code()
                    if code is grpc.StatusCode.DEADLINE_EXCEEDED:
                        continue  # out of time: counted once, below
                    if code is not grpc.StatusCode.FAILED_PRECONDITION:
                        self._error(code)
                        if code in GIVE_UP:
                            return 0
                        await asyncio.sleep(min(backoff, remaining))
                        backoff = min(2 * backoff, config.backoff[1])
                        await self._relocate()
                        continue
                    sit_out = True  # dealt into a hand: maybe after an earlier SitOut was undone
                else:
                    self._stood_up = True
                    self._tally.chips_cashed_out += chips
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
                await self._client.sit_out(self.table_id, self.seat, self._token, _left(deadline))
        except grpc.aio.AioRpcError as exc:
            if exc.code() is not grpc.StatusCode.DEADLINE_EXCEEDED:
                self._error(exc.code())
            return False
        return True

    async def _unary_chore(self, what: str) -> bool:
        """SitIn or Rebuy for this seat; failures are counted. Returns success."""
        client, config = self._client, self._config
        try:
            if what == "sit_in":
                await client.sit_in(self.table_id, self.seat, self._token, config.rpc_timeout)
            else:
                state = await client.rebuy(self.table_id, self.seat, self._token, config.rpc_timeout)
                self._tally.chips_bought += state.stack
                self._broke = False
        except grpc.aio.AioRpcError as exc:
            code = exc.code()
            if what == "rebuy" and code is grpc.StatusCode.FAILED_PRECONDITION and await self._table_closing():
                return False  # a closing table takes no rebuys: the seat waits to be stood up
            self._error(code)
            return False
        return True

    async def _table_closing(self) -> bool:
        """Whether the table is closing (CloseTable): it deals no more hands and takes no rebuys."""
        try:
            state = await self._client.get_table(self.table_id, self._config.rpc_timeout)
        except grpc.aio.AioRpcError:
            return False
        return state.closing

    def _chore(self, what: str) -> None:
        """Run :meth:`_unary_chore` in the background (it must not hold up the stream)."""

        async def run() -> None:
            try:
                await self._unary_chore(what)
            finally:
                if what == "rebuy":
                    self._rebuying = False
                elif what == "sit_in":
                    self._sitting_in = False

        task = asyncio.ensure_future(run())
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
        if endpoint is not None and endpoint != self._client.endpoint:
            self._pool.release(self._client)
            self._client = self._pool.acquire(endpoint)

    # ----------------------------------------------------------------- the stream

    async def _run(self) -> None:
        """Streams until the bot stops. A bug here must not make a bot vanish unnoticed: it is
        logged and counted as the error ``BOT_CRASHED``, and the bot gives up."""
        try:
            await self._stream_on()
        except Exception:
            log.exception("bot crashed", extra={"table_id": self.table_id, "seat": self.seat})
            self._error("BOT_CRASHED")
            self._gave_up = True

    async def _stream_on(self) -> None:
        """Reopen and resume the stream after drops and retryable failures."""
        config = self._config
        backoff = config.backoff[0]
        trouble_since: float | None = None
        while not self._closing:
            code = await self._session()
            if self._closing or self._stood_up:
                return
            if self._stopping:
                # Leaving: the server closes the stream after StandUp, maybe before its reply
                # arrives; and a stopping bot needs no stream (_leave polls for the hand's end).
                if code not in (grpc.StatusCode.OK, grpc.StatusCode.CANCELLED):
                    self._error(code)
                return
            if self._welcomed.is_set():
                trouble_since, backoff = None, config.backoff[0]
            if code is grpc.StatusCode.CANCELLED and self._dropping:
                continue  # a flaky drop: resume at once
            if code is not grpc.StatusCode.OK:
                self._error(code)
            if code in GIVE_UP:
                self._gave_up = True
                return
            if code is grpc.StatusCode.OUT_OF_RANGE:
                self._last_seq = None  # the server never had our seq (a new host): join afresh
                continue
            now = time.monotonic()
            trouble_since = now if trouble_since is None else trouble_since
            if now - trouble_since > config.reconnect_window:
                self._gave_up = True
                return
            await asyncio.sleep(backoff * self.rng.uniform(0.5, 1.0))
            backoff = min(2 * backoff, config.backoff[1])
            await self._relocate()

    async def _session(self) -> grpc.StatusCode:
        """One Play stream from Hello to its end; returns the status it ended with."""
        call = self._call = self._client.play(self._token)
        hello = pb.Hello(table_id=self.table_id, seat=self.seat)
        self._resuming = self._last_seq is not None
        if self._last_seq is not None:
            hello.resume_after_seq = self._last_seq
        self._dropping = False
        self._welcomed.clear()
        drop: asyncio.TimerHandle | None = None
        if self.kind == "flaky":
            low, high = self._config.flaky_interval
            drop = asyncio.get_running_loop().call_later(self.rng.uniform(low, high), self._drop)
        self._tally.streams += 1
        try:
            await call.write(pb.ClientMessage(hello=hello))
            while True:
                message = await call.read()
                if not isinstance(message, pb.ServerMessage):  # grpc.aio.EOF
                    return grpc.StatusCode.OK
                self.handle(message)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if (self._dropping or self._closing) and task is not None and not task.cancelling():
                return grpc.StatusCode.CANCELLED
            raise
        except grpc.aio.AioRpcError as exc:
            return exc.code()
        except asyncio.InvalidStateError:  # the call ended (or was dropped) before the Hello went out
            code: grpc.StatusCode = await call.code()
            return code
        finally:
            self._tally.streams -= 1
            if drop is not None:
                drop.cancel()
            self._call = None
            self._cancel_think()
            self._turn = None  # a resumed stream offers it again if it is still the seat's
            # Results of this stream's actions will never come. An action sent just before the
            # stream went down may still have been applied: it stays in flight, so that its
            # Acted in the resumed stream's replay is recognised as the seat's own.
            self._pending.clear()
            self._late.clear()

    def _drop(self) -> None:
        if self._call is not None and not self._stopping:
            self._dropping = True
            self._call.cancel()

    # ----------------------------------------------------------------- messages

    def handle(self, message: pb.ServerMessage) -> None:
        """Handle one (possibly coalesced) message in the proto's order: welcome, results,
        events, then the turn. Public so that tests can feed it messages a server never sends."""
        tally = self._tally
        tally.messages += 1
        if message.HasField("welcome"):
            self._on_welcome(message.welcome)
        if message.results:
            self._on_results(message.results)
        events = message.events
        if events:
            tally.events += len(events)
            for event in events:
                self._on_event(event)
        if self._rejections:
            self._judge_rejections()
        if message.HasField("your_turn"):
            self._on_turn(message.your_turn)

    def _on_welcome(self, welcome: pb.Welcome) -> None:
        table = welcome.table
        if welcome.seat != self.seat:
            self._violation(f"welcomed to seat {welcome.seat}")
        self.game = table.options.game
        self.structure = STRUCTURE_NAMES.get(table.options.structure, "fixed_limit")
        if self._resuming:
            self._tally.resumes += 1
            if welcome.gap:
                self._tally.resume_gaps += 1
                self._last_seq = None
                self._hand = None
                self._last_hand = 0
        else:
            self._last_seq = None
            self._hand = None
            # A running hand is replayed from its HandStarted.
            self._last_hand = table.hand_number - 1 if table.hand_running else table.hand_number
        self._welcome_seq = table.last_seq
        if 1 <= self.seat <= len(table.seats):
            state = table.seats[self.seat - 1]
            if state.status == pb.SEAT_STATUS_SITTING_OUT:
                self._sit_in()
            # During a hand the seat shows the hand's stack (0 when all-in): if the seat is not
            # dealt in, the replayed HandStarted says so and the rebuy happens then.
            self._broke = state.stack == 0
            if self._broke and not table.hand_running:
                self._rebuy()
        self._welcomed.set()

    def _on_results(self, results: Iterable[pb.ActResult]) -> None:
        stats = self._stats
        for result in results:
            pending = self._pending.pop(result.action_id, None)
            if pending is None:
                self._violation(f"ActResult for unknown action id {result.action_id!r}")
                continue
            if result.code == _OK:
                self._late.discard(result.action_id)
                action = pending.action
                stats.action(time.perf_counter() - pending.sent, action.kind, self.kind, self._now())
                self._tally.acted_kinds.add(self.kind)
                turn = pending.turn
                if not is_allowed(action, turn.legal, self.structure == "fixed_limit", turn.down):
                    self._violation(f"accepted {action} outside the legal actions {turn.legal}")
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
            self._pending.pop(result.action_id, None)
            if result.action_id in self._late:
                self._late.discard(result.action_id)
                self._tally.late_actions += 1
            elif result.code == _FAILED_PRECONDITION:
                self._violation(f"legal action refused: {result.message}")
            else:
                self._error(_STATUS_NAMES.get(result.code, str(result.code)))
        self._rejections.clear()

    def _on_event(self, event: pb.Event) -> None:
        seq = event.seq
        last = self._last_seq
        if last is None:
            if seq > self._welcome_seq + 1:
                self._violation(f"first event seq {seq} is past the welcome's last seq {self._welcome_seq}")
        elif seq != last + 1:
            self._violation(f"event seq {seq} after {last}" + (" (backwards)" if seq <= last else " (gap)"))
        self._last_seq = seq
        kind = event.WhichOneof("kind")
        hand = self._hand
        if kind == "cards_dealt":
            dealt = event.cards_dealt
            down = dealt.down
            if dealt.seat == self.seat:
                if down and min(down) <= HIDDEN:
                    self._violation(f"own down card hidden in hand {event.hand_number}")
                if hand is not None:
                    hand.street = dealt.street
                    hand.down.extend(down)
                    hand.up.extend(dealt.up)
                return
            if down and max(down) > HIDDEN:
                self._violation(f"seat {dealt.seat}'s down cards visible in hand {event.hand_number}")
            if hand is not None:
                hand.street = dealt.street
                if self.strategy.needs_board and dealt.up:
                    hand.others_up.setdefault(dealt.seat, []).extend(dealt.up)
        elif kind == "acted":
            acted = event.acted
            if hand is None:
                return
            hand.pot += acted.added
            if acted.seat == self.seat:
                hand.stack -= acted.added
                hand.bet, hand.bet_street = acted.to, hand.street
                self._own_acted(acted)
            elif acted.kind == pb.ACTION_KIND_FOLD:
                hand.folded.add(acted.seat)
        elif kind == "round_started":
            if hand is not None:
                hand.street = event.round_started.street
        elif kind == "forced_bet":
            forced = event.forced_bet
            if hand is not None:
                hand.pot += forced.amount
                if forced.seat == self.seat:
                    hand.stack -= forced.amount
                    if forced.live:
                        hand.bet, hand.bet_street = forced.amount, hand.street
        elif kind == "pots_formed":
            if hand is not None:
                hand.pots = len(event.pots_formed.pots)
        elif kind == "hand_started":
            self._on_hand_started(event)
        elif kind == "hand_ended":
            self._on_hand_ended(event)
        elif kind == "timed_out":
            timed_out = event.timed_out
            if timed_out.seat == self.seat:
                self._on_timed_out(timed_out.outcome)
        elif kind == "drew":
            self._on_drew(event.drew, event.hand_number)
        elif kind == "cap_reached":
            if hand is not None:
                hand.caps += 1
        elif kind == "bet_returned":
            returned = event.bet_returned
            if hand is not None:
                hand.pot -= returned.amount
                if returned.seat == self.seat:
                    hand.stack += returned.amount
        elif kind == "community_card":
            if hand is not None:
                hand.community.append(event.community_card.card)
        elif kind == "seat_changed":
            self._on_seat_changed(event.seat_changed.seat)
        elif kind == "hand_voided":
            self._on_hand_voided(event)
        elif kind is None:
            self._violation(f"event {seq} has no kind")
        # reshuffled, hand_shown, hand_mucked and pot_awarded change nothing a bot tracks.

    def _on_hand_started(self, event: pb.Event) -> None:
        started = event.hand_started
        number = event.hand_number
        if self._last_hand and number != self._last_hand + 1:
            self._violation(f"hand {number} started after hand {self._last_hand}")
        self._last_hand = number
        seats = tuple(started.seats)
        hand = self._hand = _Hand(number, seats, sum(started.stacks), started.deck_size)
        if self.seat in seats:
            hand.in_hand = True
            hand.stack = started.stacks[seats.index(self.seat)]
        elif self._broke:
            self._rebuy()

    def _hand_done(self, number: int) -> None:
        """The hand ended or was voided: no turn, no pending action of it can still count."""
        self._ended_hand = number
        self._cancel_think()
        self._turn = None
        self._late.update(self._pending)
        self._inflight = None
        self._clock_acted = ""
        self._hand = None
        self._hand_over.set()

    def _counts_hand(self, hand: _Hand | None, seats: Sequence[int]) -> bool:
        """Whether this bot counts the hand for its table: the lowest seat still seated counts."""
        departed = hand.departed if hand is not None else ()
        return next((seat for seat in seats if seat not in departed), 0) == self.seat

    def _on_hand_ended(self, event: pb.Event) -> None:
        ended = event.hand_ended
        hand = self._hand
        if hand is not None and hand.number == event.hand_number:
            if sum(ended.stacks) != hand.total:
                self._violation(f"hand {hand.number}: stacks {sum(ended.stacks)} != {hand.total} at start")
            if self._counts_hand(hand, ended.seats):
                self._stats.hand(self._now(), side_pots=max(0, hand.pots - 1), raise_caps=hand.caps)
                self._tally.hand_counted.set()
        self._hand_done(event.hand_number)
        seats = list(ended.seats)
        if self.seat in seats and ended.stacks[seats.index(self.seat)] == 0:
            self._broke = True
            self._rebuy()

    def _on_hand_voided(self, event: pb.Event) -> None:
        voided = event.hand_voided
        if self._counts_hand(self._hand, voided.seats):
            self._stats.hand_voided()
            self._tally.hand_counted.set()
        self._hand_done(event.hand_number)

    def _on_seat_changed(self, state: pb.SeatState) -> None:
        if state.seat == self.seat:
            if state.status == pb.SEAT_STATUS_SITTING_OUT:  # CLOCK-3 after a timeout
                self._sit_in()
        elif state.status == pb.SEAT_STATUS_EMPTY and self._hand is not None:
            self._hand.departed.add(state.seat)

    def _sit_in(self) -> None:
        if not self._stopping and not self._sitting_in:
            self._sitting_in = True
            self._chore("sit_in")

    def _rebuy(self) -> None:
        if self._config.rebuy and not self._stopping and not self._rebuying:
            self._rebuying = True
            self._chore("rebuy")

    def _on_timed_out(self, outcome: int) -> None:
        name = OUTCOME_NAMES[outcome] if 0 <= outcome < len(OUTCOME_NAMES) else ""
        if name in TIMEOUT_OUTCOMES:
            self._stats.timeout(name)
        else:
            self._violation(f"timeout with outcome {outcome}")
        self._cancel_think()
        self._turn = None
        self._late.update(self._pending)
        self._inflight = None
        self._clock_acted = _CLOCK_FOLLOW_UP.get(name, "")

    def _own_acted(self, acted: pb.Acted) -> None:
        """Check an action applied for this seat against what the bot sent (or the clock did)."""
        kind = KIND_NAMES.get(acted.kind, "unknown")
        inflight = self._inflight
        if inflight is not None:
            self._inflight = None
            self._turn = None
            if kind != inflight.kind:
                self._violation(f"sent {inflight.kind}, the server applied {kind}")
            elif kind in MONEY_KINDS and kind != "bring_in" and acted.to != inflight.amount:
                self._violation(f"sent {kind} to {inflight.amount}, the server applied {kind} to {acted.to}")
        elif self._clock_acted == kind:
            self._clock_acted = ""
        else:
            self._violation(f"the server applied {kind} that this seat never sent")

    def _on_drew(self, drew: pb.Drew, hand_number: int) -> None:
        discarded, drawn = drew.discarded, drew.drawn
        if drew.seat != self.seat:
            if (discarded and max(discarded) > HIDDEN) or (drawn and max(drawn) > HIDDEN):
                self._violation(f"seat {drew.seat}'s draw visible in hand {hand_number}")
            return
        if (discarded and min(discarded) <= HIDDEN) or (drawn and min(drawn) <= HIDDEN):
            self._violation(f"own draw hidden in hand {hand_number}")
        hand = self._hand
        if hand is not None:
            thrown = set(discarded)
            hand.down = [card for card in hand.down if card not in thrown] + list(drawn)
        inflight = self._inflight
        if inflight is not None:
            self._inflight = None
            self._turn = None
            if inflight.kind != "draw" or sorted(inflight.discard) != sorted(discarded):
                self._violation(f"sent {inflight}, the server drew {list(discarded)}")
        elif self._clock_acted == "draw" and not discarded:
            self._clock_acted = ""
        else:
            self._violation(f"the server drew {list(discarded)} for this seat, which sent no draw")

    # ----------------------------------------------------------------- turns

    def _on_turn(self, turn: pb.YourTurn) -> None:
        hand = self._hand
        number = turn.hand_number
        if number <= self._ended_hand:
            self._violation(f"YourTurn for hand {number}, which ended")
            return
        if self._last_seq is not None and turn.seq > self._last_seq:
            self._violation(f"YourTurn after seq {turn.seq}, but the last event received is {self._last_seq}")
        if hand is not None and (hand.number != number or not hand.in_hand):
            self._violation(f"YourTurn for hand {number}, which this seat is not dealt in")
            return
        names = KIND_NAMES
        legal = tuple(Legal(names.get(option.kind, "unknown"), option.min, option.max) for option in turn.legal)
        if not legal or any(option.kind not in _PLAYABLE for option in legal):
            self._violation(f"YourTurn in hand {number} offers {legal}")
            return
        self._cancel_think()
        # A new turn: whatever was in flight before it was applied (and seen) or never will be.
        self._inflight = None
        view = self._view(hand, legal, number)
        self._turn = _Turn(turn.seq, legal, view.down)
        if self._stopping:
            self._leave_turn()
            return
        action = self.strategy.decide(view, self.rng)
        if action is None:
            self._tally.slept += 1
            return
        delay = self.think.sample(self.rng)
        if delay > 0:
            self._act_handle = asyncio.get_running_loop().call_later(delay, self._send, action)
        else:
            self._send(action)

    def _leave_turn(self) -> None:
        """A stopping bot's answer to an open turn: check or fold now (unless it leaves idle)."""
        turn = self._turn
        if turn is not None and self._inflight is None and not self._config.leave_idle:
            self._send(leaving_action(turn.legal))

    def _view(self, hand: _Hand | None, legal: tuple[Legal, ...], number: int) -> View:
        if hand is None:  # after a gap: the cards of the hand are unknown
            return View(self.game, self.structure, legal, hand_number=number)
        call = next((option for option in legal if option.kind == "call"), None)
        bet = hand.bet if hand.bet_street == hand.street else 0
        others: tuple[tuple[int, ...], ...] = ()
        if self.strategy.needs_board:
            folded = hand.folded
            others = tuple(tuple(up) for seat, up in hand.others_up.items() if seat not in folded)
        return View(
            game=self.game,
            structure=self.structure,
            legal=legal,
            down=tuple(hand.down),
            up=tuple(hand.up),
            others_up=others,
            community=tuple(hand.community),
            street=hand.street,
            pot=hand.pot,
            bet=bet,
            to_call=call.max - bet if call is not None else 0,
            stack=hand.stack,
            hand_number=number,
            deck_size=hand.deck_size,
        )

    def _cancel_think(self) -> None:
        if self._act_handle is not None:
            self._act_handle.cancel()
            self._act_handle = None

    def _send(self, action: Action) -> None:
        """Send ``action`` for the open turn, unless the turn went away while the bot thought."""
        self._act_handle = None
        call, turn = self._call, self._turn
        if call is None or turn is None or self._inflight is not None:
            return
        self._next_id += 1
        action_id = str(self._next_id)
        request = pb.ActRequest(
            action_id=action_id,
            kind=KIND_NUMBERS[action.kind],
            amount=action.amount,
            discard=action.discard,
            turn_seq=turn.seq,
        )
        self._pending[action_id] = _Pending(time.perf_counter(), action, turn)
        self._inflight = action
        task = asyncio.ensure_future(self._write(call, request))
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    @staticmethod
    async def _write(call: PlayCall, request: pb.ActRequest) -> None:
        # A failure means the stream went down: its reader counts it and resumes.
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
            await call.write(pb.ClientMessage(act=request))
