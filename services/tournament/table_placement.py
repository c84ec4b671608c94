"""Where one tournament's tables are on the table servers: a pure model, fed with what happened and
answering what to do, as frozen values. No I/O, no asyncio, no clock: the live driver
(:mod:`.live`) makes the calls it decides, over gRPC, and feeds their answers back.

::

    open --> OPENING --created (opened)--> PLACED --lose / close / halt--> its copy STALE
               |  ^                                                            |
               |  +--- the copy on the server tried is STALE: Close it first <--+
               +--no server took it--> UNPLACED --offer (a server up)--> Rebuild: open again
    STALE --closed (gone)--> none left

Each of the director's open tables is *opening* (offered to the servers up, least loaded first),
*placed* (one copy on one server, numbered by its *epoch*: results of an earlier placement are
stale), or *unplaced* (no server took it). The copy a table leaves behind is *stale* until a
CloseTable says it is gone: lost with its server, refused, broken by the director, left when the
tournament halted, or a CreateTable that went unanswered (it may have opened all the same). The
rules, each a fault once seen (``tests/test_table_placement.py`` plays each sequence):

* A stale copy is closed as soon as its server is up: at once if it is, else when it is back,
  whenever that is (the tournament may have finished meanwhile). One CloseTable at a time per copy.
* A table is never opened beside its own stale copy (the same wire id): that copy is closed first,
  and while its hand still plays out (the table server removes a closing table only after its
  hand) the next server is tried.
* A server back has its stale copies closed, then the unplaced tables are offered again; while
  any server is up, an unplaced table is also offered again every little while (:class:`OfferLater`).
* A server lost loses every table placed there, one :class:`Lose` each (the director rebuilds
  them one step at a time, with the stacks it holds); a table placed on a server already lost
  meanwhile is lost too.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "Abandon",
    "Answer",
    "Close",
    "Copy",
    "Create",
    "Decision",
    "Lose",
    "NotPlaced",
    "Offer",
    "OfferLater",
    "Placed",
    "Placement",
    "Rebuild",
    "TablePlacement",
]


@dataclass(frozen=True, slots=True)
class Copy:
    """A table's copy on one table server (the table service knows it by ``wire_id``)."""

    endpoint: str
    wire_id: str


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a placed table is, and which of its placements this is."""

    copy: Copy
    epoch: int


# ----------------------------------------------------------------- what to do


@dataclass(frozen=True, slots=True)
class Create:
    """Open ``table_id`` there (CreateTable); answer with :meth:`TablePlacement.created`."""

    table_id: str
    copy: Copy


@dataclass(frozen=True, slots=True)
class Close:
    """Close a stale copy (CloseTable); answer with :meth:`TablePlacement.closed`."""

    copy: Copy


@dataclass(frozen=True, slots=True)
class Placed:
    """The table opened there: its next commands go to it."""

    table_id: str
    placement: Placement
    was_unplaced: bool
    """It had waited unplaced (the driver says how long)."""


@dataclass(frozen=True, slots=True)
class NotPlaced:
    """No server took the table now: its next commands wait for its rebuild."""

    table_id: str
    first: bool
    """It was not unplaced before (the driver says so once)."""


@dataclass(frozen=True, slots=True)
class OfferLater:
    """A server is up but the unplaced tables found none: offer them again in a while
    (:meth:`TablePlacement.offers`), once, whatever the number of these."""


@dataclass(frozen=True, slots=True)
class Offer:
    """Offer each unplaced table again, each in a step of its own (:meth:`TablePlacement.offer`);
    a later offer is not needed."""

    table_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Lose:
    """The table's placement is lost: in a step of its own, :meth:`TablePlacement.lose`."""

    table_id: str
    epoch: int


@dataclass(frozen=True, slots=True)
class Abandon:
    """The table left that placement: its running deal is dropped, its server carries one table less."""

    table_id: str
    placement: Placement


@dataclass(frozen=True, slots=True)
class Rebuild:
    """The director rebuilds the table (``Director.table_lost``): it opens it again and reseats it."""

    table_id: str
    lost: bool
    """A placement was lost (False: an unplaced table offered again)."""


Decision = Create | Close | Placed | NotPlaced | OfferLater | Offer | Lose | Abandon | Rebuild


class Answer(enum.Enum):
    """How a server answered a CreateTable."""

    OPENED = "opened"
    REFUSED = "refused"
    """An error status: the table is not there (a table limit, or a copy this model does not know)."""
    UNANSWERED = "unanswered"
    """No answer (the server is reported down): the table may have opened there all the same."""


