"""The action clock (CLOCK-1): one timer per table, re-armed on every turn change.

A table needs no thread and no task for its clock: one ``loop.call_later`` handle, cancelled and
rescheduled whenever the turn moves, and the callback runs between other table operations on the
same loop, so it never races an action.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol, TypeAlias


class Timer(Protocol):
    """A callback scheduled for later that can be called off (an ``asyncio.TimerHandle``)."""

    def cancel(self) -> None: ...


Timers: TypeAlias = Callable[[float, Callable[[], None]], Timer]
"""Schedules a callback that many seconds from now: the event loop's ``call_later`` in a server;
an embedding process (a test) may pass its own (``ServerConfig.timers``) to decide when clocks run out."""


class ActionClock:
    __slots__ = ("_handle", "_on_expiry", "_schedule")

    def __init__(self, schedule: Timers, on_expiry: Callable[[], None]) -> None:
        self._schedule = schedule
        self._on_expiry = on_expiry
        self._handle: Timer | None = None

    def restart(self, seconds: float) -> int:
        """Start a new turn's clock; returns its deadline in Unix milliseconds (for YourTurn)."""
        if self._handle is not None:
            self._handle.cancel()
        self._handle = self._schedule(seconds, self._fire)
        return int((time.time() + seconds) * 1000)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _fire(self) -> None:
        self._handle = None
        self._on_expiry()
