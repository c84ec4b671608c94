"""What an operator stakes on a schedule: guarantees and their overlays, fees, satellite seats.

A guarantee promises a prize pool: when the entries' buy-ins (re-entries, rebuys and add-ons
included) fall short of it, the room pays the difference, the *overlay*. Every figure here is read
off the replications' prize pools, one per replication, so its uncertainty is the forecast's own
(docs/schedules.md, "Guarantees, overlays and fees").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from tablestorm.sim.inputs import Bound

__all__ = ["DEFAULT_RISK", "RISK", "break_even_entries", "guarantee_at_risk", "overlay", "seats_won"]

RISK: Final = Bound(maximum=0.5)
"""``--overlay-risk``: the share of days a guarantee may fall short on (above an even chance it is
not a guarantee the room means to keep)."""
DEFAULT_RISK: Final = 0.05


def overlay(pool: float, guarantee: float | None) -> float:
    """What the room adds to ``pool`` to pay ``guarantee`` (0 when the pool covers it, or no guarantee)."""
    return max(0.0, guarantee - pool) if guarantee is not None else 0.0


def seats_won(pool: float, guarantee: float | None, seat: int) -> int:
    """The seats a satellite's pool (or its guarantee, when larger) buys at ``seat`` each; the rest
    is paid out as money."""
    return int(max(pool, guarantee or 0.0) // seat)


def break_even_entries(guarantee: float, buy_in: int) -> int | None:
    """The entries whose buy-ins alone reach ``guarantee`` (None for a tournament without a buy-in)."""
    return math.ceil(guarantee / buy_in) if buy_in > 0 else None


def guarantee_at_risk(pools: Sequence[float], risk: float) -> float:
    """The largest guarantee that ``pools`` fall short of in at most a share ``risk`` of the
    replications: the (⌊risk·n⌋+1)-th smallest pool, the lower empirical ``risk``-quantile
    (P(pool < G) <= risk, and any larger G is short more often). ``risk`` is below 1."""
    if not pools:
        raise ValueError("no prize pools")
    ranked = sorted(pools)
    return float(ranked[math.floor(round(risk * len(ranked), 9))])
