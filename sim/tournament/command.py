"""``tablestorm tournament``: one tournament to its winner, accelerated (in-process, on a virtual
clock) or live (table servers, a tournament server and bot fleets on Ray), and its files.

Every flag is checked before Ray starts (exit 2 with one line naming the flag). Exit status: 0 the
tournament finished with every chip; 1 it did not finish (a stall, the time limit) or chips were
not conserved; 2 a bad flag or structure, or Ray out of reach; 130 interrupted (the files are
written all the same, marked interrupted). Ray, gRPC and matplotlib are imported only once the
flags are good, so ``tablestorm --help`` stays instant.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from tablestorm.services.fields import FieldError
from tablestorm.sim.cluster.connection import CONNECT_TIMEOUT_S, check_address
from tablestorm.sim.inputs import COUNT, NON_NEGATIVE, PROBABILITY, SEED, Bound, flag, writable
from tablestorm.sim.load.chaos import ChaosEvent
from tablestorm.sim.tournament import field

if TYPE_CHECKING:
    from tablestorm.services.director.structure import TournamentStructure
    from tablestorm.sim.cluster.interruption import Interruption
    from tablestorm.sim.tournament.field import FieldRates
    from tablestorm.sim.tournament.profiles import DealingModel, PlayerProfile

__all__ = ["TOURNAMENT_ID", "TournamentArgs", "check", "parse_mix", "register", "run"]

DEFAULT_OUT: Final = "out/tournament"
RATES: Final = {"late_share": "--late-share", "reentry_rate": "--reentry-rate", "rebuy_rate": "--rebuy-rate",
                "addon_rate": "--addon-rate"}
"""The field's rates (:class:`~tablestorm.sim.tournament.field.FieldRates`) by their flags."""
DEFAULT_TIME_LIMIT_S: Final = 24 * 3600.0
CHAOS_ACTIONS: Final = ("kill-host", "kill-tournament-server")
"""A tournament's chaos events (its players are not a load test's fleets)."""
TOURNAMENT_ID: Final = "tournament"
"""Both modes' tournament id: table ids (and so the shuffles) derive from it."""


@dataclass(frozen=True, slots=True)
class TournamentArgs:
    """A ``tablestorm tournament`` command line that passed every check."""

    structure: TournamentStructure
    entrants: int
    """Every entrant, those registering late included."""
    rates: FieldRates
    profiles: tuple[PlayerProfile, ...]
    dealing: DealingModel
    seed: int
    accelerated: bool
    chaos: tuple[ChaosEvent, ...]
    hosts: int
    fleets: int
    address: str | None
    connect_timeout: float
    time_limit_s: float
    out: Path
    journal: Path | None = None
    """Live: the tournament server's journal (a ``kill-tournament-server`` event restarts it from it)."""

    @property
    def late_entrants(self) -> int:
        """The entrants registering during late registration (the others before the start)."""
        return self.rates.late(self.entrants)

    def field_summary(self) -> dict[str, Any]:
        """The field as ``tournament.json`` states it: the entrants, how many came late, the rates."""
        return {"entrants": self.entrants, "late_entrants": self.late_entrants, **self.rates.to_dict()}


def parse_mix(text: str) -> dict[str, float]:
    """``--bots``: ``KIND[=WEIGHT],...`` (``strength``, ``strength=3,random=1``) over the bot kinds
    of ``tablestorm.sim.bots.strategies``; :class:`FieldError` naming the flag."""
    from tablestorm.sim.bots.kinds import BOT_KINDS

    mix: dict[str, float] = {}
    for item in text.split(","):
        kind, sep, weight = item.strip().partition("=")
        if kind not in BOT_KINDS:
            raise FieldError("--bots", f"unknown bot kind {kind!r}; known: {', '.join(BOT_KINDS)}")
        if kind in mix:
            raise FieldError("--bots", f"{kind} is given twice")
        try:
            mix[kind] = NON_NEGATIVE.parse(weight) if sep else 1.0
        except ValueError as exc:
            raise FieldError("--bots", f"weight of {kind}: {exc}") from None
    if not any(mix.values()):
        raise FieldError("--bots", "at least one bot kind needs a positive weight")
    return mix


