"""TOURN-6: places by elimination, simultaneous ones by starting stack, ties sharing their prizes.

Players eliminated together (in one hand, or in one hand-for-hand round across tables) occupy
the places just below everyone still in, bigger stack at the start of that hand higher. Equal
stacks tie: each tied player is listed at the best of the places they occupy, and they share
equally the sum of those places' prizes; the indivisible remainder goes one unit at a time to
the tied players in registration order [decision].

A place is final only once the number of entries is (late registration closed): an entry that
comes later finishes above everyone eliminated before it came. A prize is final once the pool
is too (no late entry, rebuy or add-on can come), or at once when the place is out of the money.
:class:`FinishingOrder` holds groups until then and settles them as soon as it can.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tablestorm.services.director.entries import Entry


@dataclass(slots=True)
class _Group:
    tiers: list[list[Entry]]
    """The group's players, best first; a tier of several is a tie."""
    above: int
    """Players still in when the group went out, less the entries there were then: the group's
    worst place is ``above + entries`` once the final number of entries is known."""
    placed: bool = False


def tiers_by_stack(group: Sequence[tuple[Entry, int]]) -> list[list[Entry]]:
    """Players eliminated together, by their stacks at the start of the hand (bigger first); equal
    stacks share a tier, in registration order."""
    ordered = sorted(group, key=lambda item: (-item[1], item[0].number))
    tiers: list[list[Entry]] = []
    last = None
    for entry, stack in ordered:
        if stack != last:
            tiers.append([])
            last = stack
        tiers[-1].append(entry)
    return tiers


def split(total: int, tied: Sequence[Entry]) -> list[int]:
    """``total`` shared equally by ``tied``; the remainder one unit each in registration order."""
    each, remainder = divmod(total, len(tied))
    ranks = {entry.number: k for k, entry in enumerate(sorted(tied, key=lambda e: e.number))}
    return [each + (1 if ranks[entry.number] < remainder else 0) for entry in tied]


class FinishingOrder:
    """Every eliminated entry's place and prize, settled as soon as they are final."""

    __slots__ = ("_pending", "placed")

    def __init__(self) -> None:
        self._pending: list[_Group] = []
        self.placed: list[Entry] = []
        """Entries with a final place, in the order they were placed."""

    def add(self, group: Sequence[tuple[Entry, int]], alive_before: int, entries: int) -> None:
        """Players eliminated together: ``(entry, stack at the start of the hand)``, with the count
        of players in (the group included) and of entries when it happened."""
        self._pending.append(_Group(tiers_by_stack(group), alive_before - entries))

    def settle(self, entries: int | None, prizes: Sequence[int] | None, paid: int) -> list[Entry]:
        """Give places (``entries`` known) and prizes (``prizes`` by place once the pool is final;
        ``paid`` places are in the money) to every group that can have them; returns the entries
        that got a place or a prize now."""
        if entries is None:
            return []
        changed: list[Entry] = []
        still: list[_Group] = []
        for group in self._pending:
            place = group.above + entries - sum(len(tier) for tier in group.tiers) + 1
            for tier in group.tiers:
                places = range(place, place + len(tier))
                shares: list[int | None]
                if prizes is not None:
                    shares = list(split(sum(prizes[p - 1] for p in places if p <= len(prizes)), tier))
                elif place > paid:
                    shares = [0] * len(tier)
                else:
                    shares = [None] * len(tier)
                for entry, share in zip(tier, shares, strict=True):
                    if entry.place is None or entry.prize != share:
                        changed.append(entry)
                    if entry.place is None:
                        self.placed.append(entry)
                    entry.place, entry.prize = place, share
                place += len(tier)
            if any(entry.prize is None for tier in group.tiers for entry in tier):
                still.append(group)
        self._pending = still
        return changed
