"""Whether ``tablestorm serve`` can listen where its flags say, asked before the server starts.

grpc and prometheus_client report a bad address late and badly (a RuntimeError "Failed to bind",
a traceback from the event loop). Binding a plain socket first says which flag is at fault and
why, in one line: a host that does not resolve or is not this machine's, a port in use.
"""

from __future__ import annotations

import errno
import socket

from tablestorm.services.fields import FieldError

__all__ = ["check_host", "check_port"]


def check_host(host: str, flag: str = "--host") -> list[tuple[int, tuple[str, int]]]:
    """The addresses ``host`` resolves to (family, sockaddr); :class:`FieldError` naming ``flag`` when none."""
    try:
        infos = socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise FieldError(flag, f"cannot resolve {host!r}: {getattr(exc, 'strerror', None) or exc}") from None
    return [(family, (str(address[0]), int(address[1]))) for family, _, _, _, address in infos]


def check_port(host: str, port: int, flag: str, host_flag: str = "--host") -> None:
    """Bind ``host:port`` once and let go: :class:`FieldError` naming ``flag`` when the port is in
    use or not ours to take, naming ``host_flag`` when the address is not this machine's."""
    family, (address, _) = check_host(host, host_flag)[0]
    where = f"{host}:{port}"
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((address, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise FieldError(flag, f"{where} is in use; pick another port, or 0 for any free one") from None
        if exc.errno == errno.EACCES:
            raise FieldError(flag, f"{where}: {exc.strerror} (ports below 1024 need root)") from None
        raise FieldError(host_flag, f"cannot listen on {where}: {exc.strerror}; it must be an address of "
                         "this machine (127.0.0.1, 0.0.0.0, ...)") from None
