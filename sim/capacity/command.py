"""``tablestorm capacity``: its flags, every one checked before Ray starts, then the sweep and its files.

Exit status: 0 when the sweep found the knee (a step met the SLO and the next missed it) and the
chips were conserved; 1 when it did not (no step met the SLO, or every step did: the capacity was
not measured) or chips were not conserved; 2 for a bad flag or scenario (the message names it,
nothing is started or written), or Ray out of reach; 130 when interrupted (what was measured is
written all the same). Without a scenario the sweep runs :data:`DEFAULT_SCENARIO`, without
``--steps`` :data:`DEFAULT_STEPS`, and on a local Ray the table hosts run on cores of their own
(``--pin``, docs/capacity.md). The heavy modules (Ray, scipy, matplotlib) are imported only once
the flags are good, so that ``tablestorm --help`` stays instant.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from tablestorm.sim.cluster.connection import add_flags as add_cluster_flags

if TYPE_CHECKING:
    from tablestorm.sim.capacity.slo import SLO
    from tablestorm.sim.capacity.sweep import Steadiness
    from tablestorm.sim.cluster.affinity import Pinning
    from tablestorm.sim.cluster.interruption import Interruption
    from tablestorm.sim.load.scenario import Scenario

__all__ = ["DEFAULT_SCENARIO", "DEFAULT_STEPS", "CapacityArgs", "check", "parse_steps", "register", "run"]

DEFAULT_OUT = "out/capacity"
DEFAULT_SCENARIO: Final = "capacity-1s-think"
"""The example scenario a sweep without one runs: every game, so that ``tablestorm plan`` can size
any of the example schedules from its capacity.json (it refuses a game the sweep did not play)."""
DEFAULT_STEPS: Final = "1000,2000,3000,4000,5000,6000,7000"
"""The steps a sweep without ``--steps`` holds: on the developers' 2-core machine, the default
scenario's hosts pinned to one core cross p99 < 100 ms within them and carry less past it
(docs/capacity.md has the measured sweep)."""


def parse_steps(text: str) -> tuple[int, ...]:
    """``500,1000,2000`` -> (500, 1000, 2000): whole, positive, increasing; ValueError says which
    is not."""
    steps: list[int] = []
    for part in text.split(","):
        try:
            value = int(part.strip())
        except ValueError:
            raise ValueError(f"expected whole numbers of bots separated by commas, got {part.strip()!r}") from None
        if value <= 0:
            raise ValueError(f"a step needs at least one bot, got {value}")
        if steps and value <= steps[-1]:
            raise ValueError(f"steps must increase, got {value} after {steps[-1]}")
        steps.append(value)
    return tuple(steps)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``capacity`` to the ``tablestorm`` command."""
    p = sub.add_parser(
        "capacity", help="measure what one core of the table service carries at the SLO",
        description="A stepped load sweep of the real table services on Ray (a local loopback one "
        "without --address): each step holds its bots until the rates are steady, then records "
        "throughput, goodput, the round trip and the hosts' CPU; the Universal Scalability Law is "
        "fitted to the steps and the capacity per core at the SLO reported in capacity.json and "
        "capacity.html. The scenario sets the games, bot mix, think time, clock, hosts and fleets; "
        f"the steps replace its load shape. Without one, the example {DEFAULT_SCENARIO} (every game, "
        "as tablestorm plan needs for the example schedules). How to read it: docs/capacity.md.",
    )
    p.add_argument("scenario", nargs="?", metavar="SCENARIO",
                   help=f"scenario file or example name (default {DEFAULT_SCENARIO}: the four games the example "
                   "schedules play, a 1 s think; docs/capacity.md)")
    p.add_argument("--steps", default=DEFAULT_STEPS,
                   help=f"bot counts to hold, increasing (default {DEFAULT_STEPS}: past the knee on 2 cores)")
    p.add_argument("--slo", action="append", default=[],
                   help="what a second and a step must meet, e.g. 'p99_ms<100' (repeatable; default p99_ms<100)")
    p.add_argument("--hold", type=int, default=60, help="seconds a step is held at most (default 60)")
    p.add_argument("--window", type=int, default=5, help="seconds per steadiness window (default 5)")
    p.add_argument("--windows", type=int, default=3, help="windows that must agree (default 3)")
    p.add_argument("--tolerance", type=float, default=0.05,
                   help="how far a window's actions/s may be from their mean (default 0.05)")
    p.add_argument("--pin", default="auto", metavar="auto|off|CPUS",
                   help="the table hosts' cores: a CPU list such as 0 or 0-1 (every other process of the run on "
                   "the rest), auto (on a local Ray: the first core a host, up to half the machine) or off "
                   "(shared with the fleets); recorded in capacity.json (default auto)")
    add_cluster_flags(p)
    p.add_argument("--out", default=DEFAULT_OUT, help=f"directory for capacity.json and capacity.html ({DEFAULT_OUT})")
    p.set_defaults(parser=p)  # its refusals read as argparse's own (usage line, exit 2)


@dataclass(frozen=True, slots=True)
class CapacityArgs:
    """What the flags ask for, every one checked."""

    scenario: Scenario
    steps: tuple[int, ...]
    slo: SLO
    steadiness: Steadiness
    out: Path
    pin: str
    """``--pin`` as given."""
    pinning: Pinning | None
    """What it chose: the hosts' cores and the others' (None: nothing pinned)."""


