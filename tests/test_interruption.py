"""tablestorm.sim.cluster.interruption: what a run does with a second signal, apart from the real-process tests
(tests/test_load_interrupt.py)."""

from __future__ import annotations

from tablestorm.sim.cluster.interruption import Abort, abort_in


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
