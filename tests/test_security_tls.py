"""TLS end to end, over real ``tablestorm serve`` and ``tablestorm serve-tournaments`` processes and
certificates a test CA signs (``tls_certs``).

* A table server with ``--tls-cert/--tls-key``: a client trusting the CA plays; a client that
  does not trust it, and a plaintext one, fail UNAVAILABLE (the handshake, not a status).
* Mutual TLS for the director: table servers with ``--tls-client-ca`` (every client of the port
  presents a certificate the CA signed) and ``--director-name tournaments`` (director calls only
  from the certificate of that name), and a tournament server serving TLS that reaches them with
  ``--tables-ca/--tables-cert/--tables-key``: a sit-and-go is played to its winner by clients that
  know only the protos, over TLS everywhere. A call without a client certificate is refused at
  the handshake (UNAVAILABLE), a director call with a player's certificate PERMISSION_DENIED
  before its token is read; in-process, where the test knows the director token, even the right
  token with a player's certificate seats nobody.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from support.certificates import TlsFiles, issue_client_cert, make_tls_files
from support.processes import assert_refused, process, stop, tablestorm
from support.running import run_async
from support.table_server import stud_options
from support.tournaments import OPERATOR, TIMEOUT, Channels, fast_structure, seated_sit_and_go

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.api import tournament_pb2_grpc as trpc
from tablestorm.services.rpc.tls import ClientTls, ServerTls, channel
from tablestorm.services.table.server import ServerConfig, TableServer

DIRECTOR = "tournaments"
"""The common name of the tournament server's client certificate (``--director-name``)."""


@pytest.fixture
def certs(tmp_path: Path) -> TlsFiles:
    return make_tls_files(tmp_path)


async def refused_code(endpoint: str, tls: ClientTls | None) -> grpc.StatusCode:
    """How a health check (both servers serve it) ends from a client with ``tls`` (None:
    plaintext) that the server refuses."""
    async with channel(endpoint, tls) as refused:
        try:
            await health_pb2_grpc.HealthStub(refused).Check(health_pb2.HealthCheckRequest(), timeout=5)
        except grpc.aio.AioRpcError as exc:
            return exc.code()
    raise AssertionError("the call was answered")


@run_async
async def test_a_table_server_over_tls_serves_clients_trusting_its_ca_only(certs: TlsFiles, tmp_path: Path) -> None:
    other = make_tls_files(tmp_path, "other")  # a CA that never signed the server's certificate
    with process("serve", "--port", "0", "--tls-cert", str(certs.cert), "--tls-key", str(certs.key)) as (server, ports):
        endpoint = f"127.0.0.1:{ports['grpc_port']}"
        async with channel(endpoint, ClientTls(certs.ca)) as trusted:
            stub = rpc.TableServiceStub(trusted)
            await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=1))
            seated = await stub.SitDown(pb.SitDownRequest(table_id="t", seat=1, player_id="p1"))
            assert seated.seat.stack == 800
        assert await refused_code(endpoint, ClientTls(other.ca)) == grpc.StatusCode.UNAVAILABLE
        assert await refused_code(endpoint, ClientTls()) == grpc.StatusCode.UNAVAILABLE  # the system's roots
        assert await refused_code(endpoint, None) == grpc.StatusCode.UNAVAILABLE  # plaintext
        stop(server)


@run_async
async def test_mutual_tls_for_the_director_and_a_tournament_played_over_tls(certs: TlsFiles, tmp_path: Path) -> None:
    director_cert, director_key = issue_client_cert(certs, DIRECTOR)
    player_cert, player_key = issue_client_cert(certs, "player")
    token_file = tmp_path / "operator"
    token_file.write_text(OPERATOR)
    table_flags = (
        "serve", "--port", "0", "--drain-seconds", "0", "--tls-cert", str(certs.cert), "--tls-key", str(certs.key),
        "--tls-client-ca", str(certs.ca), "--director-name", DIRECTOR,
    )
    with process(*table_flags) as (tables, table_ports):
        endpoint = f"127.0.0.1:{table_ports['grpc_port']}"
        tournament_flags = (
            "serve-tournaments", "--tables", endpoint, "--port", "0", "--drain-seconds", "1",
            "--operator-token-file", str(token_file), "--tls-cert", str(certs.cert), "--tls-key", str(certs.key),
            "--tables-ca", str(certs.ca), "--tables-cert", str(director_cert), "--tables-key", str(director_key),
        )
        with process(*tournament_flags) as (tournaments, ports):
            lobby = f"127.0.0.1:{ports['grpc_port']}"
            player_tls = ClientTls(certs.ca, player_cert, player_key)
            assert await refused_code(endpoint, ClientTls(certs.ca)) == grpc.StatusCode.UNAVAILABLE  # no certificate
            async with channel(lobby, ClientTls(certs.ca)) as secure:
                stub = trpc.TournamentServiceStub(secure)
                channels = Channels(player_tls)
                players, watching = await seated_sit_and_go(stub, fast_structure("5stud", max_entrants=4), channels)
                seat = players[0].seats[0]
                assert seat.endpoint == endpoint

                # A player's certificate and the table's seat token do not make a director: the
                # director call is refused before its token is read.
                async with channel(endpoint, player_tls) as as_player:
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await rpc.TableServiceStub(as_player).AddChips(
                            pb.AddChipsRequest(table_id=seat.table_id, seat=seat.seat, chips=1000),
                            metadata=(("x-director-token", "x" * 43),), timeout=5,
                        )
                assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
                assert DIRECTOR in (refused.value.details() or "")

                await asyncio.wait_for(asyncio.gather(*watching), TIMEOUT)
                standings = await stub.GetStandings(tpb.StandingsRequest(tournament_id="sng", page_size=10))
                assert standings.standings[0].stack == 4 * 200  # TOURN-11: the winner holds every chip
                assert players[0].of("finished")
                await channels.close()
            assert await refused_code(lobby, None) == grpc.StatusCode.UNAVAILABLE  # the lobby is TLS only
            stop(tournaments)
        stop(tables)


