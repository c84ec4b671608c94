"""Main and side pots (BET-7) from what each player has put in.

Pots are layers: each distinct level at which a live player stopped (all-in, or capped by
CLOCK-2) closes a pot contested by the live players who reached it. Folded players' chips
stay in the layers they reached. Adjacent layers with the same contestants are one pot.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablestorm.services.engine.events import Pot


def layer_pots(committed: Sequence[int], live: Sequence[bool]) -> tuple[Pot, ...]:
    """The pots for ``committed[i]`` chips put in by player ``i``; ``live[i]`` is False if folded."""
    n = len(committed)
    levels = sorted({committed[i] for i in range(n) if live[i] and committed[i] > 0})
    top = max(committed, default=0)
    if not levels:
        # No live player has a chip in (a big blind returned uncalled, BET-6): what is in the
        # middle is dead money (folded players', dead blinds) and every live hand contests it.
        total = sum(committed)
        return (Pot(total, tuple(i for i in range(n) if live[i])),) if total else ()
    if top and (not levels or levels[-1] < top):
        levels.append(top)  # chips above every live level still belong in the last pot
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = 0
        for c in committed:
            if c > previous:
                amount += (c if c < level else level) - previous
        eligible = tuple(i for i in range(n) if live[i] and committed[i] >= level)
        if pots and (not eligible or pots[-1].eligible == eligible):
            pots[-1] = Pot(pots[-1].amount + amount, pots[-1].eligible)
        else:
            pots.append(Pot(amount, eligible))
        previous = level
    return tuple(pots)
