"""Which of a bot's errors the run's chaos caused: held until the bot can tell, then counted.

A table host the chaos killed fails every stream and call to it (UNAVAILABLE; DEADLINE_EXCEEDED
for a call that was waiting on it) until its tables are rebuilt elsewhere and the bot resumes at
the table's new address. When such a failure happens nothing says why: a server that is slow or
down for a reason of its own fails the same way. So the bot holds each transport failure, with its
time and the endpoint it happened on, until the next answer it gets for its seat:

* from another endpoint, when the chaos killed the endpoint of the failure at or before it: the
  table moved because the chaos killed its host, so the failure was the chaos's;
* otherwise (the same server answered again, or the table moved off a host nobody killed, or the
  failure came before the kill): it is unexpected.

Whatever is still held when the bot stops (or never got an answer again) is unexpected. Errors of
any other kind are never the chaos's and are counted as they happen. A bot that held failures on
another endpoint than the one answering is back at a moved table: :meth:`Attribution.answered` says
so, for the report's seconds until the bots were back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, NamedTuple

__all__ = ["TRANSPORT_FAILURES", "Attribution", "Held", "Verdict"]

TRANSPORT_FAILURES: Final = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED"})
"""The error kinds a lost server causes (gRPC status names)."""


class Held(NamedTuple):
    """A transport failure waiting for its verdict."""

    kind: str
    at_s: float
    endpoint: str


class Verdict(NamedTuple):
    """The held failures judged by an answer: the chaos's, the unexpected ones, and whether the
    answer came from another endpoint than a failure's (the table moved)."""

    chaos: tuple[Held, ...]
    unexpected: tuple[Held, ...]
    moved: bool


_NOTHING: Final = Verdict((), (), False)


class Attribution:
    """One bot's held transport failures. ``killed`` maps each endpoint the run's chaos killed to
    the second of the run the bot's fleet was told of it, just before the kill (the fleet's map,
    shared and read live)."""

    __slots__ = ("_held", "_killed")

    def __init__(self, killed: Mapping[str, float]) -> None:
        self._killed = killed
        self._held: list[Held] = []

    @property
    def holding(self) -> bool:
        return bool(self._held)

    def failed(self, kind: str, at_s: float, endpoint: str) -> bool:
        """A call or stream to ``endpoint`` failed with ``kind`` at ``at_s``: held when it is a
        transport failure (True); any other kind is for the caller to count now (False)."""
        if kind not in TRANSPORT_FAILURES:
            return False
        self._held.append(Held(kind, at_s, endpoint))
        return True

    def answered(self, endpoint: str) -> Verdict:
        """The seat got an answer from ``endpoint``: every held failure is judged."""
        if not self._held:
            return _NOTHING
        held, self._held = self._held, []
        chaos: list[Held] = []
        unexpected: list[Held] = []
        for failure in held:
            killed_at = self._killed.get(failure.endpoint)
            moved_by_chaos = failure.endpoint != endpoint and killed_at is not None and killed_at <= failure.at_s
            (chaos if moved_by_chaos else unexpected).append(failure)
        return Verdict(tuple(chaos), tuple(unexpected), any(h.endpoint != endpoint for h in held))

    def release(self) -> tuple[Held, ...]:
        """The bot stops: whatever is still held is unexpected."""
        held, self._held = tuple(self._held), []
        return held
