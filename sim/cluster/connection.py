"""Connect to a Ray cluster, or start a local one that stays on loopback, and never hang doing it.

A local Ray started without care binds its own processes (GCS, raylets, object manager) to the
machine's external address; `tablestorm load` must only ever talk to 127.0.0.1 when it starts
Ray itself, so the node IP is pinned to loopback and ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` is set
before Ray is imported. Without an address the local Ray is always a new one (``address="local"``):
a plain ``ray.init()`` would instead join whatever cluster Ray's temp dir (``ray_current_cluster``)
or ``RAY_ADDRESS`` names, another user's Ray on a shared machine included, and hang there.

``--address auto|HOST:PORT`` joins an existing cluster, within a timeout: Ray's own connect waits
for minutes, in native code that ignores Ctrl-C, when nothing answers at the address. A join
reads token authentication the same way for both spellings: Ray itself turns token auth on for
``auto`` when a token is at hand but not for an explicit HOST:PORT, so the same cluster accepted
``auto`` and refused ``HOST:PORT``. Before the run, every node is asked to import this very
tablestorm: a node where it is missing (or another version) is named, instead of the run failing
later when a table host cannot start there.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import logging
import os
import re
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from tablestorm import version
from tablestorm.services.fields import FieldError
from tablestorm.sim.cluster.interruption import abort_in
from tablestorm.sim.inputs import PORT, Bound, flag

LOOPBACK: Final = "127.0.0.1"
LOOPBACK_VARIABLE: Final = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray keeps a local node on 127.0.0.1 only with this set to 0 (its loopback mode for laptops)."""
CONNECT_TIMEOUT_S: Final = 60.0
"""How long joining a cluster (and its nodes' checks) may take before the run gives up."""
AUTH_MODE: Final = "RAY_AUTH_MODE"
TOKEN_VARIABLES: Final = ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
DEFAULT_TOKEN_FILE: Final = Path.home() / ".ray" / "auth_token"
"""Where ``ray start`` and a local ``ray.init()`` keep the token they generate (Ray 2.5x)."""

_ADDRESS: Final = re.compile(r"^(?P<scheme>ray://)?(?P<host>\[[0-9a-fA-F:.]+\]|[^:/\s]+):(?P<port>[^:/\s]+)$")

T = TypeVar("T")


class ClusterError(RuntimeError):
    """Ray could not be started or reached; the message says what failed and what to try."""


@dataclass(frozen=True, slots=True)
class ClusterInfo:
    """The Ray this process runs on: who started it, how big it is."""

    started_here: bool
    """True when this process started the local Ray and must shut it down."""
    nodes: int
    cpus: float


def check_address(text: str, flag: str = "--address") -> str:
    """``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``; :class:`FieldError` naming ``flag`` otherwise."""
    if text == "auto":
        return text
    match = _ADDRESS.match(text)
    if match is None:
        raise FieldError(flag, f"expected auto, HOST:PORT or ray://HOST:PORT, got {text!r}")
    try:
        port = PORT.parse(match["port"])
    except ValueError as exc:
        raise FieldError(flag, f"port of {text!r}: {exc}") from None
    if port == 0:
        raise FieldError(flag, f"port of {text!r}: a cluster's port cannot be 0")
    return text


def add_flags(parser: argparse.ArgumentParser, *, reaching: str = "") -> None:
    """``--address`` and ``--connect-timeout``, as every command that runs on Ray spells them
    (``reaching``: what else the command gives up on after the timeout, for its help)."""
    parser.add_argument("--address", help="join a Ray cluster: auto, HOST:PORT or ray://HOST:PORT "
                        "(default: start a local one)")
    parser.add_argument("--connect-timeout", type=flag(Bound(minimum=1)), default=CONNECT_TIMEOUT_S,
                        metavar="SECONDS",
                        help=f"give up joining --address{reaching} after this long (default {CONNECT_TIMEOUT_S:g})")


def _ray() -> Any:
    """Ray, reading the variables this module sets as if they had been set before Ray was imported.

    Ray reads some of its environment once, at import: ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER``
    (without it a local Ray goes to the machine's external address, ``_node_ip_address="127.0.0.1"``
    notwithstanding) and ``RAY_AUTH_MODE`` (its native config: a driver that read "disabled" cannot
    talk to a local Ray started with the token mode :func:`token_auth_wanted` turned on). A program
    or a test module that imported Ray first would get both wrong; Ray's workers inherit the
    variables."""
    os.environ.setdefault(LOOPBACK_VARIABLE, "0")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray
    from ray._private import ray_constants
    from ray._raylet import Config  # type: ignore[attr-defined]

    ray_constants.ENABLE_RAY_CLUSTER = os.environ[LOOPBACK_VARIABLE].lower() in ("1", "true")  # Ray's reading
    if not ray.is_initialized():
        Config.initialize("")  # re-read, as Ray does when it turns token auth on itself
    return ray


def connect(
    address: str | None, *, num_cpus: int | None = None, timeout: float = CONNECT_TIMEOUT_S
) -> ClusterInfo:
    """Join ``address`` (``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``) within ``timeout`` seconds,
    or start a new loopback-only local Ray when None; :class:`ClusterError` when neither works."""
    if address is not None:
        token_auth_wanted()  # before Ray is imported: its native config reads RAY_AUTH_MODE once
    ray = _ray()
    if ray.is_initialized():
        started = False
    elif address is None:
        try:
            with _keeping_sigterm():
                ray.init(
                    address="local",
                    _node_ip_address=LOOPBACK,
                    include_dashboard=False,
                    num_cpus=num_cpus,
                    log_to_driver=False,
                    configure_logging=False,
                )
        except Exception as exc:  # Ray's own reasons (ports, /dev/shm, a stale session dir)
            if abort_in(exc) is not None:
                raise
            raise ClusterError(f"cannot start a local Ray: {exc}; its logs: {_temp_dir()}/session_latest/logs") from exc
        started = True
        node_ip = ray.util.get_node_ip_address()
        if not ipaddress.ip_address(node_ip).is_loopback:
            ray.shutdown()
            raise ClusterError(f"the local Ray came up on {node_ip}, not on loopback; it was stopped")
    else:
        _join(ray, check_address(address), timeout)
        started = False
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    cpus = float(ray.cluster_resources().get("CPU", 0.0))
    return ClusterInfo(started_here=started, nodes=len(nodes), cpus=cpus)