def check(args: argparse.Namespace) -> TournamentArgs:
    """The tournament ``args`` asks for; :class:`FieldError` naming the flag (or the structure file's field)."""
    import secrets

    from tablestorm.sim.distributions import Distribution
    from tablestorm.sim.tournament.profiles import ONLINE_DEALING, ONLINE_THINK, DealingModel, PlayerProfile
    from tablestorm.sim.tournament.structure_file import load_structure

    structure = load_structure(args.structure)
    cap = structure.max_entrants
    if args.entrants < 2:
        raise FieldError("--entrants", f"a tournament needs at least 2, got {args.entrants}")
    if cap and args.entrants > cap:
        raise FieldError("--entrants", f"the structure seats at most {cap} (max_entrants), got {args.entrants}")
    think = ONLINE_THINK if args.think is None else Distribution("fixed", args.think)
    if args.think is not None and args.think >= structure.clock_seconds:
        raise FieldError("--think", f"{args.think:g} s is the whole {structure.clock_seconds:g} s action clock or "
                         "more: every bot would time out (CLOCK-2)")
    mix = parse_mix(args.bots)
    if not args.accelerated and args.late_share:
        raise FieldError("--late-share", "a live run registers every entrant before the start; late registrants "
                         "are played --accelerated only")
    rates_given = {name: getattr(args, name) for name in RATES}
    if not args.accelerated:
        rates_given["late_share"] = 0.0
    try:
        rates = field.offered(structure, **rates_given)
    except FieldError as exc:  # a rate is its flag
        raise FieldError(RATES[exc.field], exc.reason) from None
    profiles = rates.profiles([PlayerProfile(kind, think=think, weight=weight) for kind, weight in mix.items()])
    dealing = ONLINE_DEALING if args.hand_pause is None else DealingModel(between_hands_s=args.hand_pause, card_s=0.0)
    chaos = tuple(ChaosEvent.parse(text, CHAOS_ACTIONS) for text in args.chaos)
    if args.accelerated:
        for name, given in (("--chaos", bool(chaos)), ("--hosts", args.hosts is not None),
                            ("--fleets", args.fleets is not None), ("--address", args.address is not None)):
            if given:
                raise FieldError(name, "a live run's flag; --accelerated runs in this process, on no Ray")
    hosts = 2 if args.hosts is None else args.hosts
    kills = Counter(event.action for event in chaos)["kill-host"]
    if kills and hosts <= kills:
        raise FieldError("--chaos", f"{kills} kill-host event(s) need at least {kills + 1} table hosts (the killed "
                         f"host's tables are rebuilt on another); the run has {hosts} (--hosts)")
    fleets = min(2, args.entrants) if args.fleets is None else args.fleets
    if fleets > args.entrants:
        raise FieldError("--fleets", f"{fleets} fleets for {args.entrants} entrants leaves a fleet without players")
    address = None if args.address is None else check_address(args.address)
    seed = secrets.randbits(63) if args.seed is None else args.seed
    out = writable(Path(args.out), "--out", directory=True)
    return TournamentArgs(
        structure, args.entrants, rates, profiles, dealing, seed, args.accelerated, chaos, hosts, fleets, address,
        args.connect_timeout, args.time_limit, out, journal_of(args, chaos, out),
    )


