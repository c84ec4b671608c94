"""The room adapter interface: everything a bot asks of a room, and nothing of how the room is spoken to.

A bot (its strategy, think time, lifecycle, referee and stats: :mod:`tablestorm.sim.bots.client`)
talks to a room only through these types, so a room that speaks another protocol is one adapter
class away (``docs/rooms.md``: how to write one, with the gRPC adapter as the worked example).

* :class:`Room`: one per fleet (one process), holding the connections its seats share. It lists
  and opens tables and makes a :class:`SeatLine` per bot.
* :class:`SeatLine`: one seat's calls (sit with a buy-in, stand up, sit out and in, rebuy, whether
  the table is closing) and its stream (:meth:`SeatLine.play`), on which the room's traffic arrives
  as :class:`~.traffic.Traffic` and the bot's actions go out (:meth:`PlayStream.act`).

Failures are :class:`RoomError` with a gRPC status code, the vocabulary of every error count in a
load run's reports and of the bot's lifecycle (which failures a reconnect cures); a stream ends
with one too (``OK``: the room ended it; the seat stood up or the table closed).

Time: events carry the room's own publication time (``TableEvent.server_time_us``, 0 when the room
does not give it) and prompts their deadline; the bot times an action from when it meant to send
it, so :meth:`PlayStream.act` must hand the action to the transport at once, never queue it behind
a wait of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple, Protocol

import grpc

from tablestorm.services.engine import TableOptions
from tablestorm.services.fields import FieldError
from tablestorm.sim.bots.strategies import Action
from tablestorm.sim.rooms.traffic import Traffic

__all__ = ["Deliver", "PlayStream", "Room", "RoomError", "SeatLine", "Seated", "TableInfo", "known_options"]

Deliver = Callable[[Traffic], None]
"""Called with each message of a seat's stream, in order, as soon as it is in; it must not change
what it is given (an adapter may hand every seat of a table the same value)."""


def known_options(options: Mapping[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
    """``options`` as a dict, refusing the first key not ``known`` (a :class:`FieldError` naming the
    key: the caller names where the options came from, ``room.options.`` of a scenario)."""
    unknown = sorted(str(key) for key in options if key not in known)
    if unknown:
        raise FieldError(unknown[0], f"unknown option of this room (known: {', '.join(known)})")
    return dict(options)


class RoomError(Exception):
    """A call the room refused or could not answer; ``code`` says which (see the module docstring)."""

    def __init__(self, code: grpc.StatusCode, message: str = "") -> None:
        super().__init__(f"{code.name}: {message}" if message else code.name)
        self.code = code
        self.message = message


class Seated(NamedTuple):
    """A seat taken: the token that plays it, and the chips it bought."""

    token: str
    stack: int


class TableInfo(NamedTuple):
    """A table of the room's lobby."""

    table_id: str
    game: str
    seats: int
    seated: int


class PlayStream(Protocol):
    """One open stream of a seat: its traffic goes to the :data:`Deliver` it was opened with."""

    @property
    def ended(self) -> asyncio.Future[grpc.StatusCode]:
        """The status the stream ended with (OK: the room ended it; CANCELLED: :meth:`cancel`)."""
        ...

    def act(self, action_id: str, action: Action, prompt_seq: int) -> Awaitable[None] | None:
        """Send ``action`` for the prompt of ``prompt_seq``; its fate comes back as a
        :class:`~.traffic.Result` of ``action_id``. An awaitable returned is awaited in the
        background (a send that completes later); None: it left at once."""
        ...

    def cancel(self) -> bool:
        """End the stream (CANCELLED); False if it had ended already."""
        ...


class SeatLine(Protocol):
    """One seat's line to its table: the calls and streams of one bot (see the module docstring).
    ``token`` is the seat's credential ("": not seated yet); ``endpoint`` where the table is now."""

    token: str

    @property
    def endpoint(self) -> str: ...

    async def sit(self, buy_in: int | None, timeout: float) -> Seated:
        """Take the seat (``buy_in`` None: the table's posted buy-in); sets :attr:`token`."""
        ...

    async def stand_up(self, timeout: float) -> int:
        """Leave and cash out; returns the chips. FAILED_PRECONDITION while dealt into a hand."""
        ...

    async def sit_out(self, timeout: float) -> None:
        """Not dealt in from the next hand on."""
        ...

    async def sit_in(self, timeout: float) -> None:
        """Dealt in again (after sitting out, or a timeout's CLOCK-3)."""
        ...

    async def rebuy(self, timeout: float) -> int:
        """Buy in again when broke; returns the new stack. FAILED_PRECONDITION when the table takes
        no rebuy now (a hand running, the table closing)."""
        ...

    async def closing(self, timeout: float) -> bool:
        """Whether the table is closing (deals no more hands, takes no rebuys)."""
        ...

    async def play(self, deliver: Deliver, resume_after: int | None) -> PlayStream:
        """Open the seat's stream: a :class:`~.traffic.Welcome` first, then the table's events
        after ``resume_after`` (None: join afresh, the running hand replayed from its start), the
        results of its actions and its prompts. OSError: no connection (retried as UNAVAILABLE)."""
        ...

    def move(self, endpoint: str) -> None:
        """The table lives at ``endpoint`` now (it moved to another server after a crash)."""
        ...

    def release(self) -> None:
        """The bot is done: whatever the line holds of the room's connections goes back."""
        ...


class Room(Protocol):
    """A room the bots of one process play in (see the module docstring).

    Made from ``options`` (a scenario's ``room.options``): the keys an adapter takes, which its
    constructor checks (:func:`known_options`), naming a bad one by its key in a
    :class:`~tablestorm.services.fields.FieldError`. The constructor opens nothing (connections
    open as lines ask for them): a run makes one room to check its options before it starts."""

    def __init__(self, options: Mapping[str, Any]) -> None: ...

    def line(self, endpoint: str, table_id: str, seat: int, player_id: str, token: str = "") -> SeatLine:
        """A line for one seat of a table at ``endpoint`` ("host:port" or the room's own address
        form); ``token``: an already-seated player's credential (the bot plays that seat without
        sitting down)."""
        ...

    async def tables(self, endpoint: str, game: str = "") -> list[TableInfo]:
        """The lobby: the tables at ``endpoint``, of one game or all."""
        ...

    async def open_table(self, endpoint: str, table_id: str, options: TableOptions, seed: int | None = None) -> str:
        """Open a table (``table_id`` "": the room picks one); returns its id."""
        ...

    @property
    def connections(self) -> int:
        """Connections open now (a fleet reports them)."""
        ...

    async def close(self) -> None:
        """Close every connection (the lines are all released or abandoned). The room can be
        used again afterwards: it opens connections as lines ask for them."""
        ...
