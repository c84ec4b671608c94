"""The ``tablestorm`` command: one entry point, a subcommand per job.

Subcommands import their modules lazily so that ``tablestorm --help`` stays instant and
a job never pays for the dependencies of another (Ray, gRPC).

Exit status, for every subcommand: 0 the job ran and passed; 1 it ran and a check failed (a
threshold, the chip count, a replayed hand's recorded stacks); 2 it did not run: a flag, a
scenario or a file is wrong, or something it needs could not be reached or bound (a Ray address,
Prometheus, a port). Status 2 always comes with a one-line message naming the flag or field.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tablestorm import version
from tablestorm.sim.cluster.connection import add_flags as add_cluster_flags
from tablestorm.sim.inputs import COUNT, NON_NEGATIVE, PORT, PROBABILITY, SEED, flag

if TYPE_CHECKING:
    from tablestorm.services.engine import Hand
    from tablestorm.services.engine.phh import PhhHand

Handler = Callable[[argparse.Namespace], int]


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablestorm",
        description="Poker load and tournament simulation: gRPC table services, bot fleets on Ray, "
        "Prometheus metrics. Rule IDs in the help texts (CLOCK-1, TABLE-2) are those of docs/rules.md.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in _REGISTRARS:
        register(sub)
    return parser


LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


def _check_serve(args: argparse.Namespace) -> None:
    """What ``tablestorm serve`` needs, checked before the server starts: InputError (a bad flag)
    or ListenError (a port in use), each naming the flag."""
    from tablestorm.sim.inputs import InputError

    if (args.tls_cert is None) != (args.tls_key is None):
        raise InputError("--tls-cert and --tls-key go together")
    if args.tls_client_ca is not None and args.tls_cert is None:
        raise InputError("--tls-client-ca: needs --tls-cert and --tls-key (mutual TLS is TLS)")
    if args.director_name is not None and args.tls_client_ca is None:
        raise InputError("--director-name: needs --tls-client-ca (the name is a client certificate's)")
    _check_pem(args, "--tls-cert", "--tls-key", "--tls-client-ca")
    _check_ports(args)


def _check_pem(args: argparse.Namespace, *flags: str) -> None:
    """Each of ``flags`` that is set names a readable PEM file (InputError naming the flag)."""
    from tablestorm.sim.inputs import InputError

    for name in flags:
        value = getattr(args, name.removeprefix("--").replace("-", "_"))
        if value is None:
            continue
        try:
            with open(value, "rb") as handle:
                pem = handle.read()
        except OSError as exc:
            raise InputError(f"{name}: cannot read {value}: {exc.strerror}") from None
        if b"-----BEGIN " not in pem:
            raise InputError(f"{name}: {value} is not a PEM file")


def _check_ports(args: argparse.Namespace) -> None:
    """--host, --port and --metrics-port of a server command: the ports are free to take here."""
    from tablestorm.sim.inputs import InputError
    from tablestorm.sim.listen import check_port

    check_port(args.host, args.port, "--port")
    if args.metrics_port is not None:
        if args.metrics_port == args.port != 0:
            raise InputError(f"--metrics-port: {args.metrics_port} is the gRPC port (--port) too")
        check_port(args.host, args.metrics_port, "--metrics-port")


def _serve(args: argparse.Namespace) -> int:
    from pathlib import Path

    from tablestorm.services.rpc.tls import ServerTls
    from tablestorm.services.table.host import HostLimits
    from tablestorm.services.table.server import ServerConfig, run
    from tablestorm.sim.inputs import InputError

    try:
        _check_serve(args)
    except (InputError, OSError) as exc:
        print(f"tablestorm serve: {exc}", file=sys.stderr)
        return 2
    tls = None
    if args.tls_cert is not None:
        client_ca = Path(args.tls_client_ca) if args.tls_client_ca else None
        tls = ServerTls(Path(args.tls_cert), Path(args.tls_key), client_ca)
    config = ServerConfig(
        host=args.host,
        port=args.port,
        metrics_port=args.metrics_port,
        tls=tls,
        director_name=args.director_name,
        limits=HostLimits(max_tables=args.max_tables, hand_pause_seconds=args.hand_pause),
        drain_seconds=args.drain_seconds,
    )
    return run(config, args.log_level)


def _register_serve(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm serve``: host cash tables over gRPC (services/table, docs/table_service.md).

    Exit status 0 after a graceful stop (SIGTERM, SIGINT); 2 when it cannot start: a bad flag, an
    unreadable TLS file, a --host that is not this machine's, a port in use.
    """
    p = sub.add_parser("serve", help="run a gRPC table server", description=_register_serve.__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=flag(PORT), default=50051,
                   help="gRPC port 0-65535; 0 picks one (printed as JSON on stdout)")
    p.add_argument("--metrics-port", type=flag(PORT), default=None,
                   help="Prometheus port 0-65535; 0 picks one; unset: none")
    p.add_argument("--tls-cert", help="PEM certificate chain (with --tls-key): serve TLS")
    p.add_argument("--tls-key", help="PEM private key")
    p.add_argument("--tls-client-ca", metavar="FILE",
                   help="PEM CA (with --tls-cert): every client of the port must present a certificate it"
                        " signed (mutual TLS)")
    p.add_argument("--director-name", metavar="NAME",
                   help="(with --tls-client-ca) director calls must come with a client certificate whose"
                        " common name is NAME: the tournament server's")
    p.add_argument("--max-tables", type=flag(COUNT), default=1000, help="tables hosted at most (default 1000)")
    p.add_argument("--hand-pause", type=flag(NON_NEGATIVE), default=0.0, help="seconds between hands (default 0)")
    p.add_argument("--drain-seconds", type=flag(NON_NEGATIVE), default=10.0,
                   help="at SIGTERM, how long running hands may finish before they are voided (default 10)")
    p.add_argument("--log-level", default="info", type=str.lower, choices=LOG_LEVELS,
                   help="JSON lines on stderr from this level up (default info)")
    p.set_defaults(handler=_serve)


