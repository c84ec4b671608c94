"""The load run registry's journal: its hosts and every table's last ledger entry, in SQLite.

A :class:`~.registry.Registry` given a journal writes each change there before the call that made
it returns (a host's ledger write returns once it is stored: the ledger's promise), and one made
on an existing journal starts from it. The registry *is* the last state of each table, so the
journal keeps that state, one row a table and one a host, updated in place: nothing to replay, no
snapshot to take, and its size follows the tables open, not the hands played.

WAL mode, ``synchronous=NORMAL``: a commit survives the registry's process dying (the fault this
is for: its Ray actor killed and restarted); a power loss may take the last commits, with the
machine and the run. Seat tokens are in every ledger entry (a rebuilt table honours them), so the
journal holds them encrypted (Fernet: AES-128-CBC with an HMAC-SHA256) under a key that never
touches the disk: the driver makes it and gives it to the registry's actor, which Ray gives again
to the actor it restarts.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet, InvalidToken

from tablestorm.services.table.ledger import LedgerEntry, SeatRecord

__all__ = ["RegistryJournal", "RegistryJournalError", "discard", "journal_bytes"]

WAL_LIMIT = 1 << 20
"""Bytes the write-ahead log is cut back to after a checkpoint: the journal keeps one row per
table, so without a limit the log (about 4 MB after a minute's run) outweighs the database."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS hosts (
    host_id TEXT PRIMARY KEY, endpoint TEXT NOT NULL, metrics TEXT NOT NULL, node_id TEXT NOT NULL,
    alive INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY, options BLOB NOT NULL, seed TEXT, host_id TEXT NOT NULL,
    incarnation INTEGER NOT NULL, restoring INTEGER NOT NULL, last TEXT NOT NULL
) WITHOUT ROWID;
"""


def _files(path: Path) -> tuple[Path, Path, Path]:
    """A journal's file, its write-ahead log and the log's index (SQLite's names for them)."""
    return path, path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")


def journal_bytes(path: Path) -> int:
    """A journal's size on disk: its file and its write-ahead log (which holds the latest commits
    until SQLite copies them into the file)."""
    return sum(part.stat().st_size for part in _files(path)[:2] if part.exists())


def discard(path: Path) -> None:
    """Remove a journal and its log, if there is one (an earlier run's, under a key now gone)."""
    for part in _files(path):
        part.unlink(missing_ok=True)


class RegistryJournalError(ValueError):
    """Not a registry journal, or not one this key opens."""


class RegistryJournal:
    """The registry's state on disk (one writer: the registry's actor)."""

    def __init__(self, path: Path, key: bytes) -> None:
        try:
            self._fernet = Fernet(key)
        except ValueError as exc:
            raise RegistryJournalError(f"key: {exc}") from None
        self.path = path
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._db.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT}")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise RegistryJournalError(f"{path}: not a registry journal ({exc})") from None

    def close(self) -> None:
        self._db.close()

    def save(self, hosts: list[tuple[str, str, str, str, bool]],
             tables: list[tuple[str, bytes, int | None, str, int, bool, LedgerEntry]]) -> None:
        """Store these hosts' and tables' rows (as :class:`~.registry.Registry` holds them), in one commit."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany("INSERT OR REPLACE INTO hosts VALUES (?, ?, ?, ?, ?)", hosts)
            db.executemany(
                "INSERT OR REPLACE INTO tables VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(t, options, None if seed is None else str(seed), host, incarnation, restoring, self._entry(last))
                 for t, options, seed, host, incarnation, restoring, last in tables],
            )
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def load(self) -> tuple[list[tuple[str, str, str, str, bool]],
                            list[tuple[str, bytes, int | None, str, int, bool, LedgerEntry]]]:
        """Every host's and table's row, as :meth:`save` took them."""
        try:
            hosts = [(h, e, m, n, bool(alive)) for h, e, m, n, alive in self._db.execute("SELECT * FROM hosts")]
            tables = [
                (t, options, None if seed is None else int(seed), host, incarnation, bool(restoring), self._read(last))
                for t, options, seed, host, incarnation, restoring, last in self._db.execute("SELECT * FROM tables")
            ]
        except InvalidToken:
            raise RegistryJournalError(f"{self.path}: its seat tokens are not under this key") from None
        except (sqlite3.Error, KeyError, TypeError, ValueError) as exc:
            raise RegistryJournalError(f"{self.path}: unreadable ({exc})") from None
        return hosts, tables

    def _entry(self, entry: LedgerEntry) -> str:
        data: dict[str, Any] = {
            "table_id": entry.table_id, "kind": entry.kind, "hand_number": entry.hand_number,
            "seats": [[s.seat, s.player_id, s.stack, self._fernet.encrypt(s.token.encode()).decode(), s.sitting_out]
                      for s in entry.seats],
            "options": base64.b64encode(entry.options).decode(), "seed": entry.seed,
            "bought": entry.bought, "cashed_out": entry.cashed_out,
        }
        return json.dumps(data, separators=(",", ":"))

    def _read(self, text: str) -> LedgerEntry:
        data = json.loads(text)
        seats = tuple(
            SeatRecord(seat, player, stack, self._fernet.decrypt(token.encode()).decode(), out)
            for seat, player, stack, token, out in data.pop("seats")
        )
        return LedgerEntry(seats=seats, options=base64.b64decode(data.pop("options")), **data)