def check(args: argparse.Namespace, parser: argparse.ArgumentParser) -> CapacityArgs:
    """Every flag parsed and checked; a bad one ends the command (exit 2) naming it."""
    from tablestorm.services.fields import FieldError
    from tablestorm.sim.capacity.slo import DEFAULT_SLO, SLO
    from tablestorm.sim.capacity.sweep import Steadiness
    from tablestorm.sim.cluster.affinity import choose
    from tablestorm.sim.cluster.connection import check_address
    from tablestorm.sim.load.args import scenario_file
    from tablestorm.sim.load.scenario import load

    try:
        steps = parse_steps(args.steps)
    except ValueError as exc:
        parser.error(f"argument --steps: {exc}")
    try:
        slo = SLO.parse(args.slo or DEFAULT_SLO)
    except ValueError as exc:
        parser.error(f"argument --slo: {exc}")
    if args.window < 1:
        parser.error(f"argument --window: a window lasts at least 1 s, got {args.window}")
    if args.windows < 2:
        parser.error(f"argument --windows: steadiness compares at least 2 windows, got {args.windows}")
    if not 0 < args.tolerance < 1:
        parser.error(f"argument --tolerance: must be between 0 and 1, got {args.tolerance}")
    if args.hold < args.window * args.windows:
        parser.error(
            f"argument --hold: a step must be held long enough for {args.windows} windows of {args.window} s"
            f" ({args.window * args.windows} s), got {args.hold}"
        )
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        parser.error(f"argument --out: {out} exists and is not a directory")
    try:
        if args.address is not None:
            check_address(args.address)
    except FieldError as exc:
        parser.error(f"argument {exc}")
    try:
        scenario = load(scenario_file(args.scenario or DEFAULT_SCENARIO))
    except FieldError as exc:
        parser.error(f"argument scenario: {exc}")
    try:
        pinning = choose(args.pin, hosts=scenario.hosts, local=args.address is None)
    except ValueError as exc:
        parser.error(f"argument --pin: {exc}")
    steadiness = Steadiness(args.window, args.windows, args.tolerance, args.hold)
    return CapacityArgs(scenario, steps, slo, steadiness, out, args.pin, pinning)


def run(args: argparse.Namespace) -> int:
    """The sweep ``args`` asks for, once every flag is checked; the exit status. SIGINT and SIGTERM
    are the command's from here to its end (sim/cluster/interruption.py)."""
    from tablestorm.sim.cluster.interruption import Interruption

    with Interruption().installed() as interruption:
        return _run(args, interruption)


def _run(args: argparse.Namespace, interruption: Interruption) -> int:
    import json

    request = check(args, args.parser)
    from tablestorm.sim.capacity.knee import KNEE
    from tablestorm.sim.capacity.report import write_capacity_html
    from tablestorm.sim.capacity.result import build_capacity, pinning_dict, write_capacity
    from tablestorm.sim.capacity.sweep import run_sweep
    from tablestorm.sim.cluster import connection
    from tablestorm.sim.cluster.affinity import pinned
    from tablestorm.sim.cluster.deployment import DeploymentError
    from tablestorm.sim.cluster.interruption import EXIT_STATUS, Abort

    out = request.out
    pinning = request.pinning
    # This process on the others' cores before Ray starts: Ray's processes inherit them.
    with pinned(None if pinning is None else pinning.others):
        try:  # connected here, within --connect-timeout: the sweep uses this Ray and leaves it to us
            info = connection.connect(args.address, timeout=args.connect_timeout)
        except connection.ClusterError as exc:
            print(f"tablestorm capacity: {exc}", file=sys.stderr)
            return 2
        try:
            sweep = run_sweep(
                request.scenario, request.steps, request.slo, request.steadiness, out / "load",
                address=args.address, stream=sys.stderr, interruption=interruption, command=args.command_line,
                pinning=pinning,
            )
        except DeploymentError as exc:
            print(f"tablestorm capacity: {exc}", file=sys.stderr)
            return 2
        except Abort:  # before the load began: its set-up is cut short
            print("tablestorm capacity: stopped before the sweep began: nothing was measured", file=sys.stderr)
            return EXIT_STATUS
        finally:
            if info.started_here:
                with interruption.shielded("stopping Ray"):
                    connection.disconnect()
    load = sweep.load
    with interruption.shielded():
        capacity = build_capacity(
            sweep.steps, planned=sweep.planned, slo=request.slo, steadiness=request.steadiness,
            run=load.summary.get("run", {}), pinning=pinning_dict(request.pin, pinning, sweep.actors),
            load_summary=load.summary, load_files=load.files, out_dir=out,
        )
        write_capacity(out / "capacity.json", capacity)
        write_capacity_html(out / "capacity.html", capacity)
    fit, result = capacity["fit"], capacity["capacity"]
    print(json.dumps({
        "kind": result["kind"],
        "headline": result["headline"],
        "slo_step": result["slo_step"],
        "next_step": result["next_step"],
        "per_core": result["per_core"],
        "hosts_cores": capacity["pinning"]["hosts_cores"],
        "usl": {k: fit[k] for k in ("lambda", "sigma", "kappa", "peak_bots", "error")},
        "holdout_mean_abs_error": None if fit["holdout"] is None else fit["holdout"]["mean_abs_error"],
        "steps": [
            {"bots": s["bots"], "actions_per_s": s["throughput"]["actions_per_s"], "p99_ms": s["latency_ms"]["p99"],
             "host_cores": s["hosts"]["cores_used"], "meets_slo": s["meets_slo"]}
            for s in capacity["steps"]
        ],
    }))
    print(f"capacity: {result['headline']}", file=sys.stderr)
    print(f"report: {out / 'capacity.html'}", file=sys.stderr)
    if interruption.signal_name is not None:
        return EXIT_STATUS
    return 0 if result["kind"] == KNEE and load.summary.get("chips_conserved") is True else 1