@dataclass(slots=True)
class _Opening:
    """A table being offered to the servers, one after the other."""

    wire_id: str
    candidates: deque[str]
    """The servers still to try, in order."""
    trying: str | None = None
    """The server whose CreateTable is under way."""
    waiting: Copy | None = None
    """The stale copy whose closing it waits on."""


class TablePlacement:
    """One tournament's tables on the table servers, changed only by its methods (one per thing
    that happens); each returns what to do, in order."""

    def __init__(self, endpoints: Iterable[str], down: Iterable[str] = ()) -> None:
        """``endpoints``: every table server; ``down``: those down now."""
        self._up = set(endpoints) - set(down)
        self._placed: dict[str, Placement] = {}
        self._opening: dict[str, _Opening] = {}
        self._unplaced: dict[str, None] = {}
        """Tables no server took, in the order they were not taken."""
        self._stale: dict[Copy, None] = {}
        """Stale copies, in the order they were left."""
        self._closing: set[Copy] = set()
        """Stale copies whose CloseTable is under way."""
        self._sweeps: dict[str, set[Copy]] = {}
        """Per server, the stale copies whose closings it waits on before the unplaced tables are
        offered again."""
        self._epochs = 0
        self._halted = False

    # ----------------------------------------------------------------- views

    def where(self, table_id: str) -> Placement | None:
        return self._placed.get(table_id)

    def current(self, table_id: str, epoch: int) -> bool:
        """Whether ``epoch`` is the table's placement now (else what it answers is stale)."""
        placement = self._placed.get(table_id)
        return placement is not None and placement.epoch == epoch

    @property
    def unplaced(self) -> tuple[str, ...]:
        return tuple(self._unplaced)

    @property
    def stale(self) -> tuple[Copy, ...]:
        """Copies not yet known gone from their servers."""
        return tuple(self._stale)

    # ----------------------------------------------------------------- the director's commands

    def open(self, table_id: str, wire_id: str, candidates: Sequence[str]) -> list[Decision]:
        """OpenTable: offer the table to ``candidates`` (the servers up, least loaded first) in turn."""
        self._opening[table_id] = _Opening(wire_id, deque(candidates))
        return self._try_next(table_id)

    def close(self, table_id: str) -> list[Decision]:
        """CloseTable (the director broke the table, or the tournament is over): its copy is stale
        (its running hand, if any, plays out first); an unplaced table is forgotten."""
        self._unplaced.pop(table_id, None)
        return self._retire(table_id) if table_id in self._placed else []

    # ----------------------------------------------------------------- a restart

    def adopt(self, table_id: str, copy: Copy) -> Placement:
        """A restarted server found the table's copy as its director holds it: placed there."""
        self._epochs += 1
        placement = self._placed[table_id] = Placement(copy, self._epochs)
        return placement

    def orphan(self, copy: Copy) -> list[Decision]:
        """A restarted server found a copy it does not keep: stale, closed."""
        return self._left(copy)

    # ----------------------------------------------------------------- steps of the driver

    def lose(self, table_id: str, epoch: int) -> list[Decision]:
        """The table's placement ``epoch`` is lost (its server, or a call it refused): its copy is
        stale, and the director rebuilds it. Nothing if it was lost (or closed) already."""
        if not self.current(table_id, epoch):
            return []
        return [*self._retire(table_id), Rebuild(table_id, lost=True)]

    def offer(self, table_id: str) -> list[Decision]:
        """An unplaced table offered again: rebuilt if a server is up."""
        if table_id in self._unplaced and self._up:
            return [Rebuild(table_id, lost=False)]
        return []

    def offers(self) -> list[Decision]:
        """The unplaced tables' later offer is due."""
        return self._offer()

    def halt(self) -> list[Decision]:
        """The tournament stops before its end: every placement is abandoned and its copy closed
        (when its server is up); a table opening meanwhile is closed once its answer comes."""
        self._halted = True
        decisions: list[Decision] = []
        for table_id in list(self._placed):
            decisions += self._retire(table_id)
        for table_id in [t for t, opening in self._opening.items() if opening.trying is None]:
            del self._opening[table_id]
        self._unplaced.clear()
        return decisions

    # ----------------------------------------------------------------- the servers

    def server_lost(self, endpoint: str) -> list[Decision]:
        """``endpoint`` is down: every table placed there is lost."""
        self._up.discard(endpoint)
        return [Lose(t, p.epoch) for t, p in self._placed.items() if p.copy.endpoint == endpoint]

    def server_back(self, endpoint: str) -> list[Decision]:
        """``endpoint`` is up again: its stale copies are closed, then the unplaced tables offered."""
        self._up.add(endpoint)
        return self._sweep([c for c in self._stale if c.endpoint == endpoint], endpoint)

    # ----------------------------------------------------------------- answers

    def created(self, table_id: str, answer: Answer) -> list[Decision]:
        """The CreateTable of :class:`Create` answered."""
        opening = self._opening[table_id]
        assert opening.trying is not None, table_id
        copy, opening.trying = Copy(opening.trying, opening.wire_id), None
        if answer is Answer.OPENED:
            del self._opening[table_id]
            self._epochs += 1
            placement = self._placed[table_id] = Placement(copy, self._epochs)
            if self._halted:
                return self._retire(table_id)
            decisions: list[Decision] = [Placed(table_id, placement, table_id in self._unplaced)]
            self._unplaced.pop(table_id, None)
            if copy.endpoint not in self._up:  # lost while it opened: the Lose of its server came first
                decisions.append(Lose(table_id, placement.epoch))
            return decisions
        decisions = [] if answer is Answer.REFUSED else self._left(copy)  # unanswered: it may be there
        if self._halted:
            del self._opening[table_id]
            return decisions
        return decisions + self._try_next(table_id)

    def closed(self, copy: Copy, gone: bool) -> list[Decision]:
        """The CloseTable of :class:`Close` answered: ``gone`` (closed, or not there), or not (its
        hand still plays out, or no answer: the server is reported down)."""
        self._closing.discard(copy)
        if gone:
            self._stale.pop(copy, None)
        decisions: list[Decision] = []
        for table_id, opening in list(self._opening.items()):
            if opening.waiting == copy:
                opening.waiting = None
                if gone and copy.endpoint in self._up:
                    opening.trying = copy.endpoint
                    decisions.append(Create(table_id, copy))
                else:
                    decisions += self._try_next(table_id)
        sweep = self._sweeps.get(copy.endpoint, set())
        if copy in sweep:
            sweep.discard(copy)
            if not sweep:
                del self._sweeps[copy.endpoint]
                decisions += self._offer()
        return decisions

    # ----------------------------------------------------------------- inside

    def _try_next(self, table_id: str) -> list[Decision]:
        """Offer an opening table to its next candidate still up; unplaced when none is left."""
        opening = self._opening[table_id]
        while opening.candidates:
            endpoint = opening.candidates.popleft()
            if endpoint not in self._up:
                continue  # lost since the offer began
            copy = Copy(endpoint, opening.wire_id)
            if copy in self._stale:
                opening.waiting = copy
                return self._close(copy)
            opening.trying = endpoint
            return [Create(table_id, copy)]
        del self._opening[table_id]
        first = table_id not in self._unplaced
        self._unplaced[table_id] = None
        return [NotPlaced(table_id, first), *([OfferLater()] if self._up else [])]

    def _retire(self, table_id: str) -> list[Decision]:
        """The table leaves its placement."""
        placement = self._placed.pop(table_id)
        return [Abandon(table_id, placement), *self._left(placement.copy)]

    def _left(self, copy: Copy) -> list[Decision]:
        """``copy`` is stale: closed now if its server is up (else when it is back)."""
        self._stale[copy] = None
        return self._sweep([copy], copy.endpoint) if copy.endpoint in self._up else []

    def _sweep(self, copies: list[Copy], endpoint: str) -> list[Decision]:
        """Close ``copies`` (stale, on ``endpoint``, which is up); once they are answered, offer
        the unplaced tables again (at once if there is none)."""
        if not copies:
            return self._offer()
        self._sweeps.setdefault(endpoint, set()).update(copies)
        decisions: list[Decision] = []
        for copy in copies:
            decisions += self._close(copy)
        return decisions

    def _close(self, copy: Copy) -> list[Decision]:
        """A CloseTable for ``copy``, unless one is under way (its answer serves every waiter)."""
        if copy in self._closing:
            return []
        self._closing.add(copy)
        return [Close(copy)]

    def _offer(self) -> list[Decision]:
        if self._halted or not self._unplaced:
            return []
        return [Offer(tuple(self._unplaced))]
