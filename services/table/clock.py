"""The action clock (CLOCK-1): one timer per table, re-armed on every turn change.

A table needs no thread and no task for its clock: one ``loop.call_later`` handle, cancelled and
rescheduled whenever the turn moves, and the callback runs between other table operations on the
same loop, so it never races an action.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class ActionClock:
    __slots__ = ("_handle", "_loop", "_on_expiry")

    def __init__(self, loop: asyncio.AbstractEventLoop, on_expiry: Callable[[], None]) -> None:
        self._loop = loop
        self._on_expiry = on_expiry
        self._handle: asyncio.TimerHandle | None = None

    def restart(self, seconds: float) -> int:
        """Start a new turn's clock; returns its deadline in Unix milliseconds (for YourTurn)."""
        if self._handle is not None:
            self._handle.cancel()
        self._handle = self._loop.call_later(seconds, self._fire)
        return int((time.time() + seconds) * 1000)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _fire(self) -> None:
        self._handle = None
        self._on_expiry()
