"""The command line of ``tablestorm load``, checked whole before anything starts.

Flags that override a scenario's values are merged into the scenario file's mapping and checked
by the scenario parser itself (:func:`tablestorm.sim.load.scenario.from_mapping`), under the flag's name: one rule
per value, whether it came from a file or a flag. What only the command line sets is checked
here: chaos events that could never fire, the output paths, the cluster address, the servers of
``--target`` and the flags that go with it (whether the servers answer is
:func:`tablestorm.sim.load.given_servers.probe`'s, which the command asks next). Every refusal is an
:class:`~tablestorm.services.fields.FieldError` naming the flag; the command exits 2 and
nothing (no Ray, no directory) has been started or written.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tablestorm.services.fields import FieldError
from tablestorm.sim.cluster.connection import check_address
from tablestorm.sim.inputs import writable
from tablestorm.sim.load.chaos import ChaosEvent
from tablestorm.sim.load.given_servers import CREATE, EXISTING, Target, parse_servers, read_ca
from tablestorm.sim.load.scenario import Scenario, from_mapping, read
from tablestorm.sim.load.thresholds import parse as parse_threshold
from tablestorm.sim.resources import example_scenarios
from tablestorm.sim.rooms.grpc import GrpcRoom
from tablestorm.sim.rooms.registry import room_class
from tablestorm.sim.rooms.websocket import WebSocketRoom

__all__ = ["LoadArgs", "check", "scenario_file"]

OVERRIDES: Final = (
    ("duration", "--duration", "duration_s"),
    ("clock", "--clock", "clock_seconds"),
    ("think", "--think", "think_s"),
    ("hosts", "--hosts", "hosts"),
    ("fleets", "--fleets", "fleets"),
    ("seed", "--seed", "seed"),
)
"""(argparse attribute, flag, scenario key) of each flag that sets one scenario value."""


@dataclass(frozen=True, slots=True)
class LoadArgs:
    """A ``tablestorm load`` command line that passed every check."""

    scenario: Scenario
    chaos: tuple[ChaosEvent, ...]
    out: Path
    junit: Path | None
    address: str | None
    prometheus: bool
    target: Target | None = None
    """``--target``: the table servers to load instead of hosts of the run's own."""


def check(args: argparse.Namespace) -> LoadArgs:
    """The run ``args`` asks for; :class:`FieldError` naming the flag (or the field) when it cannot work."""
    scenario = _scenario(args)
    if args.tls_ca is not None and not issubclass(room_class(scenario.room.name), GrpcRoom):
        raise FieldError("--tls-ca", f"only for the grpc room: give room {scenario.room.name!r} its "
                         "credentials in the scenario's room.options")
    target = _target(args)
    if target is not None and issubclass(room_class(scenario.room.name), WebSocketRoom):
        raise FieldError("--target", "not with the websocket room: the run creates, counts and closes its tables "
                         "on the given servers over gRPC, which their WebSocket front door does not offer (load it "
                         "with the run's own hosts: --room websocket without --target)")
    if target is not None and args.chaos:
        raise FieldError("--chaos", "not with --target: the servers are not the run's to kill, and without a "
                         "ledger a killed fleet's seats cannot be played on")
    chaos = _chaos(args.chaos, scenario)
    out = writable(Path(args.out), "--out", directory=True)
    junit = None if args.junit is None else writable(Path(args.junit), "--junit", directory=False)
    address = None if args.address is None else check_address(args.address)
    return LoadArgs(scenario, chaos, out, junit, address, args.prometheus, target)


def _target(args: argparse.Namespace) -> Target | None:
    """``--target`` with ``--tls-ca`` and ``--tables``, which mean nothing without it, and without
    ``--hosts``, which means nothing with it."""
    if args.target is None:
        for flag, value in (("--tls-ca", args.tls_ca), ("--tables", args.tables)):
            if value is not None:
                raise FieldError(flag, "only with --target (the run's own table hosts serve their own "
                                 "tables, in plaintext)")
        return None
    if args.hosts is not None:
        raise FieldError("--hosts", "not with --target: the tables live on the given servers, no table host is started")
    tables = args.tables or CREATE
    return Target(
        servers=parse_servers(args.target),
        tls_ca=None if args.tls_ca is None else read_ca(args.tls_ca),
        tables=tables,
        game=args.game if tables == EXISTING else None,
    )


def scenario_file(name: str) -> Path:
    """A scenario path, or the name of an example shipped with tablestorm (``smoke``)."""
    path = Path(name)
    examples = example_scenarios()
    if not path.exists() and path.stem in examples and path.name in (path.stem, f"{path.stem}.yaml"):
        return examples[path.stem]
    if not path.exists():
        raise FieldError(name, "no such scenario file, nor an example of that name "
                         f"(examples: {', '.join(examples)})")
    return path


def _scenario(args: argparse.Namespace) -> Scenario:
    path = None if args.scenario is None else scenario_file(args.scenario)
    data: Any = {} if path is None else read(path)
    source = "defaults" if path is None else str(path)
    if not isinstance(data, dict):
        return from_mapping(data, source)  # refused: not a mapping
    flags: dict[str, str] = {}
    for attribute, flag, key in OVERRIDES:
        value = getattr(args, attribute)
        if value is not None:
            data[key], flags[key] = value, flag
    if args.bots is not None:  # a closed model at a fixed count: no ramp, no arrivals
        data.update(bots=args.bots, stages=[], arrival_rate=0.0)
        flags.update(bots="--bots", stages="--bots", arrival_rate="--bots")
    if args.room is not None:  # the adapter's name; the scenario's room options stay
        room = data.get("room")
        data["room"], flags["room"] = {**(room if isinstance(room, dict) else {}), "name": args.room}, "--room"
    if args.game is not None:  # the first game's stakes and seats, one game only
        games = data.get("games")
        first = games[0] if isinstance(games, list) and games and isinstance(games[0], dict) else {}
        data["games"], flags["games"] = [{**first, "game": args.game, "weight": 1.0}], "--game"
    for expression in args.threshold:
        try:
            parse_threshold(expression)
        except ValueError as exc:
            raise FieldError("--threshold", str(exc)) from None
    if args.threshold:
        thresholds = data.get("thresholds") or []
        data["thresholds"] = [*thresholds, *args.threshold] if isinstance(thresholds, list) else thresholds
    return from_mapping(data, source, flags)


def _chaos(texts: list[str], scenario: Scenario) -> tuple[ChaosEvent, ...]:
    """Parse the chaos events and refuse one that cannot fire (the driver would skip it silently)."""
    events = []
    for text in texts:
        event = ChaosEvent.parse(text)
        if event.at >= scenario.duration_s:
            raise FieldError(f"--chaos {text}", f"fires {event.at:g} s into the run, which ends at "
                             f"{scenario.duration_s:g} s (--duration)")
        events.append(event)
    kills = Counter(event.action for event in events)["kill-host"]
    if kills and scenario.hosts <= kills:
        events_need = f"{kills} kill-host events need" if kills > 1 else "a kill-host event needs"
        raise FieldError("--chaos", f"{events_need} at least {kills + 1} table hosts (the killed host's tables "
                         f"are rebuilt on another); the run has {scenario.hosts} (--hosts)")
    return tuple(events)
