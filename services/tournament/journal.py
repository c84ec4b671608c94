"""A tournament server's journal: every director input written before it is acted on, in SQLite.

One file per server (``serve-tournaments --journal FILE``), in WAL mode, ``synchronous=FULL``:
each input is committed, and on disk, before the director sees it, so a server killed at any
moment restarts from the journal with every tournament as it was (docs/tournament_service.md,
"A server that dies"). Per tournament it holds:

* its record: the structure (the API's message), the two seeds, the creation's wall-clock time,
  and the director token its tables were opened with (a restarted server directs them again);
* its inputs in order, each with its tournament time (:mod:`~tablestorm.services.director.inputs`,
  as JSON): the director is deterministic, so they rebuild it exactly;
* the latest :mod:`snapshot <tablestorm.services.director.snapshot>` of its director, every
  ``snapshot_every`` inputs: a restart replays only the inputs after it (earlier ones are deleted);
* each player's token as a SHA-256 digest, never the token itself.

No seat token and no card is written: the director holds neither (docs/security.md).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from tablestorm.services.director import inputs as di
from tablestorm.services.engine.tournament_table import HandResult, SeatResult

__all__ = ["DEFAULT_SNAPSHOT_EVERY", "Journal", "JournalError", "Saved", "TournamentRecord"]

DEFAULT_SNAPSHOT_EVERY = 200
"""Inputs between two snapshots: a restart replays at most this many per tournament (a few ms)."""
WAL_LIMIT = 1 << 20
"""Bytes the write-ahead log is cut back to after a checkpoint (it is reused, not grown)."""
_FORMAT = "tablestorm-journal-1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY, created REAL NOT NULL, structure BLOB NOT NULL,
    seed TEXT NOT NULL, table_seed TEXT, director_token TEXT NOT NULL, next_seq INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS inputs (
    tournament TEXT NOT NULL, seq INTEGER NOT NULL, now REAL NOT NULL, input TEXT NOT NULL,
    PRIMARY KEY (tournament, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    tournament TEXT PRIMARY KEY, seq INTEGER NOT NULL, state BLOB NOT NULL, tally TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    tournament TEXT NOT NULL, player TEXT NOT NULL, digest BLOB NOT NULL, PRIMARY KEY (tournament, player)
) WITHOUT ROWID;
"""
_INPUTS: dict[str, type[Any]] = {kind.__name__: kind for kind in get_args(di.Input)}


class JournalError(ValueError):
    """The journal cannot be opened or read: not a journal, or not writable."""


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    """What a tournament was created with."""

    tournament_id: str
    structure: bytes
    """The ``TournamentStructure`` message, serialized."""
    seed: int
    table_seed: int | None
    director_token: str
    created: float
    """Wall-clock time of the creation (Unix seconds): tournament time runs on from it."""


@dataclass(slots=True)
class Saved:
    """One tournament as the journal has it: its record, the latest snapshot, the inputs after it."""

    record: TournamentRecord
    snapshot: bytes | None
    tally: str | None
    """The live driver's counts at the snapshot (:class:`~.tally.Tally`, as JSON)."""
    inputs: list[tuple[float, di.Input]] = field(default_factory=list)
    players: dict[str, bytes] = field(default_factory=dict)
    """Token digest by player id."""


def encode(given: di.Input) -> str:
    values = {f.name: getattr(given, f.name) for f in dataclasses.fields(given)}
    if isinstance(given, di.HandFinished):
        values["result"] = given.result._asdict() | {"seats": [list(s) for s in given.result.seats]}
    return json.dumps([type(given).__name__, values], separators=(",", ":"))


def decode(text: str) -> di.Input:
    kind, values = json.loads(text)
    if kind == "HandFinished":
        result = values["result"]
        values["result"] = HandResult(
            result["table_id"], result["hand_number"], tuple(SeatResult(*seat) for seat in result["seats"]),
            result["voided"], tuple(result["big_blind_order"]), tuple(result["waiting_seats"]),
        )
    made: di.Input = _INPUTS[kind](**values)
    return made


