"""Fixtures shared by the load tests' modules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tablestorm.sim.cluster import connection


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
