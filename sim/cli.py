"""The ``tablestorm`` command: one entry point, a module per subcommand.

Each command module registers its flags (``register``) and runs (``run``), importing what it runs
on lazily, so that ``tablestorm --help`` stays instant and a job never pays for the dependencies
of another (Ray, gRPC, the engine). A new command is one module and one row of :data:`COMMANDS`.
A row of two words is a command within another (``schedule compare``): ``tablestorm schedule
compare ...`` runs it, while ``tablestorm schedule ...`` stays the first word's own command.

Exit status, for every subcommand: 0 the job ran and passed; 1 it ran and a check failed (a
threshold, the chip count, a replayed hand's recorded stacks); 2 it did not run: a flag, a
scenario or a file is wrong, or something it needs could not be reached or bound (a Ray address,
Prometheus, a port). Status 2 always comes with a one-line message naming the flag or field: a
:class:`~tablestorm.services.fields.FieldError` out of a command is that line, written here; 130
it was interrupted by SIGINT or SIGTERM (:mod:`tablestorm.sim.cluster.interruption`): a signal
that stops a command at once is one line too, written here, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Final, Protocol

from tablestorm import version
from tablestorm.services.fields import FieldError
from tablestorm.sim.capacity import command as capacity
from tablestorm.sim.cluster.interruption import EXIT_STATUS, abort_in
from tablestorm.sim.commands import replay, schedule_compare, serve, serve_tournaments, simulate, structure
from tablestorm.sim.load import command as load
from tablestorm.sim.plan import command as plan
from tablestorm.sim.schedule import command as schedule
from tablestorm.sim.tournament import command as tournament


class Command(Protocol):
    """What a command module offers: its flags and its run (the exit status)."""

    def register(self, sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


COMMANDS: Final[dict[str, Command]] = {
    "replay": replay,
    "simulate": simulate,
    "serve": serve,
    "serve-tournaments": serve_tournaments,
    "load": load,
    "structure": structure,
    "capacity": capacity,
    "tournament": tournament,
    "schedule": schedule,
    "schedule compare": schedule_compare,
    "plan": plan,
}
"""Every subcommand by name, in the order ``tablestorm --help`` lists them (a row of two words is
listed by its first word's help)."""


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablestorm",
        description="Poker load and tournament simulation: gRPC table services, bot fleets on Ray, "
        "Prometheus metrics. Rule IDs in the help texts (CLOCK-1, TABLE-2) are those of docs/rules.md.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        if " " not in name:
            command.register(sub)
    return parser


def _within(argv: Sequence[str]) -> tuple[str, argparse.ArgumentParser] | None:
    """The row of two words that ``argv`` opens with, and a parser of its second word under the first."""
    for name, command in COMMANDS.items():
        outer, _, inner = name.partition(" ")
        if inner and list(argv[:2]) == [outer, inner]:
            parser = argparse.ArgumentParser(prog=f"tablestorm {outer}")
            command.register(parser.add_subparsers(dest="command"))
            return name, parser
    return None


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    nested = _within(given)
    if nested is not None:
        name, inner = nested
        args = inner.parse_args(given[1:])
        args.command = name
    else:
        parser = _build_parser()
        args = parser.parse_args(given)
        if args.command is None:
            parser.print_help()
            return 0
    args.command_line = ["tablestorm", *given]
    try:
        return COMMANDS[args.command].run(args)
    except FieldError as exc:
        print(f"tablestorm {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # in a command that does not hold the signals itself
        print(f"tablestorm {args.command}: interrupted (SIGINT)", file=sys.stderr)
        return EXIT_STATUS
    except Exception as exc:  # a signal that stopped the command at once: what it wrote is kept
        abort = abort_in(exc)
        if abort is None:
            raise
        print(f"tablestorm {args.command}: stopped at once by {abort}", file=sys.stderr)
        return EXIT_STATUS


if __name__ == "__main__":
    sys.exit(main())