class Journal:
    """The journal of one tournament server (one writer: the server's event loop)."""

    def __init__(self, path: Path, *, snapshot_every: int = DEFAULT_SNAPSHOT_EVERY) -> None:
        """Open ``path``, creating it (owner-only: it holds director tokens) if missing; JournalError
        if it is not a journal or cannot be written."""
        self.path = path
        self.snapshot_every = snapshot_every
        try:
            if not path.exists():
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except OSError as exc:
            raise JournalError(f"cannot create {path}: {exc.strerror}") from None
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open {path}: {exc}") from None
        try:
            self._setup()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise JournalError(f"{path} is not a tournament journal ({exc})") from None
        self._since: dict[str, int] = {}
        """Inputs appended since the latest snapshot, per tournament."""

    def _setup(self) -> None:
        db = self._db
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "meta" not in tables:
            raise sqlite3.DatabaseError("an SQLite database of something else")
        if db.execute("PRAGMA journal_mode = WAL").fetchone()[0] != "wal":
            raise sqlite3.DatabaseError("WAL mode refused")
        db.execute("PRAGMA synchronous = FULL")
        db.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT}")
        db.executescript(_SCHEMA)
        with self._transaction():
            found = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            if found is None:
                db.execute("INSERT INTO meta VALUES ('format', ?)", (_FORMAT,))
            elif found[0] != _FORMAT:
                raise sqlite3.DatabaseError(f"format {found[0]!r}, this server writes {_FORMAT!r}")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def close(self) -> None:
        self._db.close()

    @property
    def size(self) -> int:
        """Bytes on disk: the database and its write-ahead log."""
        return sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())

    # ----------------------------------------------------------------- writing

    def create(self, record: TournamentRecord) -> None:
        with self._transaction():
            self._db.execute(
                "INSERT INTO tournaments (id, created, structure, seed, table_seed, director_token)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (record.tournament_id, record.created, record.structure, str(record.seed),
                 None if record.table_seed is None else str(record.table_seed), record.director_token),
            )
        self._since[record.tournament_id] = 0

    def append(self, tournament_id: str, now: float, given: di.Input) -> bool:
        """Write one input (committed when this returns); whether a snapshot is due after it."""
        with self._transaction():
            (seq,) = self._db.execute("SELECT next_seq FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
            self._db.execute("INSERT INTO inputs VALUES (?, ?, ?, ?)", (tournament_id, seq, now, encode(given)))
            self._db.execute("UPDATE tournaments SET next_seq = ? WHERE id = ?", (seq + 1, tournament_id))
        since = self._since[tournament_id] = self._since.get(tournament_id, 0) + 1
        return since >= self.snapshot_every

    def snapshot(self, tournament_id: str, state: bytes, tally: str) -> None:
        """The director's state after the last input appended, and the driver's counts (JSON):
        the inputs up to it are deleted."""
        with self._transaction():
            (seq,) = self._db.execute("SELECT next_seq - 1 FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
            self._db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)", (tournament_id, seq, state, tally))
            self._db.execute("DELETE FROM inputs WHERE tournament = ? AND seq <= ?", (tournament_id, seq))
        self._since[tournament_id] = 0

    def player(self, tournament_id: str, player_id: str, digest: bytes | None) -> None:
        """The digest of ``player_id``'s token (None: the player unregistered, its token is void)."""
        with self._transaction():
            if digest is None:
                self._db.execute("DELETE FROM players WHERE tournament = ? AND player = ?", (tournament_id, player_id))
            else:
                self._db.execute("INSERT OR REPLACE INTO players VALUES (?, ?, ?)", (tournament_id, player_id, digest))

    def forget(self, tournament_id: str) -> None:
        """A finished tournament the server no longer keeps."""
        with self._transaction():
            for table in ("inputs", "snapshots", "players"):
                self._db.execute(f"DELETE FROM {table} WHERE tournament = ?", (tournament_id,))
            self._db.execute("DELETE FROM tournaments WHERE id = ?", (tournament_id,))
        self._since.pop(tournament_id, None)

    # ----------------------------------------------------------------- reading back

    def tournaments(self) -> list[Saved]:
        """Every tournament in the journal, in the order they were created."""
        db, saved = self._db, []
        try:
            rows = db.execute(
                "SELECT id, structure, seed, table_seed, director_token, created FROM tournaments ORDER BY rowid"
            ).fetchall()
            for tid, structure, seed, table_seed, token, created in rows:
                record = TournamentRecord(
                    tid, structure, int(seed), None if table_seed is None else int(table_seed), token, created
                )
                found = db.execute("SELECT seq, state, tally FROM snapshots WHERE tournament = ?", (tid,)).fetchone()
                after, state, tally = found if found is not None else (0, None, None)
                inputs = [
                    (now, decode(text))
                    for now, text in db.execute(
                        "SELECT now, input FROM inputs WHERE tournament = ? AND seq > ? ORDER BY seq", (tid, after)
                    )
                ]
                players = dict(db.execute("SELECT player, digest FROM players WHERE tournament = ?", (tid,)))
                saved.append(Saved(record, state, tally, inputs, players))
                self._since[tid] = len(inputs)
        except (sqlite3.Error, KeyError, TypeError, ValueError) as exc:
            raise JournalError(f"{self.path}: unreadable ({exc})") from None
        return saved