def journal_of(args: argparse.Namespace, chaos: tuple[ChaosEvent, ...], out: Path) -> Path | None:
    """``--journal`` (the run's own: a file there is replaced when the run starts); by default
    ``journal.db`` in --out when the tournament server is to be killed (it restarts from it), else none."""
    if args.journal is None:
        restarts = any(event.action == "kill-tournament-server" for event in chaos)
        return out / "journal.db" if restarts else None
    if args.accelerated:
        raise FieldError("--journal", "a live run's flag; --accelerated runs in this process, on no Ray")
    return writable(Path(args.journal), "--journal", directory=False)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``tournament`` to the ``tablestorm`` command."""
    p = sub.add_parser(
        "tournament", help="play one tournament of bots to its winner, accelerated or live on Ray",
        description="One tournament of the structure file (TOURN-1; examples in sim/tournaments/) played by "
        "bots to its winner. --accelerated: in this process, tables in memory, on a virtual clock (think "
        "times and dealing from online play), so the duration is a forecast. Live (the default): table hosts, "
        "a tournament server and bot fleets on Ray (a new local loopback Ray unless --address), real clocks, "
        "a live view on stderr. Both write tournament.json, eliminations.csv and tournament.html to --out; "
        "both play the same tournament for a seed (players p1..pN, their seeds, the tables' shuffles). "
        "Exit status: 0 finished with every chip; 1 not finished or chips not conserved; 2 a bad flag or "
        "structure; 130 interrupted (files written).",
    )
    p.add_argument("structure", metavar="STRUCTURE.yaml", help="the tournament's structure file")
    p.add_argument("--entrants", type=flag(COUNT), required=True,
                   help="players entering, those who register during late registration included")
    p.add_argument("--late-share", type=flag(PROBABILITY), default=None, metavar="F",
                   help=f"share of the entrants who register during late registration, at uniform times (default "
                   f"{field.LATE_SHARE:g} accelerated where the structure has late registration, else 0; live: 0)")
    p.add_argument("--reentry-rate", type=flag(PROBABILITY), default=None, metavar="F",
                   help=f"share of the players who re-enter when busted while late registration is open (default "
                   f"{field.REENTRY_RATE:g} where the structure allows re-entry, else 0)")
    p.add_argument("--rebuy-rate", type=flag(PROBABILITY), default=None, metavar="F",
                   help=f"share of the players who rebuy when busted during the rebuy period (default "
                   f"{field.REBUY_RATE:g} where the structure has rebuys, else 0)")
    p.add_argument("--addon-rate", type=flag(PROBABILITY), default=None, metavar="F",
                   help=f"share of the players who take the add-on (default {field.ADDON_RATE:g} where the structure "
                   "has one, else 0)")
    p.add_argument("--bots", default="regular=3,recreational=1", metavar="MIX",
                   help="bot kinds and weights, KIND[=WEIGHT],... (default regular=3,recreational=1: an online "
                   "field, calibrated in docs/calibration.md)")
    p.add_argument("--accelerated", action="store_true", help="run in-process on a virtual clock")
    p.add_argument("--seed", type=flag(SEED), default=None,
                   help="seat draws, shuffles and decisions replay from it (default: random, reported)")
    p.add_argument("--think", type=flag(NON_NEGATIVE), default=None, metavar="SECONDS",
                   help="seconds every decision takes (default: uniform 1-5 s, as online players)")
    p.add_argument("--hand-pause", type=flag(NON_NEGATIVE), default=None, metavar="SECONDS",
                   help="seconds between a table's hands, cards dealt at once, in both modes (default: the "
                   "online table: 15 s between hands and 0.15 s a card accelerated; 15 s live)")
    p.add_argument("--chaos", action="append", default=[], metavar="kill-host@SECONDS",
                   help="live: kill a table host this many seconds after the start (repeatable);"
                        " kill-tournament-server@SECONDS: kill -9 the tournament server, then start it"
                        " again from its journal")
    p.add_argument("--journal", metavar="FILE",
                   help="live: the tournament server's SQLite journal, replaced when the run starts (default:"
                        " journal.db in --out with --chaos kill-tournament-server, else none)")
    p.add_argument("--hosts", type=flag(COUNT), default=None, help="live: table host actors (default 2)")
    p.add_argument("--fleets", type=flag(COUNT), default=None, help="live: bot fleet actors (default 2)")
    p.add_argument("--address", help="live: join a Ray cluster, auto or HOST:PORT (default: a new local one)")
    p.add_argument("--connect-timeout", type=flag(Bound(minimum=1)), default=CONNECT_TIMEOUT_S, metavar="SECONDS",
                   help=f"give up joining --address after this long (default {CONNECT_TIMEOUT_S:g})")
    p.add_argument("--time-limit", type=flag(Bound(minimum=1)), default=DEFAULT_TIME_LIMIT_S, metavar="SECONDS",
                   help="live: stop a tournament still running after this long, exit 1 (default 24 h)")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"directory for the files (default {DEFAULT_OUT})")


def run(args: argparse.Namespace) -> int:
    """Play the tournament ``args`` asks for once every flag is checked; the exit status. SIGINT
    and SIGTERM are the command's from here to its end (sim/cluster/interruption.py)."""
    from tablestorm.sim.cluster.interruption import Interruption

    with Interruption().installed() as interruption:
        return _run(args, interruption)


