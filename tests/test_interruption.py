"""tablestorm.sim.cluster.interruption: what a signal does where, with real signals sent to this
process (the commands' real-process tests: tests/test_load_interrupt.py, tests/test_schedule_run.py,
tests/test_tournament_live.py)."""

from __future__ import annotations

import io
import signal

import pytest

from tablestorm.sim.cluster.interruption import SIGNALS, Abort, Interruption, abort_in


def test_an_abort_wrapped_by_native_code_is_still_found() -> None:
    """A second signal landing in Ray's wait or deserializer comes back as the cause or context of
    another exception (a SystemError, a deserialization error): the run still stops as aborted."""
    abort = Abort("SIGINT")
    try:
        try:
            raise abort
        except Abort as inner:
            raise SystemError("<built-in method wait> returned a result with an exception set") from inner
    except SystemError as wrapped:
        assert abort_in(wrapped) is abort
    try:
        try:
            raise abort
        except Abort:
            raise RuntimeError("failed to deserialize")  # noqa: B904 -- the context, as native code leaves it
    except RuntimeError as in_context:
        assert abort_in(in_context) is abort
    assert abort_in(ValueError("no signal")) is None


def _said(stream: io.StringIO) -> list[str]:
    return [line for line in stream.getvalue().splitlines() if line]


def test_in_a_run_the_first_signal_winds_down_and_the_next_stops_it_each_named() -> None:
    """Real signals sent to this process: SIGTERM is answered as SIGTERM (how to send it again, not
    Ctrl-C), and a second signal, of either kind, raises Abort."""
    for signum, hint in ((signal.SIGTERM, "send SIGTERM again"), (signal.SIGINT, "press Ctrl-C again")):
        stream = io.StringIO()
        interruption = Interruption(stream)
        with interruption.running():
            signal.raise_signal(signum)
            assert interruption.requested.is_set() and interruption.signal_name == signum.name
            assert not interruption.aborted
            with pytest.raises(Abort, match="SIGINT"):
                signal.raise_signal(signal.SIGINT)
        assert interruption.aborted
        again = "SIGINT again" if signum == signal.SIGINT else "SIGINT after SIGTERM"
        assert _said(stream) == [f"{signum.name}: winding down ({hint} to stop at once)",
                                 f"{again}: stopping now, writing what was measured"]


def test_outside_a_run_a_signal_stops_at_once_but_waits_for_a_shielded_block() -> None:
    """Before a run (Ray starting, actors deploying) nothing could wind down: the first signal
    raises Abort. While the outputs are written (shielded) a signal waits, however many come."""
    stream = io.StringIO()
    interruption = Interruption(stream)
    with interruption.installed():
        with interruption.shielded("writing the report"):
            signal.raise_signal(signal.SIGTERM)
            signal.raise_signal(signal.SIGTERM)
        assert interruption.signal_name == "SIGTERM" and not interruption.aborted
        with pytest.raises(Abort):
            signal.raise_signal(signal.SIGINT)
    assert _said(stream) == ["SIGTERM: writing the report, one moment", "SIGTERM again: writing the report, one moment",
                             "SIGINT after SIGTERM: stopping now"]
    fresh = Interruption(io.StringIO())
    with fresh.installed(), pytest.raises(Abort, match="SIGTERM"):
        signal.raise_signal(signal.SIGTERM)
    assert fresh.aborted and fresh.requested.is_set()


def test_the_handlers_are_restored_after_the_block() -> None:
    before = {sig: signal.getsignal(sig) for sig in SIGNALS}
    interruption = Interruption(io.StringIO())
    with interruption.installed(), interruption.running():
        assert all(signal.getsignal(sig) != before[sig] for sig in SIGNALS)
    assert {sig: signal.getsignal(sig) for sig in SIGNALS} == before
