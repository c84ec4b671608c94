"""``tablestorm serve`` as a process: ports on stdout, JSON logs, graceful exit on SIGTERM."""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from support.processes import TABLESTORM, process, stop
from support.websocket_client import WsClient

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc


def test_serve_prints_ports_serves_and_drains_on_sigterm() -> None:
    process = subprocess.Popen(
        [TABLESTORM, "serve", "--port", "0", "--metrics-port", "0", "--drain-seconds", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        ports = json.loads(process.stdout.readline())
        assert ports["grpc_port"] > 0 and ports["metrics_port"] > 0
        with grpc.insecure_channel(f"127.0.0.1:{ports['grpc_port']}") as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="tablestorm.v1.TableService"), timeout=10
            )
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            stub = rpc.TableServiceStub(channel)
            options = pb.TableOptions(game="7a5draw", stakes=pb.Stakes(small_bet=2))
            stub.CreateTable(pb.CreateTableRequest(table_id="d", options=options), timeout=10)
            for seat in (1, 2):  # a hand starts and waits on the 10 s clock: SIGTERM must void it
                stub.SitDown(pb.SitDownRequest(table_id="d", seat=seat, player_id=f"p{seat}"), timeout=10)
            assert stub.GetTable(pb.GetTableRequest(table_id="d"), timeout=10).hand_running
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    logs = [json.loads(line) for line in stderr.splitlines() if line.strip()]
    messages = [entry["msg"] for entry in logs]
    assert "serving" in messages and "stopped" in messages
    stopped = next(entry for entry in logs if entry["msg"] == "stopped")
    assert stopped["hands_voided"] == 1


def test_serve_with_websocket_serves_the_same_tables_on_both_front_doors() -> None:
    """``--websocket 0``: its port printed beside gRPC's; a table created over gRPC is in the
    WebSocket lobby, and a seat taken there is the gRPC service's; SIGTERM still exits 0."""
    with process("serve", "--port", "0", "--websocket", "0", "--drain-seconds", "0") as (child, ports):
        assert ports["websocket_port"] > 0 and ports["websocket_port"] != ports["grpc_port"]
        with grpc.insecure_channel(f"127.0.0.1:{ports['grpc_port']}") as channel:
            stub = rpc.TableServiceStub(channel)
            options = pb.TableOptions(game="5stud", stakes=pb.Stakes(small_bet=2))
            stub.CreateTable(pb.CreateTableRequest(table_id="w", options=options), timeout=10)
            lobby, seated = asyncio.run(_lobby_and_seat(ports["websocket_port"]))
            assert [table["table_id"] for table in lobby["tables"]] == ["w"]
            state = stub.GetTable(pb.GetTableRequest(table_id="w"), timeout=10)
            assert state.seats[0].player_id == "web" and state.seats[0].stack == seated["stack"] > 0
        stop(child)  # SIGTERM: exit 0


async def _lobby_and_seat(port: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Log in on the WebSocket front door, read the lobby and take seat 1."""
    client = await WsClient.connect(port)
    try:
        await client.login("web")
        lobby = await client.request("list_tables")
        seated = await client.request("sit", table_id="w", seat=1)
        return lobby, seated
    finally:
        await client.close()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_serve_over_tls(tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            key,
            "-out",
            cert,
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    process = subprocess.Popen(
        [TABLESTORM, "serve", "--port", "0", "--tls-cert", cert, "--tls-key", key],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = json.loads(process.stdout.readline())["grpc_port"]
        credentials = grpc.ssl_channel_credentials(cert.read_bytes())
        with grpc.secure_channel(f"127.0.0.1:{port}", credentials) as channel:
            options = pb.TableOptions(game="5stud", stakes=pb.Stakes(small_bet=2))
            state = rpc.TableServiceStub(channel).CreateTable(
                pb.CreateTableRequest(table_id="tls", options=options), timeout=10
            )
        assert state.posted_buy_in == 400
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