def _run(args: argparse.Namespace, interruption: Interruption) -> int:
    request = check(args)
    import json
    import time

    from tablestorm.sim.cluster.interruption import EXIT_STATUS, Abort
    from tablestorm.sim.reporting.meta import run_metadata
    from tablestorm.sim.tournament.outputs import write_outputs

    metadata = run_metadata(args.command_line, time.time())
    if request.accelerated:
        document = _accelerated(request, metadata, interruption)
    else:
        from tablestorm.sim.cluster.connection import ClusterError
        from tablestorm.sim.cluster.deployment import DeploymentError
        from tablestorm.sim.tournament.live_run import run_live

        try:
            document = run_live(request, metadata, stream=sys.stderr, interruption=interruption)
        except (ClusterError, DeploymentError) as exc:
            print(f"tablestorm tournament: {exc}", file=sys.stderr)
            return 2
        except Abort:  # before the tournament began: its set-up is cut short
            print("tablestorm tournament: stopped before the tournament began: nothing was written", file=sys.stderr)
            return EXIT_STATUS
    with interruption.shielded():
        files = write_outputs(request.out, document)
    print(json.dumps({k: document[k] for k in (
        "mode", "entries", "finished", "chips_conserved", "hands", "duration_s", "prize_pool", "interrupted", "field",
    )}))
    print(f"report: {files['html']}", file=sys.stderr)
    if document["interrupted"]:
        return EXIT_STATUS
    return 0 if document["finished"] and document["chips_conserved"] else 1


def _accelerated(request: TournamentArgs, run: dict[str, Any], interruption: Interruption) -> dict[str, Any]:
    """The whole tournament here; a signal stops it where it is (its document says so): a virtual
    clock has nothing to wind down."""
    from tablestorm.sim.cluster.interruption import Abort
    from tablestorm.sim.tournament.accelerated import AcceleratedTournament
    from tablestorm.sim.tournament.outputs import tournament_document
    from tablestorm.sim.tournament.summary import summarize

    tournament = AcceleratedTournament(
        request.structure, entrants=request.entrants - request.late_entrants, late_entrants=request.late_entrants,
        seed=request.seed, profiles=request.profiles, dealing=request.dealing, tournament_id=TOURNAMENT_ID,
    )
    try:
        result = tournament.run()
    except (Abort, RuntimeError) as exc:  # a signal, or a stall (nothing due: a bug, reported)
        interrupted = isinstance(exc, Abort)
        if not interrupted:
            print(f"tablestorm tournament: {exc}", file=sys.stderr)
        with interruption.shielded():
            partial = summarize(tournament.director, seed=request.seed, hands=tournament.hands,
                                hands_by_players=tournament.hands_by_players, chips_conserved=False)
            return tournament_document(partial, mode="accelerated", finished=False, interrupted=interrupted, run=run,
                                       field=request.field_summary())
    return tournament_document(result, mode="accelerated", finished=True, interrupted=False, run=run,
                               field=request.field_summary())

