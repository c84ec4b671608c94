"""Players still in by stack: the largest at once, every stack change in O(log players).

A max-heap with lazy updates: a change pushes the new stack and leaves the old item behind;
stale items are dropped when they reach the top, and the heap is rebuilt from the live stacks
once it holds twice as many items as players, so it stays O(players) in size. A hand changes up
to eight stacks, so this costs a few heap pushes per hand where a sorted list would cost twice
as many insertions and removals.
"""

from __future__ import annotations

import heapq

_SLACK = 64


class StackBoard:
    """Each live entry's stack, by entry number; the largest (lowest number on a tie) on demand."""

    __slots__ = ("_heap", "_stacks")

    def __init__(self) -> None:
        self._heap: list[tuple[int, int]] = []
        """(-stack, entry number), some stale."""
        self._stacks: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._stacks)

    def items(self) -> dict[int, int]:
        """Stack by entry number (a copy)."""
        return dict(self._stacks)

    def set(self, number: int, stack: int) -> None:
        self._stacks[number] = stack
        heapq.heappush(self._heap, (-stack, number))
        if len(self._heap) > 2 * len(self._stacks) + _SLACK:
            self._heap = [(-s, n) for n, s in self._stacks.items()]
            heapq.heapify(self._heap)

    def discard(self, number: int) -> None:
        self._stacks.pop(number, None)

    def largest(self) -> tuple[int, int] | None:
        """(stack, entry number) of the biggest stack, or None when nobody is left."""
        heap, stacks = self._heap, self._stacks
        while heap:
            negative, number = heap[0]
            if stacks.get(number) == -negative:
                return -negative, number
            heapq.heappop(heap)
        return None
