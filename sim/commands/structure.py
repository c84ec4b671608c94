"""``tablestorm structure``: a structure file whose levels last about a target time, played to check
it (the advisor: :mod:`tablestorm.services.director.advisor`; the rounds played:
:mod:`tablestorm.sim.tournament.fitting`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tablestorm.sim.inputs import COUNT, GAMES, NON_NEGATIVE, SEED, STRUCTURES, WHOLE, flag

if TYPE_CHECKING:
    from tablestorm.services.director.advisor import StructureRequest
    from tablestorm.sim.tournament.fitting import Fit, Round

__all__ = ["register", "request_of", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm structure``: suggest tournament levels that last about --target-hours, and play them.

    The big bet (the big blind in pot and no limit) grows geometrically from about the starting
    stack / 75, reaching about the chips in play / 20 (when a freezeout usually ends) as the levels,
    one per --level-minutes, and their breaks fill the target; then it keeps rising to half the
    chips in play, so that a long run never outlasts the levels. Amounts are rounded to the
    denominations rooms use (services/director/advisor.py).

    Then the suggestion is played, accelerated, by --entrants players of the default field (regulars
    and recreational players 3:1; a quarter of them registering late where late registration is
    open, 15 % re-entering where re-entry is allowed), once for each of --seeds seeds; while the
    median duration is more than 10 % off the target, the growth a level is changed (the first
    level and the level length stay) and the new levels played, --rounds rounds at most
    (sim/tournament/fitting.py). Each round is reported on stderr; the structure file (YAML, the
    schema of sim/tournaments/) is printed, or written to --out, with what was measured in its header.
    Exit status 0: the median is within 10 % of the target; 1: no round came that near (the nearest
    round's structure is written all the same, its header saying how near it came); 2: a bad flag.
    """
    p = sub.add_parser("structure", help="suggest tournament levels for a target duration, checked by playing them",
                       description=register.__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=GAMES, metavar="GAME", help="the game: %(choices)s")
    p.add_argument("--entrants", type=int, required=True, help="expected entrants (at least 2)")
    p.add_argument("--starting-stack", type=int, required=True, help="chips per entry")
    p.add_argument("--target-hours", type=float, required=True, help="how long the tournament should last")
    p.add_argument("--level-minutes", type=float, default=20.0, help="minutes a level (default 20)")
    p.add_argument("--betting", choices=STRUCTURES, default="fixed_limit", metavar="STRUCTURE",
                   help="betting structure: %(choices)s (default fixed_limit; pot/no limit: 7a5draw only)")
    p.add_argument("--seats", type=int, default=0, help="seats per table (default: the game's maximum)")
    p.add_argument("--breaks-every", type=int, default=0, metavar="L", help="a break after every L levels")
    p.add_argument("--break-minutes", type=float, default=None, metavar="B",
                   help="minutes a break (default 5; with --breaks-every)")
    p.add_argument("--late-reg-levels", type=int, default=0, metavar="R",
                   help="late registration open until the end of level R (default: none)")
    p.add_argument("--max-entries", type=flag(COUNT), default=None, metavar="K",
                   help="entries per player, the first included: K-1 re-entries while late registration is open "
                   "(default 1: none)")
    p.add_argument("--buy-in", type=flag(WHOLE), default=None, help="money per entry (default 100)")
    p.add_argument("--clock-seconds", type=flag(NON_NEGATIVE), default=None, metavar="S",
                   help="the action clock (default 30)")
    p.add_argument("--max-entrants", type=flag(WHOLE), default=None, metavar="N",
                   help="the most entrants (default 0: no cap)")
    p.add_argument("--percent-paid", type=flag(NON_NEGATIVE), default=None, metavar="P",
                   help="percent of the entries paid (default 15)")
    p.add_argument("--name", default=None, help="the tournament's name (default: the game, the field and the target)")
    p.add_argument("--seeds", type=flag(COUNT), default=None, metavar="N",
                   help="tournaments played a round, one a seed (default 5)")
    p.add_argument("--seed", type=flag(SEED), default=1, help="the first seed: seeds S, S+1, ... (default 1)")
    p.add_argument("--rounds", type=flag(COUNT), default=None, metavar="N",
                   help="suggestions played at most (default 8)")
    p.add_argument("--out", metavar="FILE", help="write the structure here instead of stdout")
    p.set_defaults(parser=p)  # its refusals read as argparse's own (usage line, exit 2)