MIN_OPERATOR_TOKEN = 16
MAX_OPERATOR_TOKEN = 128


def _table_endpoints(text: str) -> tuple[str, ...]:
    """``--tables``: HOST:PORT[,HOST:PORT...], each port 1-65535, none twice (InputError)."""
    from tablestorm.sim.inputs import InputError

    endpoints = []
    for item in text.split(","):
        host, sep, port = item.strip().rpartition(":")
        if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            raise InputError(f"--tables: {item.strip()!r} is not HOST:PORT with a port 1-65535")
        endpoint = f"{host}:{int(port)}"
        if endpoint in endpoints:
            raise InputError(f"--tables: {endpoint} is given twice")
        endpoints.append(endpoint)
    return tuple(endpoints)


def _operator_token(path: str) -> str:
    """``--operator-token-file``: the token is the file's text, stripped (InputError)."""
    from tablestorm.sim.inputs import InputError

    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read().strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise InputError(f"--operator-token-file: cannot read {path}: {reason}") from None
    if not MIN_OPERATOR_TOKEN <= len(token) <= MAX_OPERATOR_TOKEN or not (token.isascii() and token.isprintable()):
        raise InputError(
            f"--operator-token-file: {path} must hold {MIN_OPERATOR_TOKEN} to {MAX_OPERATOR_TOKEN} printable"
            f" ASCII characters (a random secret), got {len(token)} characters"
        )
    return token


