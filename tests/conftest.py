"""Fixtures shared by test modules, and what the whole test process sets up once."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from tablestorm.sim.cluster import connection

pytest.register_assert_rewrite("support")

# One grpc.aio runtime for the whole test process. Otherwise it is torn down whenever the last aio
# object of a test is collected and built again by the next, and a teardown (joining its poller
# thread) can hang for good: grpc/grpc#22365, #40989. One hung at pytest's final gc.collect here.
grpc.aio.init_grpc_aio()


@pytest.fixture(scope="module")
def ray_local() -> Iterator[connection.ClusterInfo]:
    """One loopback-only local Ray for a module's runs (started here, stopped at the module's end):
    Ray takes seconds to start, so the runs of a module share it."""
    info = connection.connect(None)
    try:
        yield info
    finally:
        if info.started_here:
            connection.disconnect()


@pytest.fixture(scope="module")
def three_nodes() -> Iterator[Any]:
    """A three-node Ray on 127.0.0.1 for a module's runs (``support.ray_nodes``)."""
    from support.ray_nodes import loopback_nodes  # after the rewrite hook above is registered

    with loopback_nodes(3) as nodes:
        yield nodes


@pytest.fixture
def ray_tmpdir() -> Iterator[Path]:
    """A Ray temp dir of the test's own (short: Ray's socket paths must fit 107 bytes)."""
    with tempfile.TemporaryDirectory(prefix="ts-", dir="/tmp") as directory:
        yield Path(directory)
