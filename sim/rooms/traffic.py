"""What a room sends a seat, in a vocabulary no protocol owns: the engine's events and a few values.

An adapter turns each message its room sends a seat into one :class:`Traffic`: the seat's welcome
(a stream opened), the results of the bot's actions, the table's events and a turn prompt, any of
them absent. The bot (its referee, its tracker, its stats) reads nothing else, so a room is one
adapter away from being loaded, judged and measured.

Events are the engine's records (:mod:`tablestorm.services.engine.events`) as a seat sees them:

* a player is named by the **seat number** (1-based) where the engine says ``player``; the events
  whose fields are by player (``HandStarted.stacks``, ``HandEnded.stacks``) come with the seats they
  follow in :attr:`TableEvent.seats`; ``HandStarted.button`` is the button's seat (-1 in stud);
* a face-down card the seat may not see is ``HIDDEN`` (-1; real cards are 0..51);
* a table's own events, which are no part of a hand's record, are :class:`SeatChanged` and
  :class:`HandVoided`; a message the adapter could not read as any of these is :class:`Malformed`
  (the referee reports it: a protocol violation).

Every value is built once per message a room sends, and an adapter whose room sends equal bytes to
the seats of a table (the gRPC one does) builds it once for all of them: the receivers must not
change what they are given.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from tablestorm.services.engine import events as ev
from tablestorm.services.engine.actions import ActionKind
from tablestorm.services.engine.visibility import HIDDEN
from tablestorm.sim.bots.strategies import Legal

__all__ = [
    "ACCEPTED",
    "HIDDEN",
    "PLAYABLE",
    "HandVoided",
    "Malformed",
    "Prompt",
    "Result",
    "SeatChanged",
    "TableEvent",
    "Traffic",
    "Welcome",
]

ACCEPTED: Final = 0
"""Result.code of an applied action."""
PLAYABLE: Final = frozenset(kind.value for kind in ActionKind) - {ActionKind.TIMEOUT.value}
"""The kinds a prompt may offer (the clock's timeout is never one)."""


class SeatChanged(NamedTuple):
    """A seat was taken, left, sat out or in, or its stack changed between hands."""

    seat: int
    status: str
    """``"empty"``, ``"playing"`` or ``"sitting_out"`` (at a tournament table: away, TOURN-7)."""
    stack: int


class HandVoided(NamedTuple):
    """The hand was cancelled (a server shutting down): every seat got its starting stack back."""

    seats: tuple[int, ...]
    stacks: tuple[int, ...]


class Malformed(NamedTuple):
    """A message part the adapter could not read (an event without a kind, an enum value its
    protocol does not define): what is wrong, as the referee reports it."""

    what: str


Body = ev.Event | SeatChanged | HandVoided | Malformed


class TableEvent(NamedTuple):
    """One event of the table's stream."""

    seq: int
    """Per table, from 1, one more each event: a resumed stream asks for the events after one."""
    hand_number: int
    server_time_us: int
    """When the room published it, Unix microseconds on its clock (0: the room does not say)."""
    event: Body
    seats: tuple[int, ...] = ()
    """The seats a HandStarted's or HandEnded's ``stacks`` follow, in order."""


class Welcome(NamedTuple):
    """A stream opened for the seat: the table as it stands."""

    seat: int
    gap: bool
    """Events after the one resumed from were lost: the stream does not continue the last one."""
    game: str
    structure: str
    """The betting structure (``tablestorm.services.engine.Structure`` value)."""
    last_seq: int
    """The last event seq the table issued; the stream replays from there (or from the resume)."""
    hand_number: int
    """The last hand started (0: none yet)."""
    hand_running: bool
    sitting_out: bool
    """This seat sits out (at a tournament table: away, acted for by the table: TOURN-7)."""
    stack: int | None
    """This seat's stack (during a hand: what is not in the pot); None: the table lists no such seat."""


class Result(NamedTuple):
    """What became of an action the bot sent: ``code`` 0 (:data:`ACCEPTED`) or the refusal's gRPC
    status number (the vocabulary every error count of a load run uses)."""

    action_id: str
    code: int
    message: str = ""


class Prompt(NamedTuple):
    """The seat's turn: the actions it is offered."""

    seq: int
    """The last event before the turn: sent back with the action, so a late one never lands on a later turn."""
    hand_number: int
    legal: tuple[Legal, ...]
    deadline_ms: int = 0
    """When the action clock runs out (CLOCK-1), Unix milliseconds on the room's clock (0: not said)."""


class Traffic(NamedTuple):
    """One message a room sent a seat, read in this order: welcome, results, events, prompt."""

    welcome: Welcome | None = None
    results: tuple[Result, ...] = ()
    events: tuple[TableEvent, ...] = ()
    prompt: Prompt | None = None
