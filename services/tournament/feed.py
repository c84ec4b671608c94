"""A tournament's events as Watch streams read them: public events numbered from 1, and each
player's private SeatAssigned events on that player's stream alone.

The feed keeps every entry of the tournament (a tournament's record is small next to its tables'
hands), so a watcher may start from the first event or resume after any seq, and reads at its own
pace: nothing is queued per watcher, each one walks the shared list and waits at its end. A
private event takes no number of its own: it carries the seq of the public event it follows, so
public numbers stay gap-free for everyone, and resuming after seq N replays the private events
that came after event N. A player may read only what concerns it (``own_only``): its private
events, the public events of its entries and the tournament's own; in a large field that is what
keeps the server from sending every event to every player.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import NamedTuple

import grpc

from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.rpc.errors import ServiceError


class _Entry(NamedTuple):
    player_id: str
    """Whose private event it is ("" for a public event)."""
    event: tpb.TournamentEvent
    about: str = ""
    """A public event of one player's entry: that player ("": the tournament's own event)."""


class EventFeed:
    """The append-only event list of one tournament, with watchers waiting at its end."""

    def __init__(self) -> None:
        self._entries: list[_Entry] = []
        self._positions: list[int] = []
        """Index in ``_entries`` of each public event (seq k at ``_positions[k - 1]``)."""
        self._changed = asyncio.Event()
        self._error: ServiceError | None = None
        self.ended = False
        """No entry will follow: watchers end once they have read everything (OK, or ``_error``)."""

    @property
    def last_seq(self) -> int:
        return len(self._positions)

    def publish(self, event: tpb.TournamentEvent, about: str = "") -> None:
        """Append a public event; it is numbered here. ``about``: the player whose entry it is of
        ("": the tournament's), for watchers of their own events only."""
        event.seq = len(self._positions) + 1
        self._positions.append(len(self._entries))
        self._append(_Entry("", event, about))

    def private(self, player_id: str, event: tpb.TournamentEvent) -> None:
        """Append an event only ``player_id``'s streams see (numbered as the last public one)."""
        event.seq = len(self._positions)
        self._append(_Entry(player_id, event))

    def _append(self, entry: _Entry) -> None:
        self._entries.append(entry)
        self._wake()

    def _wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def end(self, error: ServiceError | None = None) -> None:
        """No more events: watchers end after the last (with ``error``'s status, if given)."""
        self.ended = True
        self._error = error
        self._wake()

    def start_position(self, resume_after: int | None) -> int:
        """Where a watcher resuming after ``resume_after`` starts (None: the first event)."""
        if resume_after is None or resume_after == 0:
            return 0
        if resume_after > self.last_seq:
            raise ServiceError(
                grpc.StatusCode.OUT_OF_RANGE,
                f"resume_after_seq: {resume_after} is ahead of the tournament's last seq {self.last_seq}",
            )
        return self._positions[resume_after - 1] + 1

    async def read(
        self, player_id: str, position: int, own_only: bool = False, entitled: Callable[[], bool] = lambda: True
    ) -> AsyncIterator[tpb.TournamentEvent]:
        """Every public entry from ``position`` on, and ``player_id``'s private ones ("" for none)
        while ``entitled()`` says the reader still may see them, then live ones as they come,
        until the feed ends. ``own_only``: of the public entries only the tournament's own and
        those about ``player_id``."""
        entries = self._entries
        while True:
            changed = self._changed
            while position < len(entries):
                entry = entries[position]
                position += 1
                if entry.player_id:
                    if entry.player_id == player_id and entitled():
                        yield entry.event
                elif not own_only or not entry.about or entry.about == player_id:
                    yield entry.event
            if self.ended:
                if self._error is not None:
                    raise self._error
                return
            await changed.wait()
