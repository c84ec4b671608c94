"""What a number given to tablestorm may be, written once for the command line and the scenario files.

A :class:`Bound` is a data row: whole or not, the smallest and the largest value. The scenario
parser checks a YAML value against a row (:meth:`Bound.check`, the message starts with the field's
path); the command line checks a flag against the same row (:func:`flag`, argparse prefixes the
flag's name and exits with status 2). So ``duration_s: 0`` in a file and ``--duration 0`` on the
command line are refused by one rule, in the same words, before anything starts.

This module imports nothing of the engine or the services: building the command-line parser
must stay instant (``tablestorm --help``).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "COUNT",
    "NON_NEGATIVE",
    "PORT",
    "PROBABILITY",
    "SEED",
    "WHOLE",
    "Bound",
    "InputError",
    "flag",
]


class InputError(ValueError):
    """A value that cannot work; the message starts with where it came from (a field or a flag)."""


@dataclass(frozen=True, slots=True)
class Bound:
    """The numbers one input accepts: finite, ``minimum`` <= value <= ``maximum``, whole if ``integer``."""

    minimum: float = 0.0
    maximum: float = math.inf
    integer: bool = False

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is refused, or None when it is accepted."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"expected a number, got {value!r}"
        if self.integer and not (math.isfinite(value) and float(value).is_integer()):
            return f"expected a whole number, got {value!r}"
        if not math.isfinite(value) or value < self.minimum:
            return f"must be at least {_show(self.minimum)}, got {_show(value)}"
        if value > self.maximum:
            return f"must be at most {_show(self.maximum)}, got {_show(value)}"
        return None

    def check(self, value: Any, where: str) -> Any:
        """``value`` as an int or a float; :class:`InputError` naming ``where`` when refused."""
        problem = self.problem(value)
        if problem is not None:
            raise InputError(f"{where}: {problem}")
        return int(value) if self.integer else float(value)

    def parse(self, text: str) -> Any:
        """Command-line text checked against the row (ValueError with the reason)."""
        try:
            value: int | float = int(text) if self.integer else float(text)
        except ValueError:
            kind = "a whole number" if self.integer else "a number"
            raise ValueError(f"expected {kind}, got {text!r}") from None
        problem = self.problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value


def _show(number: float) -> str:
    """``1`` for 1.0 (a flag's 1 and a file's 1 read alike), ``0.05``, ``nan``."""
    return str(int(number)) if math.isfinite(number) and float(number).is_integer() else repr(float(number))


def flag(bound: Bound) -> Callable[[str], Any]:
    """An argparse ``type=`` for a flag checked against ``bound`` (argparse names the flag, exit 2)."""

    def convert(text: str) -> Any:
        try:
            return bound.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = "number"
    return convert


NON_NEGATIVE: Final = Bound()
"""Seconds, rates and weights: zero or more."""
WHOLE: Final = Bound(integer=True)
"""A whole number, zero or more (0 often meaning "the default": seats, buy-in in big bets)."""
COUNT: Final = Bound(minimum=1, integer=True)
"""How many of something there must be at least one of (hands, players, tables, actors)."""
PROBABILITY: Final = Bound(maximum=1.0)
PORT: Final = Bound(maximum=65535, integer=True)
"""A TCP port; 0 lets the system pick a free one."""
SEED: Final = Bound(maximum=2**63 - 1, integer=True)
"""TABLE-2: a table's seed is a uint64 on the wire, and a run's tables take seed, seed + 1, ..."""
