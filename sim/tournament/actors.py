"""The Ray actors a live tournament adds to a run's table hosts: its tournament server and its
player fleets.

:class:`TournamentActor` runs the real tournament service (``tablestorm.services.tournament.server``, gRPC on
its node's address) in its event loop, given the table hosts' endpoints; the run's driver creates
and starts its tournament here and reads its director (the state for the live view, the record
for ``tournament.json``). Players reach it over gRPC like any client. :class:`PlayerFleetActor` runs
many :class:`~tablestorm.sim.bots.tournament_player.TournamentPlayer` s as coroutines of one process, their
bots sharing one :class:`~tablestorm.sim.bots.fleet.Fleet`'s channels and stats.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
import ray

from tablestorm.services.api import tournament_pb2_grpc as trpc
from tablestorm.services.director import events as ev
from tablestorm.services.director import inputs as di
from tablestorm.services.director.structure import TournamentStructure
from tablestorm.services.rpc.gc_policy import tune_for_latency
from tablestorm.services.tournament.live import LiveTournament
from tablestorm.services.tournament.lobby import LobbyLimits
from tablestorm.services.tournament.server import TournamentServer, TournamentServerConfig
from tablestorm.sim.bots.client import BotConfig
from tablestorm.sim.bots.fleet import Fleet
from tablestorm.sim.bots.tournament_player import Entrant, TournamentPlayer
from tablestorm.sim.load.actors import SERVICE_ACTOR, node_ip
from tablestorm.sim.tournament.summary import summarize

if TYPE_CHECKING:
    from tablestorm.services.api.tournament_pb2_grpc import TournamentServiceAsyncStub

__all__ = ["PlayerFleetActor", "TournamentActor"]

WATCH_OPENING = 50
"""Watch calls a fleet opens at once (a server queues about a thousand calls it has not handed on)."""


@ray.remote(**SERVICE_ACTOR)
class TournamentActor:
    """A tournament server on Ray, placing its tables on the run's table hosts."""

    def __init__(self, tables: list[str], hand_pause_s: float, journal: str | None = None, port: int = 0) -> None:
        """``journal``: its file (an existing one is restored); ``port``: 0 picks one."""
        self.config = TournamentServerConfig(
            tables=tuple(tables), host=node_ip(), port=port, limits=LobbyLimits(hand_pause_s=hand_pause_s),
            journal=None if journal is None else Path(journal),
        )
        self.server = TournamentServer(self.config)

    async def start(self) -> dict[str, Any]:
        """Serve; returns where (its gRPC endpoint), on which node, its process, and what it read
        of its journal (tournaments restored, seconds, bytes)."""
        began = time.perf_counter()
        await self.server.start()
        tune_for_latency()
        journal = self.server.journal
        return {
            "endpoint": f"{self.config.host}:{self.server.port}",
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
            "restored": self.server.restored,
            "start_s": time.perf_counter() - began,
            "journal_bytes": None if journal is None else journal.size,
        }

    def _live(self, tournament_id: str) -> LiveTournament:
        assert self.server.lobby is not None, "start() first"
        return self.server.lobby.tournament(tournament_id)

    async def create(self, tournament_id: str, structure: TournamentStructure, seed: int) -> None:
        """Open the tournament for registration; its draws and shuffles replay from ``seed``."""
        assert self.server.lobby is not None, "start() first"
        self.server.lobby.create(tournament_id, structure, seed)

    async def begin(self, tournament_id: str) -> None:
        """Start it (TOURN-2: the seat draw, then the deals); a started sit-and-go is left alone."""
        live = self._live(tournament_id)
        if not live.director.started:
            await live.give(di.Start())

    async def status(self, tournament_id: str) -> dict[str, Any]:
        """What the live view shows, now."""
        live = self._live(tournament_id)
        director = live.director
        started = director.started
        return {
            "status": live.status,
            "halted": live.halted,
            "elapsed_s": live.now(),
            "level": director.play_level if started else 0,
            "on_break": started and director.level.is_break,
            "time_left_s": director.time_left(live.now()) if started and not director.finished else 0.0,
            "players_left": director.players_left,
            "entries": director.entries,
            "tables": len(director.tables),
            "hand_for_hand": director.hand_for_hand,
            "hands": live.hands,
            "hands_dealt": live.hands_dealt,
            "eliminations": sum(1 for e in director.events if type(e) is ev.Eliminated),
        }

    async def result(self, tournament_id: str, seed: int) -> dict[str, Any]:
        """The director's record as ``tournament.json`` has it, with what the run checks: whether
        it finished, its chips (TOURN-11: the winner holds every chip in play), the faults, and
        when it started (Unix seconds, and tournament seconds from its creation: the record's times
        count from then)."""
        live = self._live(tournament_id)
        director = live.director
        finished = director.finished and live.halted is None
        conserved = finished and director.largest_stack == director.expected_chips
        summary = summarize(director, seed=seed, hands=live.hands, hands_by_players=live.hands_by_players,
                            chips_conserved=conserved)
        events = director.events
        created = time.time() - live.now()
        started = next((e.at for e in events if type(e) is ev.Started), None)
        return {
            "summary": summary,
            "finished": finished,
            "halted": live.halted,
            "started_at": None if started is None else created + started,
            "started_s": started,
            "hands_voided": sum(1 for e in events if type(e) is ev.HandVoided),
            "tables_lost": live.tables_lost,
        }

    async def stop(self) -> None:
        await self.server.stop()