def _serve_tournaments(args: argparse.Namespace) -> int:
    from tablestorm.sim.inputs import InputError

    try:
        tables = _table_endpoints(args.tables)
        token = _operator_token(args.operator_token_file) if args.operator_token_file is not None else None
        if (args.tls_cert is None) != (args.tls_key is None):
            raise InputError("--tls-cert and --tls-key go together")
        if (args.tables_cert is None) != (args.tables_key is None):
            raise InputError("--tables-cert and --tables-key go together")
        if args.tables_cert is not None and args.tables_ca is None:
            raise InputError("--tables-cert: needs --tables-ca (mutual TLS is TLS)")
        _check_pem(args, "--tls-cert", "--tls-key", "--tables-ca", "--tables-cert", "--tables-key")
        _check_ports(args)
    except (InputError, OSError) as exc:
        print(f"tablestorm serve-tournaments: {exc}", file=sys.stderr)
        return 2
    from pathlib import Path

    from tablestorm.services.rpc.tls import ClientTls, ServerTls  # after the checks: a refusal is instant
    from tablestorm.services.tournament.lobby import LobbyLimits
    from tablestorm.services.tournament.server import TournamentServerConfig, run

    def path(value: str | None) -> Path | None:
        return Path(value) if value is not None else None

    config = TournamentServerConfig(
        tables=tables,
        host=args.host,
        port=args.port,
        metrics_port=args.metrics_port,
        operator_token=token,
        limits=LobbyLimits(drain_seconds=args.drain_seconds),
        tls=ServerTls(Path(args.tls_cert), Path(args.tls_key)) if args.tls_cert is not None else None,
        tables_tls=(
            ClientTls(path(args.tables_ca), path(args.tables_cert), path(args.tables_key))
            if args.tables_ca is not None else None
        ),
    )
    return run(config, args.log_level)


