"""What both server commands (``serve``, ``serve-tournaments``) check of their flags before they start.

A TLS file that cannot be read or is not PEM, half of a certificate pair, a port in use or a
``--host`` that is not this machine's: each is a :class:`~tablestorm.services.fields.FieldError`
naming the flag, before gRPC, Prometheus or the event loop would report it late and badly.
"""

from __future__ import annotations

import argparse
from typing import Final

from tablestorm.services.fields import FieldError
from tablestorm.sim.listen import check_port

__all__ = ["LOG_LEVELS", "check_pem", "check_ports", "together"]

LOG_LEVELS: Final = ("debug", "info", "warning", "error", "critical")
"""``--log-level``: the JSON log lines on stderr from this level up."""


def _value(args: argparse.Namespace, flag: str) -> str | None:
    value: str | None = getattr(args, flag.removeprefix("--").replace("-", "_"))
    return value


def together(args: argparse.Namespace, first: str, second: str) -> None:
    """``first`` and ``second`` (a certificate and its key) are both given or neither is."""
    for given, missing in ((first, second), (second, first)):
        if _value(args, given) is not None and _value(args, missing) is None:
            raise FieldError(given, f"needs {missing} (they go together)")


def check_pem(args: argparse.Namespace, *flags: str) -> None:
    """Each of ``flags`` that is set names a readable PEM file."""
    for flag in flags:
        value = _value(args, flag)
        if value is None:
            continue
        try:
            with open(value, "rb") as handle:
                pem = handle.read()
        except OSError as exc:
            raise FieldError(flag, f"cannot read {value}: {exc.strerror}") from None
        if b"-----BEGIN " not in pem:
            raise FieldError(flag, f"{value} is not a PEM file")


def check_ports(args: argparse.Namespace) -> None:
    """``--host``, ``--port`` and ``--metrics-port`` of a server command: the ports are free to take here."""
    check_port(args.host, args.port, "--port")
    if args.metrics_port is not None:
        if args.metrics_port == args.port != 0:
            raise FieldError("--metrics-port", f"{args.metrics_port} is the gRPC port (--port) too")
        check_port(args.host, args.metrics_port, "--metrics-port")
