"""The load a day puts on the table services, minute by minute: what a replication counts.

Five quantities per minute of the day (:data:`QUANTITIES`): two levels read at the start of the
minute (live ``tables``, seated ``players``, each holding one Play stream) and three counts within
it (``hands`` dealt, ``actions`` taken, ``events`` streamed), which reports divide by 60 for rates.

``events`` are what a table service streams: it numbers, logs and fans out every event the engine
appends to a hand (``services/table/live_table.py``, ``_publish``: one ``Event`` message per
engine event, written to each subscriber), so a hand streams ``len(hand.events)`` of them.
``actions`` are the turns the table waits for: every ``Acted`` and ``Drew`` (a player's move, or
the clock's on their behalf, CLOCK-2) and a timeout that leaves the player all-in, which moves no
chips and so appends no ``Acted``.

A hand's counts go to the minute it is dealt in: hands last about a minute, so minute bins shift
its load by at most the hand's length.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from tablestorm.services.engine import Hand, TimeoutOutcome
from tablestorm.services.engine.events import Acted, Drew, Event, TimedOut

__all__ = ["LEVELS", "QUANTITIES", "RATES", "Load", "LoadRecorder", "turns"]

QUANTITIES: Final = ("tables", "players", "hands", "actions", "events")
LEVELS: Final = ("tables", "players")
"""Read at the start of each minute."""
RATES: Final = ("hands", "actions", "events")
"""Counted within each minute; reported per second."""
_TABLES, _PLAYERS, _HANDS, _ACTIONS, _EVENTS = range(len(QUANTITIES))

Counts = npt.NDArray[np.int64]


def turns(events: Sequence[Event]) -> int:
    """The turns a hand's events show (see the module's note)."""
    count = 0
    for event in events:
        kind = type(event)
        if kind is Acted or kind is Drew or (isinstance(event, TimedOut) and event.outcome is TimeoutOutcome.ALL_IN):
            count += 1
    return count


@dataclass(frozen=True, slots=True)
class Load:
    """One game's counts by minute of the day from minute ``start``: ``counts[q, k]`` is quantity
    ``QUANTITIES[q]`` in minute ``start + k``."""

    start: int
    counts: Counts

    @property
    def stop(self) -> int:
        """The minute after the last one counted."""
        return self.start + int(self.counts.shape[1])

    def into(self, day: Counts) -> None:
        """Add these counts to ``day`` (``QUANTITIES`` x minutes from midnight, long enough)."""
        day[:, self.start : self.stop] += self.counts


class LoadRecorder:
    """Counts the load of the tournaments of one event by minute of the day."""

    def __init__(self) -> None:
        self._minutes: dict[int, list[int]] = {}

    def _row(self, minute: int) -> list[int]:
        row = self._minutes.get(minute)
        if row is None:
            row = self._minutes[minute] = [0] * len(QUANTITIES)
        return row

    def hand(self, at_s: float, hand: Hand) -> None:
        """A hand dealt at ``at_s`` seconds from midnight, played through."""
        row = self._row(int(at_s // 60))
        row[_HANDS] += 1
        row[_ACTIONS] += turns(hand.events)
        row[_EVENTS] += len(hand.events)

    def timeline(self, start_s: float, rows: Iterable[Mapping[str, Any]]) -> None:
        """A tournament started at ``start_s``: its ``{minute, players, tables}`` rows (at each
        minute from its start, :attr:`TournamentResult.timeline`), counted while it has tables."""
        for point in rows:
            if point["tables"]:
                row = self._row(int((start_s + 60.0 * point["minute"]) // 60))
                row[_TABLES] += point["tables"]
                row[_PLAYERS] += point["players"]

    def load(self) -> Load:
        if not self._minutes:
            return Load(0, np.zeros((len(QUANTITIES), 0), dtype=np.int64))
        start, stop = min(self._minutes), max(self._minutes) + 1
        counts = np.zeros((len(QUANTITIES), stop - start), dtype=np.int64)
        for minute, row in self._minutes.items():
            counts[:, minute - start] = row
        return Load(start, counts)
