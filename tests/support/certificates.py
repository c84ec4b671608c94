"""A certificate authority and a server certificate it signed, made for a test (``cryptography``).

``tablestorm serve --tls-cert/--tls-key`` serves the certificate; clients trust the CA's. The
server's certificate names 127.0.0.1 (an IP SAN) and localhost, as the tests connect to either.
:func:`issue_client_cert` signs client certificates with the same CA, for mutual TLS.
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
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_cert = (
        _valid_for_a_day()
        .subject_name(_name("localhost"))
        .issuer_name(ca_cert.subject)
        .public_key(server_key.public_key())
        .serial_number(x509.random_serial_number())
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    files = TlsFiles(directory / f"{name}-ca.pem", directory / f"{name}-cert.pem", directory / f"{name}-key.pem")
    files.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    files.cert.write_bytes(server_cert.public_bytes(serialization.Encoding.PEM))
    files.key.write_bytes(_pem(server_key))
    _ca_key_path(files).write_bytes(_pem(ca_key))  # for issue_client_cert
    return files


def issue_client_cert(files: TlsFiles, common_name: str) -> tuple[Path, Path]:
    """A client key and certificate for mutual TLS, signed by the CA of ``files`` (its key is beside
    its certificate, ``*-ca-key.pem``): ``(cert, key)`` PEM files in the CA's directory."""
    ca_cert = x509.load_pem_x509_certificate(files.ca.read_bytes())
    ca_key = serialization.load_pem_private_key(_ca_key_path(files).read_bytes(), password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        _valid_for_a_day()
        .subject_name(_name(common_name))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    cert_path = files.ca.with_name(f"{common_name}-client-cert.pem")
    key_path = files.ca.with_name(f"{common_name}-client-key.pem")
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(_pem(key))
    return cert_path, key_path


def _pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    encoding, pkcs8 = serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8
    return key.private_bytes(encoding, pkcs8, serialization.NoEncryption())


def _ca_key_path(files: TlsFiles) -> Path:
    return files.ca.with_name(files.ca.name.replace("-ca.pem", "-ca-key.pem"))
