"""The shared input module: the rules for what is given to tablestorm, written once for the command
line and the input files (scenarios, schedules), and the readers the commands share.

A :class:`Bound` is a data row: whole or not, the smallest and the largest value. The scenario
parser checks a YAML value against a row (:meth:`Bound.check`, a
:class:`~tablestorm.services.fields.FieldError` naming the field's path); the command line checks a
flag against the same row (:func:`flag`, argparse prefixes the flag's name and exits with status
2). So ``duration_s: 0`` in a file and ``--duration 0`` on the command line are refused by one
rule, in the same words, before anything starts. The engine's names (:data:`GAMES`,
:data:`STRUCTURES`) are offered as ``choices`` the same way, read from the engine's own registries.

This module imports nothing of the engine or the services but :mod:`tablestorm.services.fields`:
building the command-line parser must stay instant (``tablestorm --help``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from tablestorm.services.fields import FieldError, mapping, number, number_problem
from tablestorm.sim.distributions import Distribution

__all__ = [
    "COUNT",
    "DISTRIBUTION_KEYS",
    "DOCUMENTS",
    "GAMES",
    "NON_NEGATIVE",
    "PORT",
    "PROBABILITY",
    "SEED",
    "STRUCTURES",
    "WHOLE",
    "Bound",
    "apportion",
    "distribution",
    "document",
    "flag",
    "number_at",
    "value_at",
    "writable",
]

K = TypeVar("K")


@dataclass(frozen=True, slots=True)
class Bound:
    """The numbers one input accepts: finite, ``minimum`` <= value <= ``maximum``, whole if ``integer``."""

    minimum: float = 0.0
    maximum: float = math.inf
    integer: bool = False

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is refused, or None when it is accepted."""
        problem = number_problem(value, integer=self.integer)
        if problem is not None:
            return problem
        if not math.isfinite(value) or value < self.minimum:
            return f"must be at least {_show(self.minimum)}, got {_show(value)}"
        if value > self.maximum:
            return f"must be at most {_show(self.maximum)}, got {_show(value)}"
        return None

    def check(self, value: Any, where: str) -> Any:
        """``value`` as an int or a float; :class:`FieldError` naming ``where`` when refused."""
        problem = self.problem(value)
        if problem is not None:
            raise FieldError(where, problem)
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


