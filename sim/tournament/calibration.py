"""The published bands a forecast's tournaments must fall in, and the runs that check them.

Each :class:`Band` is a row of docs/calibration.md (its ``id``, e.g. ``T1.duration``): what is
measured over the seeds of a :class:`Case` (an example structure, a field, a number of seeds),
the band, and the sources. :func:`play` runs a case's seeds accelerated with a :class:`Tally` each;
:func:`judge` reads every band off the runs. ``tests/test_calibration.py`` plays every case (a
few seeds in CI, twenty before a release); ``python -m tablestorm.sim.tournament.calibration``
prints the table.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from tablestorm.sim.resources import TOURNAMENTS
from tablestorm.sim.tournament.accelerated import AcceleratedTournament
from tablestorm.sim.tournament.dynamics import Dynamics, Tally
from tablestorm.sim.tournament.profiles import DEFAULT_PROFILES, PlayerProfile
from tablestorm.sim.tournament.structure_file import load_structure

__all__ = ["CASES", "Band", "Case", "Verdict", "judge", "play"]

Measure = Callable[[Sequence[Dynamics]], float | None]


@dataclass(frozen=True, slots=True)
class Band:
    """One published band: ``measure`` of a case's runs must lie in ``[low, high]``."""

    id: str
    what: str
    low: float
    high: float
    sources: str
    measure: Measure


@dataclass(frozen=True, slots=True)
class Case:
    """An example structure played by a field for some seeds, and the bands it must meet."""

    structure: str
    """A file of ``sim/tournaments/``."""
    entrants: int
    bands: tuple[Band, ...]
    seeds: int = 20
    profiles: tuple[PlayerProfile, ...] = DEFAULT_PROFILES


@dataclass(frozen=True, slots=True)
class Verdict:
    case: Case
    band: Band
    value: float | None

    @property
    def passed(self) -> bool:
        return self.value is not None and self.band.low <= self.value <= self.band.high


