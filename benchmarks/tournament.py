"""A 10,000-entrant Seven Card Stud MTT in accelerated mode, against the bare engine, same run.

The tournament: 8-max Seven Card Stud, fixed limit, a turbo structure as online rooms run it
(5-minute levels, 1,500 chips for 37 big bets at the start, the limits rising about a third a
level: see ``TURBO``), 10,000 players of the product's default field
(``tablestorm.sim.tournament.profiles.DEFAULT_PROFILES``, what ``tablestorm tournament`` plays
unless ``--bots`` says otherwise: three regulars to one recreational player,
``tablestorm.sim.bots.regular``) thinking 1-5 s a decision, dealt to by an online-speed dealer
(``tablestorm.sim.tournament.profiles``), to a winner.

The bare engine: the same game and the same bot code with no director, tables or virtual clock:
``Hand`` objects dealt straight, every decision a ``HandViews.of`` + ``decide`` + apply. It deals the
very hands the tournament dealt (each one's stakes, starting stacks and the kind of player in
each seat, recorded as they were dealt), so both play the same mix of players per hand, stack
depths, all-ins and bots. Its hands/s, measured for ``--seconds`` after each tournament run,
divides the tournament's: ``ratio_vs_engine`` is the share of the engine's speed left once the
director, the tables, the virtual clock and the driver have taken theirs.

Times are the process's CPU time (``time.process_time``), the "one core" of the target: the
machine may be shared, and wall time would count the other processes' turns. Wall time is printed
beside it. Reported: the medians over ``--runs`` tournament runs of CPU seconds and hands/s, the
median engine hands/s, their ratio, and the peak RSS of the process (``resource.getrusage``).

Usage: ``python benchmarks/tournament.py [--entrants 10000] [--runs 1] [--seconds 10]``; the last
line is JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tablestorm.services.director.structure import TournamentStructure, structure_from_mapping
from tablestorm.services.engine import Action, ActionKind, Hand, TableOptions, shuffler_for
from tablestorm.sim.bots.kinds import strategy_for
from tablestorm.sim.tournament.accelerated import AcceleratedTournament
from tablestorm.sim.tournament.profiles import DEFAULT_PROFILES
from tablestorm.sim.tournament.summary import TournamentResult
from tablestorm.sim.tournament.view import HandViews, engine_action

FIELD = ",".join(f"{profile.kind}={profile.weight:g}" for profile in DEFAULT_PROFILES)
"""The default field as ``--bots`` writes it."""
TURBO_LIMITS = [
    # (ante, bring-in, small bet, big bet): about a third more a level, as online stud turbos rise.
    (2, 5, 20, 40), (3, 5, 30, 60), (4, 10, 40, 80), (5, 15, 50, 100), (8, 20, 80, 160),
    (10, 25, 100, 200), (15, 30, 150, 300), (20, 50, 200, 400), (25, 60, 250, 500),
    (30, 75, 300, 600), (40, 100, 400, 800), (50, 125, 500, 1000), (75, 200, 800, 1600),
    (100, 250, 1000, 2000), (125, 300, 1200, 2400), (150, 400, 1500, 3000), (200, 500, 2000, 4000),
    (250, 600, 2500, 5000), (300, 800, 3000, 6000), (400, 1000, 4000, 8000), (500, 1250, 5000, 10000),
    (600, 1500, 6000, 12000), (800, 2000, 8000, 16000), (1000, 2500, 10000, 20000),
    (1250, 3000, 12000, 24000), (1500, 4000, 15000, 30000), (2000, 5000, 20000, 40000),
    (2500, 6000, 25000, 50000), (3000, 8000, 30000, 60000), (4000, 10000, 40000, 80000),
    (5000, 12500, 50000, 100000), (6000, 15000, 60000, 120000), (8000, 20000, 80000, 160000),
    (10000, 25000, 100000, 200000), (12500, 30000, 120000, 240000), (15000, 40000, 150000, 300000),
    (20000, 50000, 200000, 400000), (25000, 60000, 250000, 500000), (30000, 80000, 300000, 600000),
    (40000, 100000, 400000, 800000), (50000, 125000, 500000, 1000000),
]
TURBO = {
    "name": "Seven Card Stud turbo MTT (benchmark)",
    "game": "7stud",
    "betting": "fixed_limit",
    "seats": 8,
    "starting_stack": 1500,
    "buy_in": 100,
    "clock_seconds": 30,
    "levels": [
        {"duration_s": 300, "ante": a, "bring_in": b, "small_bet": s, "big_bet": big}
        for a, b, s, big in TURBO_LIMITS
    ],
    "payouts": {"percent_paid": 15},
}


Deal = tuple[TableOptions, tuple[int, ...], tuple[str, ...]]
"""A hand as it was dealt: its options (the level's stakes), starting stacks and each player's bot kind."""


def run_tournament(
    structure: TournamentStructure, entrants: int, seed: int
) -> tuple[TournamentResult, float, float, list[Deal]]:
    """One run; returns its result, CPU and wall seconds, and the hands it dealt."""
    deals: list[Deal] = []

    def record(table_id: str, hand: Hand) -> None:
        kinds = tuple(profile.kind for profile in tournament.dealt_profiles(table_id))
        deals.append((hand.options, hand.starting_stacks, kinds))

    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    tournament = AcceleratedTournament(structure, entrants=entrants, seed=seed, observe=record)
    result = tournament.run()
    return result, time.process_time() - cpu, time.perf_counter() - wall, deals


def engine_rate(deals: list[Deal], seconds: float, seed: int) -> float:
    """CPU hands/s of the bare engine with the bot code, dealing the tournament's hands again."""
    strategies = {profile.kind: strategy_for(profile.kind) for profile in DEFAULT_PROFILES}
    rng = random.Random(seed)
    timeout = Action(ActionKind.TIMEOUT)
    gc.collect()
    hands = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        options, stacks, kinds = deals[hands % len(deals)]
        hand = Hand(options, stacks, shuffler_for(seed, "bare", hands))
        views = HandViews(hand, hand_number=hands)
        while hand.actor >= 0:
            strategy = strategies[kinds[hand.actor]]
            decision = strategy.decide(views.of(hand.actor, needs_board=strategy.needs_board), rng)
            hand.apply(engine_action(decision) if decision is not None else timeout)
        hands += 1
        if hands % 16 == 0 and time.process_time() >= deadline:
            return hands / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=1, help="tournament runs (median kept)")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each bare-engine run")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.entrants < 2 or args.runs < 1 or args.seconds <= 0:
        parser.error("--entrants must be at least 2, --runs at least 1 and --seconds positive")
    structure = structure_from_mapping(TURBO, "TURBO")
    cpus, walls, rates, engine = [], [], [], []
    mix: Counter[str] = Counter()
    result = None
    for run in range(args.runs):
        result, cpu, wall, deals = run_tournament(structure, args.entrants, args.seed + run)
        cpus.append(cpu)
        walls.append(wall)
        rates.append(result.hands / cpu)
        mix.update(result.hands_by_players)
        engine.append(engine_rate(deals, args.seconds, args.seed))
        del deals
        print(
            f"run {run + 1}: {result.hands:,} hands in {cpu:.1f} s CPU ({wall:.1f} s wall), {rates[-1]:,.0f} hands/s;"
            f" bare engine {engine[-1]:,.0f} hands/s; {result.duration_s / 3600:.2f} h of tournament time,"
            f" {result.hands_per_hour_per_table:.0f} hands/h a table, chips conserved {result.chips_conserved}",
            flush=True,
        )
    assert result is not None
    hands_per_s, engine_per_s = statistics.median(rates), statistics.median(engine)
    summary: dict[str, Any] = {
        "entrants": args.entrants,
        "runs": args.runs,
        "field": FIELD,
        "seconds_10000": round(statistics.median(cpus), 2) if args.entrants == 10_000 else None,
        "seconds": round(statistics.median(cpus), 2),
        "wall_seconds": round(statistics.median(walls), 2),
        "hands": result.hands,
        "hands_per_s": round(hands_per_s, 1),
        "engine_hands_per_s": round(engine_per_s, 1),
        "ratio_vs_engine": round(hands_per_s / engine_per_s, 3),
        "ratio_per_run": [round(rate / base, 3) for rate, base in zip(rates, engine, strict=True)],
        "virtual_hours": round(result.duration_s / 3600, 2),
        "hands_per_hour_per_table": round(result.hands_per_hour_per_table, 1),
        "players_per_hand": round(sum(int(p) * c for p, c in mix.items()) / sum(mix.values()), 2),
        "chips_conserved": result.chips_conserved,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(
        f"{args.entrants:,} entrants: {summary['seconds']} s CPU median, {hands_per_s:,.0f} hands/s;"
        f" bare engine {engine_per_s:,.0f} hands/s; ratio {summary['ratio_vs_engine']};"
        f" peak RSS {summary['peak_rss_mb']} MB"
    )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
