"""The ``tablestorm`` command: one entry point, a subcommand per job.

Subcommands import their modules lazily so that ``tablestorm --help`` stays instant and
a job never pays for the dependencies of another (Ray, gRPC).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

Handler = Callable[[argparse.Namespace], int]


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablestorm",
        description="Poker load and tournament simulation: gRPC table services, bot fleets on Ray, "
        "Prometheus metrics.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in _REGISTRARS:
        register(sub)
    return parser


_REGISTRARS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
