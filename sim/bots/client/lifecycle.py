"""The bot lifecycle: one phase per bot, and every change of it decided here.

::

    JOINING --welcome--> PLAYING --drop (its strategy's schedule)--> DROPPED --reopened--> RESUMING
       |                   |  \\__stream failed (retryable)___________________________/   |
       |                   |                                                            welcome
       |                   +<---------------------------------------------------------- +
       +-- any of those --stop--> LEAVING --stood up--> STOOD_UP --+--> STOPPED
       +-- any of those --failure no reconnect cures--> GAVE_UP ---+
       +-- a tournament seat the director took (SEAT_GONE) --> REMOVED --+

A bot in LEAVING answers its turns by checking or folding and stands up once out of the hand; the
stop ends in STOPPED whether or not it stood up. A leaving bot dealt into a hand keeps (or reopens)
its stream until it sees that hand end: the lowest seat still seated counts a hand for its table,
and a bot that only polled for the end would leave the hand uncounted. What the stream loop does after a stream ended is
:meth:`Lifecycle.after_stream`'s answer, so that the bot's loop only carries it out.
"""

from __future__ import annotations

import enum
from typing import Final

import grpc

__all__ = ["GIVE_UP", "Lifecycle", "Next", "Phase"]


class Phase(enum.Enum):
    JOINING = "joining"
    """Started: sitting down, opening the first stream, waiting for its Welcome."""
    PLAYING = "playing"
    """Welcomed on a live stream."""
    DROPPED = "dropped"
    """Cut its own stream on its strategy's schedule; reopens it at once."""
    RESUMING = "resuming"
    """Its stream went down (or was dropped): reopening it and resuming from the last event."""
    LEAVING = "leaving"
    """Told to stop: plays its hand out and stands up."""
    STOOD_UP = "stood_up"
    """Cashed out: the seat token is dead."""
    GAVE_UP = "gave_up"
    """Its stream failed in a way a reconnect cannot cure; the seat stays at the table."""
    REMOVED = "removed"
    """A tournament seat the director took (see :data:`SEAT_GONE`): the player was moved or is out;
    the player's next seat is another bot's."""
    STOPPED = "stopped"
    """Done: no stream, no calls."""


ACTIVE: Final = frozenset({Phase.JOINING, Phase.PLAYING, Phase.DROPPED, Phase.RESUMING})
"""The phases of a bot that plays on (a fleet counts it online)."""

GIVE_UP: Final = frozenset(
    {
        grpc.StatusCode.UNAUTHENTICATED,  # the token died: somebody stood the seat up
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.ABORTED,  # another stream took the seat over: two bots share a token
        grpc.StatusCode.UNIMPLEMENTED,
    }
)
"""Stream failures that a reconnect cannot cure; the bot stops (the seat stays at the table)."""

SEAT_GONE: Final = frozenset({grpc.StatusCode.OK, grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAUTHENTICATED})
"""How a tournament seat's stream ends when the director took the seat: OK (the player removed while
streaming: moved, or out), and, for a bot still (re)connecting then, the table gone (NOT_FOUND:
broken and closed) or the seat token dead (UNAUTHENTICATED). [decision] Not errors: the player's
next seat, if any, comes on its Watch stream."""


class Next(enum.Enum):
    """What the stream loop does after a stream ended."""

    DONE = "done"
    """The bot is leaving or stopped: no more streams."""
    REOPEN = "reopen"
    """A planned drop: resume at once."""
    RETRY = "retry"
    """A failure worth retrying: count it, back off, resume."""
    GIVE_UP = "give_up"
    """A failure no retry cures: count it; the bot gave up."""


class Lifecycle:
    """The phase of one bot, changed only by its methods (one per thing that happens)."""

    __slots__ = ("_removable", "phase", "removed")

    def __init__(self, *, removable: bool = False) -> None:
        """``removable``: a tournament seat, which the director may take away (:data:`SEAT_GONE`)."""
        self.phase = Phase.JOINING
        self._removable = removable
        self.removed = False
        """Whether the seat was ever REMOVED (kept once the bot is stopped)."""

    @property
    def active(self) -> bool:
        return self.phase in ACTIVE

    @property
    def leaving(self) -> bool:
        """Told to stop (its turns are answered to leave, it runs no chores)."""
        return self.phase in (Phase.LEAVING, Phase.STOOD_UP, Phase.STOPPED)

    def welcomed(self) -> None:
        if self.phase in ACTIVE:
            self.phase = Phase.PLAYING

    def drop(self) -> bool:
        """The strategy's drop is due: whether to cut the stream now (only a playing bot does)."""
        if self.phase is Phase.PLAYING:
            self.phase = Phase.DROPPED
            return True
        return False

    def after_stream(self, code: grpc.StatusCode, *, dealt_in: bool = False) -> tuple[Next, bool]:
        """A stream ended with ``code``: what next, and whether ``code`` counts as an error.
        ``dealt_in``: the seat is dealt into a hand the bot has not seen end."""
        phase = self.phase
        if phase in (Phase.STOPPED, Phase.STOOD_UP):
            return Next.DONE, False
        if phase is Phase.LEAVING:
            # The server closes the stream after StandUp, maybe before its reply arrives; a bot
            # stopped during its own drop sees the stream end CANCELLED. Neither is an error.
            counts = code not in (grpc.StatusCode.OK, grpc.StatusCode.CANCELLED)
            if not dealt_in or code is grpc.StatusCode.OK or code in GIVE_UP:
                return Next.DONE, counts
            return (Next.RETRY if counts else Next.REOPEN), counts
        if phase is Phase.DROPPED and code is grpc.StatusCode.CANCELLED:
            self.phase = Phase.RESUMING
            return Next.REOPEN, False
        if self._removable and code in SEAT_GONE:
            self.phase, self.removed = Phase.REMOVED, True
            return Next.DONE, False
        if code in GIVE_UP:
            self.phase = Phase.GAVE_UP
            return Next.GIVE_UP, True
        if phase is not Phase.JOINING:
            self.phase = Phase.RESUMING
        return Next.RETRY, code is not grpc.StatusCode.OK

    def give_up(self) -> None:
        """Retrying for too long, or a bug in the bot: it stops playing (a leaving bot leaves on)."""
        if self.phase in ACTIVE:
            self.phase = Phase.GAVE_UP

    def stop(self) -> Phase | None:
        """Begin stopping; returns the phase the bot was in, or None when a stop began already."""
        before = self.phase
        if self.leaving:
            return None
        self.phase = Phase.LEAVING
        return before

    def stood_up(self) -> None:
        self.phase = Phase.STOOD_UP

    def stopped(self) -> None:
        self.phase = Phase.STOPPED
