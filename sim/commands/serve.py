"""``tablestorm serve``: one table server, its flags checked before it starts (services/table)."""

from __future__ import annotations

import argparse

from tablestorm.services.fields import FieldError
from tablestorm.sim.commands.server_flags import LOG_LEVELS, check_pem, check_ports, together
from tablestorm.sim.inputs import COUNT, NON_NEGATIVE, PORT, flag
from tablestorm.sim.listen import check_port

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tablestorm serve``: host cash tables over gRPC (services/table, docs/table_service.md) and,
    with --websocket, the same tables over WebSocket + JSON (services/websocket, docs/websocket.md).

    Exit status 0 after a graceful stop (SIGTERM, SIGINT); 2 when it cannot start: a bad flag, an
    unreadable TLS file, a --host that is not this machine's, a port in use.
    """
    p = sub.add_parser("serve", help="run a gRPC table server", description=register.__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=flag(PORT), default=50051,
                   help="gRPC port 0-65535; 0 picks one (printed as JSON on stdout)")
    p.add_argument("--metrics-port", type=flag(PORT), default=None,
                   help="Prometheus port 0-65535; 0 picks one; unset: none")
    p.add_argument("--websocket", type=flag(PORT), default=None, metavar="PORT",
                   help="also serve the tables over WebSocket + JSON at ws://HOST:PORT/ws (docs/websocket.md);"
                        " 0 picks a port (printed as websocket_port); unset: none")
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


def _check(args: argparse.Namespace) -> None:
    """What the server needs, checked before it starts; a :class:`FieldError` naming the flag."""
    together(args, "--tls-cert", "--tls-key")
    if args.websocket is not None and args.tls_cert is not None:
        # Plain ws:// beside a TLS gRPC port would carry the same seat tokens in the clear.
        raise FieldError("--websocket", "serves plain ws:// only, so not with --tls-cert (terminate TLS in front)")
    if args.tls_client_ca is not None and args.tls_cert is None:
        raise FieldError("--tls-client-ca", "needs --tls-cert and --tls-key (mutual TLS is TLS)")
    if args.director_name is not None and args.tls_client_ca is None:
        raise FieldError("--director-name", "needs --tls-client-ca (the name is a client certificate's)")
    check_pem(args, "--tls-cert", "--tls-key", "--tls-client-ca")
    check_ports(args)
    if args.websocket is not None:
        if args.websocket != 0 and args.websocket in (args.port, args.metrics_port):
            raise FieldError("--websocket", f"{args.websocket} is the gRPC or metrics port too")
        check_port(args.host, args.websocket, "--websocket")


def run(args: argparse.Namespace) -> int:
    """Serve until stopped, once every flag is checked; the exit status."""
    _check(args)
    from pathlib import Path

    from tablestorm.services.rpc.tls import ServerTls
    from tablestorm.services.table import server
    from tablestorm.services.table.host import HostLimits
    from tablestorm.services.websocket.server import WebSocketConfig

    tls = None
    if args.tls_cert is not None:
        client_ca = Path(args.tls_client_ca) if args.tls_client_ca else None
        tls = ServerTls(Path(args.tls_cert), Path(args.tls_key), client_ca)
    config = server.ServerConfig(
        host=args.host,
        port=args.port,
        metrics_port=args.metrics_port,
        tls=tls,
        director_name=args.director_name,
        limits=HostLimits(max_tables=args.max_tables, hand_pause_seconds=args.hand_pause),
        drain_seconds=args.drain_seconds,
        front_doors=(WebSocketConfig(args.host, args.websocket),) if args.websocket is not None else (),
    )
    return server.run(config, args.log_level)