@run_async
async def test_a_director_call_needs_the_directors_certificate_as_well_as_its_token(certs: TlsFiles) -> None:
    """In-process (the director token is the test's): the right token with a player's certificate
    is PERMISSION_DENIED and seats nobody; with the director's certificate the same call seats."""
    director_tls = ClientTls(certs.ca, *issue_client_cert(certs, DIRECTOR))
    player_tls = ClientTls(certs.ca, *issue_client_cert(certs, "player"))
    server = TableServer(ServerConfig(port=0, tls=ServerTls(certs.cert, certs.key, certs.ca), director_name=DIRECTOR))
    await server.start()
    endpoint, secret = f"127.0.0.1:{server.port}", "d" * 40
    seat = pb.SeatPlayerRequest(table_id="t", seat=1, player_id="p1", stack=500)
    director = (("x-director-token", secret),)
    try:
        async with channel(endpoint, player_tls) as as_player, channel(endpoint, director_tls) as as_director:
            player_stub, director_stub = rpc.TableServiceStub(as_player), rpc.TableServiceStub(as_director)
            await player_stub.CreateTable(pb.CreateTableRequest(
                table_id="t", options=stud_options(), kind=pb.TABLE_KIND_TOURNAMENT, director_token=secret
            ))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await player_stub.SeatPlayer(seat, metadata=director)
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
            state = await player_stub.GetTable(pb.GetTableRequest(table_id="t"))
            assert not state.seats[0].player_id  # nothing changed
            seated = await director_stub.SeatPlayer(seat, metadata=director)
            assert seated.seat.stack == 500 and seated.seat_token
    finally:
        await server.stop(drain_seconds=0)


FLAG_CASES = {
    "client-ca-without-tls": (
        ["serve", "--tls-client-ca", "ca.pem"], "--tls-client-ca: needs --tls-cert and --tls-key"
    ),
    "director-name-without-client-ca": (
        ["serve", "--tls-cert", "cert.pem", "--tls-key", "key.pem", "--director-name", "x"],
        "--director-name: needs --tls-client-ca",
    ),
    "client-ca-not-pem": (
        ["serve", "--tls-cert", "cert.pem", "--tls-key", "key.pem", "--tls-client-ca", "junk"],
        "--tls-client-ca: junk is not a PEM file",
    ),
    "tournaments-cert-without-key": (
        ["serve-tournaments", "--tables", "h:5", "--tls-cert", "cert.pem"],
        "--tls-cert: needs --tls-key (they go together)",
    ),
    "tournaments-tables-cert-without-ca": (
        ["serve-tournaments", "--tables", "h:5", "--tables-cert", "cert.pem", "--tables-key", "key.pem"],
        "--tables-cert: needs --tables-ca",
    ),
    "tournaments-tables-ca-unreadable": (
        ["serve-tournaments", "--tables", "h:5", "--tables-ca", "nosuch.pem"],
        "--tables-ca: cannot read nosuch.pem: No such file or directory",
    ),
}


@pytest.mark.parametrize(("argv", "message"), FLAG_CASES.values(), ids=FLAG_CASES.keys())
def test_the_tls_flags_are_refused_before_anything_starts(
    argv: list[str], message: str, certs: TlsFiles, tmp_path: Path
) -> None:
    for name, source in (("cert.pem", certs.cert), ("key.pem", certs.key), ("ca.pem", certs.ca)):
        (tmp_path / name).write_bytes(source.read_bytes())
    (tmp_path / "junk").write_text("not a certificate")
    assert_refused(tablestorm(*argv, "--port", "0", tmp=tmp_path, timeout=30), message)
