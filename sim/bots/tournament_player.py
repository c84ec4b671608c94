"""A tournament player: one entrant, from its registration to its last seat.

A :class:`TournamentPlayer` registers with the tournament service (its player id and its standing
auto-rebuy choice, TOURN-10), follows its own Watch stream with its token (``own_only``: its own
events and the tournament's, not every other player's), and plays every seat a
``SeatAssigned`` gives it over ``TableService.Play``, with a :class:`~tablestorm.sim.bots.client.Bot` of its
fleet per seat. When the director moves the player (TOURN-3, TOURN-4) or it is out, the table ends
the old seat's stream OK, which ends that bot (:attr:`~tablestorm.sim.bots.client.Phase.REMOVED`: a normal
end, not a failure); the next ``SeatAssigned`` starts a new bot. A table rebuilt after a fault
(TOURN-11) comes as a new ``SeatAssigned`` too, while the old seat's stream may still be retrying
a dead server: a new seat ends every older bot. A Watch stream refused in a burst or cut is
resumed after the last event seen; a seat whose bot could not start (its Welcome late in a burst)
is tried again, as a player reconnects.

The player decides from one ``random.Random`` of its own across all its seats, seeded as the
accelerated driver seeds it (``tablestorm.sim.tournament.profiles.player_seed``), so that both drivers
draw the same decisions and think times. What the accelerated driver's bots do about the
director's news, this one does from the stream: re-enter when eliminated (the service refuses
once late registration is closed), take the add-on when its window opens.

It measures what a live tournament reports beside the director's record: the time of its first
turn at each seat, and each move's latency, from the ``Moved`` event on its stream to its first
``YourTurn`` at the new table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import grpc

from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.tournament.auth import PLAYER_METADATA_KEY
from tablestorm.sim.bots.client import Assignment, Bot
from tablestorm.sim.bots.client.backoff import backoff
from tablestorm.sim.bots.fleet import Fleet
from tablestorm.sim.distributions import Distribution

if TYPE_CHECKING:
    from tablestorm.services.api.tournament_pb2_grpc import TournamentServiceAsyncStub

__all__ = ["Entrant", "PlayerRecord", "TournamentPlayer"]

log = logging.getLogger(__name__)

RESUMABLE = frozenset({grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
"""Watch failures resumed after the last event seen: refused in a burst, the connection cut, or
the server too slow to take the call."""
SEAT_STARTS = 3
"""Tries to start a seat's bot before the seat is left to the table (away, TOURN-7)."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """Who a tournament player is and how it plays: what the accelerated driver's profile says."""

    player_id: str
    bot_kind: str
    think: Distribution
    seed: int
    """Its decisions' and think times' seed (``player_seed(root, player_id)``)."""
    auto_rebuy: bool = False
    add_on: bool = False
    reenter: bool = False


@dataclass(slots=True)
class PlayerRecord:
    """What one player saw of its tournament (wall-clock Unix seconds)."""

    seats: list[tpb.SeatAssigned] = field(default_factory=list)
    first_turns: dict[str, float] = field(default_factory=dict)
    """Seat token -> when the first turn at that seat opened."""
    move_latencies: list[float] = field(default_factory=list)
    """Seconds from each ``Moved`` of its entry to its first turn at the new seat."""
    reentries: int = 0
    add_ons: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    """Failed tournament calls and Watch streams, by status name."""

    def error(self, code: grpc.StatusCode) -> None:
        self.errors[code.name] = self.errors.get(code.name, 0) + 1


class TournamentPlayer:
    """One entrant of ``tournament_id``, its bots made by ``fleet`` (channels, stats, strategies)."""

    def __init__(
        self, entrant: Entrant, tournament_id: str, stub: TournamentServiceAsyncStub, fleet: Fleet
    ) -> None:
        self.entrant = entrant
        self.tournament_id = tournament_id
        self.record = PlayerRecord()
        self.rng = random.Random(entrant.seed)
        self._stub = stub
        self._fleet = fleet
        self._timeout = fleet.config.rpc_timeout
        self._token = ""
        self._entry_id = ""
        self._bots: list[Bot] = []
        self._seating: asyncio.Task[None] | None = None
        """Starting the bot of the newest seat (retried after a failed start)."""
        self._tokens: set[str] = set()
        """The seat tokens given so far (a resumed Watch replays SeatAssigned events)."""
        self._jitter = random.Random(f"tablestorm/backoff|{entrant.seed}")
        """Backoff jitter: its own stream, so retries never shift the player's decisions."""
        self._moved_at: float | None = None
        """When the last ``Moved`` of this player came, until its new seat's first turn."""

    def _metadata(self) -> tuple[tuple[str, str]]:
        return ((PLAYER_METADATA_KEY, self._token),)

    async def register(self) -> int:
        """Enter the tournament; returns the seq of its last event then (grpc.aio.AioRpcError when
        refused: the caller decides whether that is fatal)."""
        entrant = self.entrant
        request = tpb.RegisterRequest(
            tournament_id=self.tournament_id, player_id=entrant.player_id, auto_rebuy=entrant.auto_rebuy
        )
        metadata = self._metadata() if self._token else None  # a re-entry shows the player's token
        reply = await self._stub.Register(request, timeout=self._timeout, metadata=metadata)
        self._token, self._entry_id = reply.player_token, reply.entry_id
        return int(reply.tournament.last_seq)

    async def play(self, resume_after: int | None = None, gate: asyncio.Semaphore | None = None) -> None:
        """Follow the tournament (after event ``resume_after``; None: from the first) until its
        stream ends OK (the tournament finished), playing every seat given; then stop this
        player's bots. ``gate`` bounds the Watch calls a fleet opens at once: a server refuses
        calls beyond about a thousand it has not handed to its handlers (CANCELLED). A stream
        that fails so, or is cut (UNAVAILABLE), is resumed after the last event seen, with
        backoff; seats seen again are known by their token."""
        last = resume_after
        waits = backoff(*self._fleet.config.backoff, self._jitter)
        try:
            while True:
                request = tpb.WatchRequest(
                    tournament_id=self.tournament_id, player_id=self.entrant.player_id, own_only=True
                )
                if last is not None:
                    request.resume_after_seq = last
                call = self._stub.Watch(request, metadata=self._metadata())
                try:
                    async with gate or contextlib.nullcontext():
                        await call.wait_for_connection()
                    async for event in call:
                        last = event.seq
                        await self._on_event(event)
                    return
                except grpc.aio.AioRpcError as exc:
                    self.record.error(exc.code())
                    if exc.code() not in RESUMABLE:
                        return
                await asyncio.sleep(next(waits))
        finally:
            await self.stop()

    async def stop(self) -> None:
        """Stop every bot of this player (their seats stay: the director owns them)."""
        if self._seating is not None:
            self._seating.cancel()
            await asyncio.gather(self._seating, return_exceptions=True)
            self._seating = None
        bots, self._bots = self._bots, []
        await asyncio.gather(*(bot.stop(stand_up=False) for bot in bots))

    async def _on_event(self, event: tpb.TournamentEvent) -> None:
        kind = event.WhichOneof("kind")
        me = self.entrant.player_id
        if kind == "seat_assigned":
            await self._take_seat(event.seat_assigned)
        elif kind == "moved" and event.moved.entry_id == self._entry_id:
            self._moved_at = time.time()
        elif kind == "eliminated" and event.eliminated.player_id == me and self.entrant.reenter:
            if await self._call("reentry", self._reenter):
                self.record.reentries += 1
        elif kind == "add_on_window" and event.add_on_window.open and self.entrant.add_on:
            request = tpb.PlayerRequest(tournament_id=self.tournament_id, player_id=me)
            if await self._call("add_on", lambda: self._stub.AddOn(request, timeout=self._timeout,
                                                                     metadata=self._metadata())):
                self.record.add_ons += 1

    async def _reenter(self) -> None:
        await self.register()

    async def _call(self, what: str, call: Callable[[], Awaitable[object]]) -> bool:
        """A tournament call the director may refuse (FAILED_PRECONDITION: closed, out, the window
        is not this player's): refused is not an error; any other failure is counted."""
        try:
            await call()
        except grpc.aio.AioRpcError as exc:
            if exc.code() is not grpc.StatusCode.FAILED_PRECONDITION:
                self.record.error(exc.code())
                log.warning("tournament call failed", extra={"call": what, "code": exc.code().name})
            return False
        return True

    async def _take_seat(self, seat: tpb.SeatAssigned) -> None:
        """A new seat ends the older ones (moved, out, or a table rebuilt elsewhere)."""
        if seat.seat_token in self._tokens:
            return  # replayed by a resumed Watch: played already
        self._tokens.add(seat.seat_token)
        self.record.seats.append(seat)
        await self.stop()
        moved_at, self._moved_at = self._moved_at, None
        self._seating = asyncio.ensure_future(self._seat(seat, moved_at))

    async def _seat(self, seat: tpb.SeatAssigned, moved_at: float | None) -> None:
        """Start a bot on ``seat``, again after a failed start (its Welcome late in a burst): the
        seat is the player's until the director removes it or another one comes."""
        entrant = self.entrant
        assignment = Assignment(
            endpoint=seat.endpoint, table_id=seat.table_id, seat=seat.seat, player_id=seat.entry_id,
            bot_kind=entrant.bot_kind, think=entrant.think, seed=entrant.seed, seat_token=seat.seat_token,
        )
        token = seat.seat_token

        def on_turn() -> None:
            if token in self.record.first_turns:
                return
            now = time.time()
            self.record.first_turns[token] = now
            if moved_at is not None:
                self.record.move_latencies.append(now - moved_at)

        waits = backoff(*self._fleet.config.backoff, self._jitter)
        for _attempt in range(SEAT_STARTS):
            bot = self._fleet.bot(assignment, rng=self.rng, on_turn=on_turn)
            self._bots.append(bot)
            if await self._fleet.join(bot) or bot.removed:  # a failure is counted in the fleet's stats
                return
            self._bots.remove(bot)
            await asyncio.sleep(next(waits))
