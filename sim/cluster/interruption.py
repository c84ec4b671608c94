"""Ctrl-C and SIGTERM during a run: the first stops it gracefully, a second stops it at once.

A load tool runs in pipelines and at 3 a.m.: an interrupted run must still leave its report. The
first signal asks the run to end as if its duration were up (the wind-down runs, every output is
written, marked interrupted); a second raises :class:`Abort` wherever the main thread is (a wind-down
waiting on a slow host, say), and the run writes what it has and ends without waiting for anyone.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import TextIO

SIGNALS = (signal.SIGINT, signal.SIGTERM)
EXIT_STATUS = 130
"""What an interrupted command exits with (128 + SIGINT, the shell's convention)."""


class Abort(Exception):
    """A second signal: stop now."""


def abort_in(exc: BaseException) -> Abort | None:
    """The :class:`Abort` behind ``exc``, if any. A second signal that lands inside native code
    (Ray's wait, its deserializer) comes back wrapped: the cause or context of a SystemError or of
    whatever that code raised."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, Abort):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


class Interruption:
    """The signals a run has received; ``requested`` is set by the first."""

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self.requested = threading.Event()
        self.signal_name: str | None = None
        self._stream = stream
        self._shielded = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        if self.requested.is_set():
            if self._shielded:
                print(f"\n{name} again: writing the report, one moment", file=self._stream, flush=True)
                return
            print(f"\n{name} again: stopping now, writing what was measured", file=self._stream, flush=True)
            raise Abort(name)
        self.signal_name = name
        self.requested.set()
        print(f"\n{name}: winding down (press Ctrl-C again to stop at once)", file=self._stream, flush=True)

    @contextlib.contextmanager
    def shielded(self) -> Iterator[None]:
        """While the report is written a second signal does not abort it (it is what the user
        wants to keep): a few hundred milliseconds of file writing."""
        self._shielded = True
        try:
            yield
        finally:
            self._shielded = False

    @contextlib.contextmanager
    def installed(self) -> Iterator[Interruption]:
        """Handle SIGINT and SIGTERM while the block runs (main thread only), then restore."""
        previous = {sig: signal.signal(sig, self._handle) for sig in SIGNALS}
        try:
            yield self
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
