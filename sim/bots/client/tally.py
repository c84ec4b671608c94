"""Counters the bots of a fleet share beside their :class:`~sim.stats.RunStats`."""

from __future__ import annotations

import asyncio
from typing import Final

__all__ = ["Tally"]


class Tally:
    """What RunStats has no field for: chips, resumes, stream counts, violation samples."""

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
