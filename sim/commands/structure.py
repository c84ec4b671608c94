"""``tablestorm structure``: a structure file whose levels last about a target time (the advisor:
:mod:`tablestorm.services.director.advisor`)."""

from __future__ import annotations

import argparse
import sys

from tablestorm.sim.inputs import GAMES, STRUCTURES

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm structure``: suggest tournament levels that last about --target-hours.

    The big bet (the big blind in pot and no limit) grows geometrically from about the starting
    stack / 75 to about the chips in play / 20, one level per --level-minutes, breaks included in
    the target; amounts are rounded to the denominations rooms use (services/director/advisor.py).
    Prints the structure file (YAML, the schema of sim/tournaments/) or writes it to --out.
    """
    p = sub.add_parser("structure", help="suggest tournament levels for a target duration",
                       description=register.__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=GAMES, metavar="GAME", help="the game: %(choices)s")
    p.add_argument("--entrants", type=int, required=True, help="expected entries (at least 2)")
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
    p.add_argument("--out", metavar="FILE", help="write the structure here instead of stdout")
    p.set_defaults(parser=p)  # its refusals read as argparse's own (usage line, exit 2)


def run(args: argparse.Namespace) -> int:
    """Print (or write to --out) the structure the flags ask for; the exit status."""
    import dataclasses

    import yaml

    from tablestorm.services.director.advisor import (
        FINAL_BIG_BET_CHIPS,
        FIRST_BIG_BET_STACKS,
        StructureRequest,
        suggest,
    )
    from tablestorm.services.fields import FieldError

    parser: argparse.ArgumentParser = args.parser
    if args.break_minutes is not None and not args.breaks_every:
        parser.error("argument --break-minutes: needs --breaks-every")
    # The flags are the request's fields; an unset --break-minutes keeps the request's default.
    values = {field.name: getattr(args, field.name) for field in dataclasses.fields(StructureRequest)}
    request = StructureRequest(**{name: value for name, value in values.items() if value is not None})
    try:
        structure = suggest(request)
    except FieldError as exc:  # a request field is a flag
        parser.error(f"argument --{exc.field.replace('_', '-')}: {exc.reason}")
    chips = request.entrants * request.starting_stack
    text = (
        f"# Suggested by tablestorm structure: the big bet grows from about the starting stack / "
        f"{FIRST_BIG_BET_STACKS}\n# to about the chips in play ({chips:,}) / {FINAL_BIG_BET_CHIPS}, "
        f"when a freezeout usually ends.\n"
        + yaml.safe_dump(structure, sort_keys=False, default_flow_style=None, width=120)
    )
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        parser.error(f"argument --out: cannot write {args.out}: {exc.strerror}")
    return 0
