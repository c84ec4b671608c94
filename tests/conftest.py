"""Fixtures shared by test modules, and what the whole test process sets up once."""

from __future__ import annotations

from collections.abc import Iterator

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
