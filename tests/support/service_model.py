"""What the stateful models of the services share: one event loop for a whole example, the ERROR
log, the way choices are drawn, and calls' statuses as values.

A model (``test_table_service_model.py``, ``test_tournament_service_model.py``) is a
:class:`ServiceModel`: real servers and client streams live on one event loop across the steps of
an example (each rule runs its coroutine there with :meth:`ServiceModel.run`), and every record
logged at ERROR meanwhile is kept for the invariants to refuse.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from typing import Any

import grpc
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from support.table_invariants import ErrorLog

index = st.integers(0, 2**16)
"""Choices among what the model holds are drawn as indexes: the draws keep one shape whatever the
server did in between, as Hypothesis requires."""


def pick(values: Sequence[Any], i: int) -> Any:
    """The ``i``-th of ``values`` round the list (None if there are none)."""
    return values[i % len(values)] if values else None


async def status_of(call: Any) -> tuple[grpc.StatusCode, Any, str]:
    """A call's status, reply (None unless OK) and details: every rule states what it expects."""
    try:
        reply = await call
    except grpc.aio.AioRpcError as exc:
        return exc.code(), None, exc.details() or ""
    return grpc.StatusCode.OK, reply, ""


class ServiceModel(RuleBasedStateMachine):
    """A state machine whose steps run coroutines on one event loop kept for the whole example,
    collecting every ERROR logged meanwhile; :meth:`close` (the subclass's) stops its servers."""

    step_timeout = 60.0
    """Seconds one step's coroutine may take: a server that stops answering fails, never hangs, the run."""

    def __init__(self) -> None:
        super().__init__()
        self.runner = asyncio.Runner()
        self.logged = ErrorLog()
        logging.getLogger().addHandler(self.logged)

    def run(self, coroutine: Coroutine[Any, Any, Any], timeout: float | None = None) -> Any:
        return self.runner.run(asyncio.wait_for(coroutine, timeout or self.step_timeout))

    async def close(self) -> None:
        """Close the clients and stop the servers."""
        raise NotImplementedError

    def teardown(self) -> None:
        try:
            self.run(self.close())
        finally:
            self.runner.close()
            logging.getLogger().removeHandler(self.logged)


def explore(model: type[ServiceModel], examples: int, steps: int) -> None:
    """Run ``model`` for ``examples`` examples of up to ``steps`` steps (real time: no deadline)."""
    run_state_machine_as_test(
        model,
        settings=settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
