"""A load run's measurements, constructed: the numbers every report of a load run is checked on."""

from __future__ import annotations

from tablestorm.sim.load.stats import PROTOCOL_VIOLATION, RunStats
from tablestorm.sim.load.summary import build_summary

# 0.005 s and 0.2 s lie in buckets whose midpoints (4.94 ms, 201.2 ms) fall outside [min, max], so
# every percentile below is clamped to an exact sample and the expected numbers are exact.
FAST, SLOW = 0.005, 0.2


def constructed_run() -> RunStats:
    """Seconds 0, 1 and 3 (2 is quiet): 98 fast actions and 2 slow ones, 4 hands, 4 errors (one of
    them the chaos's); the fast actions and three hands are Seven Card Stud's, the rest the draw game's."""
    stats = RunStats()
    for i in range(98):
        stats.action(FAST, "call", "tight", now=i / 49, game="7stud")  # 49 per second in seconds 0 and 1
    stats.action(SLOW, "raise", "maniac", now=3.5, game="7a5draw")
    stats.action(SLOW, "fold", "maniac", now=3.6, game="7a5draw")
    for now, game in ((0.5, "7stud"), (1.5, "7stud"), (1.7, "7stud"), (3.9, "7a5draw")):
        stats.hand(now, side_pots=1, game=game)
    stats.hand_voided("7stud")
    stats.error("UNAVAILABLE", now=1.1)
    stats.error("DEADLINE_EXCEEDED", now=3.2)
    stats.error("UNAVAILABLE", now=3.3, chaos=True)
    stats.error(PROTOCOL_VIOLATION, now=3.4)
    stats.timeout("fold", "7stud")
    stats.timeout("stand_pat", "7a5draw")
    return stats


def summary_of(stats: RunStats, **overrides: object) -> dict[str, object]:
    arguments: dict[str, object] = {
        "bots": 12, "duration_s": 4.0, "chips_start": 12_000, "chips_end": 12_000, "hosts": 1,
        "fleets": 2, "thresholds": ["p99_ms<100", "errors==0", "chips_conserved==true"],
    }
    arguments.update(overrides)
    return build_summary(stats, **arguments)  # type: ignore[arg-type]
