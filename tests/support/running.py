"""Running an async test: in a fresh event loop of its own, bounded in time.

The suite needs no asyncio plugin: a test is an ``async def`` under :func:`run_async` and waits for
what it expects with timeouts, never with a sleep.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any


def run_async(test: Callable[..., Coroutine[Any, Any, None]], timeout: float = 60) -> Callable[..., None]:
    """Run an async test in a fresh event loop, bounded in time (``functools.partial(run_async,
    timeout=...)`` for a longer bound)."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(asyncio.wait_for(test(*args, **kwargs), timeout))

    return wrapper
