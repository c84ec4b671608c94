"""A fleet: many bots as coroutines of one event loop, sharing a room, stats and counters.

One process drives thousands of seats this way (a Ray actor wraps one :class:`Fleet`; this module
knows nothing of Ray). Its bots talk to their room through one room adapter (docs/rooms.md; by
default the gRPC room, whose bots to one endpoint share connections); joins go through a small
gate because a client that opens thousands of streams in one burst sees some of them fail inside
gRPC Core, and so do the calls of leaving bots (a server
refuses calls beyond about 1,000 waiting for its handlers). Everything the bots measure lands in one
:class:`~tablestorm.sim.load.stats.RunStats` (``fleet.stats``; ship ``stats.take()``) and one
:class:`~tablestorm.sim.bots.client.Tally` (chips bought and cashed out by table, resumes, returns to moved
tables, protocol-violation samples). The fleet also keeps what its bots must know of the run's
chaos: the endpoints it killed and when (``killed``, see :mod:`tablestorm.sim.bots.client.attribution`).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Iterable

from tablestorm.sim.bots.client import Assignment, Bot, BotConfig, Resolver, Tally
from tablestorm.sim.bots.strategies import Strategy
from tablestorm.sim.load.stats import RunStats
from tablestorm.sim.rooms.base import Room
from tablestorm.sim.rooms.grpc import GrpcRoom

__all__ = ["Fleet"]


class Fleet:
    """Bots of one process. ``add`` seats them, ``remove``/``stop_all`` take them away."""

    def __init__(
        self,
        *,
        start: float | None = None,
        config: BotConfig | None = None,
        resolve: Resolver | None = None,
        room: Room | None = None,
        join_concurrency: int = 100,
        leave_concurrency: int = 100,
    ) -> None:
        """``start``: the run's start in Unix seconds, shared by every fleet of the run (stats
        are keyed by seconds since it); ``resolve(table_id)``: where a table lives now, asked when
        a stream fails (default: the endpoint it was assigned); ``leave_concurrency``: the most
        StandUp and SitOut calls the fleet's leaving bots have in flight (fleets times this must
        stay well under the ~1,000 calls a server queues: see :meth:`Bot._leave`); ``room``: the
        room the bots play in (default: a gRPC room of default options), closed by :meth:`stop_all`."""
        self.start = time.time() if start is None else start
        self.config = config or BotConfig()
        self.stats = RunStats()
        self.tally = Tally()
        self._resolve = resolve
        self.room = GrpcRoom() if room is None else room
        self.killed: dict[str, float] = {}
        """Endpoints the run's chaos killed -> the second of the run it was told (see :meth:`chaos_killed`)."""
        self._join_gate = asyncio.Semaphore(join_concurrency)
        """Bots starting at once (their Hello to Welcome), over every ``add`` and :meth:`join`."""
        self._leave_gate = asyncio.Semaphore(leave_concurrency)
        self._bots: list[Bot] = []
        """Oldest first; stopped bots are dropped."""
        self._stops: set[asyncio.Future[int]] = set()
        """Stops under way (a stop waits for the bot's hand to end): the channels stay open for them."""
        self._strategies: dict[str, Strategy] = {}

    def _strategy(self, kind: str) -> Strategy:
        """One shared instance per kind: strategies keep no per-seat state."""
        strategy = self._strategies.get(kind)
        if strategy is None:
            strategy = self._strategies[kind] = self.config.strategy(kind)
        return strategy

    def bot(
        self,
        assignment: Assignment,
        *,
        strategy: Strategy | None = None,
        rng: random.Random | None = None,
        on_turn: Callable[[], None] | None = None,
    ) -> Bot:
        """A bot of this fleet (its channels, stats, counters and the kind's shared strategy), not
        started: :meth:`add` starts and keeps its own; a tournament player starts one per seat it
        is given (``rng`` and ``on_turn``: see :class:`Bot`)."""
        return Bot(
            assignment,
            room=self.room,
            stats=self.stats,
            tally=self.tally,
            start=self.start,
            config=self.config,
            resolve=self._resolve,
            strategy=strategy or self._strategy(assignment.bot_kind),
            leave_gate=self._leave_gate,
            chaos=self.killed,
            rng=rng,
            on_turn=on_turn,
        )

    async def join(self, bot: Bot) -> bool:
        """Start ``bot`` through the fleet's join gate; returns whether it plays (see :meth:`Bot.start`)."""
        async with self._join_gate:
            return await bot.start()

    async def add(self, assignments: Iterable[Assignment]) -> list[Bot]:
        """Seat and connect a bot per assignment; returns those that joined (failures are
        counted in ``stats`` by status name). An unknown bot kind raises before anyone sits."""
        todo = list(assignments)
        strategies = [self._strategy(a.bot_kind) for a in todo]

        async def join(assignment: Assignment, strategy: Strategy) -> Bot | None:
            bot = self.bot(assignment, strategy=strategy)
            return bot if await self.join(bot) else None

        joined = [bot for bot in await asyncio.gather(*map(join, todo, strategies)) if bot is not None]
        self._bots.extend(joined)
        return joined

    async def remove(self, count: int, *, newest: bool = True, stand_up: bool = True) -> int:
        """Stop ``count`` playing bots, the newest (or oldest) first; returns the chips cashed out.

        See :meth:`Bot.stop`: a bot in a hand sits out and stands up when the hand is over.
        """
        playing = [bot for bot in self._bots if bot.running]
        count = max(0, min(count, len(playing)))
        chosen = playing[len(playing) - count :] if newest else playing[:count]
        return await self._stop(chosen, stand_up)

    def chaos_killed(self, endpoint: str) -> None:
        """The run's chaos is about to kill the server at ``endpoint``: told before the kill, so that
        the bots can tell the failures it causes from others. The time is this process's own (the
        seconds since ``start`` its bots time their failures by), so no clock skew between nodes
        can put a failure before the kill that caused it."""
        self.killed[endpoint] = time.time() - self.start

    async def abandon(self, table_ids: Iterable[str]) -> int:
        """Stop the bots of these tables without standing up (their server is lost: nobody can
        cash them out); returns how many."""
        tables = set(table_ids)
        lost = [bot for bot in self._bots if bot.table_id in tables]
        await self._stop(lost, stand_up=False)
        return len(lost)

    async def stop_all(self, stand_up: bool = True) -> int:
        """Stop every bot (those that gave up included), wait for the stops :meth:`remove` began,
        and close the channels; returns the chips cashed out by the bots stopped here. The fleet
        can ``add`` again afterwards.

        Closing a channel cancels the calls on it: a bot still leaving would see its StandUp
        CANCELLED by its own fleet, so the channels close only once every stop is over.
        """
        chips = await self._stop(list(self._bots), stand_up)
        await asyncio.gather(*self._stops)
        await self.room.close()
        return chips

    async def _stop(self, bots: list[Bot], stand_up: bool) -> int:
        """Stop ``bots`` all at once: a stop is mostly waiting for a hand to end, so a gate over
        whole stops would make a large fleet leave in slow waves; only their calls go through one
        (the leave gate, see :meth:`Bot._leave`)."""
        leaving = set(bots)
        self._bots = [bot for bot in self._bots if bot not in leaving]
        stops = [asyncio.ensure_future(bot.stop(stand_up=stand_up)) for bot in bots]
        self._stops.update(stops)
        for stop in stops:
            stop.add_done_callback(self._stops.discard)
        return sum(await asyncio.gather(*stops))

    async def until(self, done: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``done()`` holds, checking after every hand a bot counts, for at most
        ``timeout`` seconds; returns whether it held (e.g. "every table played 20 hands")."""
        deadline = time.monotonic() + timeout
        event = self.tally.hand_counted
        while not done():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)
        return True

    @property
    def bots(self) -> tuple[Bot, ...]:
        return tuple(self._bots)

    @property
    def online(self) -> int:
        """Bots playing now (started, not stopped, not given up)."""
        return sum(1 for bot in self._bots if bot.running)

    @property
    def chips_bought(self) -> int:
        """Buy-ins and rebuys paid by this fleet's bots since it was made."""
        return self.tally.chips_bought

    @property
    def chips_cashed_out(self) -> int:
        return self.tally.chips_cashed_out

    @property
    def kinds_acted(self) -> frozenset[str]:
        """Bot kinds with at least one accepted action (``stats.take()`` does not reset this)."""
        return frozenset(self.tally.acted_kinds)

    def counters(self) -> dict[str, int]:
        """The fleet's counters beside its RunStats, JSON-safe, for the driver."""
        tally = self.tally
        return {
            "online": self.online,
            "channels": self.room.connections,
            "streams": tally.streams,
            "chips_bought": tally.chips_bought,
            "chips_cashed_out": tally.chips_cashed_out,
            "resumes": tally.resumes,
            "resume_gaps": tally.resume_gaps,
            "late_actions": tally.late_actions,
            "slept": tally.slept,
            "messages": tally.messages,
            "events": tally.events,
        }
