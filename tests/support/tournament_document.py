"""What every finished ``tournament.json`` holds, live or accelerated (``tablestorm tournament``)."""

from __future__ import annotations

from typing import Any


def assert_complete(doc: dict[str, Any]) -> None:
    """Finished to a winner, every entry placed once, the pool paid out, every chip kept (TOURN-11).

    Players out in one hand with equal stacks tie at the best of their places (TOURN-6: 1, 2, 2, 4),
    so each place is its rank in the order or the place of the tie it continues, out at the same moment
    (one hand, or one hand-for-hand round across tables)."""
    assert doc["finished"] is True and doc["chips_conserved"] is True
    order = sorted(doc["finishing_order"], key=lambda p: p["place"])
    assert len({p["entry"] for p in order}) == len(order) == doc["entries"]
    out_at = {e["entry"]: e["t"] for e in doc["eliminations"]}
    for rank, (before, player) in enumerate(zip([None, *order], order, strict=False), start=1):
        tied = before is not None and player["place"] == before["place"]
        assert player["place"] == rank or (tied and out_at[player["entry"]] == out_at[before["entry"]]), player
    assert sum(p["prize"] for p in doc["finishing_order"]) == doc["prize_pool"]
    assert len(doc["eliminations"]) == doc["entries"] - 1
