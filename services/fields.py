"""A refused value names its field: :class:`FieldError`, and the checks every reader of a mapping shares.

Every layer refuses input the same way: a flag of the command line, a field of a scenario, schedule,
structure or plan input file, a field of a PHH history or of a gRPC message. The error holds the
field (``--duration``, ``day.yaml: tournaments[3].entrants.sd``, ``stakes.small_bet``) and the
reason, and reads ``field: reason``; a reader that knows where a nested value came from names it
from further out with :meth:`FieldError.within`. ``tablestorm`` turns one into its one-line refusal
(exit 2), the services into ``INVALID_ARGUMENT``.

This module sits below the engine and imports nothing of tablestorm: the engine raises it, and
``tablestorm --help`` reads it without loading the engine (whose evaluation tables take seconds).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Self

__all__ = ["FieldError", "mapping", "number", "number_problem"]


class FieldError(ValueError):
    """A value that cannot work: ``field`` says where it came from, ``reason`` why it is refused."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason

    def within(self, prefix: str) -> Self:
        """The same refusal named from further out: ``prefix`` + the field (``"day.yaml: "``,
        ``"levels[3]."``)."""
        return type(self)(prefix + self.field, self.reason)

    def __reduce__(self) -> tuple[type[Self], tuple[str, str]]:
        """Pickled (a Ray task's error) with both its parts."""
        return type(self), (self.field, self.reason)


def mapping(value: Any, field: str, allowed: Iterable[str], *, optional: bool = False) -> dict[str, Any]:
    """``value`` as a mapping whose keys are all ``allowed`` (the first unknown one is refused, named
    ``field.key``); with ``optional``, None (an absent section) reads as an empty mapping."""
    if value is None and optional:
        return {}
    if not isinstance(value, dict):
        raise FieldError(field, f"expected a mapping, got {type(value).__name__}")
    known = set(allowed)
    unknown = sorted(str(key) for key in value if key not in known)
    if unknown:
        raise FieldError(f"{field}.{unknown[0]}", f"unknown field (known: {', '.join(sorted(known))})")
    return value


def number_problem(value: Any, *, integer: bool) -> str | None:
    """Why ``value`` is not a number (a whole one if ``integer``), or None; an infinite or NaN float
    passes unless ``integer``: what a range makes of it is the caller's."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"expected a number, got {value!r}"
    if integer and not (math.isfinite(value) and float(value).is_integer()):
        return f"expected a whole number, got {value!r}"
    return None


def number(value: Any, field: str, *, integer: bool = False) -> Any:
    """``value`` as a finite int (``integer``) or float; :class:`FieldError` naming ``field`` otherwise.
    What range it must lie in is the reader's own rule."""
    problem = number_problem(value, integer=integer)
    if problem is None and not math.isfinite(value):
        problem = f"expected a number, got {value!r}"
    if problem is not None:
        raise FieldError(field, problem)
    return int(value) if integer else float(value)
