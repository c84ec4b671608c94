"""Two object graphs compared by value: the state of a director, whatever objects hold it."""

from __future__ import annotations

import dataclasses
import enum
import random
from typing import Any

from sortedcontainers import SortedList


def canonical(root: object) -> Any:
    """``root`` as nested tuples of plain values: objects by their class and attributes (slots or
    ``__dict__``), containers by their items, a random generator by its state, an enum member or a
    function by its name. A mutable object met again (a cycle, or one shared by two owners) is
    written as the order in which it was first met, so two graphs of the same shape give equal
    values and any difference in a value shows; immutable values (tuples, frozen dataclasses) are
    written out wherever they are, shared or not."""
    seen: dict[int, int] = {}

    def walk(obj: object) -> Any:
        if obj is None or isinstance(obj, bool | int | float | str | bytes):
            return obj
        if isinstance(obj, enum.Enum | type) or callable(obj):
            return ("name", getattr(obj, "__qualname__", repr(obj)))
        frozen = isinstance(obj, tuple | frozenset) or (
            dataclasses.is_dataclass(obj) and obj.__dataclass_params__.frozen  # type: ignore[attr-defined]
        )
        if not frozen:
            if id(obj) in seen:
                return ("ref", seen[id(obj)])
            seen[id(obj)] = len(seen)
        if isinstance(obj, random.Random):
            return ("Random", obj.getstate())
        if isinstance(obj, SortedList):  # its items: its lazily built index is no part of the value
            return ("SortedList", tuple(walk(item) for item in obj))
        if isinstance(obj, list | tuple):
            return (type(obj).__name__, tuple(walk(item) for item in obj))
        if isinstance(obj, set | frozenset):  # in an order of their plain attributes, not of their ids
            return ("set", tuple(walk(item) for item in sorted(obj, key=_plain)))
        if isinstance(obj, dict):
            return ("dict", tuple((walk(k), walk(v)) for k, v in obj.items()))
        return (type(obj).__name__, tuple((name, walk(value)) for name, value in _fields(obj)))

    return walk(root)


def _fields(obj: object) -> list[tuple[str, Any]]:
    names: list[str] = []
    for klass in type(obj).__mro__:
        names += [n for n in getattr(klass, "__slots__", ()) if hasattr(obj, n)]
    return [(n, getattr(obj, n)) for n in names] + sorted(getattr(obj, "__dict__", {}).items())


def _plain(obj: object) -> str:
    """What orders a set's items: their plain values (a set's objects differ in one: an id, a number)."""
    if isinstance(obj, bool | int | float | str | bytes):
        return repr(obj)
    return repr([(n, v) for n, v in _fields(obj) if v is None or isinstance(v, bool | int | float | str)])