def run(args: argparse.Namespace) -> int:
    """Play suggestions until one meets the target (or the rounds run out), then print or write it;
    the exit status."""
    from pathlib import Path

    from tablestorm.services.fields import FieldError
    from tablestorm.sim.inputs import writable
    from tablestorm.sim.tournament import fitting

    parser: argparse.ArgumentParser = args.parser
    if args.break_minutes is not None and not args.breaks_every:
        parser.error("argument --break-minutes: needs --breaks-every")
    request = request_of(args)
    seeds = range(args.seed, args.seed + (args.seeds or fitting.SEEDS))
    try:
        if args.out is not None:
            writable(Path(args.out), "out", directory=False)
        result = fitting.fit(request, seeds=seeds, rounds=args.rounds or fitting.ROUNDS,
                             played=lambda done: print(_round_line(done, request.target_hours * 3600), file=sys.stderr))
    except FieldError as exc:  # a request field is a flag
        parser.error(f"argument --{exc.field.replace('_', '-')}: {exc.reason}")
    text = _header(result, args.command_line) + _yaml(result.best.structure)
    print(_verdict(result), file=sys.stderr)
    if args.out is None:
        sys.stdout.write(text)
    else:  # checked before playing (writable): its folders can be made
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text, encoding="utf-8")
    return 0 if result.reached else 1


def request_of(args: argparse.Namespace) -> StructureRequest:
    """The request the flags make: they are its fields, and an unset optional flag keeps its default."""
    import dataclasses

    from tablestorm.services.director.advisor import StructureRequest

    values = {field.name: getattr(args, field.name) for field in dataclasses.fields(StructureRequest)}
    return StructureRequest(**{name: value for name, value in values.items() if value is not None})


def _yaml(structure: dict[str, object]) -> str:
    import yaml

    return yaml.safe_dump(structure, sort_keys=False, default_flow_style=None, width=120)


def _spread(done: Round) -> str:
    """The median and the range of the durations over the seeds."""
    from tablestorm.sim.tournament.terminal import hms

    return f"median {hms(done.median_s)} ({hms(min(done.durations_s))}-{hms(max(done.durations_s))})"


def _flags(done: Round) -> str:
    runs = len(done.durations_s)
    return ", ".join(f"{code} in {count} of {runs} runs" for code, count in sorted(done.flags.items())) or "none"


def _round_line(done: Round, target_s: float) -> str:
    """One round on stderr: the growth, the levels, what they measured."""
    return (f"growth {done.plan.growth:.4f} a level, {done.plan.plays} levels: {_spread(done)}, "
            f"{done.off(target_s):+.0%} off the target; sanity flags: {_flags(done)}")


def _verdict(result: Fit) -> str:
    """How near the target the nearest round came."""
    from tablestorm.sim.tournament.fitting import TOLERANCE
    from tablestorm.sim.tournament.terminal import hms

    best, target_s = result.best, result.target_s
    against = f"{_spread(best)} against a target of {hms(target_s)} +- {TOLERANCE:.0%}"
    if result.reached:
        return f"{against}: met"
    return (f"{against}: NOT met, {best.off(target_s):+.0%} off in the nearest of {len(result.rounds)} rounds "
            "(its structure is written all the same)")


def _field(result: Fit) -> str:
    """Who played: the default mix, and who came late and re-entered where the structure allows it."""
    from tablestorm.sim.tournament.profiles import DEFAULT_PROFILES

    rates, entrants = result.rates, result.request.entrants
    habits = [
        *([f"{rates.late(entrants)} registering late"] if rates.late_share else []),
        *([f"{rates.reentry_rate:.0%} re-entering"] if rates.reentry_rate else []),
    ]
    mix = ", ".join(f"{profile.kind}={profile.weight:g}" for profile in DEFAULT_PROFILES)
    return "; ".join([mix, ", ".join(habits)] if habits else [mix])


def _header(result: Fit, command_line: list[str]) -> str:
    """What the file says of itself: how it was made, how it grows, what it measured."""
    import shlex
    import textwrap

    from tablestorm.services.director.advisor import FINAL_BIG_BET_CHIPS, FIRST_BIG_BET_STACKS, LAST_BIG_BET_CHIPS

    request, best, seeds = result.request, result.best, result.seeds
    chips = request.entrants * request.starting_stack
    text = (
        f"The big bet grows {best.plan.growth:.4f}x a level from the starting stack / {FIRST_BIG_BET_STACKS} to about "
        f"the chips in play ({chips:,}) / {FINAL_BIG_BET_CHIPS} in level {best.plan.expected_end}, and keeps rising "
        f"to the chips in play / {LAST_BIG_BET_CHIPS} in level {best.plan.plays}, so that a long run does not "
        f"outlast the levels. Played accelerated by {request.entrants} entrants of the default field "
        f"({_field(result)}), seeds {seeds[0]}-{seeds[-1]}, round {result.rounds.index(best) + 1} of "
        f"{len(result.rounds)}: "
        f"{_verdict(result)}. Entries {min(best.entries)}-{max(best.entries)}; sanity flags: {_flags(best)}."
    )
    lines = ["Suggested by tablestorm structure and played to check it:", f"  {shlex.join(command_line)}",
             *textwrap.wrap(text, 100, break_on_hyphens=False)]
    return "".join(f"# {line}\n" for line in lines)
