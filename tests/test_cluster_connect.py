"""``tablestorm load`` never hangs on connect: real processes, real sockets, a real local Ray.

A leftover ``ray_current_cluster`` file (another user's Ray on a shared machine, or one that
crashed) and ``RAY_ADDRESS`` must not make a plain run join that cluster: it starts its own. An
address where nothing answers fails fast with a message that names it; one that accepts but never
speaks fails after ``--connect-timeout``. Each "stranger" here is a socket this test holds: a
connection to it would show in its accept queue.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.processes import TABLESTORM

from tablestorm.sim.cluster import connection


@pytest.fixture
def silent_listener() -> Iterator[socket.socket]:
    """A TCP port that accepts connections and never says a word (nor is a Ray)."""
    with socket.socket() as listener:
        listener.bind((connection.LOOPBACK, 0))
        listener.listen(16)
        listener.setblocking(False)
        yield listener


def _address(listener: socket.socket) -> str:
    host, port = listener.getsockname()
    return f"{host}:{port}"


def _connections(listener: socket.socket) -> int:
    """How many connections reached the listener (each is accepted and closed)."""
    count = 0
    while True:
        try:
            peer, _ = listener.accept()
        except BlockingIOError:
            return count
        peer.close()
        count += 1


def _load(*argv: str, tmp: Path, timeout: float, **env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run(
        [str(TABLESTORM), "load", *argv], capture_output=True, text=True, timeout=timeout, cwd=tmp,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("RAY_")}, "RAY_TMPDIR": str(tmp), **env},
    )
    return done, time.monotonic() - started


def _message(stderr: str) -> str:
    """tablestorm's own line of stderr: exactly one."""
    [line] = [line for line in stderr.splitlines() if line.startswith("tablestorm load:")]
    return line


def test_plain_run_starts_its_own_ray_despite_a_leftover_cluster_file(
    ray_tmpdir: Path, silent_listener: socket.socket
) -> None:
    """Ray's temp dir names a cluster, and so does RAY_ADDRESS: without --address the run still
    starts (and stops) a Ray of its own, and never knocks at the address they name."""
    stranger = _address(silent_listener)
    (ray_tmpdir / "ray").mkdir()
    (ray_tmpdir / "ray" / "ray_current_cluster").write_text(stranger)
    done, _ = _load(
        "--bots", "4", "--hosts", "1", "--fleets", "1", "--game", "5stud", "--duration", "6", "--clock", "0.5",
        "--think", "0.01", "--out", "out", "--threshold", "chips_conserved==true",
        tmp=ray_tmpdir, timeout=300, RAY_ADDRESS=stranger,  # 6 s: a hand finishes on a busy machine too
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads((ray_tmpdir / "out" / "summary.json").read_text())
    assert summary["chips_conserved"] is True and summary["hands"] > 0
    sessions = [p for p in (ray_tmpdir / "ray").iterdir() if p.name.startswith("session_2")]
    assert len(sessions) == 1, "one local Ray was started in the run's temp dir"
    assert _connections(silent_listener) == 0, "nothing tried the leftover address"


EMBEDDED = """
import os

import ray  # before tablestorm: Ray reads its loopback switch and its auth mode now

from tablestorm.sim.cluster import connection

os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN="a" * 32)  # as token_auth_wanted() does after a failed join
connection.connect(None, num_cpus=1)


@ray.remote
def node_ip() -> str:
    return ray.util.get_node_ip_address()


print(ray.util.get_node_ip_address(), ray.get(node_ip.remote()), *(n["NodeManagerAddress"] for n in ray.nodes()))
connection.disconnect()
"""


def test_a_local_ray_stays_on_loopback_when_ray_was_imported_first(ray_tmpdir: Path) -> None:
    """A program that imports Ray before starting tablestorm's local Ray: the driver, a worker and
    the node are all on 127.0.0.1 (Ray alone would have put them on the machine's address), and a
    token mode turned on after the import holds for the driver as for the Ray it starts."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAY_")}, "RAY_TMPDIR": str(ray_tmpdir)}
    done = subprocess.run([sys.executable, "-c", EMBEDDED], capture_output=True, text=True, timeout=120,
                          cwd=ray_tmpdir, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == [connection.LOOPBACK] * 3, done.stdout


def test_unreachable_address_fails_at_once_with_the_address_named(ray_tmpdir: Path) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind((connection.LOOPBACK, 0))
        port = probe.getsockname()[1]
    done, seconds = _load("--address", f"127.0.0.1:{port}", "--out", "out", tmp=ray_tmpdir, timeout=120)
    assert done.returncode == 2, done.stderr
    message = _message(done.stderr)
    assert message.startswith(f"tablestorm load: cannot reach Ray at 127.0.0.1:{port}: Connection refused;")
    assert "ray start --head" in message and "Traceback" not in done.stderr
    assert seconds < 60, seconds
    assert not (ray_tmpdir / "out").exists()


def test_address_that_never_answers_fails_after_the_connect_timeout(
    ray_tmpdir: Path, silent_listener: socket.socket
) -> None:
    """Ray's own connect would wait for minutes (in native code, deaf to Ctrl-C)."""
    address = _address(silent_listener)
    done, seconds = _load("--address", address, "--connect-timeout", "5", "--out", "out",
                          tmp=ray_tmpdir, timeout=120)
    assert done.returncode == 2, done.stderr
    message = _message(done.stderr)  # Ray's native client may still log a line of its own after it
    assert message.startswith(f"tablestorm load: no answer from Ray at {address} within 5 s (--connect-timeout)")
    assert "Traceback" not in done.stderr
    assert 5 <= seconds < 60, seconds
    assert _connections(silent_listener) >= 1, "it did try the address"


def test_join_turns_token_auth_on_when_a_token_is_at_hand(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Ray turns token auth on for ``auto`` only; a HOST:PORT join needs it as much."""
    monkeypatch.delenv(connection.AUTH_MODE, raising=False)
    for name in connection.TOKEN_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(connection, "DEFAULT_TOKEN_FILE", tmp_path / "auth_token")
    assert connection.token_auth_wanted() is False and connection.AUTH_MODE not in os.environ
    (tmp_path / "token").write_text("0123456789abcdef\n")
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(tmp_path / "token"))
    assert connection.token_auth_wanted() is True and os.environ[connection.AUTH_MODE] == "token"
    monkeypatch.setenv(connection.AUTH_MODE, "disabled")
    assert connection.token_auth_wanted() is False, "an explicit RAY_AUTH_MODE is the user's word"


@pytest.mark.parametrize("address", ["auto", "10.0.0.5:6379", "ray://head:10001", "[::1]:6379"])
def test_addresses_accepted(address: str) -> None:
    assert connection.check_address(address) == address