class _Registry(Sequence[str]):
    """A registry's names as argparse ``choices``, read from the registry when first asked for:
    ``tablestorm --help`` stays instant (the engine takes seconds to import), and the names are
    defined once, where the games and structures are."""

    def __init__(self, names: Callable[[], Sequence[str]]) -> None:
        self._names = names
        self._cache: tuple[str, ...] | None = None

    def _all(self) -> tuple[str, ...]:
        if self._cache is None:
            self._cache = tuple(self._names())
        return self._cache

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __contains__(self, name: object) -> bool:
        return name in self._all()

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same names (the registry's own tuple, say)."""
        return isinstance(other, Sequence) and self._all() == tuple(other)

    __hash__ = None  # type: ignore[assignment]  # equal to tuples, so not hashable


def _games() -> Sequence[str]:
    from tablestorm.services.engine import VARIANTS

    return tuple(VARIANTS)


def _structures() -> Sequence[str]:
    from tablestorm.services.engine import Structure

    return tuple(s.value for s in Structure)


GAMES: Final = _Registry(_games)
"""The engine's games (``tablestorm.services.engine.VARIANTS``), for ``--game``."""
STRUCTURES: Final = _Registry(_structures)
"""The engine's betting structures (``tablestorm.services.engine.Structure``), for ``--structure``/``--betting``."""


DISTRIBUTION_KEYS: Final = ("dist", "value", "mean", "min", "max")
"""The keys of a distribution of seconds in a file (docs/scenarios.md: ``think_s``, ``session_s``)."""


def distribution(value: Any, path: str) -> Distribution:
    """A number (a fixed time) or a mapping of :data:`DISTRIBUTION_KEYS`; :class:`FieldError` naming ``path``."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Distribution("fixed", NON_NEGATIVE.check(value, path))
    spec = mapping(value, path, DISTRIBUTION_KEYS, optional=True)
    kind = spec.get("dist", "fixed")
    if kind == "fixed":
        return Distribution("fixed", NON_NEGATIVE.check(spec.get("value", 0.0), f"{path}.value"))
    if kind == "exponential":
        return Distribution("exponential", NON_NEGATIVE.check(spec.get("mean", 1.0), f"{path}.mean"))
    if kind == "uniform":
        low = NON_NEGATIVE.check(spec.get("min", 0.0), f"{path}.min")
        high = NON_NEGATIVE.check(spec.get("max", 1.0), f"{path}.max")
        if high < low:
            raise FieldError(f"{path}.max", f"must not be below {path}.min")
        return Distribution("uniform", (low + high) / 2, low, high)
    raise FieldError(f"{path}.dist", f"expected fixed, uniform or exponential, got {kind!r}")


def apportion(weights: Mapping[K, float], count: int, rng: random.Random) -> list[K]:
    """``count`` keys of ``weights`` in their proportions (largest remainders), shuffled by ``rng``."""
    total = sum(weights.values())
    shares = {k: count * w / total for k, w in weights.items() if w > 0}
    keys = [k for k, share in shares.items() for _ in range(int(share))]
    by_remainder = sorted(shares, key=lambda k: shares[k] - int(shares[k]), reverse=True)
    keys += by_remainder[: count - len(keys)]
    rng.shuffle(keys)
    return keys


def writable(path: Path, flag: str, *, directory: bool) -> Path:
    """``path`` can be written (as a directory or a file) once the run ends; nothing created yet."""
    if directory and path.exists() and not path.is_dir():
        raise FieldError(flag, f"{path} exists and is not a directory")
    if not directory and path.is_dir():
        raise FieldError(flag, f"{path} is a directory, not a file")
    ancestor = path if directory and path.is_dir() else path.parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise FieldError(flag, f"{ancestor} is a file, so {path} cannot be created")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise FieldError(flag, f"{ancestor} is not writable")
    return path


DOCUMENTS: Final = {
    "tablestorm.schedule/1": "schedule.json (tablestorm schedule)",
    "tablestorm.capacity/2": "capacity.json (tablestorm capacity)",
    "tablestorm.capacity/1": "capacity.json of an earlier tablestorm, without a knee or the hosts' cores: sweep again",
}
"""The JSON documents one command reads from another, by their ``schema``."""


def document(path: Path, schema: str) -> dict[str, Any]:
    """The JSON object in ``path`` whose ``schema`` is ``schema`` (one of :data:`DOCUMENTS`);
    :class:`FieldError` naming the file (and ``schema`` for a document of another kind)."""
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise FieldError(str(path), f"cannot read: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FieldError(str(path), f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise FieldError(str(path), f"expected a JSON object, got {type(data).__name__}")
    found = data.get("schema")
    if found != schema:
        what = f"it is a {DOCUMENTS[found]}" if found in DOCUMENTS else f"schema is {found!r}"
        raise FieldError(f"{path}: schema", f"expected {schema} ({DOCUMENTS[schema]}); {what}")
    return data


def value_at(data: Mapping[str, Any], key: str, path: Path, kind: type = object, where: str = "") -> Any:
    """``data``'s value at the dotted ``key``, of ``kind``; :class:`FieldError` naming the file and
    ``where`` + the key otherwise."""
    value: Any = data
    for part in key.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise FieldError(f"{path}: {where}{key}", "missing")
        value = value[part]
    if not isinstance(value, kind):
        raise FieldError(f"{path}: {where}{key}", f"expected {kind.__name__}, got {value!r}")
    return value


def number_at(data: Mapping[str, Any], key: str, path: Path, *, positive: bool = False, where: str = "") -> float:
    """A number at least 0 (above 0 if ``positive``) at ``key`` of ``data``, as :func:`value_at` reads it."""
    field = f"{path}: {where}{key}"
    value: float = number(value_at(data, key, path, where=where), field)
    if value < 0 or (positive and value == 0):
        raise FieldError(field, f"expected a {'positive' if positive else 'non-negative'} number, got {value!r}")
    return value
