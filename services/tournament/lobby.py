"""All the tournaments of one server, as a typed domain API: create, find, enter, play, watch.

The RPC layer (:mod:`.service`) checks and converts wire messages and calls the lobby; the lobby
owns the players' tokens and the limits, and runs each tournament through its
:class:`~.live.LiveTournament`. A :class:`~.director.DirectorError` (the director refusing an
input: nothing changed) is FAILED_PRECONDITION with the director's message, which names the field.

With a :class:`~.journal.Journal`, every tournament's record, every input of its director and
every player's token digest is written there first, and :meth:`TournamentLobby.restore` brings
them all back after a restart.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import grpc

from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.director import inputs as di
from tablestorm.services.director.director import ChipInvariantError, Director, DirectorError
from tablestorm.services.director.snapshot import restore
from tablestorm.services.director.structure import TournamentStructure
from tablestorm.services.rpc.errors import ServiceError, failed
from tablestorm.services.tournament import convert
from tablestorm.services.tournament.auth import PlayerTokens
from tablestorm.services.tournament.journal import Journal, TournamentRecord
from tablestorm.services.tournament.live import LiveTournament, TournamentHalted
from tablestorm.services.tournament.metrics import TournamentMetrics
from tablestorm.services.tournament.servers import TableServers
from tablestorm.services.tournament.tally import Tally

log = logging.getLogger(__name__)

STATUSES = ("registering", "running", "paused", "finished")


@dataclass(frozen=True, slots=True)
class LobbyLimits:
    """What one tournament server takes on at most."""

    max_tournaments: int = 100
    """Tournaments not finished at once (finished ones are kept too, up to ``finished_kept``)."""
    finished_kept: int = 100
    """Finished tournaments kept for GetTournament and Watch, the oldest forgotten first."""
    max_entries: int = 100_000
    """Entries of a tournament without max_entrants."""
    drain_seconds: float = 10.0
    """At shutdown, how long running hands may take to finish before their tables close."""
    hand_pause_s: float = 0.0
    """Seconds a table waits before each hand it is told to deal (an online room's pot push and
    shuffle, what the accelerated driver's dealing model counts); 0: at once."""


@contextmanager
def _refusals() -> Iterator[None]:
    """The director's refusals as FAILED_PRECONDITION (its messages name the field)."""
    try:
        yield
    except DirectorError as exc:
        raise failed(str(exc)) from None
    except TournamentHalted as exc:
        raise ServiceError(grpc.StatusCode.UNAVAILABLE, str(exc)) from None


class TournamentLobby:
    """The tournaments one server hosts: the service's domain, below the wire."""

    def __init__(
        self, servers: TableServers, metrics: TournamentMetrics, limits: LobbyLimits, journal: Journal | None = None
    ) -> None:
        self.servers = servers
        self.journal = journal
        self.metrics = metrics
        self.limits = limits
        self.accepting = True
        self._tournaments: dict[str, LiveTournament] = {}
        self._tokens: dict[str, PlayerTokens] = {}
        for status in STATUSES:
            metrics.tournaments.labels(status).set_function(self._counter(status))

    def _counter(self, status: str) -> Callable[[], float]:
        """How many tournaments have ``status`` now (read at scrape time, from the HTTP thread)."""
        return lambda: sum(1 for live in list(self._tournaments.values()) if live.status == status)

    def _require_accepting(self) -> None:
        if not self.accepting:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")

    # ----------------------------------------------------------------- tournaments

    def create(self, tournament_id: str, structure: TournamentStructure, seed: int | None) -> LiveTournament:
        """Open a tournament for registration (``tournament_id`` checked by the caller; empty:
        one is picked). With a seed its draws and deals replay; without, both come from the CSPRNG."""
        self._require_accepting()
        tournament_id = tournament_id or f"tn-{secrets.token_hex(6)}"
        if tournament_id in self._tournaments:
            raise ServiceError(grpc.StatusCode.ALREADY_EXISTS, f"tournament {tournament_id!r} exists")
        live_count = sum(1 for live in self._tournaments.values() if live.status != "finished")
        if live_count >= self.limits.max_tournaments:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"this server runs its maximum of {self.limits.max_tournaments} tournaments",
            )
        self._forget_finished()
        record = TournamentRecord(
            tournament_id,
            convert.structure_to_proto(structure).SerializeToString(),
            seed if seed is not None else secrets.randbits(64),
            seed,
            secrets.token_urlsafe(32),
            time.time(),
        )
        if self.journal is not None:
            self.journal.create(record)
        return self._host(record, structure, PlayerTokens())

    def _host(
        self, record: TournamentRecord, structure: TournamentStructure, tokens: PlayerTokens,
        restored: Director | None = None, tally: Tally | None = None,
    ) -> LiveTournament:
        live = LiveTournament(
            record.tournament_id,
            structure,
            seed=record.seed,
            table_seed=record.table_seed,
            servers=self.servers,
            metrics=self.metrics,
            hand_pause_s=self.limits.hand_pause_s,
            director_token=record.director_token,
            journal=self.journal,
            restored=restored,
            created=record.created if restored is not None else None,
            tally=tally,
        )
        self._tournaments[record.tournament_id] = live
        self._tokens[record.tournament_id] = tokens
        return live

    def restore(self) -> int:
        """After a restart: every tournament of the journal rebuilt (its director from its latest
        snapshot and the inputs after it), each finding its tables before it takes an input;
        returns how many. A tournament whose inputs break TOURN-11 again is left out (logged)."""
        assert self.journal is not None
        restored = 0
        for saved in self.journal.tournaments():
            record = saved.record
            structure = convert.structure_from_proto(tpb.TournamentStructure.FromString(record.structure))
            if saved.snapshot is not None:
                director = restore(structure, saved.snapshot)
            else:
                director = Director(structure, seed=record.seed, tournament_id=record.tournament_id)
            tally = Tally.loads(saved.tally)
            try:
                di.replay(director, saved.inputs, tally.replayed)
            except ChipInvariantError:
                log.exception("a journaled tournament halted again", extra={"tournament_id": record.tournament_id})
                continue
            self._host(record, structure, PlayerTokens(saved.players), director, tally)
            restored += 1
        return restored

    def _forget_finished(self) -> None:
        finished = [tid for tid, live in self._tournaments.items() if live.status == "finished"]
        for tournament_id in finished[: max(0, len(finished) - self.limits.finished_kept + 1)]:
            del self._tournaments[tournament_id]
            del self._tokens[tournament_id]
            if self.journal is not None:
                self.journal.forget(tournament_id)

    def tournament(self, tournament_id: str) -> LiveTournament:
        live = self._tournaments.get(tournament_id)
        if live is None:
            raise ServiceError(grpc.StatusCode.NOT_FOUND, f"no tournament {tournament_id!r}")
        return live

    def tournaments(self) -> list[LiveTournament]:
        """Every tournament, in the order they were created."""
        return list(self._tournaments.values())

    async def operate(self, tournament_id: str, call: Callable[[LiveTournament], Awaitable[None]]) -> LiveTournament:
        """An operator call (start, pause, resume) on a tournament."""
        self._require_accepting()
        live = self.tournament(tournament_id)
        with _refusals():
            await call(live)
        return live

    # ----------------------------------------------------------------- players

    def _player(self, tournament_id: str, player_id: str, token: str | None) -> LiveTournament:
        """The tournament, if ``token`` is the token of ``player_id`` (NOT_FOUND for a stranger)."""
        live = self.tournament(tournament_id)
        tokens = self._tokens[tournament_id]
        if player_id not in tokens:
            raise ServiceError(
                grpc.StatusCode.NOT_FOUND, f"player_id: {player_id!r} is not registered in {tournament_id!r}"
            )
        tokens.check(player_id, token)
        return live

    async def register(
        self, tournament_id: str, player_id: str, auto_rebuy: bool, token: str | None
    ) -> tuple[str, str, LiveTournament]:
        """Enter a player (a re-entry presents the player's token); returns the entry id, the
        player's token and the tournament."""
        self._require_accepting()
        live = self.tournament(tournament_id)
        tokens = self._tokens[tournament_id]
        known = player_id in tokens
        if known:
            tokens.check(player_id, token)
        if not live.structure.max_entrants and live.director.entries >= self.limits.max_entries:
            raise ServiceError(
                grpc.StatusCode.RESOURCE_EXHAUSTED, f"this server takes at most {self.limits.max_entries} entries"
            )
        with _refusals():
            entry_id = await live.register(player_id, auto_rebuy)
        if not known:
            token, digest = tokens.issue(player_id)
            if self.journal is not None:
                self.journal.player(tournament_id, player_id, digest)
        assert token is not None
        return entry_id, token, live

    async def unregister(self, tournament_id: str, player_id: str, token: str | None) -> LiveTournament:
        live = self._player(tournament_id, player_id, token)
        with _refusals():
            await live.give(di.Unregister(player_id))
        self._tokens[tournament_id].forget(player_id)
        if self.journal is not None:
            self.journal.player(tournament_id, player_id, None)
        return live

    async def play(self, tournament_id: str, player_id: str, token: str | None, given: di.Input) -> LiveTournament:
        """A call a player makes for itself (rebuy, add-on, away): the director's input ``given``."""
        self._require_accepting()
        live = self._player(tournament_id, player_id, token)
        with _refusals():
            await live.give(given)
        return live

    def watch(
        self, tournament_id: str, player_id: str, token: str | None, resume_after: int | None, own_only: bool = False
    ) -> AsyncIterator[tpb.TournamentEvent]:
        """The tournament's events from ``resume_after`` on (and, for a player with its token, its
        own SeatAssigned events while that token is the player's: not once it unregistered, nor
        for whoever takes its id next), then live ones until it finishes; ``own_only`` (with a
        player): only the tournament's own public events and those of the player's entries."""
        live = self.tournament(tournament_id)
        if not player_id:
            return live.feed.read("", live.feed.start_position(resume_after))
        self._player(tournament_id, player_id, token)
        tokens = self._tokens[tournament_id]

        def entitled() -> bool:
            try:
                tokens.check(player_id, token)
            except ServiceError:
                return False
            return True

        return live.feed.read(player_id, live.feed.start_position(resume_after), own_only, entitled)

    # ----------------------------------------------------------------- shutdown

    def abandon(self) -> None:
        """Every tournament stops where it stands (:meth:`LiveTournament.abandon`)."""
        self.accepting = False
        for live in self._tournaments.values():
            live.abandon()

    async def shutdown(self) -> None:
        """No new calls; every tournament pauses, lets its running hands finish (up to the drain
        time), closes its tables and ends its Watch streams UNAVAILABLE."""
        self.accepting = False
        await asyncio.gather(*(live.close(self.limits.drain_seconds) for live in self._tournaments.values()))
