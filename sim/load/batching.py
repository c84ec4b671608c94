"""Calls of one remote method that takes a list: whatever is asked while a call is out goes in the next.

A table host writes its ledger this way (a hand's start per table, several a second), and a fleet
asks where its tables live this way: after a host is lost, every bot of its tables asks at once, at
each step of its backoff, thousands of asks a second from one fleet. One Ray call in flight per ask
held memory of its own, and the fleet's heap grew by about as much as that burst needed and never
gave it back (the soak measured +3-4 MiB of resident memory per fleet at each host kill); batched,
one call is out at a time, whatever the burst.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["Batched"]

T = TypeVar("T")
R = TypeVar("R")


class Batched(Generic[T, R]):
    """Items for ``send``, one call at a time: every item asked for while a call is out travels in
    the next one. ``send`` takes a batch and returns one answer per item, in order; when it raises,
    every ask of that batch raises the same."""

    __slots__ = ("_flusher", "_pending", "_send", "_waiters")

    def __init__(self, send: Callable[[list[T]], Awaitable[Sequence[R]]]) -> None:
        self._send = send
        self._pending: list[T] = []
        self._waiters: list[asyncio.Future[R] | None] = []
        self._flusher: asyncio.Task[None] | None = None

    async def ask(self, item: T) -> R:
        """``item``'s answer, once the call that carried it has returned."""
        waiter: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._add(item, waiter)
        return await waiter

    def tell(self, item: T) -> None:
        """Send ``item`` with the next call; nobody waits for its answer."""
        self._add(item, None)

    def _add(self, item: T, waiter: asyncio.Future[R] | None) -> None:
        self._pending.append(item)
        self._waiters.append(waiter)
        if self._flusher is None:
            self._flusher = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        try:
            while self._pending:
                batch, waiters = self._pending, self._waiters
                self._pending, self._waiters = [], []
                try:
                    answers = await self._send(batch)
                except Exception as exc:  # the other side is gone: every asker must know
                    for waiter in waiters:
                        if waiter is not None and not waiter.done():
                            waiter.set_exception(exc)
                    continue
                for waiter, answer in zip(waiters, answers, strict=True):
                    if waiter is not None and not waiter.done():  # an asker may have given up
                        waiter.set_result(answer)
        finally:
            self._flusher = None
