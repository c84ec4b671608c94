"""Shuffling (TABLE-2): a CSPRNG by default, or a reproducible stream from a seed.

Both draw 24-bit words (three bytes each) from a byte source and run Fisher-Yates with
Lemire's multiply-shift (``j = word * (i + 1) >> 24``), rejecting the few words that would bias
it (at most one in 300,000), so every permutation is exactly equally likely. Small words keep
every value a machine integer in the compiled build, with no integer objects built per card:
64-bit words had made big-integer arithmetic the largest part of dealing a hand.

A seeded shuffler derives its bytes with SHAKE-256 from ``(seed, table id, hand
number)`` and a counter, so every deal of a simulation is reproducible from those
three values alone, whatever order tables and hands run in, and mid-hand
reshuffles (STUD-7, DRAW-4) are reproducible too.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from typing import Protocol

from mypy_extensions import i64

from tablestorm.services.engine.cards import Card


class Shuffler(Protocol):
    def shuffled(self, cards: Sequence[Card]) -> list[Card]:
        """A uniformly random permutation of ``cards`` as a new list."""
        ...


def _word(data: bytes, at: int) -> i64:
    """The 24-bit little-endian word at ``data[at:at + 3]``."""
    return data[at] | data[at + 1] << 8 | data[at + 2] << 16


def _fisher_yates(cards: Sequence[Card], random_bytes: Callable[[int], bytes]) -> list[Card]:
    out = list(cards)
    n = len(out)
    if n < 2:
        return out
    data = random_bytes(3 * n)
    at = 0
    for i in range(n - 1, 0, -1):
        bound: i64 = i + 1
        product: i64 = _word(data, at) * bound
        at += 3
        if product & 0xFF_FFFF < bound:
            # Lemire's rejection: of the 2**24 words, (2**24 mod bound) would favour low indexes.
            threshold = (0x100_0000 - bound) % bound
            while product & 0xFF_FFFF < threshold:
                product = _word(random_bytes(3), 0) * bound
        j = int(product >> 24)
        out[i], out[j] = out[j], out[i]
    return out


_POOL_BYTES = 1 << 16


class _UrandomPool:
    """``os.urandom`` bytes read 64 KiB at a time and handed out once each.

    A ``getrandom`` call per deck was a tenth of a simulated hand's time (most of it the system
    call, not the bytes). The bytes are the OS CSPRNG's own; the pool only batches the reads.
    It belongs to the process that filled it: a forked child empties it before its first deal,
    so parent and child never deal from the same bytes.
    """

    __slots__ = ("_bytes", "_pos")

    def __init__(self) -> None:
        self._bytes = b""
        self._pos = 0

    def take(self, count: int) -> bytes:
        start = self._pos
        end = start + count
        if end > len(self._bytes):
            self._bytes = os.urandom(max(_POOL_BYTES, count))
            start, end = 0, count
        self._pos = end
        return self._bytes[start:end]

    def empty(self) -> None:
        self._bytes = b""
        self._pos = 0


_POOL = _UrandomPool()
os.register_at_fork(after_in_child=_POOL.empty)


class SecureShuffler:
    """Shuffles from the operating system's CSPRNG (``os.urandom``, read in batches)."""

    __slots__ = ()

    def shuffled(self, cards: Sequence[Card]) -> list[Card]:
        return _fisher_yates(cards, _POOL.take)


class SeededShuffler:
    """Shuffles reproducibly from ``(seed, table_id, hand_number)``.

    Each call to :meth:`shuffled` within the hand uses the next counter value, so the
    first shuffle is the deal and later ones are the hand's reshuffles.
    """

    __slots__ = ("_calls", "_prefix")

    def __init__(self, seed: int, table_id: str, hand_number: int) -> None:
        self._prefix = f"tablestorm/v1|{seed}|{table_id}|{hand_number}|".encode()
        self._calls = 0

    def _bytes(self, count: int) -> bytes:
        self._calls += 1
        return hashlib.shake_256(self._prefix + str(self._calls).encode()).digest(count)

    def shuffled(self, cards: Sequence[Card]) -> list[Card]:
        return _fisher_yates(cards, self._bytes)


def shuffler_for(seed: int | None, table_id: str, hand_number: int) -> Shuffler:
    """The shuffler for one hand: seeded when a simulation gave a seed, else the CSPRNG."""
    if seed is None:
        return SecureShuffler()
    return SeededShuffler(seed, table_id, hand_number)
