"""sim/reporting/terminal.py: the one answer to "may this live view redraw in place?", and the three
live views (load, schedule, tournament) asking it, on a real pseudo-terminal."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from typing import TextIO

import pytest

from tablestorm.sim.load.live import LiveView
from tablestorm.sim.load.stats import RunStats
from tablestorm.sim.reporting.terminal import redraws
from tablestorm.sim.schedule.progress import Progress
from tablestorm.sim.tournament.terminal import TournamentView

_END = "-- end --"


@pytest.fixture
def terminal() -> Iterator[tuple[TextIO, Callable[[], str]]]:
    """A pseudo-terminal: the stream a view writes to (a TTY), and a function that marks the end of
    what was written and returns all of it as it arrived on the other side (read up to the mark:
    the terminal may pass it on in pieces)."""
    controller, tty = os.openpty()
    stream = os.fdopen(tty, "w")

    def received() -> str:
        stream.write(_END + "\n")
        stream.flush()
        arrived = ""
        while _END not in arrived:
            arrived += os.read(controller, 1 << 16).decode()
        return arrived.split(_END)[0]

    try:
        yield stream, received
    finally:
        stream.close()
        os.close(controller)


@pytest.mark.parametrize(("term", "expected"), [("xterm-256color", True), ("dumb", False), (None, True)])
def test_a_terminal_redraws_unless_it_is_dumb(
    terminal: tuple[TextIO, Callable[[], str]], monkeypatch: pytest.MonkeyPatch, term: str | None, expected: bool,
) -> None:
    if term is None:
        monkeypatch.delenv("TERM", raising=False)
    else:
        monkeypatch.setenv("TERM", term)
    assert redraws(terminal[0]) is expected
    assert redraws(io.StringIO()) is False  # a file, a pipe, a CI log


def _status(elapsed_s: float) -> dict[str, object]:
    return {"elapsed_s": elapsed_s, "status": "running", "on_break": False, "level": 1, "time_left_s": 60.0,
            "players_left": 9, "entries": 10, "tables": 2, "hands": 12, "eliminations": 1, "hand_for_hand": False,
            "halted": None}


def _show(view: str, stream: TextIO) -> None:
    """Two updates a second apart of the ``view``, then its end."""
    if view == "load":
        load = LiveView(stream, duration_s=10)
        for now in (1.0, 2.0):
            load.update(RunStats(), now=now)
        load.finish()
    elif view == "schedule":
        progress = Progress(2, 4, 4.0, stream=stream)
        for done in (1, 2):
            progress.update(0, done, float(done))
        progress.close()
    else:
        tournament = TournamentView(stream)
        for now in (1.0, 2.0):
            tournament.update(_status(now))
        tournament.finish()


@pytest.mark.parametrize("view", ["load", "schedule", "tournament"])
def test_every_live_view_asks_the_terminal(
    terminal: tuple[TextIO, Callable[[], str]], monkeypatch: pytest.MonkeyPatch, view: str,
) -> None:
    """On a terminal each view redraws (a carriage return or cursor moves); the same terminal saying
    TERM=dumb gets plain lines, without a control character (the schedule's bar ignored TERM)."""
    stream, received = terminal
    monkeypatch.setenv("TERM", "xterm-256color")
    _show(view, stream)
    assert "\x1b[" in received()
    monkeypatch.setenv("TERM", "dumb")
    _show(view, stream)
    plain = received()
    assert plain.strip() and "\x1b" not in plain and "\r" not in plain.replace("\r\n", "\n")
