"""Three "hosts" on loopback addresses of their own (127.0.0.2, .3, .4): a Ray head on the first
and a worker on each of the others, each started with ``ray start --block`` (its node IP, its own
ports and temp dir, a token of its own), so that every process of a host descends from one process
this module started and a whole host can be lost at once (:meth:`Host.kill`).

On Linux all of 127.0.0.0/8 answers on ``lo``; a bind, a node IP or a TLS name that assumes
127.0.0.1 shows up here, where on a one-address cluster it never can. Nothing here runs
``ray stop``, which would stop every Ray of the machine (other helpers', CI's).
"""

from __future__ import annotations

import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from support.loopback import descendants

HEAD_IP = "127.0.0.2"
WORKER_IPS = ("127.0.0.3", "127.0.0.4")
RAY = Path(sys.executable).parent / "ray"
STARTED = "Ray runtime started"
"""What ``ray start`` prints once its node has joined (it then blocks with ``--block``)."""
START_TIMEOUT_S = 180.0
"""A node's start, bounded: a loaded 2-core machine has taken over a minute."""
_PORTS = ("dashboard-agent-listen-port", "dashboard-agent-grpc-port", "runtime-env-agent-port",
          "metrics-export-port", "object-manager-port", "node-manager-port")
"""Ray's per-node ports that otherwise default to fixed numbers another Ray of the machine holds."""


def free_ports(ip: str, count: int) -> list[int]:
    """``count`` distinct ports nothing listens on at ``ip`` (held together while chosen)."""
    sockets = [socket.create_server((ip, 0)) for _ in range(count)]
    try:
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


@dataclass
class Host:
    """One host: its address and its ``ray start --block`` process (the ancestor of all of its
    Ray processes, the workers running its actors included)."""

    ip: str
    process: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)
    """What ``ray start`` printed (for a failure's message)."""

    def pids(self) -> set[int]:
        """Every process of this host now."""
        return descendants(self.process.pid)

    def kill(self) -> set[int]:
        """SIGKILL every process of this host (a machine lost, not shut down); returns them. Each is
        stopped first (SIGSTOP) until none is left to stop, so that none forks a survivor meanwhile."""
        stopped: set[int] = set()
        while todo := self.pids() - stopped:
            _signal(todo, signal.SIGSTOP)
            stopped |= todo
        _killed(stopped)
        self.process.wait(timeout=60)
        return stopped


@dataclass
class Cluster:
    """The three hosts; ``address`` is the head's GCS, ``env`` what a process joining needs."""

    address: str
    env: dict[str, str]
    hosts: dict[str, Host]
    temp_dir: Path


def _environment(token: str) -> dict[str, str]:
    """This environment with the cluster's own token, and Ray's multi-node switch left to its
    Linux default (a test process that started a local Ray set it to 0)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_ADDRESS", "RAY_AUTH_TOKEN_PATH")}
    return {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token, "RAY_USAGE_STATS_ENABLED": "0"}


def _start(ip: str, flags: list[str], env: dict[str, str], temp_dir: Path) -> Host:
    """``ray start --block`` on ``ip`` with its own ports; returns once it says it started."""
    ports = free_ports(ip, len(_PORTS))
    argv = [str(RAY), "start", "--block", "--node-ip-address", ip, "--num-cpus", "1", "--temp-dir", str(temp_dir),
            "--min-worker-port", "0", "--max-worker-port", "0", "--disable-usage-stats",
            *(f"--{name}={port}" for name, port in zip(_PORTS, ports, strict=True)), *flags]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                               start_new_session=True)
    host = Host(ip, process)
    started = threading.Event()

    def read() -> None:  # until the end: a full pipe would block the node
        assert process.stdout is not None
        for line in process.stdout:
            host.output.append(line)
            if STARTED in line:
                started.set()
        started.set()

    threading.Thread(target=read, name=f"ray-start-{ip}", daemon=True).start()
    if not started.wait(START_TIMEOUT_S) or process.poll() is not None:
        _stop(host)
        raise RuntimeError(f"ray start on {ip} did not start:\n{''.join(host.output[-30:])}")
    return host


def _stop(host: Host) -> None:
    """SIGTERM to ``ray start --block`` (it stops its node's processes), SIGKILL to what is left."""
    pids = host.pids()
    if host.process.poll() is None:
        host.process.terminate()
        with suppress(subprocess.TimeoutExpired):
            host.process.wait(timeout=30)
    _signal(pids | host.pids(), signal.SIGKILL)
    host.process.wait(timeout=30)


def running(pid: int) -> bool:
    """Whether ``pid`` is a process still running (not gone, not a zombie waiting to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _killed(pids: set[int], timeout: float = 60) -> None:
    """SIGKILL ``pids`` and wait until every one has ended (its pidfd readable: SIGKILL is delivered
    asynchronously, a process with many threads takes a moment to exit)."""
    handles = []
    for pid in pids:
        with suppress(ProcessLookupError):
            handles.append(os.pidfd_open(pid))
    try:
        _signal(pids, signal.SIGKILL)
        waiting = select.poll()
        for handle in handles:
            waiting.register(handle, select.POLLIN)
        deadline = time.monotonic() + timeout
        ended: set[int] = set()
        while len(ended) < len(handles):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{len(handles) - len(ended)} killed process(es) still running after {timeout:g} s")
            for handle, _event in waiting.poll(left * 1000):
                waiting.unregister(handle)
                ended.add(handle)
    finally:
        for handle in handles:
            os.close(handle)


def _signal(pids: set[int], signum: int) -> None:
    for pid in pids:
        with suppress(ProcessLookupError):  # it exited meanwhile
            os.kill(pid, signum)


@contextmanager
def three_hosts() -> Iterator[Cluster]:
    """A Ray head on :data:`HEAD_IP`, a worker on each of :data:`WORKER_IPS`, one CPU each; every
    process they started is stopped at the end (by PID), whichever host is still up."""
    temp_dir = Path(tempfile.mkdtemp(prefix="ts3-", dir="/tmp"))  # short: socket paths fit 107 bytes
    env = _environment(secrets.token_hex(32))
    gcs, client = free_ports(HEAD_IP, 2)
    hosts: dict[str, Host] = {}
    try:
        hosts[HEAD_IP] = _start(HEAD_IP, ["--head", "--port", str(gcs), "--ray-client-server-port", str(client),
                                          "--include-dashboard", "false"], env, temp_dir)
        address = f"{HEAD_IP}:{gcs}"
        for ip in WORKER_IPS:
            hosts[ip] = _start(ip, ["--address", address], env, temp_dir)
        yield Cluster(address, env, hosts, temp_dir)
    finally:
        for host in reversed(hosts.values()):
            _stop(host)
        shutil.rmtree(temp_dir, ignore_errors=True)
