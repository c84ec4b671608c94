"""The base of the engine's value classes (events, legal actions): small, immutable, compiled.

They were NamedTuples. Compiled by mypyc as native classes instead, one costs a fifth as much
to build (a hand builds about two hundred), and ``Final`` attributes make them read-only at
run time. This base gives them what a NamedTuple gave for free: equality, hashing, a readable
``repr``, pattern matching by position and pickling, all from the class's ``__match_args__``.
"""

from __future__ import annotations

from typing import ClassVar

from mypy_extensions import mypyc_attr


@mypyc_attr(acyclic=True)
class Record:
    """Every Record class is marked ``acyclic``: its values are numbers, text, enums and tuples of
    them, which can never lead back to the record, so the garbage collector does not track it.
    A table service keeps thousands of finished hands' events for SHOW-4; tracked, they made each
    full collection on a busy host a pause of hundreds of milliseconds (the p99 of a load test)."""

    __match_args__: ClassVar[tuple[str, ...]] = ()
    """The field names in constructor order; each subclass lists its own."""

    def values(self) -> tuple[object, ...]:
        """The field values in constructor order."""
        return tuple([getattr(self, name) for name in self.__match_args__])

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and isinstance(other, Record) and self.values() == other.values()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[type[Record], tuple[object, ...]]:
        return type(self), self.values()