@contextlib.contextmanager
def _keeping_sigterm() -> Iterator[None]:
    """Ray's init (in the main thread) sets a SIGTERM handler that ends the process on the spot; a
    command that holds the signal itself (:mod:`.interruption`) keeps its own handler."""
    previous = signal.getsignal(signal.SIGTERM)
    try:
        yield
    finally:
        if callable(previous) and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)


def disconnect() -> None:
    """Stop the local Ray this process started; leave a joined cluster running."""
    ray = _ray()
    if ray.is_initialized():
        ray.shutdown()


def token_auth_wanted() -> bool:
    """Turn Ray's token authentication on for a join when ``RAY_AUTH_MODE`` is unset and a token
    is at hand (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``), as Ray does
    for ``auto`` only. A cluster without token auth accepts a client that sends one. It must run
    before ``import ray`` in this process (Ray's native config reads the variable once)."""
    if AUTH_MODE in os.environ:
        return os.environ[AUTH_MODE].lower() == "token"
    if any(os.environ.get(name) for name in TOKEN_VARIABLES) or DEFAULT_TOKEN_FILE.is_file():
        os.environ[AUTH_MODE] = "token"
        return True
    return False


def _join(ray: Any, address: str, timeout: float) -> None:
    match = _ADDRESS.match(address)
    if match is not None and match["scheme"] is None:
        _probe(address, match["host"].strip("[]"), int(match["port"]), min(timeout, 5.0))
    token = os.environ.get(AUTH_MODE, "").lower() == "token"
    quiet = _NotMainThread()
    worker_log = logging.getLogger("ray._private.worker")
    worker_log.addFilter(quiet)
    try:
        _bounded(
            lambda: ray.init(address=address, log_to_driver=False, configure_logging=False),
            timeout,
            f"no answer from Ray at {address} within {timeout:g} s (--connect-timeout): is it a Ray head's "
            "GCS port (`ray start --head --port PORT`; `ray status` on the head prints the address)?",
        )
    except ClusterError:
        raise
    except Exception as exc:
        if abort_in(exc) is not None:
            raise
        hint = (
            "the head may use another token: set RAY_AUTH_TOKEN to the head's (`ray get-auth-token` on it)"
            if token
            else "if the cluster uses token authentication, set RAY_AUTH_MODE=token and RAY_AUTH_TOKEN "
            "(`ray get-auth-token` on the head prints it)"
        )
        raise ClusterError(f"cannot join Ray at {address}: {_first_line(exc)}; {hint}") from exc
    finally:
        worker_log.removeFilter(quiet)
    _check_nodes(ray, timeout)


class _NotMainThread(logging.Filter):
    """Drops Ray's warning that a driver connected from a thread installs no SIGTERM handler: a
    joined cluster keeps running whatever happens to this process (its actors die with it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("SIGTERM handler is not set")


def _probe(address: str, host: str, port: int, seconds: float) -> None:
    """A TCP connect first: an address where nothing listens fails in a second, not in minutes."""
    try:
        with socket.create_connection((host, port), timeout=seconds):
            return
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ClusterError(
            f"cannot reach Ray at {address}: {reason}; start a head there (`ray start --head --port {port}`) "
            "or check the host, the port and the firewall; without --address, tablestorm load starts its "
            "own local Ray"
        ) from None


def _bounded(call: Callable[[], T], seconds: float, message: str) -> T:
    """``call()`` in a daemon thread, waited for at most ``seconds`` (the wait itself is Ctrl-C-able)."""
    outcome: list[tuple[bool, Any]] = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:  # handed to the waiting thread as it is
            outcome.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=run, name="tablestorm-connect", daemon=True).start()
    if not done.wait(seconds):
        raise ClusterError(message)
    ok, value = outcome[0]
    if not ok:
        raise value
    result: T = value
    return result


def _check_nodes(ray: Any, timeout: float) -> None:
    """Every live node imports this tablestorm, same version: the actors need it there."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    probe = ray.remote(num_cpus=0, max_retries=0)(version)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    refs = [
        probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote()
        for n in nodes
    ]
    ready, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout)
    mine = version()
    for node, ref in zip(nodes, refs, strict=True):
        where = node.get("NodeManagerAddress", node["NodeID"])
        if ref not in ready:
            raise ClusterError(f"Ray node {where} did not run a task within {timeout:g} s (--connect-timeout)")
        try:
            theirs = ray.get(ref)
        except Exception as exc:
            raise ClusterError(
                f"Ray node {where} cannot import tablestorm ({_first_line(exc)}): install tablestorm {mine} "
                "in the Python environment Ray runs on every node"
            ) from None
        if theirs != mine:
            raise ClusterError(f"Ray node {where} runs tablestorm {theirs}, this driver {mine}: install one version")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[-1] if "Traceback" in text else text.splitlines()[0]


def _temp_dir() -> str:
    return os.path.join(os.environ.get("RAY_TMPDIR", "/tmp"), "ray")