def _median(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.median(kept) if kept else None


def _pooled(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def median_of(get: Callable[[Dynamics], float | None]) -> Measure:
    return lambda runs: _median([get(run) for run in runs])


def share_of(test: Callable[[Dynamics], bool]) -> Measure:
    return lambda runs: sum(1 for run in runs if test(run)) / len(runs) if runs else None


def _minutes(seconds: float | None) -> float | None:
    return None if seconds is None else seconds / 60


def _hours(minutes: int | None) -> float | None:
    return None if minutes is None else minutes / 60


def _pace(low: int, high: int) -> Measure:
    """Hands per table-hour of the hands dealt to ``low``-``high`` players, median over runs."""
    def measure(runs: Sequence[Dynamics]) -> float | None:
        rates = []
        for run in runs:
            chosen = {n: r for n, r in run.hands_per_hour_by_players.items() if low <= n <= high}
            weights = {n: run.dealt.get(n, 0) for n in chosen}
            if sum(weights.values()):
                rates.append(sum(chosen[n] * weights[n] for n in chosen) / sum(weights.values()))
        return _median(rates)
    return measure


def _average_when_left(low: float, high: float) -> Measure:
    return lambda runs: _pooled([units for run in runs for units in run.average_when_left(low, high)])


# ----------------------------------------------------------------- the bands

def _level1_busts(runs: Sequence[Dynamics]) -> float | None:
    return _median([run.eliminated_in_level(1) / run.entries for run in runs])


def _first_units(run: Dynamics) -> float:
    return run.average_units[0][1] if run.average_units else 0.0


END = Band("T3.end_depth", "chips in play over the last big blind (big bet): median", 10, 40, "S3, S4, N28, N32",
           median_of(lambda run: run.end_units))
NEVER_DEEPER = Band("T3.never_deeper", "share of runs whose average stack rose above the start (before the final "
                    "table)", 0, 0, "D3, S1, N10, N29",
                    share_of(lambda run: any(u > _first_units(run) * 1.001 for u in run.average_from(1.0))))
MIDDLE_NL = Band("T3.average_40", "average stack (big blinds) from 40 % of the field left to the final table",
                 20, 60, "D3, D15, N29", lambda runs: _pooled([u for run in runs for u in run.average_from(0.4)]))
DEEP_ALL_IN = Band("T4.deep_all_in", "first-round all-ins per hand dealt with a stack of 40+ big blinds", 0, 0.02,
                   "S8, S9 (judgment)", median_of(lambda run: run.deep_all_in_share))
SHAPE = Band("T5.shape", "survivors' mean over median stack, half the field left down to 10", 1.05, 1.35,
             "S5, S6", lambda runs: _pooled([s for run in runs for s in run.stack_shape]))
PACE_DRAW = Band("T6.pace_draw", "hands per table-hour with 5-6 dealt in", 65, 100, "H1, H2", _pace(5, 6))
PACE_STUD = Band("T6.pace_stud", "hands per table-hour with 7-9 dealt in (stud: no faster than hold'em's 55-85)",
                 40, 85, "H1, H2, principle 4", _pace(7, 9))
LEVEL1 = Band("T7.level1_busts", "share of the entries eliminated in level 1 (75+ big bets)", 0, 0.01,
              "X1, N36 (judgment)", _level1_busts)
MIDDLE_LIMIT = Band("T7.average_35", "average stack (big bets) from 35 % of the field left to the final table",
                    10, 18, "X2, X3, N23", lambda runs: _pooled([u for run in runs for u in run.average_from(0.35)]))
THREE_LEVELS = Band("T8.three_levels", "share of the entries left after three levels: not under 10 %", 0.10, 1.0,
                    "X4 (sanity)", median_of(lambda run: _left_after(run, 3)))


def _left_after(run: Dynamics, level: int) -> float | None:
    starts = [start for lv, start in run.play_levels if lv == level + 1]
    return run.left_at(int(starts[0] // 60)) / run.entries if starts else None


SNG_NL = (
    Band("T1.duration", "minutes, median", 35, 75, "D5, D6, D7, N5", median_of(lambda run: _minutes(run.duration_s))),
    Band("T1.final_level", "the level it ended in, median (big blind 2.7-10.7 % of the chips)", 9, 13, "S3, N32",
         median_of(lambda run: float(run.final_level))),
    Band("T1.hands", "hands, median", 40, 1_000, "T1 (duration x pace)", median_of(lambda run: float(run.hands))),
    Band("T1.hand1_bust", "share of runs with a bust in the first hand", 0, 0.10, "T1, D3",
         share_of(lambda run: run.hands_to_first_bust == 1)),
)
MTT_NL = (
    Band("T2.left_30", "players left at 30 min (of 75), median", 42, 75, "D1, D3 rescaled", median_of(
        lambda run: float(run.left_at(30)))),
    Band("T2.left_60", "players left at 60 min (of 75), median", 10, 31, "D1, D3 rescaled", median_of(
        lambda run: float(run.left_at(60)))),
    Band("T2.end", "minutes to the winner, median", 95, 150, "D1, D3 rescaled, S3",
         median_of(lambda run: _minutes(run.duration_s))),
)
MTT_REGULAR = (
    Band("T2.share_60", "share of the entries left at 60 min, median", 0.35, 0.55, "D1, D3; two betting rounds",
         median_of(lambda run: run.left_at(60) / run.entries)),
    Band("T2.share_120", "share of the entries left at 120 min, median", 0.12, 0.20, "D1, D3",
         median_of(lambda run: run.left_at(120) / run.entries)),
    Band("T2.nine_left", "hours to 9 players left (of 100), median", 1.95, 3.25, "D1 (2.6 h, ±25 %)",
         median_of(lambda run: _hours(run.minute_down_to(9)))),
)
"""Full Tilt's regular speed (D2), where D1's curves apply in minutes, not rescaled."""
QUICK_END = Band("T1.quick_end", "share of runs over within 10 hands", 0, 0.01, "T1",
                 share_of(lambda run: run.hands <= 10))
LIMIT_MTT = (END, NEVER_DEEPER, SHAPE)
"""Fixed-limit MTTs: stud's evidence (T7) applied at equal depth in big bets (principle 1)."""
CASES = (
    Case("draw-nl-sng.yaml", 5, (*SNG_NL, QUICK_END, END, DEEP_ALL_IN, PACE_DRAW)),
    Case("draw-nl-regular.yaml", 100, (*MTT_REGULAR, END, NEVER_DEEPER, MIDDLE_NL, DEEP_ALL_IN, SHAPE, PACE_DRAW,
                                       THREE_LEVELS)),
    Case("draw-nl-mtt.yaml", 75, (*MTT_NL, END, NEVER_DEEPER, DEEP_ALL_IN, SHAPE, PACE_DRAW, THREE_LEVELS)),
    Case("stud-mtt.yaml", 100, (LEVEL1, MIDDLE_LIMIT, *LIMIT_MTT, PACE_STUD)),
    Case("stud8-mtt.yaml", 100, (LEVEL1, *LIMIT_MTT, PACE_STUD)),
    Case("5stud-mtt.yaml", 100, (LEVEL1, *LIMIT_MTT, PACE_STUD)),
    Case("stud8-turbo.yaml", 100, (*LIMIT_MTT, PACE_STUD)),
    Case("draw-limit-rebuy.yaml", 75, (END, SHAPE, PACE_DRAW)),
    Case("5stud-sng.yaml", 8, (QUICK_END, END, PACE_STUD)),
)
"""Every example structure but the tiny test fixtures (``fast-*``, ``stud-mtt-fast``: seconds-long
levels, made to finish tests quickly, not to be played like an event). The depth bands (T3.average_40,
T7.average_35) come from regular-speed events and apply only to the structures at that speed
(``draw-nl-regular``, ``stud-mtt``): a turbo's blinds outrun its stacks by design, so its middle is
shallower than any published regular event's (docs/calibration.md, "Turbo structures")."""


def play(case: Case, seeds: int | None = None) -> list[Dynamics]:
    """The runs of ``case`` for seeds 1..``seeds`` (default the case's)."""
    structure = load_structure(TOURNAMENTS / case.structure)
    runs = []
    for seed in range(1, 1 + (seeds or case.seeds)):
        tally = Tally()
        tournament = AcceleratedTournament(structure, entrants=case.entrants, seed=seed, profiles=case.profiles,
                                           observe=tally.observe)
        tally.watch(tournament.director, partial(getattr, tournament, "now"))
        runs.append(tally.dynamics(tournament.run(), structure.seats_per_table))
    return runs


def judge(case: Case, runs: Sequence[Dynamics]) -> list[Verdict]:
    return [Verdict(case, band, band.measure(runs)) for band in case.bands]


def main(argv: Sequence[str] | None = None) -> int:
    """Print every case's bands; ``--seeds N`` plays fewer seeds."""
    args = list(sys.argv[1:] if argv is None else argv)
    seeds = int(args[args.index("--seeds") + 1]) if "--seeds" in args else None
    failed = 0
    for case in CASES:
        verdicts = judge(case, play(case, seeds))
        print(f"{case.structure} ({case.entrants} entrants, {seeds or case.seeds} seeds)")
        for v in verdicts:
            failed += not v.passed
            value = "-" if v.value is None else f"{v.value:,.3g}"
            mark = "ok " if v.passed else "OUT"
            print(f"  {mark} {v.band.id:<18} {value:>9}  [{v.band.low:g}, {v.band.high:g}]  {v.band.what}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
