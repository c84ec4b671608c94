"""A director's whole state as bytes, and back: what lets a restart replay only a journal's tail.

:func:`snapshot` pickles the :class:`Director` (seats, stacks, entries, the clock, the finishing
order, the random generator's state, the events), leaving its structure out: the structure is the
tournament's own record (a journal keeps it once), and :func:`restore` is given it again.
``restore(structure, snapshot(d))`` then continues exactly as ``d`` would, input for input.

Unpickling runs whatever a pickle names, so :func:`restore` reads only the classes a director is
made of (an allow-list, Python's documented way to restrict ``pickle``): bytes from anywhere else
are refused with :class:`SnapshotError`, never executed.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

from tablestorm.services.director.director import Director
from tablestorm.services.director.structure import TournamentStructure

__all__ = ["SnapshotError", "restore", "snapshot"]

_PROTOCOL = 5
_ALLOWED_MODULES = (
    "tablestorm.services.director.",
    "tablestorm.services.engine.",
)
_ALLOWED = {
    ("random", "Random"),
    ("sortedcontainers.sortedlist", "SortedList"),
    ("sortedcontainers.sortedlist", "SortedKeyList"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
}
_STRUCTURE, _OPTIONS, _LEVELS = "structure", "options", "levels"


class SnapshotError(ValueError):
    """Bytes that are not a director's snapshot."""


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, director: Director) -> None:
        super().__init__(file, protocol=_PROTOCOL)
        self._shared = {id(director.structure): _STRUCTURE, id(director.structure.levels): _LEVELS}
        options = getattr(director, "_options", None)
        if options is not None:
            self._shared[id(options)] = _OPTIONS

    def persistent_id(self, obj: Any) -> str | None:
        return self._shared.get(id(obj))


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, structure: TournamentStructure) -> None:
        super().__init__(file)
        self._shared: dict[str, object] = {
            _STRUCTURE: structure,
            _LEVELS: structure.levels,
            _OPTIONS: structure.table_options(),
        }

    def persistent_load(self, pid: Any) -> object:
        if not isinstance(pid, str) or pid not in self._shared:
            raise SnapshotError(f"snapshot: unknown shared object {pid!r}")
        return self._shared[pid]

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED or module.startswith(_ALLOWED_MODULES):
            found = super().find_class(module, name)
            if isinstance(found, type):  # classes only: no function is called on reading
                return found
        raise SnapshotError(f"snapshot: {module}.{name} is not part of a director")


def snapshot(director: Director) -> bytes:
    """``director``'s state, its structure left out."""
    buffer = io.BytesIO()
    _Pickler(buffer, director).dump(director)
    return buffer.getvalue()


def restore(structure: TournamentStructure, data: bytes) -> Director:
    """The director :func:`snapshot` saved, playing ``structure`` again (SnapshotError: not one)."""
    try:
        director = _Unpickler(io.BytesIO(data), structure).load()
    except SnapshotError:
        raise
    except Exception as exc:  # a truncated or foreign pickle fails in many ways
        raise SnapshotError(f"snapshot: unreadable ({exc})") from None
    if not isinstance(director, Director):
        raise SnapshotError(f"snapshot: holds a {type(director).__name__}, not a director")
    return director
