"""TLS for the project's gRPC servers and their clients: PEM files in, gRPC credentials out.

Both service processes serve TLS from a certificate chain and its key (:class:`ServerTls`); with
a client CA they require every connection of the port to present a certificate that CA signed
(mutual TLS on the whole port: gRPC's Python server either requests and verifies a client
certificate on every handshake or on none). A director call can then be bound to one identity,
the common name of its client certificate (:func:`peer_common_name`). The tournament server's
client of the table servers is a :class:`ClientTls`: the CA it trusts and, for mutual TLS, its
own certificate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import grpc

Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"


@dataclass(frozen=True, slots=True)
class ServerTls:
    """A server's certificate chain and key (PEM), and the CA its clients' certificates must come
    from (None: clients need none)."""

    cert: Path
    key: Path
    client_ca: Path | None = None

    def credentials(self) -> grpc.ServerCredentials:
        """Read the files (OSError when one cannot be read)."""
        client_ca = self.client_ca.read_bytes() if self.client_ca is not None else None
        return grpc.ssl_server_credentials(
            [(self.key.read_bytes(), self.cert.read_bytes())],
            root_certificates=client_ca,
            require_client_auth=client_ca is not None,
        )


@dataclass(frozen=True, slots=True)
class ClientTls:
    """What a client trusts (a CA's PEM; None: the system's roots) and, for mutual TLS, the
    certificate chain and key it presents."""

    ca: Path | None = None
    cert: Path | None = None
    key: Path | None = None

    def __post_init__(self) -> None:
        if (self.cert is None) != (self.key is None):
            raise ValueError("a client certificate and its key go together")

    def credentials(self) -> grpc.ChannelCredentials:
        """Read the files (OSError when one cannot be read)."""
        return grpc.ssl_channel_credentials(
            root_certificates=self.ca.read_bytes() if self.ca is not None else None,
            private_key=self.key.read_bytes() if self.key is not None else None,
            certificate_chain=self.cert.read_bytes() if self.cert is not None else None,
        )


def channel(endpoint: str, tls: ClientTls | None, options: Sequence[tuple[str, Any]] = ()) -> grpc.aio.Channel:
    """A grpc.aio channel to ``endpoint`` with the channel ``options``: TLS with ``tls``, else plaintext."""
    if tls is None:
        return grpc.aio.insecure_channel(endpoint, options=options)
    return grpc.aio.secure_channel(endpoint, tls.credentials(), options=options)


def peer_common_name(context: Context) -> str | None:
    """The common name of the verified client certificate the call came with (None: no certificate)."""
    for name in context.auth_context().get("x509_common_name", ()):
        return name.decode(errors="replace")
    return None
