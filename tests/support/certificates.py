"""A certificate authority and a server certificate it signed, made for a test (``cryptography``).

``tablestorm serve --tls-cert/--tls-key`` serves the certificate; clients trust the CA's. The
server's certificate names 127.0.0.1 (an IP SAN) and localhost, as the tests connect to either.
:func:`issue_client_cert` signs client certificates with the same CA, for mutual TLS, and
:func:`issue_server_cert` server certificates naming one address (a host of its own).
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class TlsFiles:
    ca: Path
    """The CA's certificate (PEM): what clients trust (``--tls-ca``)."""
    cert: Path
    """The server's certificate, signed by the CA (``--tls-cert``)."""
    key: Path
    """The server's private key (``--tls-key``)."""


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _valid_for_a_day() -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
    )


def make_tls_files(directory: Path, name: str = "tablestorm-test") -> TlsFiles:
    """A new CA (``{name}-ca.pem``) and a server key and certificate it signed, in ``directory``."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (
        _valid_for_a_day()
        .subject_name(_name(f"{name} CA"))
        .issuer_name(_name(f"{name} CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    files = TlsFiles(directory / f"{name}-ca.pem", directory / f"{name}-cert.pem", directory / f"{name}-key.pem")
    files.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    _ca_key_path(files).write_bytes(_pem(ca_key))  # for the certificates issued below
    _issue(files, "localhost", [x509.DNSName("localhost"), _ip("127.0.0.1")], files.cert, files.key)
    return files


def issue_client_cert(files: TlsFiles, common_name: str) -> tuple[Path, Path]:
    """A client key and certificate for mutual TLS, signed by the CA of ``files`` (its key is beside
    its certificate, ``*-ca-key.pem``): ``(cert, key)`` PEM files in the CA's directory."""
    paths = files.ca.with_name(f"{common_name}-client-cert.pem"), files.ca.with_name(f"{common_name}-client-key.pem")
    _issue(files, common_name, None, *paths)
    return paths


def issue_server_cert(files: TlsFiles, address: str) -> tuple[Path, Path]:
    """A server key and certificate naming ``address`` alone (an IP SAN: no 127.0.0.1, no
    localhost), signed by the CA of ``files``: ``(cert, key)`` PEM files in the CA's directory."""
    paths = files.ca.with_name(f"{address}-server-cert.pem"), files.ca.with_name(f"{address}-server-key.pem")
    _issue(files, address, [_ip(address)], *paths)
    return paths


def _ip(address: str) -> x509.IPAddress:
    return x509.IPAddress(ipaddress.ip_address(address))


def _issue(
    files: TlsFiles, common_name: str, names: list[x509.GeneralName] | None, cert_path: Path, key_path: Path
) -> None:
    """A key and a certificate the CA of ``files`` signed: a server's naming ``names``, or a
    client's (``names`` None), written to ``cert_path`` and ``key_path``."""
    ca_cert = x509.load_pem_x509_certificate(files.ca.read_bytes())
    ca_key = serialization.load_pem_private_key(_ca_key_path(files).read_bytes(), password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    key = ec.generate_private_key(ec.SECP256R1())
    builder = (
        _valid_for_a_day()
        .subject_name(_name(common_name))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
    )
    if names is None:
        builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    else:
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False).add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
    cert_path.write_bytes(builder.sign(ca_key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(_pem(key))


def _pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    encoding, pkcs8 = serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8
    return key.private_bytes(encoding, pkcs8, serialization.NoEncryption())


def _ca_key_path(files: TlsFiles) -> Path:
    return files.ca.with_name(files.ca.name.replace("-ca.pem", "-ca-key.pem"))