@ray.remote(**SERVICE_ACTOR)
class PlayerFleetActor:
    """Tournament players of one process, of any number of the server's tournaments: each
    tournament's register in the order given, then play."""

    def __init__(self, endpoint: str, config: dict[str, Any]) -> None:
        self.endpoint = endpoint
        self.config = BotConfig(**{**config, "tournament": True, "rebuy": False})
        self.players: dict[str, list[TournamentPlayer]] = {}
        """By tournament id."""
        self._tasks: list[asyncio.Task[None]] = []
        self._channel: grpc.aio.Channel | None = None
        self._stub: TournamentServiceAsyncStub | None = None
        self._fleet: Fleet | None = None

    async def start(self) -> dict[str, Any]:
        """Make the fleet and its channel in this actor's event loop; returns where it runs."""
        self._fleet = Fleet(config=self.config)
        self._channel = grpc.aio.insecure_channel(self.endpoint)
        self._stub = trpc.TournamentServiceStub(self._channel)
        tune_for_latency()
        return {"node_id": ray.get_runtime_context().get_node_id(), "pid": os.getpid()}

    async def enter(self, tournament_id: str, entrants: list[Entrant]) -> None:
        """The players of ``entrants`` for tournament ``tournament_id`` (not registered yet)."""
        assert self._stub is not None and self._fleet is not None, "start() first"
        stub, fleet = self._stub, self._fleet
        self.players[tournament_id] = [TournamentPlayer(e, tournament_id, stub, fleet) for e in entrants]

    async def register(self, tournament_id: str) -> int:
        """Register the tournament's players, one after the other in the order given (the director's
        seat draw follows the registration order: this order is the accelerated driver's); returns
        the tournament's last seq then."""
        last = 0
        for player in self.players[tournament_id]:
            last = await player.register()
        return last

    async def play(self, tournament_id: str, resume_after: int | None) -> int:
        """The tournament's players follow it from after ``resume_after`` (None: the first event)
        and play their seats, in the background; returns how many."""
        gate = asyncio.Semaphore(WATCH_OPENING)
        tasks = [asyncio.ensure_future(p.play(resume_after, gate)) for p in self.players[tournament_id]]
        self._tasks += tasks
        return len(tasks)

    async def playing(self) -> int:
        """Players still following their tournament (their streams end when it finishes)."""
        return sum(1 for task in self._tasks if not task.done())

    async def collect(self) -> dict[str, Any]:
        """What the players saw: each one's first seat and first turn there, move latencies, the
        bots' errors (their Play streams and table calls, by status) and the players' own (Watch,
        re-entries, add-ons)."""
        assert self._fleet is not None, "start() first"
        fleet = self._fleet
        players = [p for listed in self.players.values() for p in listed]
        calls: dict[str, int] = {}
        for player in players:
            for code, count in player.record.errors.items():
                calls[code] = calls.get(code, 0) + count
        return {
            "first_seats": [
                (p.record.seats[0].table_id, p.record.first_turns.get(p.record.seats[0].seat_token))
                for p in players if p.record.seats
            ],
            "move_latencies": [x for p in players for x in p.record.move_latencies],
            "seats": sum(len(p.record.seats) for p in players),
            "seats_by_endpoint": dict(Counter(seat.endpoint for p in players for seat in p.record.seats)),
            "reentries": sum(p.record.reentries for p in players),
            "add_ons": sum(p.record.add_ons for p in players),
            "actions": fleet.stats.actions,
            "timeouts": fleet.stats.timeouts,
            "late_actions": fleet.tally.late_actions,
            "errors": fleet.stats.errors,
            "call_errors": calls,
            "violations": list(fleet.tally.violations),
        }

    async def stop(self) -> None:
        """Stop every player and close the channels."""
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await asyncio.gather(*(p.stop() for listed in self.players.values() for p in listed))
        if self._fleet is not None:
            await self._fleet.stop_all(stand_up=False)
        if self._channel is not None:
            await self._channel.close()
