"""``tablestorm serve-tournaments``: one tournament server on given table servers, its flags and its
operator token checked before it starts (services/tournament)."""

from __future__ import annotations

import argparse
from typing import Final

from tablestorm.services.fields import FieldError
from tablestorm.sim.commands.server_flags import LOG_LEVELS, check_pem, check_ports, together
from tablestorm.sim.inputs import COUNT, NON_NEGATIVE, PORT, flag

__all__ = ["MAX_OPERATOR_TOKEN", "MIN_OPERATOR_TOKEN", "register", "run"]

MIN_OPERATOR_TOKEN: Final = 16
MAX_OPERATOR_TOKEN: Final = 128


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm serve-tournaments``: run tournaments on the table servers given
    (services/tournament, docs/tournament_service.md).

    Exit status 0 after a graceful stop (SIGTERM, SIGINT: every tournament pauses, running hands
    finish until --drain-seconds, the tables close); 2 when it cannot start: a bad flag, an
    unreadable operator token file or TLS file, a --journal that is not a journal or cannot be
    written, a --host that is not this machine's, a port in use.
    """
    p = sub.add_parser("serve-tournaments", help="run a gRPC tournament server",
                       description=register.__doc__,
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
    p.add_argument("--journal", metavar="FILE",
                   help="SQLite journal of every tournament input (created if missing; an existing one is"
                        " restored: its tournaments carry on); unset: tournaments end with the process")
    p.add_argument("--snapshot-every", type=flag(COUNT), default=None, metavar="N",
                   help="inputs of a tournament between two snapshots in the journal (default 200)")
    p.add_argument("--drain-seconds", type=flag(NON_NEGATIVE), default=10.0,
                   help="at SIGTERM, how long running hands may finish before the tables close (default 10)")
    p.add_argument("--log-level", default="info", type=str.lower, choices=LOG_LEVELS,
                   help="JSON lines on stderr from this level up (default info)")


def table_endpoints(text: str) -> tuple[str, ...]:
    """``--tables``: HOST:PORT[,HOST:PORT...], each port 1-65535, none twice."""
    endpoints = []
    for item in text.split(","):
        host, sep, port = item.strip().rpartition(":")
        if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            raise FieldError("--tables", f"{item.strip()!r} is not HOST:PORT with a port 1-65535")
        endpoint = f"{host}:{int(port)}"
        if endpoint in endpoints:
            raise FieldError("--tables", f"{endpoint} is given twice")
        endpoints.append(endpoint)
    return tuple(endpoints)


def operator_token(path: str) -> str:
    """``--operator-token-file``: the token is the file's text, stripped."""
    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read().strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise FieldError("--operator-token-file", f"cannot read {path}: {reason}") from None
    if not MIN_OPERATOR_TOKEN <= len(token) <= MAX_OPERATOR_TOKEN or not (token.isascii() and token.isprintable()):
        raise FieldError(
            "--operator-token-file",
            f"{path} must hold {MIN_OPERATOR_TOKEN} to {MAX_OPERATOR_TOKEN} printable ASCII characters (a random"
            f" secret), got {len(token)} characters",
        )
    return token


def check_journal(path: str | None) -> None:
    """``--journal``: a journal this server can write (an existing one is read back at the start)."""
    if path is None:
        return
    from pathlib import Path

    from tablestorm.services.tournament.journal import Journal, JournalError

    try:
        journal = Journal(Path(path))
        journal.tournaments()
    except JournalError as exc:
        raise FieldError("--journal", str(exc)) from None
    journal.close()


def run(args: argparse.Namespace) -> int:
    """Serve until stopped, once every flag and the operator token are checked; the exit status."""
    tables = table_endpoints(args.tables)
    token = operator_token(args.operator_token_file) if args.operator_token_file is not None else None
    together(args, "--tls-cert", "--tls-key")
    together(args, "--tables-cert", "--tables-key")
    if args.tables_cert is not None and args.tables_ca is None:
        raise FieldError("--tables-cert", "needs --tables-ca (mutual TLS is TLS)")
    check_pem(args, "--tls-cert", "--tls-key", "--tables-ca", "--tables-cert", "--tables-key")
    if args.snapshot_every is not None and args.journal is None:
        raise FieldError("--snapshot-every", "needs --journal")
    check_ports(args)
    check_journal(args.journal)  # last: it creates the file when missing
    from pathlib import Path

    from tablestorm.services.rpc.tls import ClientTls, ServerTls  # after the checks: a refusal is instant
    from tablestorm.services.tournament import server
    from tablestorm.services.tournament.lobby import LobbyLimits

    def path(value: str | None) -> Path | None:
        return Path(value) if value is not None else None

    config = server.TournamentServerConfig(
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
        journal=path(args.journal),
        **({"snapshot_every": args.snapshot_every} if args.snapshot_every is not None else {}),
    )
    return server.run(config, args.log_level)
