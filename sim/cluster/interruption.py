"""Ctrl-C and SIGTERM during a command: the first ends its run gracefully, a second stops it at once.

A load tool runs in pipelines and at 3 a.m.: an interrupted run must still leave its report, and
a second signal must never cost the files the first was about to write. A command holds both
signals from its start to its end (:meth:`Interruption.installed`; :func:`~.connection.connect`
keeps them through Ray's start, whose own SIGTERM handler would end the process on the spot), and
what a signal does depends on where the command is:

* in its run (:meth:`Interruption.running`: the load, a sweep, a live tournament, the
  replications, a live day), the first asks the run to end as if its time were up: it winds down
  and every output is written, marked interrupted; a second raises :class:`Abort` wherever the
  main thread is (a wind-down waiting on a slow host, say), and the run writes what it has
  without waiting for anyone;
* while its outputs are collected and written, or its processes stopped
  (:meth:`Interruption.shielded`), a signal waits for that: it is what the user wants to keep;
* anywhere else (the checks, Ray starting, the actors deploying) a signal raises :class:`Abort`
  at once: nothing has been measured that a wind-down could keep.

An Abort that leaves a command is one line on stderr and exit status :data:`EXIT_STATUS`
(:mod:`tablestorm.sim.cli`), never a traceback. Messages name the signal received.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Final, TextIO

SIGNALS = (signal.SIGINT, signal.SIGTERM)
EXIT_STATUS = 130
"""What an interrupted command exits with (128 + SIGINT, the shell's convention)."""
_AGAIN: Final = {"SIGINT": "press Ctrl-C again", "SIGTERM": "send SIGTERM again"}
"""How a user sends the signal received once more, by its name."""


class Abort(Exception):
    """A signal that stops the command at once; its text is the signal's name."""


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
    """The signals a command has received; ``requested`` is set by the first."""

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self.requested = threading.Event()
        self.signal_name: str | None = None
        """The first signal's name (``SIGINT``, ``SIGTERM``)."""
        self.aborted = False
        """A signal stopped the command at once (:class:`Abort`)."""
        self._stream = stream
        self._running = False
        self._shield: str | None = None
        """What a signal waits for, while it does (``writing the report``)."""

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        first = self.signal_name is None
        label = name if first else f"{name} again" if name == self.signal_name else f"{name} after {self.signal_name}"
        if first:
            self.signal_name = name
            self.requested.set()
        if self._shield is not None:
            self._say(f"{label}: {self._shield}, one moment")
            return
        if first and self._running:
            self._say(f"{label}: winding down ({_AGAIN[name]} to stop at once)")
            return
        self.aborted = True
        self._say(f"{label}: stopping now" + (", writing what was measured" if self._running else ""))
        raise Abort(name)

    def _say(self, text: str) -> None:
        print(f"\n{text}", file=self._stream, flush=True)

    @contextlib.contextmanager
    def installed(self) -> Iterator[Interruption]:
        """Handle SIGINT and SIGTERM while the block runs (main thread only), then restore."""
        previous = {sig: signal.signal(sig, self._handle) for sig in SIGNALS}
        try:
            yield self
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    @contextlib.contextmanager
    def running(self) -> Iterator[Interruption]:
        """The run: a first signal winds it down (``requested``), a second raises :class:`Abort`.
        Installs the handlers for the block too (a run started by a library caller)."""
        before = self._running
        self._running = True
        try:
            with self.installed():
                yield self
        finally:
            self._running = before

    @contextlib.contextmanager
    def shielded(self, doing: str = "writing the report") -> Iterator[None]:
        """While the block runs a signal does not abort it, ``doing`` (say, what the user wants to
        keep): a few seconds at most, writing files or stopping the run's processes."""
        before = self._shield
        self._shield = doing
        try:
            yield
        finally:
            self._shield = before
