"""Every input of the ``tablestorm`` command checked before anything starts.

The installed command runs as a process, one case per test, except the load command's many flag
refusals, which run its ``main()`` in the test's process (the shared-rule test below runs them as
the installed command): a bad flag exits 2 with one line that names the flag (argparse's usage line
may come before it), no traceback, and nothing started: no Ray session appears in the run's own Ray
temp dir (nor in this process), no output directory is created. Flags that
set a scenario value are refused by the scenario parser's own rules (sim/load/scenario.py), the same
words a scenario file gets.
"""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray
from support.processes import TABLESTORM, assert_refused, tablestorm, tablestorm_main

from tablestorm.sim.load.chaos import ChaosEvent

LOAD_CASES = {
    "duration-zero": (["--duration", "0"], "tablestorm load: --duration: must be at least 1, got 0"),
    "duration-negative": (["--duration", "-5"], "tablestorm load: --duration: must be at least 1, got -5"),
    "duration-nan": (["--duration", "nan"], "tablestorm load: --duration: must be at least 1, got nan"),
    "clock-zero": (["--clock", "0"], "tablestorm load: --clock: must be at least 0.05, got 0"),
    "clock-above-the-service-limit": (["--clock", "5000"], "tablestorm load: --clock: must be at most 3600"),
    "think-negative": (["--think", "-1"], "tablestorm load: --think: must be at least 0, got -1"),
    "bots-zero": (["--bots", "0"], "tablestorm load: --bots: a run needs at least one bot"),
    "bots-negative": (["--bots", "-3"], "tablestorm load: --bots: must be at least 0, got -3"),
    "hosts-zero": (["--hosts", "0"], "tablestorm load: --hosts: must be at least 1, got 0"),
    "hosts-negative": (["--hosts", "-1"], "tablestorm load: --hosts: must be at least 1, got -1"),
    "fleets-zero": (["--fleets", "0"], "tablestorm load: --fleets: must be at least 1, got 0"),
    "fleets-negative": (["--fleets", "-2"], "tablestorm load: --fleets: must be at least 1, got -2"),
    "seed-negative": (["--seed", "-2"], "tablestorm load: --seed: must be at least 0, got -2"),
    "game-unknown": (["--game", "holdem"], "argument --game: invalid choice: 'holdem'"),
    "game-without-the-structure": (
        ["draw-open", "--game", "7stud"], "tablestorm load: --game: Seven Card Stud is played fixed_limit"
    ),
    "threshold-unknown-metric": (["--threshold", "p99<100"], "tablestorm load: --threshold: unknown metric 'p99'"),
    "chaos-without-a-time": (["--chaos", "kill-host"], "tablestorm load: --chaos: expected kill-host@SECONDS"),
    "chaos-unknown": (
        ["--chaos", "kill-everything@3s"],
        "tablestorm load: --chaos: expected kill-host@SECONDS or kill-fleet@SECONDS or kill-registry@SECONDS",
    ),
    "chaos-at-the-end": (
        ["--duration", "10", "--chaos", "kill-fleet@10s"],
        "tablestorm load: --chaos kill-fleet@10s: fires 10 s into the run, which ends at 10 s",
    ),
    "chaos-after-the-end": (
        ["--chaos", "kill-host@45"],
        "tablestorm load: --chaos kill-host@45: fires 45 s into the run, which ends at 30 s",
    ),
    "kill-host-with-one-host": (
        ["--hosts", "1", "--chaos", "kill-host@5s"],
        "tablestorm load: --chaos: a kill-host event needs at least 2 table hosts",
    ),
    "kill-every-host": (
        ["--hosts", "2", "--chaos", "kill-host@5s", "--chaos", "kill-host@8s"],
        "tablestorm load: --chaos: 2 kill-host events need at least 3 table hosts",
    ),
    "address-malformed": (["--address", "nowhere"], "tablestorm load: --address: expected auto, HOST:PORT"),
    "address-port-out-of-range": (
        ["--address", "127.0.0.1:70000"], "tablestorm load: --address: port of '127.0.0.1:70000': must be at most 65535"
    ),
    "connect-timeout-zero": (["--connect-timeout", "0"], "argument --connect-timeout: must be at least 1"),
    "scenario-missing": (["nosuch"], "tablestorm load: nosuch: no such scenario file, nor an example"),
    "junit-a-directory": (["--junit", "."], "tablestorm load: --junit: . is a directory, not a file"),
}


