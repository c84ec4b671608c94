"""What a bot is given: its seat (an :class:`Assignment`) and the knobs its fleet shares (:class:`BotConfig`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from tablestorm.sim.distributions import Distribution

__all__ = ["NO_THINK", "Assignment", "BotConfig", "Resolver"]

Resolver = Callable[[str], Awaitable[str | None]]
"""``resolve(table_id) -> "host:port"``: where a table lives now (it may have moved after a crash);
None while nobody knows (its new host is still being made): the bot keeps its address and retries."""

NO_THINK: Final = Distribution()
"""Act the moment the turn comes."""


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
    counting a buy-in: whoever sat down bought the chips). It takes the seat over from whoever
    played it, whose last actions the seat's events still show (see :class:`~.referee.Referee`)."""


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
    tournament: bool = False
    """Tournament seats: the director seats, tops up and removes the players, so a Play stream the
    table ends OK is the seat's end (moved or out), not a drop to resume, and a bot never rebuys
    at the table (TOURN-10 rebuys go through the tournament service)."""
    leave_idle: bool = False
    """How a stopping bot leaves a hand it is live in. False: it checks or folds at once on each
    turn, so the hand (and the stop) is over in moments. True: it sends nothing and the clock acts
    for it (CLOCK-2), like a player who walked away; every such turn lasts the whole clock."""