def _register_serve_tournaments(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm serve-tournaments``: run tournaments on the table servers given
    (services/tournament, docs/tournament_service.md).

    Exit status 0 after a graceful stop (SIGTERM, SIGINT: every tournament pauses, running hands
    finish until --drain-seconds, the tables close); 2 when it cannot start: a bad flag, an
    unreadable operator token file or TLS file, a --host that is not this machine's, a port in use.
    """
    p = sub.add_parser("serve-tournaments", help="run a gRPC tournament server",
                       description=_register_serve_tournaments.__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", required=True, metavar="HOST:PORT[,HOST:PORT...]",
                   help="the table servers (tablestorm serve) the tournaments' tables are placed on")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=flag(PORT), default=50061,
                   help="gRPC port 0-65535; 0 picks one (printed as JSON on stdout)")
    p.add_argument("--metrics-port", type=flag(PORT), default=None,
                   help="Prometheus port 0-65535; 0 picks one; unset: none")
    p.add_argument("--operator-token-file", metavar="FILE",
                   help="a file holding the operator token that CreateTournament, Start, Pause and Resume"
                        " must carry (x-operator-token); unset: those calls are open")
    p.add_argument("--tls-cert", help="PEM certificate chain (with --tls-key): serve TLS")
    p.add_argument("--tls-key", help="PEM private key")
    p.add_argument("--tables-ca", metavar="FILE",
                   help="PEM CA: reach the table servers over TLS, trusting the certificates it signed")
    p.add_argument("--tables-cert", metavar="FILE",
                   help="PEM client certificate (with --tables-key and --tables-ca) presented to the table"
                        " servers (mutual TLS: their --tls-client-ca, --director-name)")
    p.add_argument("--tables-key", metavar="FILE", help="PEM private key of --tables-cert")
    p.add_argument("--drain-seconds", type=flag(NON_NEGATIVE), default=10.0,
                   help="at SIGTERM, how long running hands may finish before the tables close (default 10)")
    p.add_argument("--log-level", default="info", type=str.lower, choices=LOG_LEVELS,
                   help="JSON lines on stderr from this level up (default info)")
    p.set_defaults(handler=_serve_tournaments)


def _replay(args: argparse.Namespace) -> int:
    import json

    from tablestorm.services.engine import phh

    status = 0
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            print(f"tablestorm replay: {path}: cannot read: {exc}", file=sys.stderr)
            status = 2
            continue
        try:
            hands = phh.loads_all(text)
        except phh.PhhFormatError as exc:
            print(f"tablestorm replay: {path}: malformed PHH: {exc}", file=sys.stderr)
            status = 2
            continue
        for number, parsed in enumerate(hands, 1):
            where = path if len(hands) == 1 else f"{path} [{number}]"
            try:
                hand = phh.replay(parsed)
            except phh.ReplayError as exc:
                if exc.index >= 0:
                    what = f"illegal action {exc.index} {exc.text!r}"
                    print(f"tablestorm replay: {where}: {what}: {exc.reason}", file=sys.stderr)
                else:
                    print(f"tablestorm replay: {where}: incomplete history: {exc.reason}", file=sys.stderr)
                status = 2
                continue
            except phh.PhhFormatError as exc:
                print(f"tablestorm replay: {where}: malformed PHH: {exc}", file=sys.stderr)
                status = 2
                continue
            result = _replay_result(path, number, parsed, hand)
            print(json.dumps(result), flush=True)
            if result["matches_recorded_stacks"] is False:
                ours, recorded = result["finishing_stacks"], list(parsed.finishing_stacks or ())
                print(f"tablestorm replay: {where}: finishing stacks {ours} differ from the recorded "
                      f"{recorded}", file=sys.stderr)
                status = max(status, 1)
    return status


def _replay_result(path: str, number: int, parsed: PhhHand, hand: Hand) -> dict[str, object]:
    """The JSON object ``tablestorm replay`` prints for one hand (players as PHH labels)."""
    from tablestorm.services.engine.events import HandEnded, PotAwarded

    amounts: dict[int, int] = {}
    winners: dict[int, list[str]] = {}
    awards: dict[int, list[dict[str, object]]] = {}
    for event in hand.events:
        if isinstance(event, PotAwarded):
            label = parsed.label(event.player)
            amounts[event.pot] = amounts.get(event.pot, 0) + event.amount
            if label not in winners.setdefault(event.pot, []):
                winners[event.pot].append(label)
            awards.setdefault(event.pot, []).append(
                {"player": label, "amount": event.amount, "share": event.share}
            )
    finishing = parsed.in_phh_order(hand.stacks)
    recorded = parsed.finishing_stacks
    last = hand.events[-1]
    return {
        "file": path,
        "hand": number if parsed.hand_number is None else parsed.hand_number,
        "variant": parsed.code,
        "players": parsed.n,
        "starting_stacks": parsed.in_phh_order(parsed.stacks),
        "finishing_stacks": finishing,
        "pots": [{"amount": amounts[k], "winners": winners[k], "awards": awards[k]} for k in sorted(amounts)],
        "showdown": isinstance(last, HandEnded) and last.showdown,
        "matches_recorded_stacks": None if recorded is None else list(recorded) == finishing,
    }


def _register_replay(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm replay``: replay PHH hand histories through the engine (docs/phh.md).

    Prints one JSON object per hand (finishing_stacks in PHH player order, pots with their
    winners). Exit status: 0 all replayed; 1 a hand's finishing stacks differ from the ones it
    records; 2 a file is unreadable or malformed, or an action is illegal (the message names the
    action's index and text and the engine's reason).
    """
    p = sub.add_parser("replay", help="replay PHH hand histories through the engine",
                       description=_register_replay.__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE", help="a .phh file (one hand) or .phhs file (several)")
    p.set_defaults(handler=_replay)


def _simulate(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    import json
    import random
    import time

    from tablestorm.services.engine import Stakes, Structure, TableOptions, shuffler_for, variant_named
    from tablestorm.services.engine.events import Acted, HandEnded, PotsFormed, TimedOut
    from tablestorm.sim.random_play import benchmark_policy, play_random_hand, random_action

    if args.policy != "benchmark":
        given = [name for name, value in (("--fold", args.fold), ("--raise", args.raise_)) if value is not None]
        if given:
            parser.error(f"argument {given[0]}: applies to --policy benchmark only")
    variant = variant_named(args.game)
    structure = Structure(args.structure) if args.structure else Structure.FIXED_LIMIT
    if structure not in variant.structures:
        offered = ", ".join(sorted(s.value for s in variant.structures))
        parser.error(f"argument --structure: {variant.name} is played {offered}, not {structure.value}")
    players = args.players if args.players is not None else min(6, variant.max_players)
    if not 2 <= players <= variant.max_players:
        parser.error(f"argument --players: {variant.name} is played by 2 to {variant.max_players} players, "
                     f"not {players}")
    stakes = Stakes.default(args.small_bet)
    try:
        options = TableOptions(variant, stakes, structure=structure)
    except ValueError as exc:
        parser.error(f"argument --small-bet: {exc}")
    stack = args.stack if args.stack is not None else options.posted_buy_in
    policy = (
        benchmark_policy(_or(args.fold, DEFAULT_FOLD), _or(args.raise_, DEFAULT_RAISE))
        if args.policy == "benchmark"
        else random_action
    )
    rng = random.Random(args.seed)
    counts = {"actions": 0, "timeouts": 0, "showdowns": 0, "uncontested": 0, "all_ins": 0, "side_pots": 0}
    started = time.perf_counter()
    for number in range(args.hands):
        hand = play_random_hand(
            options,
            [stack] * players,
            rng,
            policy=policy,
            button=number % players,
            shuffler=shuffler_for(args.seed, "simulate", number),
            timeout_rate=args.timeout_rate,
        )
        final_pots = 1
        for event in hand.events:
            if isinstance(event, Acted):
                counts["actions"] += 1
                counts["all_ins"] += event.all_in
            elif isinstance(event, TimedOut):
                counts["timeouts"] += 1
            elif isinstance(event, PotsFormed):
                final_pots = len(event.pots)
            elif isinstance(event, HandEnded):
                counts["showdowns" if event.showdown else "uncontested"] += 1
        counts["side_pots"] += final_pots > 1
    seconds = time.perf_counter() - started
    rate = args.hands / seconds if seconds > 0 else float("inf")
    print(f"simulated {args.hands} hands of {variant.name} ({players} players, "
          f"{structure.value.replace('_', ' ')}) in {seconds:.2f} s: {rate:,.0f} hands/s")
    print(json.dumps({
        "game": variant.code,
        "structure": structure.value,
        "players": players,
        "hands": args.hands,
        "seed": args.seed,
        "policy": args.policy,
        "seconds": round(seconds, 6),
        "hands_per_second": round(rate, 1),
        **counts,
    }))
    return 0


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


DEFAULT_FOLD, DEFAULT_RAISE = 0.15, 0.25
"""--policy benchmark: the chances to fold to a bet and to bet or raise when open."""

class _Registry(Sequence[str]):
    """A registry's names as argparse ``choices``, read from the registry when first asked for:
    ``tablestorm --help`` stays instant (the engine takes a second to import), and the names are
    defined once, where the games and structures are."""

    def __init__(self, names: Callable[[], Sequence[str]]) -> None:
        self._names = names
        self._cache: tuple[str, ...] | None = None

    def _all(self) -> tuple[str, ...]:
        if self._cache is None:
            self._cache = tuple(self._names())
        return self._cache

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __contains__(self, name: object) -> bool:
        return name in self._all()

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same names (the registry's own tuple, say)."""
        return isinstance(other, Sequence) and self._all() == tuple(other)

    __hash__ = None  # type: ignore[assignment]  # equal to tuples, so not hashable


def _games() -> Sequence[str]:
    from tablestorm.services.engine import VARIANTS

    return tuple(VARIANTS)


def _structures() -> Sequence[str]:
    from tablestorm.services.engine import Structure

    return tuple(s.value for s in Structure)


_GAMES = _Registry(_games)
"""The engine's games (``tablestorm.services.engine.VARIANTS``), for ``--game``."""
_STRUCTURES = _Registry(_structures)
"""The engine's betting structures (``tablestorm.services.engine.Structure``), for ``--structure``/``--betting``."""


def _register_simulate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm simulate``: play random legal hands in-process and measure hands per second.

    Every hand starts from fresh stacks (the table's buy-in unless --stack), the button moves one
    seat a hand; with --seed the run is reproducible (cards from (seed, "simulate", hand number),
    actions from a random.Random(seed)). Prints a summary line, then a JSON line with the counts.
    """
    p = sub.add_parser("simulate", help="play random hands in-process and print hands/s",
                       description=_register_simulate.__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=_GAMES, metavar="GAME", help="the game: %(choices)s")
    p.add_argument("--players", type=flag(COUNT), default=None,
                   help="players dealt in (default 6, or the game's maximum if lower)")
    p.add_argument("--hands", type=flag(COUNT), default=1000, help="hands to play (default 1000)")
    p.add_argument("--seed", type=flag(SEED), default=None, help="make the run reproducible (TABLE-2)")
    p.add_argument("--structure", choices=_STRUCTURES, default=None, metavar="STRUCTURE",
                   help="betting structure: %(choices)s (default fixed_limit; pot/no limit: 7a5draw only)")
    p.add_argument("--policy", choices=("random", "benchmark"), default="random",
                   help="random: uniform over legal actions; benchmark: fold/raise probabilities")
    p.add_argument("--fold", type=flag(PROBABILITY), default=None, metavar="P",
                   help=f"benchmark only: fold to a bet (default {DEFAULT_FOLD})")
    p.add_argument("--raise", dest="raise_", type=flag(PROBABILITY), default=None, metavar="P",
                   help=f"benchmark only: bet or raise when open (default {DEFAULT_RAISE})")
    p.add_argument("--small-bet", type=flag(COUNT), default=2,
                   help="stakes from the small bet, the default stakes of docs/rules.md STUD-3 and DRAW-2 "
                   "(default 2)")
    p.add_argument("--stack", type=flag(COUNT), default=None, help="starting stack (default: the buy-in, TABLE-1)")
    p.add_argument("--timeout-rate", type=flag(PROBABILITY), default=0.0, metavar="P",
                   help="chance each turn times out (CLOCK-2), default 0")
    p.set_defaults(handler=lambda args: _simulate(args, p))


def _load(args: argparse.Namespace) -> int:
    import json

    from tablestorm.sim.cluster import connection
    from tablestorm.sim.cluster.deployment import DeploymentError
    from tablestorm.sim.cluster.interruption import EXIT_STATUS, Interruption
    from tablestorm.sim.inputs import InputError
    from tablestorm.sim.load.args import check
    from tablestorm.sim.load.driver import LoadTest
    from tablestorm.sim.load.given_servers import probe
    from tablestorm.sim.load.prometheus import PrometheusError

    try:
        run = check(args)
        if run.target is not None:  # the servers answer, before Ray starts
            probe(run.target, args.connect_timeout)
    except InputError as exc:
        print(f"tablestorm load: {exc}", file=sys.stderr)
        return 2
    if run.prometheus:
        import shutil

        if shutil.which("prometheus") is None:
            print("tablestorm load: --prometheus: the prometheus binary is not installed "
                  "(Debian: apt-get install prometheus)", file=sys.stderr)
            return 2
    try:  # connected here, within --connect-timeout: the run uses this Ray and leaves it to us
        info = connection.connect(run.address, timeout=args.connect_timeout)
    except connection.ClusterError as exc:
        print(f"tablestorm load: {exc}", file=sys.stderr)
        return 2
    interruption = Interruption()
    test = LoadTest(run.scenario, run.out, servers=run.target, chaos=run.chaos, prometheus=run.prometheus,
                    interruption=interruption, command=args.command_line)
    try:
        result = test.run()
    except PrometheusError as exc:
        print(f"tablestorm load: --prometheus: {exc}", file=sys.stderr)
        return 2
    except DeploymentError as exc:
        print(f"tablestorm load: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # before the load began (the run handles signals from then on)
        print("tablestorm load: interrupted before the load began: nothing was measured", file=sys.stderr)
        return EXIT_STATUS
    finally:
        if info.started_here:
            connection.disconnect()
    summary = result.summary
    print(json.dumps({k: summary[k] for k in (
        "bots", "duration_s", "hands", "actions", "hands_per_s", "actions_per_s", "latency_ms",
        "errors_total", "chips_conserved", "protocol_violations", "thresholds_ok", "interrupted",
    ) if k in summary}))
    print(f"report: {result.files.get('report', run.out / 'report.html')}", file=sys.stderr)
    if run.junit is not None:
        from tablestorm.sim.load.junit import write_junit

        run.junit.parent.mkdir(parents=True, exist_ok=True)
        write_junit(run.junit, summary["thresholds"], summary, suite=f"tablestorm load: {run.scenario.name}")
    if interruption.signal_name is not None:
        return EXIT_STATUS
    return 0 if result.ok and summary.get("chips_conserved") is not False else 1


def _register_load(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm load``: bots against table services on a Ray cluster, with live stats and a report.

    SCENARIO is a YAML file (docs/scenarios.md) or the name of an example shipped with tablestorm:
    smoke, stud-ramp, draw-open, capacity-1s-think. Flags override the scenario's values and are
    checked by the same rules. Without --address a new local Ray is started on 127.0.0.1 for the
    run and stopped after (never one named by Ray's temp dir or RAY_ADDRESS). With --target the
    tables live on table servers already running (created there, or --tables existing: those found
    there) and no table host is started. Exit status: 0 every threshold held and the chips were
    conserved; 1 a threshold failed or chips were not conserved; 2 the run did not start (a bad
    flag or scenario, Ray, Prometheus or a --target server out of reach).
    """
    p = sub.add_parser("load", help="load-test table services with bot fleets on Ray",
                       description=_register_load.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenario", nargs="?", metavar="SCENARIO",
                   help="scenario file or example name (default: the defaults of docs/scenarios.md)")
    p.add_argument("--bots", type=int, help="bots (closed model, no ramp)")
    p.add_argument("--hosts", type=int, help="table host actors")
    p.add_argument("--fleets", type=int, help="bot fleet actors")
    p.add_argument("--game", choices=_GAMES, metavar="GAME",
                   help="play this game only (with the scenario's first game's stakes): %(choices)s")
    p.add_argument("--duration", type=float, help="seconds of load (at least 1)")
    p.add_argument("--think", type=float, help="bot think time in seconds (fixed)")
    p.add_argument("--clock", type=float, help="action clock seconds (CLOCK-1; its limits: clock_seconds in "
                   "docs/scenarios.md)")
    p.add_argument("--seed", type=int, help="seed the deals and bots (TABLE-2)")
    p.add_argument("--threshold", action="append", default=[], help="e.g. 'p99_ms<100' (repeatable)")
    p.add_argument("--chaos", action="append", default=[],
                   help="kill-host@SECONDS or kill-fleet@SECONDS, before the run's end (repeatable)")
    p.add_argument("--prometheus", action="store_true", help="start Prometheus on 127.0.0.1 for the run")
    p.add_argument("--out", default="out/load", help="directory for summary.json, history.csv, report.html")
    p.add_argument("--junit", metavar="FILE", help="also write the gates as JUnit XML (a test case per threshold)")
    add_cluster_flags(p, reaching=", or reaching a --target server")
    p.add_argument("--target", metavar="HOST:PORT[,HOST:PORT...]",
                   help="load these table servers (tablestorm serve or another TableService): no table host "
                   "is started; the tables are created there round robin (or see --tables)")
    p.add_argument("--tls-ca", metavar="FILE", help="with --target: connect over TLS, trusting this CA (PEM)")
    p.add_argument("--tables", choices=("create", "existing"),
                   help="with --target: create the run's tables there (default), or play the cash tables "
                   "found there with free seats (--game: only that game's)")
    p.set_defaults(handler=_load)


def _structure(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    import dataclasses

    import yaml

    from tablestorm.services.director.advisor import (
        FINAL_BIG_BET_CHIPS,
        FIRST_BIG_BET_STACKS,
        AdviceError,
        StructureRequest,
        suggest,
    )

    if args.break_minutes is not None and not args.breaks_every:
        parser.error("argument --break-minutes: needs --breaks-every")
    # The flags are the request's fields; an unset --break-minutes keeps the request's default.
    values = {field.name: getattr(args, field.name) for field in dataclasses.fields(StructureRequest)}
    request = StructureRequest(**{name: value for name, value in values.items() if value is not None})
    try:
        structure = suggest(request)
    except AdviceError as exc:
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


def _register_structure(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm structure``: suggest tournament levels that last about --target-hours.

    The big bet (the big blind in pot and no limit) grows geometrically from about the starting
    stack / 75 to about the chips in play / 20, one level per --level-minutes, breaks included in
    the target; amounts are rounded to the denominations rooms use (services/director/advisor.py).
    Prints the structure file (YAML, the schema of sim/tournaments/) or writes it to --out.
    """
    p = sub.add_parser("structure", help="suggest tournament levels for a target duration",
                       description=_register_structure.__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=_GAMES, metavar="GAME", help="the game: %(choices)s")
    p.add_argument("--entrants", type=int, required=True, help="expected entries (at least 2)")
    p.add_argument("--starting-stack", type=int, required=True, help="chips per entry")
    p.add_argument("--target-hours", type=float, required=True, help="how long the tournament should last")
    p.add_argument("--level-minutes", type=float, default=20.0, help="minutes a level (default 20)")
    p.add_argument("--betting", choices=_STRUCTURES, default="fixed_limit", metavar="STRUCTURE",
                   help="betting structure: %(choices)s (default fixed_limit; pot/no limit: 7a5draw only)")
    p.add_argument("--seats", type=int, default=0, help="seats per table (default: the game's maximum)")
    p.add_argument("--breaks-every", type=int, default=0, metavar="L", help="a break after every L levels")
    p.add_argument("--break-minutes", type=float, default=None, metavar="B",
                   help="minutes a break (default 5; with --breaks-every)")
    p.add_argument("--late-reg-levels", type=int, default=0, metavar="R",
                   help="late registration open until the end of level R (default: none)")
    p.add_argument("--out", metavar="FILE", help="write the structure here instead of stdout")
    p.set_defaults(handler=lambda args: _structure(args, p))


def _register_tournament(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from tablestorm.sim.tournament.command import register

    register(sub)


def _register_capacity(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm capacity``: a stepped load sweep and the USL (sim/capacity)."""
    from tablestorm.sim.capacity.command import register

    register(sub)


def _register_schedule(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm schedule``: a Monte Carlo of a day's tournaments on Ray (sim/schedule)."""
    from tablestorm.sim.schedule.command import register

    register(sub)


def _register_plan(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm plan``: the nodes that carry a simulated day (sim/plan)."""
    from tablestorm.sim.plan.command import register

    register(sub)


_REGISTRARS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
    _register_replay,
    _register_simulate,
    _register_serve,
    _register_serve_tournaments,
    _register_load,
    _register_structure,
    _register_capacity,
    _register_tournament,
    _register_schedule,
    _register_plan,
]


def main(argv: Sequence[str] | None = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    args.command_line = ["tablestorm", *(sys.argv[1:] if argv is None else argv)]
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
