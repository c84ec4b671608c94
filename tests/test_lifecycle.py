"""The bot lifecycle on its own: every phase change, and what the stream loop does after a stream
ended in each phase (``sim/bots/client/lifecycle.py``). Pure: no stream, no server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest

from tablestorm.sim.bots.client.lifecycle import GIVE_UP, Lifecycle, Next, Phase

StatusCode = grpc.StatusCode


def in_phase(phase: Phase) -> Lifecycle:
    """A lifecycle brought to ``phase`` the way a bot gets there."""
    lifecycle = Lifecycle()
    steps_by_phase: dict[Phase, list[Callable[[], Any]]] = {
        Phase.JOINING: [],
        Phase.PLAYING: [lifecycle.welcomed],
        Phase.DROPPED: [lifecycle.welcomed, lifecycle.drop],
        Phase.RESUMING: [lifecycle.welcomed, lambda: lifecycle.after_stream(StatusCode.UNAVAILABLE)],
        Phase.LEAVING: [lifecycle.welcomed, lifecycle.stop],
        Phase.STOOD_UP: [lifecycle.welcomed, lifecycle.stop, lifecycle.stood_up],
        Phase.GAVE_UP: [lifecycle.welcomed, lifecycle.give_up],
        Phase.STOPPED: [lifecycle.welcomed, lifecycle.stop, lifecycle.stopped],
    }
    for step in steps_by_phase[phase]:
        step()
    assert lifecycle.phase is phase
    return lifecycle


def phase_of(lifecycle: Lifecycle) -> Phase:
    """The phase now (read through a call, as the phase changes under mypy's feet)."""
    return lifecycle.phase


def test_a_bot_joins_plays_drops_resumes_and_leaves() -> None:
    lifecycle = Lifecycle()
    assert phase_of(lifecycle) is Phase.JOINING
    lifecycle.welcomed()
    assert phase_of(lifecycle) is Phase.PLAYING
    assert lifecycle.drop() and phase_of(lifecycle) is Phase.DROPPED
    assert not lifecycle.drop(), "one drop at a time"
    assert lifecycle.after_stream(StatusCode.CANCELLED) == (Next.REOPEN, False)
    assert phase_of(lifecycle) is Phase.RESUMING
    lifecycle.welcomed()
    before = lifecycle.stop()
    assert before is Phase.PLAYING
    assert lifecycle.leaving
    assert not lifecycle.active
    again = lifecycle.stop()
    assert again is None, "a second stop does nothing"
    lifecycle.stood_up()
    assert lifecycle.after_stream(StatusCode.OK) == (Next.DONE, False)
    lifecycle.stopped()
    assert phase_of(lifecycle) is Phase.STOPPED and lifecycle.leaving


@pytest.mark.parametrize("phase", [Phase.JOINING, Phase.PLAYING, Phase.DROPPED, Phase.RESUMING])
@pytest.mark.parametrize("code", sorted(GIVE_UP, key=str), ids=str)
def test_a_failure_no_reconnect_cures_gives_up(phase: Phase, code: StatusCode) -> None:
    lifecycle = in_phase(phase)
    assert lifecycle.after_stream(code) == (Next.GIVE_UP, True)
    assert lifecycle.phase is Phase.GAVE_UP and not lifecycle.active
    assert lifecycle.stop() is Phase.GAVE_UP, "the bot's stop then only closes (it does not stand up)"


@pytest.mark.parametrize(
    ("phase", "after"),
    [(Phase.JOINING, Phase.JOINING), (Phase.PLAYING, Phase.RESUMING), (Phase.DROPPED, Phase.RESUMING),
     (Phase.RESUMING, Phase.RESUMING)],
)
@pytest.mark.parametrize("code", [StatusCode.UNAVAILABLE, StatusCode.INTERNAL, StatusCode.OUT_OF_RANGE], ids=str)
def test_a_retryable_failure_is_counted_and_retried(phase: Phase, after: Phase, code: StatusCode) -> None:
    lifecycle = in_phase(phase)
    assert lifecycle.after_stream(code) == (Next.RETRY, True)
    assert lifecycle.phase is after


def test_a_stream_the_server_ends_ok_is_resumed_without_an_error() -> None:
    lifecycle = in_phase(Phase.PLAYING)
    assert lifecycle.after_stream(StatusCode.OK) == (Next.RETRY, False)


@pytest.mark.parametrize("code", [StatusCode.OK, StatusCode.NOT_FOUND, StatusCode.UNAUTHENTICATED])
def test_a_tournament_seat_the_director_took_ends_the_bot_without_an_error(code: StatusCode) -> None:
    """Moved or out: the table ends the stream OK, or, for a bot reconnecting then, the table is
    closed (NOT_FOUND) or the seat token dead; the player's next seat comes on its Watch stream."""
    lifecycle = Lifecycle(removable=True)
    lifecycle.welcomed()
    assert lifecycle.after_stream(code) == (Next.DONE, False)
    assert lifecycle.phase is Phase.REMOVED and lifecycle.removed and not lifecycle.active
    lifecycle.stop()
    lifecycle.stopped()
    assert lifecycle.removed  # still known once stopped: no new start for that seat


def test_a_tournament_seat_cut_by_a_failing_server_is_resumed() -> None:
    lifecycle = Lifecycle(removable=True)
    lifecycle.welcomed()
    assert lifecycle.after_stream(StatusCode.UNAVAILABLE) == (Next.RETRY, True) and not lifecycle.removed


@pytest.mark.parametrize(("code", "counted"), [(StatusCode.OK, False), (StatusCode.CANCELLED, False),
                                               (StatusCode.UNAVAILABLE, True)], ids=str)
def test_a_leaving_bot_out_of_hands_opens_no_stream_and_counts_only_real_failures(
    code: StatusCode, counted: bool
) -> None:
    """Leaving, the bot closes its own stream (CANCELLED) and the server ends it after StandUp (OK):
    neither is an error; anything else is."""
    assert in_phase(Phase.LEAVING).after_stream(code) == (Next.DONE, counted)


@pytest.mark.parametrize(("code", "then"), [(StatusCode.OK, (Next.DONE, False)),
                                            (StatusCode.CANCELLED, (Next.REOPEN, False)),
                                            (StatusCode.UNAVAILABLE, (Next.RETRY, True)),
                                            (StatusCode.UNAUTHENTICATED, (Next.DONE, True))], ids=str)
def test_a_leaving_bot_dealt_in_resumes_to_see_the_hand_end(code: StatusCode, then: tuple[Next, bool]) -> None:
    """Its table's hand count may be its to make: a drop it made just before the stop is reopened,
    a failure retried (and counted); a server's own end or a dead token ends it."""
    lifecycle = in_phase(Phase.LEAVING)
    assert lifecycle.after_stream(code, dealt_in=True) == then
    assert lifecycle.phase is Phase.LEAVING


@pytest.mark.parametrize("phase", [Phase.STOOD_UP, Phase.STOPPED])
def test_a_stopped_bot_is_done_whatever_the_stream_said(phase: Phase) -> None:
    assert in_phase(phase).after_stream(StatusCode.UNAVAILABLE) == (Next.DONE, False)


@pytest.mark.parametrize("phase", [Phase.LEAVING, Phase.STOOD_UP, Phase.STOPPED, Phase.GAVE_UP])
def test_only_a_playing_bot_drops_or_gives_up_or_is_welcomed(phase: Phase) -> None:
    """A crash while leaving does not stop the leaving; a late Welcome does not bring a bot back."""
    lifecycle = in_phase(phase)
    assert not lifecycle.drop()
    lifecycle.give_up()
    lifecycle.welcomed()
    assert lifecycle.phase is phase