@pytest.mark.parametrize(("argv", "message"), LOAD_CASES.values(), ids=LOAD_CASES.keys())
def test_load_refuses_before_ray_starts(
    argv: list[str], message: str, ray_tmpdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = tablestorm_main("load", *argv, "--out", "out", tmp=ray_tmpdir, monkeypatch=monkeypatch)
    assert_refused(done, message)
    assert not ray.is_initialized() and not (ray_tmpdir / "ray").exists(), "no Ray was started"
    assert not (ray_tmpdir / "out").exists(), "nothing was written"


def test_load_refuses_an_out_that_is_a_file(ray_tmpdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (ray_tmpdir / "taken").write_text("not a directory\n")
    done = tablestorm_main("load", "--out", "taken", tmp=ray_tmpdir, monkeypatch=monkeypatch)
    assert_refused(done, "tablestorm load: --out: taken exists and is not a directory")
    assert (ray_tmpdir / "taken").read_text() == "not a directory\n"
    assert not (ray_tmpdir / "ray").exists()


def test_load_refuses_an_out_below_a_file(ray_tmpdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (ray_tmpdir / "taken").write_text("")
    done = tablestorm_main("load", "--out", "taken/run", tmp=ray_tmpdir, monkeypatch=monkeypatch)
    assert_refused(done, "tablestorm load: --out: taken is a file, so taken/run cannot be created")


def test_load_flag_and_scenario_field_share_one_rule(ray_tmpdir: Path) -> None:
    """The same value refused in a file and on the command line, in the same words."""
    (ray_tmpdir / "short.yaml").write_text("duration_s: 0\n")
    from_file = tablestorm("load", "short.yaml", tmp=ray_tmpdir)
    from_flag = tablestorm("load", "--duration", "0", tmp=ray_tmpdir)
    assert_refused(from_file, "short.yaml.duration_s: must be at least 1, got 0")
    assert_refused(from_flag, "--duration: must be at least 1, got 0")
    assert from_file.stderr.split(": ", 2)[-1] == from_flag.stderr.split(": ", 2)[-1]


def test_chaos_event_needs_its_time() -> None:
    assert ChaosEvent.parse("kill-fleet@7.5") == ChaosEvent("kill-fleet", 7.5)
    assert ChaosEvent.parse("kill-host@20s") == ChaosEvent("kill-host", 20.0)
    assert ChaosEvent.parse("kill-registry@3s") == ChaosEvent("kill-registry", 3.0)
    with pytest.raises(ValueError, match="expected kill-host@SECONDS"):
        ChaosEvent.parse("kill-host")


# ----------------------------------------------------------------------------- serve


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port some other socket of this machine is listening on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


SERVE_CASES = {
    "port-above-65535": (["--port", "70000"], "argument --port: must be at most 65535, got 70000"),
    "port-negative": (["--port", "-1"], "argument --port: must be at least 0, got -1"),
    "port-not-a-number": (["--port", "http"], "argument --port: expected a whole number, got 'http'"),
    "metrics-port-above-65535": (["--metrics-port", "70000"], "argument --metrics-port: must be at most 65535"),
    "metrics-port-is-the-grpc-port": (
        ["--port", "50999", "--metrics-port", "50999"], "tablestorm serve: --metrics-port: 50999 is the gRPC port"
    ),
    "host-unresolvable": (["--host", "nosuch.invalid"], "tablestorm serve: --host: cannot resolve 'nosuch.invalid'"),
    "host-not-this-machine": (["--host", "192.0.2.123"], "tablestorm serve: --host: cannot listen on 192.0.2.123:0"),
    "websocket-port-above-65535": (["--websocket", "70000"], "argument --websocket: must be at most 65535"),
    "websocket-port-is-the-grpc-port": (
        ["--port", "50999", "--websocket", "50999"], "tablestorm serve: --websocket: 50999 is the gRPC or metrics port"
    ),
    "websocket-with-tls": (
        ["--tls-cert", "cert.pem", "--tls-key", "key.pem", "--websocket", "0"],
        "tablestorm serve: --websocket: serves plain ws:// only, so not with --tls-cert",
    ),
    "log-level-unknown": (["--log-level", "loud"], "argument --log-level: invalid choice: 'loud'"),
    "max-tables-negative": (["--max-tables", "-3"], "argument --max-tables: must be at least 1, got -3"),
    "max-tables-zero": (["--max-tables", "0"], "argument --max-tables: must be at least 1, got 0"),
    "drain-seconds-negative": (["--drain-seconds", "-1"], "argument --drain-seconds: must be at least 0, got -1"),
    "hand-pause-negative": (["--hand-pause", "-0.5"], "argument --hand-pause: must be at least 0, got -0.5"),
    "tls-cert-alone": (["--tls-cert", "cert.pem"], "tablestorm serve: --tls-cert: needs --tls-key (they go together)"),
    "tls-files-missing": (
        ["--tls-cert", "nosuch.pem", "--tls-key", "nosuch.pem"],
        "tablestorm serve: --tls-cert: cannot read nosuch.pem: No such file or directory",
    ),
}


@pytest.mark.parametrize(("argv", "message"), SERVE_CASES.values(), ids=SERVE_CASES.keys())
def test_serve_refuses(argv: list[str], message: str, ray_tmpdir: Path) -> None:
    assert_refused(tablestorm("serve", "--port", "0", *argv, tmp=ray_tmpdir, timeout=30), message)


def test_serve_refuses_a_file_that_is_not_pem(ray_tmpdir: Path) -> None:
    (ray_tmpdir / "cert.pem").write_text("hello\n")
    done = tablestorm("serve", "--port", "0", "--tls-cert", "cert.pem", "--tls-key", "cert.pem", tmp=ray_tmpdir)
    assert_refused(done, "tablestorm serve: --tls-cert: cert.pem is not a PEM file")


def test_serve_refuses_a_port_in_use(busy_port: int, ray_tmpdir: Path) -> None:
    done = tablestorm("serve", "--port", str(busy_port), tmp=ray_tmpdir, timeout=30)
    assert_refused(done, f"tablestorm serve: --port: 127.0.0.1:{busy_port} is in use; pick another port, or 0")


def test_serve_refuses_a_metrics_port_in_use(busy_port: int, ray_tmpdir: Path) -> None:
    done = tablestorm("serve", "--port", "0", "--metrics-port", str(busy_port), tmp=ray_tmpdir, timeout=30)
    assert_refused(done, f"tablestorm serve: --metrics-port: 127.0.0.1:{busy_port} is in use")


def test_serve_refuses_a_websocket_port_in_use(busy_port: int, ray_tmpdir: Path) -> None:
    done = tablestorm("serve", "--port", "0", "--websocket", str(busy_port), tmp=ray_tmpdir, timeout=30)
    assert_refused(done, f"tablestorm serve: --websocket: 127.0.0.1:{busy_port} is in use")


def test_serve_takes_a_log_level_in_any_case(ray_tmpdir: Path) -> None:
    """--log-level WARNING is warning: the server starts and logs nothing below it."""
    command = [str(TABLESTORM), "serve", "--port", "0", "--log-level", "WARNING", "--drain-seconds", "0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None
        ports = json.loads(process.stdout.readline())
        process.terminate()  # SIGTERM: the graceful stop
        _, stderr = process.communicate(timeout=30)
    assert ports["grpc_port"] > 0
    assert process.returncode == 0
    assert [json.loads(line)["level"] for line in stderr.splitlines() if line.strip()] == []


# ----------------------------------------------------------------------------- simulate and --version


def test_simulate_refuses_benchmark_flags_for_another_policy(ray_tmpdir: Path) -> None:
    done = tablestorm("simulate", "--game", "7stud", "--fold", "0.3", tmp=ray_tmpdir)
    assert_refused(done, "argument --fold: applies to --policy benchmark only")


def test_simulate_refuses_a_negative_seed(ray_tmpdir: Path) -> None:
    done = tablestorm("simulate", "--game", "7stud", "--seed", "-1", tmp=ray_tmpdir)
    assert_refused(done, "argument --seed: must be at least 0, got -1")


def test_version_is_the_installed_distributions(ray_tmpdir: Path) -> None:
    from importlib.metadata import version

    done = tablestorm("--version", tmp=ray_tmpdir)
    assert done.returncode == 0
    assert done.stdout.strip() == f"tablestorm {version('tablestorm')}"
