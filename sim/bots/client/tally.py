"""Counters the bots of a fleet share beside their :class:`~tablestorm.sim.load.stats.RunStats`."""

from __future__ import annotations

import asyncio
from typing import Final, NamedTuple

__all__ = ["Return", "Tally"]


class Return(NamedTuple):
    """A bot back at its table after the table moved to another server (its host was lost and the
    table rebuilt elsewhere): the first answer from the new address, in seconds since the run began."""

    table_id: str
    seat: int
    at_s: float


class Tally:
    """What RunStats has no field for: chips, resumes, stream counts, violation samples, returns."""

    __slots__ = (
        "acted_kinds",
        "bought_at",
        "cashed_out_at",
        "events",
        "hand_counted",
        "late_actions",
        "messages",
        "resume_gaps",
        "resumes",
        "returns",
        "slept",
        "streams",
        "violations",
    )
    MAX_SAMPLES: Final = 50

    def __init__(self) -> None:
        self.bought_at: dict[str, int] = {}
        """Table -> buy-ins and rebuys these bots paid there (for chip conservation over the run)."""
        self.cashed_out_at: dict[str, int] = {}
        """Table -> chips StandUp returned to these bots there."""
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
        self.returns: list[Return] = []
        """Bots back at a moved table since the fleet last took them (see :class:`Return`)."""
        self.hand_counted = asyncio.Event()
        """Set whenever a bot counts a finished or voided hand: waiters re-check their condition."""

    def bought(self, table_id: str, chips: int) -> None:
        self.bought_at[table_id] = self.bought_at.get(table_id, 0) + chips

    def cashed_out(self, table_id: str, chips: int) -> None:
        self.cashed_out_at[table_id] = self.cashed_out_at.get(table_id, 0) + chips

    @property
    def chips_bought(self) -> int:
        """Buy-ins and rebuys paid by these bots, at every table."""
        return sum(self.bought_at.values())

    @property
    def chips_cashed_out(self) -> int:
        return sum(self.cashed_out_at.values())

    def violation(self, what: str) -> None:
        if len(self.violations) < self.MAX_SAMPLES:
            self.violations.append(what)

    def take_returns(self) -> list[Return]:
        returns, self.returns = self.returns, []
        return returns
