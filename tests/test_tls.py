"""TLS to table servers (``--tls-ca``): the bots' transport, unary calls and their own HTTP/2 Play
client alike, against a real ``tablestorm serve --tls-cert/--tls-key`` with a CA and a certificate
made here; what is refused (another CA, a server that does not choose ``h2``, a plaintext server);
and the run's check that each ``--target`` server answers before anything starts."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import grpc
import pytest
from support.certificates import make_tls_files
from support.play_transport import Reader, welcomed
from support.processes import serve
from support.running import run_async

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.fields import FieldError
from tablestorm.sim.bots.client import ChannelPool, Tls
from tablestorm.sim.bots.client.play import PlayConnection
from tablestorm.sim.load.given_servers import Target, probe


def test_bots_transport_speaks_tls_to_tablestorm_serve(tmp_path: Path) -> None:
    """Unary calls on the gRPC channel and Play streams on the bots' own HTTP/2 client, both TLS
    trusting the test's CA: two players sit down, stream, and see their hand dealt."""
    files = make_tls_files(tmp_path)
    with serve("--tls-cert", files.cert, "--tls-key", files.key) as server:

        @run_async
        async def play() -> None:
            pool = ChannelPool(tls=Tls(files.ca.read_bytes()))
            client = pool.acquire(server.endpoint)
            options = pb.TableOptions(game="5stud", stakes=pb.Stakes(small_bet=10), clock_seconds=5)
            await client.stub.CreateTable(pb.CreateTableRequest(table_id="tls", options=options), timeout=10)
            readers = []
            for seat in (1, 2):
                reply = await client.stub.SitDown(
                    pb.SitDownRequest(table_id="tls", seat=seat, player_id=f"p{seat}"), timeout=10
                )
                reader = Reader()
                stream = await client.play(reply.seat_token, reader)
                stream.write(pb.ClientMessage(hello=pb.Hello(table_id="tls", seat=seat)))
                readers.append(reader)
            for reader in readers:
                assert (await reader.until(welcomed)).welcome.table.table_id == "tls"
                await reader.until(lambda m: any(e.HasField("hand_started") for e in m.events))
            await pool.close()

        play()


def test_a_server_another_ca_signed_is_refused(tmp_path: Path) -> None:
    served, other = make_tls_files(tmp_path, "served"), make_tls_files(tmp_path, "other")
    with serve("--tls-cert", served.cert, "--tls-key", served.key) as server:

        @run_async
        async def connect() -> None:
            with pytest.raises(ssl.SSLCertVerificationError):
                await PlayConnection.connect(server.endpoint, tls=Tls(other.ca.read_bytes()).context())
            client = ChannelPool(tls=Tls(other.ca.read_bytes())).acquire(server.endpoint)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await client.stub.ListTables(pb.ListTablesRequest(), timeout=10)
            assert refused.value.code() is grpc.StatusCode.UNAVAILABLE
            await client.close()

        connect()
        with pytest.raises(FieldError, match=rf"^--target {server.endpoint}: no TableService answered within 5 s"):
            probe(Target((server.endpoint,), tls_ca=other.ca.read_bytes()), 5.0)
        probe(Target((server.endpoint,), tls_ca=served.ca.read_bytes()), 5.0)


def test_a_tls_server_that_does_not_choose_h2_is_refused(tmp_path: Path) -> None:
    """A TLS server speaking HTTP/1.1 only: the handshake succeeds, the Play client refuses it."""
    files = make_tls_files(tmp_path)

    @run_async
    async def connect() -> None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(files.cert, files.key)
        context.set_alpn_protocols(["http/1.1"])
        server = await asyncio.start_server(lambda reader, writer: None, "127.0.0.1", 0, ssl=context)
        port = server.sockets[0].getsockname()[1]
        try:
            with pytest.raises(ConnectionError, match=r"did not choose HTTP/2 over TLS \(ALPN 'h2'; it chose None\)"):
                await PlayConnection.connect(f"127.0.0.1:{port}", tls=Tls(files.ca.read_bytes()).context())
        finally:
            server.close()
            await server.wait_closed()

    connect()


def test_probe_names_a_plaintext_server_asked_for_tls_and_one_that_is_not_there(tmp_path: Path) -> None:
    files = make_tls_files(tmp_path)
    with serve() as plain:
        probe(Target((plain.endpoint,)), 5.0)
        with pytest.raises(FieldError, match=rf"^--target {plain.endpoint}: no TableService answered within 5 s"):
            probe(Target((plain.endpoint,), tls_ca=files.ca.read_bytes()), 5.0)
    with pytest.raises(FieldError, match=rf"^--target {plain.endpoint}: .*UNAVAILABLE"):
        probe(Target((plain.endpoint,)), 2.0)  # stopped now: nothing listens there

