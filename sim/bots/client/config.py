"""What a bot is given: its seat (an :class:`Assignment`) and the knobs its fleet shares (:class:`BotConfig`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from tablestorm.sim.bots.kinds import strategy_for
from tablestorm.sim.bots.strategies import Strategy
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

    strategies: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Knobs of the bot kinds, by kind, e.g. ``{"sleeper": {"sleep_probability": 0.3}}`` (the
    fields of the kind's class in ``tablestorm.sim.bots.strategies``); the rest keep their defaults."""
    backoff: tuple[float, float] = (0.2, 5.0)
    """First and largest wait between retries (a failed stream, a refused stand-up, a tournament
    player's Watch or seat start): doubling, with jitter (see :mod:`.backoff`)."""
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

    def __post_init__(self) -> None:
        for kind in self.strategies:
            self.strategy(kind)  # a bad kind or knob is refused here, not at the first bot of the kind

    def strategy(self, kind: str) -> Strategy:
        """The strategy of bot kind ``kind`` with this config's knobs for it."""
        return strategy_for(kind, self.strategies.get(kind))
