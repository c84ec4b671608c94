"""The installed ``tablestorm`` command as a process: run to its end (a refusal read back), or
started on 127.0.0.1 and stopped by its PID (``serve``, ``serve-tournaments``); and its ``main()``
run in the test's own process, for the many refusals that need no interpreter of their own."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import chdir, contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import pytest

from tablestorm.sim.cli import main

TABLESTORM = Path(sys.executable).parent / "tablestorm"


def tablestorm(*argv: str, tmp: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RAY_TMPDIR": str(tmp)}
    return subprocess.run([str(TABLESTORM), *argv], capture_output=True, text=True, timeout=timeout,
                          cwd=tmp, env=env)


def tablestorm_main(*argv: str, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> subprocess.CompletedProcess[str]:
    """What :func:`tablestorm` returns, from ``main()`` in this process (argparse's exit included):
    a refusal starts nothing, so it needs no interpreter of its own (1-2 s of imports each)."""
    monkeypatch.setenv("RAY_TMPDIR", str(tmp))
    out, err = StringIO(), StringIO()
    with chdir(tmp), redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
    return subprocess.CompletedProcess(["tablestorm", *argv], status, out.getvalue(), err.getvalue())


def assert_refused(done: subprocess.CompletedProcess[str], message: str) -> None:
    """Exit 2, the message on the last line of stderr, no traceback, nothing on stdout."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""
    assert message in done.stderr.strip().splitlines()[-1], done.stderr


@contextmanager
def process(*argv: str) -> Iterator[tuple[subprocess.Popen[str], dict[str, int]]]:
    """A tablestorm process and the ports it printed; killed at the end if still running."""
    child = subprocess.Popen([str(TABLESTORM), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line, child.stderr.read() if child.stderr is not None else ""
        yield child, json.loads(line)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def stop(child: subprocess.Popen[str]) -> str:
    """SIGTERM: the graceful stop must exit 0; returns the JSON log lines of stderr."""
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == 0, stderr
    return stderr


@dataclass(frozen=True)
class Served:
    process: subprocess.Popen[str]
    endpoint: str
    """127.0.0.1:PORT, the port it picked (it prints it on stdout once listening)."""


@contextmanager
def serve(*flags: str | Path) -> Iterator[Served]:
    """A table server with ``flags`` (TLS files, say) on a free port of 127.0.0.1; at the end it is
    asked to stop (SIGTERM) and killed if it has not within 30 s (a test may have killed it)."""
    process = subprocess.Popen(
        [TABLESTORM, "serve", "--port", "0", "--drain-seconds", "0.2", "--log-level", "warning", *flags],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, "tablestorm serve exited before it listened"
        yield Served(process, f"127.0.0.1:{json.loads(line)['grpc_port']}")
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
