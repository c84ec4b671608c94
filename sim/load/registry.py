"""Where every table lives, and the ledger that lets a dead host's tables be rebuilt elsewhere.

One registry serves a load run (a named Ray actor wraps :class:`Registry`). Table hosts register
their endpoints and write their ledger entries here; bots ask it where a table lives after their
stream breaks; the driver asks it, when a host dies, for the last consistent state of each table
that host held (see :mod:`tablestorm.services.table.ledger`). Given a journal
(:mod:`.registry_journal`), every change is stored there before the call that made it returns,
and a registry made again on that journal (its actor restarted) starts where the last one was.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablestorm.services.table.ledger import LedgerEntry, RecoveryPlan
from tablestorm.sim.load.batching import Batched
from tablestorm.sim.load.registry_journal import RegistryJournal


@dataclass(slots=True)
class HostInfo:
    host_id: str
    endpoint: str
    metrics: str
    node_id: str
    alive: bool = True


@dataclass(frozen=True, slots=True)
class ChipCount:
    bought: int
    cashed_out: int
    on_tables: int


@dataclass(slots=True)
class _Table:
    options: bytes
    seed: int | None
    host_id: str
    last: LedgerEntry
    incarnation: int = 0
    """Rebuilds so far (each on another host, after its host died)."""
    restoring: bool = False
    """Moved to ``host_id`` and not rebuilt there yet: nobody is sent to it until it is."""

    @property
    def open(self) -> bool:
        return self.last.kind != "closed"


class Registry:
    """A load run's one source of truth outside the hosts: where every table lives, and each
    table's ledger, so a lost host's tables can be rebuilt elsewhere with no chip lost.

    Every call may run twice with the same effect as once: Ray calls again, on the restarted actor,
    a call whose answer its dead process never sent, though the journal may hold what it did. The
    reads change nothing; :meth:`register_host` and :meth:`mark_dead` set what they set;
    :meth:`record` gets a host's batch again, and its entries, applied again in order, end where
    they did (a host has one batch out at a time); :meth:`move` leaves a table already moved.
    """

    def __init__(self, journal: str | None = None, key: bytes | None = None) -> None:
        """``journal``: a file to keep every change in (created if missing, else read back),
        ``key``: the Fernet key its seat tokens are encrypted with (required with a journal)."""
        self.hosts: dict[str, HostInfo] = {}
        self._tables: dict[str, _Table] = {}
        self._journal: RegistryJournal | None = None
        if journal is not None:
            if key is None:
                raise ValueError("key: a journal's seat tokens need a key")
            self._journal = RegistryJournal(Path(journal), key)
            hosts, tables = self._journal.load()
            self.hosts = {row[0]: HostInfo(*row) for row in hosts}
            self._tables = {
                t: _Table(options, seed, host_id, last, incarnation, restoring)
                for t, options, seed, host_id, incarnation, restoring, last in tables
            }

    def _saved(self, host_ids: list[str], table_ids: list[str]) -> None:
        """These hosts and tables as they are now, in the journal (if any) before the call returns."""
        if self._journal is None:
            return
        hosts = [(h.host_id, h.endpoint, h.metrics, h.node_id, h.alive) for h in map(self.hosts.__getitem__, host_ids)]
        tables = [
            (t, table.options, table.seed, table.host_id, table.incarnation, table.restoring, table.last)
            for t, table in ((t, self._tables[t]) for t in table_ids)
        ]
        self._journal.save(hosts, tables)

    # ----------------------------------------------------------------- hosts and placement

    def register_host(self, host_id: str, endpoint: str, metrics: str, node_id: str) -> None:
        self.hosts[host_id] = HostInfo(host_id, endpoint, metrics, node_id)
        self._saved([host_id], [])

    def mark_dead(self, host_id: str) -> list[str]:
        """Take a host out of service; returns the tables it held."""
        self.hosts[host_id].alive = False
        self._saved([host_id], [])
        return [t for t, table in self._tables.items() if table.host_id == host_id and table.open]

    def where(self, table_id: str) -> str | None:
        """The endpoint now serving ``table_id`` (None while it has no live host)."""
        table = self._tables.get(table_id)
        if table is None or table.restoring:
            return None
        host = self.hosts.get(table.host_id)
        return host.endpoint if host is not None and host.alive else None

    def where_many(self, table_ids: list[str]) -> list[str | None]:
        """:meth:`where` of each table, in order (a fleet's batched lookups)."""
        return [self.where(table_id) for table_id in table_ids]

    def move(self, table_id: str, host_id: str) -> None:
        """Hand a dead host's table to ``host_id`` to rebuild; :meth:`where` answers None until the
        new host has recorded the rebuilt seats (before that its seat tokens are not valid there).

        A table already on ``host_id`` stays as it is: a table only ever moves off a dead host, so
        that is this move made already, and a call retried after a restart of the registry's
        actor (its first run stored, its answer lost) must not count a second rebuild."""
        table = self._tables[table_id]
        if table.host_id == host_id:
            return
        table.host_id = host_id
        table.incarnation += 1
        table.restoring = True
        self._saved([], [table_id])

    def tables(self) -> dict[str, str]:
        """Every open table and the host holding it."""
        return {t: table.host_id for t, table in self._tables.items() if table.open}

    # ----------------------------------------------------------------- the ledger

    def record(self, host_id: str, entries: list[LedgerEntry]) -> None:
        """Store a host's entries, in the order it wrote them."""
        for entry in entries:
            self._record(host_id, entry)
        self._saved([], list(dict.fromkeys(entry.table_id for entry in entries if entry.table_id in self._tables)))

    def _record(self, host_id: str, entry: LedgerEntry) -> None:
        table = self._tables.get(entry.table_id)
        if table is None or not table.open:
            if entry.kind == "created":  # a new table (or one opened again under a closed one's id)
                self._tables[entry.table_id] = _Table(entry.options, entry.seed, host_id, entry)
        elif table.host_id == host_id and entry.kind != "created":
            # A dead host's late writes never overwrite its successor's; and the successor's
            # "created" (a rebuild starting) keeps the entry it rebuilds from until its seats come.
            table.last = entry
            table.restoring = False

    def plan(self, table_id: str) -> RecoveryPlan:
        table = self._tables[table_id]
        return RecoveryPlan(
            table.options, table.seed, table.last, table.last.kind == "hand_started", table.incarnation
        )

    def seat_token(self, table_id: str, seat: int, player_id: str) -> str | None:
        """The token of ``player_id`` at ``seat`` by the ledger (None if they are not seated there)."""
        table = self._tables.get(table_id)
        if table is None:
            return None
        for record in table.last.seats:
            if record.seat == seat and record.player_id == player_id:
                return record.token
        return None

    def chips(self) -> ChipCount:
        """Chips by the ledger: bought onto tables, cashed out, and on the tables (seats' stacks).

        Exact once no hand is running (after the hosts drain): ``bought == on_tables + cashed_out``
        is the run's chip conservation, across every crash and rebuild.
        """
        open_tables = [t.last for t in self._tables.values()]
        return ChipCount(
            bought=sum(e.bought for e in open_tables),
            cashed_out=sum(e.cashed_out for e in open_tables),
            on_tables=sum(s.stack for e in open_tables for s in e.seats),
        )


class BatchingLedger:
    """A host's :class:`~tablestorm.services.table.ledger.TableLedger` writing to a remote registry in batches.

    Every entry waiting when a write goes out travels in that one call, so a busy host makes a few
    calls per second, not one per hand; :meth:`record` returns once the batch holding its entry is
    stored. ``send`` is the remote call (a Ray actor method's ``remote`` in a load run).
    """

    __slots__ = ("_calls", "_host_id", "_send")

    def __init__(self, host_id: str, send: Any) -> None:
        self._host_id = host_id
        self._send = send
        self._calls: Batched[LedgerEntry, None] = Batched(self._write)

    async def _write(self, batch: list[LedgerEntry]) -> list[None]:
        await self._send(self._host_id, batch)
        return [None] * len(batch)

    async def record(self, entry: LedgerEntry) -> None:
        await self._calls.ask(entry)

    def note(self, entry: LedgerEntry) -> None:
        self._calls.tell(entry)
