"""Prometheus for a load run: the file_sd targets file, and an optional real Prometheus server.

The driver lists every table host and fleet metrics endpoint in ``targets/tablestorm.json``
(Prometheus file-based service discovery), labelled by role, and rewrites it as hosts die and are
replaced. ``--prometheus`` starts the ``prometheus`` binary (Debian's package) on 127.0.0.1 with
``deploy/prometheus/prometheus.yml`` and its rules (shipped in the package: :mod:`tablestorm.sim.resources`),
storing into the run directory.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tablestorm.sim.resources import prometheus_config


class PrometheusError(RuntimeError):
    """The run's Prometheus could not be started or did not come up; the message says why."""


def write_targets(directory: Path, groups: dict[str, Iterable[str]]) -> Path:
    """Write ``{role: [host:port, ...]}`` as a file_sd JSON file, atomically (Prometheus re-reads it)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "tablestorm.json"
    body = [{"targets": sorted(targets), "labels": {"role": role}} for role, targets in groups.items()]
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(body, indent=1) + "\n")
    temporary.replace(path)
    return path


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


class PrometheusServer:
    """A Prometheus process this run started (and stops, by its PID)."""

    def __init__(self, run_dir: Path, host: str = "127.0.0.1") -> None:
        binary = shutil.which("prometheus")
        if binary is None:
            raise PrometheusError("the prometheus binary is not installed (Debian: apt-get install prometheus)")
        self.directory = run_dir / "prometheus"
        self.targets = self.directory / "targets"
        self.targets.mkdir(parents=True, exist_ok=True)
        for config in sorted(prometheus_config().glob("*.yml")):  # prometheus.yml and its rule files
            shutil.copy(config, self.directory / config.name)
        self.port = _free_port(host)
        self.url = f"http://{host}:{self.port}"
        self._log = (self.directory / "prometheus.log").open("wb")
        self.process = subprocess.Popen(
            [
                binary,
                f"--config.file={self.directory / 'prometheus.yml'}",
                f"--storage.tsdb.path={self.directory / 'data'}",
                f"--web.listen-address={host}:{self.port}",
                "--web.enable-lifecycle",
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    def api(self, path: str, **params: str) -> Any:
        """GET a Prometheus HTTP API path; returns the decoded ``data`` field."""
        query = urllib.parse.urlencode(params)
        with urllib.request.urlopen(f"{self.url}{path}?{query}", timeout=5) as response:
            body = json.load(response)
        if body.get("status") != "success":
            raise RuntimeError(f"prometheus {path}: {body}")
        return body["data"]

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise PrometheusError(f"prometheus exited with {self.process.returncode}; see {self._log.name}")
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError):
                pass
            time.sleep(0.2)  # polling a starting process: nothing to wait on but its port
        raise PrometheusError(f"prometheus at {self.url} not ready after {timeout:g} s; see {self._log.name}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
