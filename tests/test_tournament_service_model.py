"""A stateful model of the tournament service, driven over gRPC by several clients at once.

``TournamentServiceModel`` (a ``hypothesis.stateful.RuleBasedStateMachine``) runs a real
:class:`~tablestorm.services.tournament.server.TournamentServer` on three real in-process
:class:`~tablestorm.services.table.server.TableServer` s, all on 127.0.0.1, and three clients on channels of
their own. Its rules create tournaments (random small structures of the four games: second-long
levels, a short clock, late registration, re-entry, rebuys, the add-on, sit-and-gos; and refused
structures); register players (valid, re-entries, and refused: twice, without or with another's
token, a bad id, a closed registration, an unknown tournament), several clients at once;
unregister; start; play the seats the players' own ``SeatAssigned`` events give them (legal and
illegal actions, at once at several tables, or letting the clock act: TOURN-7's away players);
rebuy and add-on requests; away and back; pause (the chips then counted at the tables with
``GetTable``) and resume; Watch resumed after any seq; play a tournament to its end; **host
faults**: a table server killed without a drain (``TableServer.kill``), the tournament rebuilding
its tables on the servers left, and a fresh server started on the dead one's port; and the
**tournament server's death**: killed where it stands (``TournamentServer.kill``: no pause, no
drain, its tables left dealing), a new one started on its port from its journal, every
tournament carrying on and every Watch stream resumed after the last seq it saw.

After every step, read through the public API only: every tournament's chips are its entries'
starting stacks plus the rebuys and add-ons its events announced (TOURN-11, from a consistent
``GetTournament``/``GetStandings`` reading), its entries, players left and prize pool are what its
events and the model's paid requests say; every Watch stream's public seqs run 1, 2, 3... and a
``SeatAssigned`` carries the seq before it; every server answers health SERVING; nothing was
logged at ERROR. When a tournament ends: every entry finished exactly once (TOURN-6), the prizes
sum to the pool (TOURN-9), the winner holds every chip, each player's seats as its own stream
told them are the public Seated and Moved events, every Watch and Play stream ended as the proto
says, and no table of it is left on a server.

Time is real: levels and clocks run while the loop does, so where a clock or a level may have
overtaken an expectation (a turn taken by the clock, a window closed), the rule allows for it and
says so; the token, field and state refusals are exact.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import random
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, rule
from support.service_model import ServiceModel, explore, index, pick, status_of
from support.table_contract import DENIED, GAMES, INVALID, NOT_FOUND, OK, PRECONDITION, UNAUTHENTICATED
from support.table_invariants import CALL_TIMEOUT, serving
from support.table_server import token
from support.table_streams import Stream
from support.tournaments import OPERATOR, Channels, fast_structure, operator, player, tie_consistent

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.api import tournament_pb2_grpc as trpc
from tablestorm.services.table.host import HostLimits
from tablestorm.services.table.server import ServerConfig, TableServer
from tablestorm.services.tournament.lobby import LobbyLimits, TournamentLobby
from tablestorm.services.tournament.server import TournamentServer, TournamentServerConfig
from tablestorm.services.tournament.servers import FaultPolicy
from tablestorm.services.tournament.service import SERVICE_NAME as TOURNAMENT_SERVICE

OUT_OF_RANGE = grpc.StatusCode.OUT_OF_RANGE
SERVER_GONE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})
"""How a Play stream ends when its table server dies under it (or is dead when it opens)."""
SEAT_GONE = frozenset({NOT_FOUND, UNAUTHENTICATED})
"""How a Play stream opened too late ends: its table closed, or its seat given up, before its Hello."""
TABLE_SERVERS = 3
CLIENTS = 3
MAX_RUNNING = 2
"""Tournaments not finished at once: enough to share the servers, few enough to finish."""
WAIT = 60.0
"""Seconds any wait of a rule may take (a whole short tournament plays in far less)."""
FAULTS = FaultPolicy(interval_s=0.2, timeout_s=3.0, failures=2)
"""Health checks five times a second: a dead server (refusing at once) is known within a second,
and a live one on this shared machine is never taken for dead by a slow answer."""
PLAYING = ("not running", "not in the tournament", "out of chips")
"""The director's refusals of a call for a player who is not playing now."""
REFUSED_REBUY = ("no rebuys", "rebuy period is over", "already has a rebuy waiting", "above the rebuy threshold",
                 "has used all", *PLAYING)
REFUSED_ADD_ON = ("no add-on", "add-on window is not open", "has taken the add-on", *PLAYING)
REFUSED_ENTRY = ("registration is closed", "is over", "is full")
AMOUNT_KINDS = frozenset({pb.ACTION_KIND_BRING_IN, pb.ACTION_KIND_COMPLETE, pb.ACTION_KIND_BET, pb.ACTION_KIND_RAISE})


def kind_of(event: tpb.TournamentEvent) -> str:
    return str(event.WhichOneof("kind"))


class Feed:
    """One Watch stream read in the background: its events in order, and how it ended."""

    def __init__(
        self,
        stub: trpc.TournamentServiceStub,
        request: tpb.WatchRequest,
        metadata: Any,
        changed: asyncio.Condition,
        on_seat: Callable[[tpb.SeatAssigned], None] | None = None,
    ) -> None:
        self.resumed_after = request.resume_after_seq if request.HasField("resume_after_seq") else 0
        self._stub, self._request, self._metadata = stub, request, metadata
        self.events: list[tpb.TournamentEvent] = []
        self.code: grpc.StatusCode | None = None
        """How the stream ended (None while it runs)."""
        self.details = ""
        self._changed = changed
        self._on_seat = on_seat
        self._call = stub.Watch(request, metadata=metadata)
        self._task = asyncio.ensure_future(self._pump())

    async def _pump(self) -> None:
        try:
            async for item in self._call:
                self.events.append(item)
                if self._on_seat is not None and item.HasField("seat_assigned"):
                    self._on_seat(item.seat_assigned)
                async with self._changed:
                    self._changed.notify_all()
            self.code = OK
        except grpc.aio.AioRpcError as exc:
            self.code, self.details = exc.code(), exc.details() or ""
        finally:
            async with self._changed:
                self._changed.notify_all()

    @property
    def ended(self) -> bool:
        return self.code is not None

    def reopen(self, as_spectator: bool = False) -> None:
        """The server died under it: open it again after the last public seq it saw, as a player
        does; its events go on from there (:meth:`numbering_fault` reads them as one stream). One
        who unregistered since it opened is no player there any more (its token went with it):
        it resumes as a spectator, without its id and token."""
        assert self.code in SERVER_GONE, (self.code, self.details)
        self._request.resume_after_seq = self.last_seq
        if as_spectator:
            self._request.ClearField("player_id")
            self._metadata = None
        self.code, self.details = None, ""
        self._call = self._stub.Watch(self._request, metadata=self._metadata, wait_for_ready=True)
        self._task = asyncio.ensure_future(self._pump())

    def public(self) -> list[tpb.TournamentEvent]:
        return [e for e in self.events if not e.HasField("seat_assigned")]

    @property
    def last_seq(self) -> int:
        public = self.public()
        return public[-1].seq if public else self.resumed_after

    def of(self, kind: str) -> list[Any]:
        return [getattr(e, kind) for e in self.events if kind_of(e) == kind]

    def numbering_fault(self) -> str | None:
        """Where the stream breaks the proto's numbering, if it does: public seqs from the one
        resumed after, on by one; each SeatAssigned numbered as the public event before it."""
        last = self.resumed_after
        for e in self.events:
            if e.HasField("seat_assigned"):
                if e.seq != last:
                    return f"SeatAssigned seq {e.seq} after public seq {last}"
            elif e.seq != last + 1:
                return f"seq {e.seq} after {last}"
            else:
                last = e.seq
        return None

    async def close(self) -> None:
        self._call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


@dataclass
class Host:
    """One table server slot: its port stays, the server in it may be killed and replaced."""

    port: int
    server: TableServer | None
    lives: int = 0
    """Servers killed in this slot so far: a seat given before a kill may find its table gone."""

    @property
    def endpoint(self) -> str:
        return f"127.0.0.1:{self.port}"


@dataclass
class Seat:
    """A seat a player's SeatAssigned gave it, played on its own Play stream."""

    assigned: tpb.SeatAssigned
    stream: Stream
    life: int
    """The server slot's ``lives`` when it was given."""


@dataclass
class Client:
    """One client: its channel to the tournament server and its channels to the table servers."""

    name: str
    channel: grpc.aio.Channel
    stub: trpc.TournamentServiceStub
    tables: Channels


@dataclass
class Player:
    """A registered player as its client knows it: its token, entries, Watch and seats."""

    player_id: str
    client: Client
    token: str
    auto_rebuy: bool
    entries: list[str]
    feed: Feed = field(init=False)
    seats: list[Seat] = field(default_factory=list)
    rebuys: int = 0
    """Rebuys its requests paid for (it never auto-rebuys when it asks: one source, exact counts)."""
    add_ons: int = 0

    @property
    def entry_id(self) -> str:
        return self.entries[-1]


@dataclass
class Tournament:
    """A tournament as the model knows it: its structure, players, and a spectator's Watch."""

    tournament_id: str
    structure: tpb.TournamentStructure
    spectator: Feed
    players: dict[str, Player] = field(default_factory=dict)
    gone: list[Player] = field(default_factory=list)
    """Players who unregistered (their Watch streams go on: public events)."""
    status: int = tpb.TOURNAMENT_STATUS_REGISTERING
    """The model's word for it: changed by the model's calls (and by a sit-and-go filling, or the end)."""
    checked_end: bool = False

    @property
    def rebuy_cost(self) -> int:
        return self.structure.rebuys.cost or self.structure.buy_in

    @property
    def add_on_cost(self) -> int:
        return self.structure.add_on.cost or self.structure.buy_in

    def out(self) -> set[str]:
        """Entries the spectator has seen eliminated."""
        return {e.entry_id for e in self.spectator.of("eliminated")}


def random_structure(draw: random.Random, game: str) -> tpb.TournamentStructure:
    """A small fast structure of ``game``: short stacks, one- or two-second levels, a short
    clock, and some of late registration (with re-entry), rebuys, the add-on, a sit-and-go cap."""
    seats = draw.choice((2, 3, 4))
    structure = fast_structure(
        game,
        levels=draw.choice((10, 16)),
        level_s=draw.choice((1.0, 2.0)),
        starting_stack=draw.choice((16, 30, 60)),
        buy_in=draw.choice((5, 10)),
        clock_seconds=draw.choice((1.0, 2.0)),
        seats=seats,
        betting=draw.choice(GAMES[game]),
    )
    if draw.random() < 0.3:
        structure.max_entrants = draw.choice((2, seats + 1))
    elif draw.random() < 0.5:
        structure.late_registration.until_level = draw.choice((1, 2))
        if draw.random() < 0.5:
            structure.reentry.max_entries = 2
    if draw.random() < 0.4:
        structure.rebuys.CopyFrom(
            tpb.Rebuys(until_level=draw.choice((1, 2)), threshold=draw.choice((0, structure.starting_stack, 1 << 40)),
                       max_per_player=draw.choice((0, 1, 2)))
        )
    if draw.random() < 0.4:
        after = draw.choice((1, 2))
        structure.add_on.CopyFrom(tpb.AddOn(after_level=after, stack=structure.starting_stack))
        if draw.random() < 0.5:
            structure.levels.insert(after, tpb.Level(break_s=1.0))
    if draw.random() < 0.3:  # a sit-and-go pays at most its seats
        tables = [t for t in ([100.0], [70.0, 30.0], [50.0, 30.0, 20.0]) if len(t) <= (structure.max_entrants or 3)]
        structure.payouts.CopyFrom(tpb.Payouts(table=draw.choice(tables)))
    return structure


BAD_STRUCTURES: dict[str, Callable[[tpb.TournamentStructure], None]] = {
    "structure.game": lambda s: setattr(s, "game", "holdem"),
    "structure.starting_stack": lambda s: setattr(s, "starting_stack", 0),
    "structure.late_registration.until_level": lambda s: s.late_registration.CopyFrom(
        tpb.LateRegistration(until_level=len(s.levels))
    ),
    "structure.payouts.table": lambda s: s.payouts.CopyFrom(tpb.Payouts(table=[60.0, 50.0])),
    "structure.levels[0].stakes": lambda s: s.levels[0].ClearField("stakes"),
}
"""Structures the service refuses, by the field its INVALID_ARGUMENT names."""


def collapse(seats: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """The seats with repeats in a row dropped (a rebuilt table gives its players the same seat)."""
    return [s for k, s in enumerate(seats) if k == 0 or seats[k - 1] != s]


class TournamentServiceModel(ServiceModel):
    """The tournament server, its table servers and its clients, with what the model expects;
    each rule is something clients, the operator or a crash do, each invariant what must hold."""

    step_timeout = WAIT * 2

    def __init__(self) -> None:
        super().__init__()
        self.ids = itertools.count(1)
        self.tournaments: list[Tournament] = []
        self.run(self._start())

    async def _start(self) -> None:
        self.changed = asyncio.Condition()
        """Notified on everything any stream of the model reads."""
        self.hosts: list[Host] = []
        for _ in range(TABLE_SERVERS):
            server = await self._table_server(0)
            self.hosts.append(Host(server.port, server))
        self.journal = tempfile.TemporaryDirectory(prefix="tournament-journal-")
        self.config = TournamentServerConfig(
            tables=tuple(h.endpoint for h in self.hosts),
            port=0,
            operator_token=OPERATOR,
            limits=LobbyLimits(drain_seconds=0.5),
            faults=FAULTS,
            journal=Path(self.journal.name) / "journal.db",
            snapshot_every=7,  # snapshots often, so a restart meets one and the inputs after it
        )
        self.server = TournamentServer(self.config)
        await self.server.start()
        self.config = dataclasses.replace(self.config, port=self.server.port)  # a restart takes the same port
        self.clients: list[Client] = []
        for k in range(CLIENTS):
            channel = grpc.aio.insecure_channel(f"127.0.0.1:{self.server.port}")
            self.clients.append(Client(f"c{k}", channel, trpc.TournamentServiceStub(channel), Channels()))

    @staticmethod
    async def _table_server(port: int) -> TableServer:
        server = TableServer(ServerConfig(port=port, limits=HostLimits(), drain_seconds=0))
        await server.start()
        return server

    async def close(self) -> None:
        for t in self.tournaments:
            for p in [*t.players.values(), *t.gone]:
                for seat in p.seats:
                    await seat.stream.close()
                await p.feed.close()
            await t.spectator.close()
        await self.server.stop()
        for client in self.clients:
            await client.channel.close()
            await client.tables.close()
        for host in self.hosts:
            if host.server is not None:
                await host.server.stop(drain_seconds=0)
        self.journal.cleanup()

    # ----------------------------------------------------------------- what the model can see

    @property
    def lobby(self) -> TournamentLobby:
        lobby = self.server.lobby
        assert lobby is not None
        return lobby

    @property
    def stub(self) -> trpc.TournamentServiceStub:
        return self.clients[0].stub

    def running(self) -> list[Tournament]:
        return [t for t in self.tournaments if t.status != tpb.TOURNAMENT_STATUS_FINISHED]

    def host_of(self, endpoint: str) -> Host:
        return next(h for h in self.hosts if h.endpoint == endpoint)

    def seats(self) -> list[tuple[Tournament, Player, Seat]]:
        """Every seat given to a player still in a tournament not finished, the latest of each entry."""
        found = []
        for t in self.running():
            out = t.out()
            for p in t.players.values():
                if p.seats and p.seats[-1].assigned.entry_id not in out:
                    found.append((t, p, p.seats[-1]))
        return found

    def turns(self) -> list[tuple[Player, Seat, pb.YourTurn]]:
        """The seats whose turn it is now: a prompt no event has followed on its stream. One the
        clock answered stays in ``stream.turn``; waiting on it for the clock again waited on a table
        that may deal no more (a paused tournament) and timed out."""
        return [
            (p, seat, turn)
            for _, p, seat in self.seats()
            if (turn := seat.stream.turn) is not None and not seat.stream.ended
            and (not seat.stream.events or seat.stream.events[-1].seq <= turn.seq)
        ]

    async def until(self, predicate: Callable[[], bool], timeout: float = WAIT) -> None:
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(predicate), timeout)

    async def state(self, t: Tournament) -> tpb.TournamentState:
        reply: tpb.TournamentState = await self.stub.GetTournament(
            tpb.TournamentRequest(tournament_id=t.tournament_id), timeout=CALL_TIMEOUT
        )
        return reply

    def seat_given(self, p: Player) -> Callable[[tpb.SeatAssigned], None]:
        """What a player does with each SeatAssigned of its stream: opens Play there at once."""

        def play(assigned: tpb.SeatAssigned) -> None:
            host = self.host_of(assigned.endpoint)
            stream = Stream(
                p.client.tables.stub(assigned.endpoint), assigned.table_id, assigned.seat, assigned.seat_token,
                resume_after=assigned.resume_after_seq, changed=self.changed,
            )
            p.seats.append(Seat(assigned, stream, host.lives))

        return play

    # ----------------------------------------------------------------- tournaments

    @initialize(
        games=st.tuples(st.sampled_from(sorted(GAMES)), st.sampled_from(sorted(GAMES))),
        seeds=st.tuples(st.integers(0, 2**32), st.integers(0, 2**32)),
        fields=st.tuples(st.integers(2, 9), st.integers(2, 6)),
    )
    def a_room_in_play(self, games: tuple[str, str], seeds: tuple[int, int], fields: tuple[int, int]) -> None:
        """Two tournaments from the start, their fields registering from every client at once:
        the first started (the rules then play it), the second still registering."""
        for k, (game, seed, entrants) in enumerate(zip(games, seeds, fields, strict=True)):
            self.create_tournament(game, seed, "")
            self.register_many(k, entrants)
        self.start(0)

    @rule(game=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**32),
          bad=st.sampled_from(("", "", "", *BAD_STRUCTURES)))
    def create_tournament(self, game: str, seed: int, bad: str) -> None:
        if len(self.running()) >= MAX_RUNNING and not bad:
            return
        structure = random_structure(random.Random(seed), game)
        if bad:
            BAD_STRUCTURES[bad](structure)
        tournament_id = f"t{next(self.ids)}"
        request = tpb.CreateTournamentRequest(tournament_id=tournament_id, structure=structure, seed=seed)
        code, state, details = self.run(status_of(self.stub.CreateTournament(request, metadata=operator())))
        event(f"create tournament: {code.name}")
        if bad:
            assert code == INVALID and details.startswith(bad), (bad, code, details)
            listed = self.run(self.stub.ListTournaments(tpb.ListTournamentsRequest()))
            assert tournament_id not in {s.tournament_id for s in listed.tournaments}  # nothing was made
            return
        assert code == OK, (code, details)
        assert state.status == tpb.TOURNAMENT_STATUS_REGISTERING and state.last_seq == 0, state
        spectator = Feed(self.stub, tpb.WatchRequest(tournament_id=tournament_id), None, self.changed)
        self.tournaments.append(Tournament(tournament_id, structure, spectator))

    @rule(which=index)
    def start(self, which: int) -> None:
        t = pick(self.running(), which)
        if t is None:
            return
        request = tpb.TournamentRequest(tournament_id=t.tournament_id)
        code, _, _ = self.run(status_of(self.stub.Start(request)))
        assert code == UNAUTHENTICATED, code  # the operator's call
        code, state, details = self.run(status_of(self.stub.Start(request, metadata=operator())))
        event(f"start: {code.name}")
        if t.status != tpb.TOURNAMENT_STATUS_REGISTERING:
            assert code == PRECONDITION and "already started" in details, (code, details)
        elif len(t.players) < 2:
            assert code == PRECONDITION and "at least 2 entries" in details, (code, details)
        else:
            assert code == OK, (code, details)
            assert state.status in (tpb.TOURNAMENT_STATUS_RUNNING, tpb.TOURNAMENT_STATUS_FINISHED), state
            assert state.players_left == len(t.players), state
            t.status = state.status

    @rule(which=index, pause=st.booleans())
    def pause_or_resume(self, which: int, pause: bool) -> None:
        """Pause (then, with no hand running, every chip is at the tables: ``GetTable``) or resume."""
        t = pick(self.running(), which)
        if t is None:
            return
        request = tpb.TournamentRequest(tournament_id=t.tournament_id)
        call = self.stub.Pause if pause else self.stub.Resume
        code, state, details = self.run(status_of(call(request, metadata=operator())))
        event(f"{'pause' if pause else 'resume'}: {code.name}")
        due = tpb.TOURNAMENT_STATUS_RUNNING if pause else tpb.TOURNAMENT_STATUS_PAUSED
        if t.status != due:
            assert code == PRECONDITION, (code, details)
            assert ("not running" if pause else "not paused") in details, details
            return
        if code == PRECONDITION:  # it ended just before the call
            t.status = self.run(self.state(t)).status
            assert t.status == tpb.TOURNAMENT_STATUS_FINISHED, (code, details)
            return
        assert code == OK, (code, details)
        t.status = state.status
        if pause:
            assert state.status in (tpb.TOURNAMENT_STATUS_PAUSED, tpb.TOURNAMENT_STATUS_FINISHED), state
            if state.status == tpb.TOURNAMENT_STATUS_PAUSED:
                self.run(self._count_at_the_tables(t))

    async def _count_at_the_tables(self, t: Tournament) -> None:
        """TOURN-11 at the tables: once the running hands have played out (the seats still acting,
        passively), the tournament's tables on the servers hold every chip the standings do."""
        live = self.lobby.tournament(t.tournament_id)
        while not live.idle.is_set():
            await self._act_passively()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(live.idle.wait(), 0.5)
        state = await self.state(t)
        if state.status == tpb.TOURNAMENT_STATUS_FINISHED:
            return
        tables = await self._tables_of(t)
        assert not [table for table in tables if table.hand_running], tables
        standings = await self.stub.GetStandings(tpb.StandingsRequest(tournament_id=t.tournament_id, page_size=1000))
        assert len(tables) == state.tables, (tables, state)
        at_tables = sum(seat.stack for table in tables for seat in table.seats)
        assert at_tables == sum(s.stack for s in standings.standings), (at_tables, standings)
        event(f"chips counted at {min(len(tables), 3)}+ tables")

    async def _tables_of(self, t: Tournament) -> list[pb.TableState]:
        """The tournament's tables on the table servers up (``ListTables``, ``GetTable``)."""
        found = []
        for host in self.hosts:
            if host.server is None:
                continue
            async with grpc.aio.insecure_channel(host.endpoint) as channel:
                stub = rpc.TableServiceStub(channel)
                listed = await stub.ListTables(pb.ListTablesRequest(page_size=1000), timeout=CALL_TIMEOUT)
                for summary in listed.tables:
                    if summary.table_id.startswith(f"{t.tournament_id}.") and summary.kind == pb.TABLE_KIND_TOURNAMENT:
                        request = pb.GetTableRequest(table_id=summary.table_id)
                        found.append(await stub.GetTable(request, timeout=CALL_TIMEOUT))
        return found

    async def _act_passively(self) -> None:
        for p, seat, turn in self.turns():
            await self._send(p, seat, passive(turn))

    # ----------------------------------------------------------------- players

    def _register(self, t: Tournament, client: Client, player_id: str, auto_rebuy: bool) -> None:
        """A new player registers: before the start it is in (unless a sit-and-go is full); after,
        only while late registration is open, which its level's end closes on the clock."""
        request = tpb.RegisterRequest(tournament_id=t.tournament_id, player_id=player_id, auto_rebuy=auto_rebuy)
        code, reply, details = self.run(status_of(client.stub.Register(request)))
        event(f"register: {code.name}")
        cap = t.structure.max_entrants
        if t.status == tpb.TOURNAMENT_STATUS_REGISTERING:
            full = bool(cap) and len(t.players) >= cap
            assert (code, "full" in details) == ((PRECONDITION, True) if full else (OK, False)), (code, details)
        else:
            assert code == PRECONDITION or (code == OK and t.structure.HasField("late_registration")), (code, details)
            assert code == OK or any(w in details for w in REFUSED_ENTRY), details
        if code == OK:
            self._admit(t, client, player_id, auto_rebuy, reply)

    def _admit(self, t: Tournament, client: Client, player_id: str, auto_rebuy: bool, reply: Any) -> None:
        """A new player is in: its first entry, its token, and its Watch (with the token: its seats)."""
        assert reply.entry_id == f"{player_id}#1", reply
        assert len(reply.player_token) >= 32, reply  # 192 bits
        p = Player(player_id, client, reply.player_token, auto_rebuy, [reply.entry_id])
        watch = tpb.WatchRequest(tournament_id=t.tournament_id, player_id=player_id)
        p.feed = Feed(client.stub, watch, player(reply.player_token), self.changed, self.seat_given(p))
        t.players[player_id] = p
        if reply.tournament.status != tpb.TOURNAMENT_STATUS_REGISTERING:  # a sit-and-go starts when full
            t.status = reply.tournament.status

    def register_many(self, which: int, count: int) -> None:
        """``count`` new players register at once, spread over the clients: before the start all
        are in, or exactly as many as a sit-and-go has seats left."""
        t = pick(self.running(), which)
        if t is None:
            return
        names = [(pick(self.clients, k), f"p{next(self.ids)}") for k in range(count)]

        async def together() -> list[tuple[grpc.StatusCode, Any, str]]:
            calls = [
                status_of(c.stub.Register(tpb.RegisterRequest(tournament_id=t.tournament_id, player_id=pid)))
                for c, pid in names
            ]
            return await asyncio.gather(*calls)

        registering = t.status == tpb.TOURNAMENT_STATUS_REGISTERING
        cap = t.structure.max_entrants
        room = max(0, cap - len(t.players)) if cap else count
        answers = self.run(together())
        admitted = 0
        for (client, pid), (code, reply, details) in zip(names, answers, strict=True):
            event(f"register at once: {code.name}")
            assert code in (OK, PRECONDITION), (code, details)
            if code == OK:
                admitted += 1
                self._admit(t, client, pid, False, reply)
            else:
                assert any(w in details for w in REFUSED_ENTRY), details
        if registering:
            assert admitted == min(count, room), (admitted, count, room)
        if cap and len(t.players) == cap:
            t.status = self.run(self.state(t)).status
            assert t.status != tpb.TOURNAMENT_STATUS_REGISTERING, "a full sit-and-go starts by itself"

    @rule(which=index, count=st.integers(1, 4))
    def several_register_at_once(self, which: int, count: int) -> None:
        self.register_many(which, count)

    @rule(which=index, who=index, auto_rebuy=st.booleans(),
          fault=st.sampled_from(("new", "new", "again", "no_token", "stranger", "bad_id", "unknown", "returning")))
    def register(self, which: int, who: int, auto_rebuy: bool, fault: str) -> None:
        t = pick(self.tournaments, which)
        if t is None:
            return
        client = pick(self.clients, who)
        returning = pick([p for p in t.gone if p.player_id not in t.players], who)
        if fault == "returning" and returning is not None:
            self._register(t, client, returning.player_id, auto_rebuy)  # unregistered: a stranger again
            back = t.players.get(returning.player_id)
            assert back is None or back.token != returning.token, "a new registration, a new token"
            return
        known = pick(sorted(t.players), who)
        if fault in ("new", "returning") or known is None:
            self._register(t, client, f"p{next(self.ids)}", auto_rebuy)
            return
        request = tpb.RegisterRequest(tournament_id=t.tournament_id, player_id=known)
        if fault == "bad_id":
            request.player_id = pick(("", "x" * 57, "tab\there"), who)
        elif fault == "unknown":
            request.tournament_id = "nowhere"
        p = t.players[known]
        metadata = {"again": player(p.token), "no_token": None}.get(fault, player("x" * 32))
        if fault == "stranger":
            others = [o for o in t.players.values() if o is not p]
            metadata = player(pick(others, who).token) if others else player("x" * 32)
        code, reply, details = self.run(status_of(client.stub.Register(request, metadata=metadata)))
        event(f"register ({fault}): {code.name}")
        expected = {"bad_id": INVALID, "unknown": NOT_FOUND, "no_token": UNAUTHENTICATED, "stranger": DENIED}
        if fault in expected:
            assert code == expected[fault], (fault, code, details)
            return
        # Its own token again: a re-entry if it is out and late registration allows one.
        structure = t.structure
        if code == OK:
            assert structure.reentry.max_entries > len(p.entries), (p, structure)
            self.run(self.until(lambda: t.spectator.last_seq >= reply.tournament.last_seq or t.spectator.ended))
            assert p.entry_id in t.out(), "re-entered while still in"
            assert reply.entry_id == f"{known}#{len(p.entries) + 1}" and reply.player_token == p.token, reply
            p.entries.append(reply.entry_id)
            event("re-entry")
            return
        assert code == PRECONDITION, (code, details)
        if t.status == tpb.TOURNAMENT_STATUS_REGISTERING:
            assert "already registered" in details, details

    @rule(which=index, who=index)
    def re_enter(self, which: int, who: int) -> None:
        """TOURN-10: a player out of a started tournament registers again with its own token: a
        new entry (``<player>#2``) with a full stack and a drawn seat, while late registration is
        open (on the clock) and the player has entries left."""
        t = pick([t for t in self.running() if t.status != tpb.TOURNAMENT_STATUS_REGISTERING], which)
        if t is None:
            return
        if not t.out():  # play on until someone is out
            self.run(self._play_until(t, lambda: bool(t.out())))
        out = t.out()
        p = pick([p for p in t.players.values() if p.entry_id in out], who)
        if p is None:
            return
        request = tpb.RegisterRequest(tournament_id=t.tournament_id, player_id=p.player_id, auto_rebuy=p.auto_rebuy)
        code, reply, details = self.run(status_of(p.client.stub.Register(request, metadata=player(p.token))))
        event(f"re-enter: {code.name}")
        entries_left = t.structure.reentry.max_entries > len(p.entries)
        if code == OK:
            assert entries_left and t.structure.HasField("late_registration"), (p.entries, t.structure)
            assert reply.entry_id == f"{p.player_id}#{len(p.entries) + 1}" and reply.player_token == p.token, reply
            p.entries.append(reply.entry_id)
            return
        assert code == PRECONDITION, (code, details)
        assert any(w in details for w in (*REFUSED_ENTRY, "has used all")), details
        if not entries_left and t.structure.HasField("late_registration"):
            assert "has used all" in details or "registration is closed" in details or "is over" in details, details

    @rule(which=index, who=index, fault=st.sampled_from(("none", "none", "no_token", "stranger")))
    def unregister(self, which: int, who: int, fault: str) -> None:
        t = pick(self.running(), which)
        if t is None or not t.players:
            return
        p = t.players[pick(sorted(t.players), who)]
        request = tpb.PlayerRequest(tournament_id=t.tournament_id, player_id=p.player_id)
        metadata = {"none": player(p.token), "no_token": None, "stranger": player("y" * 32)}[fault]
        code, state, details = self.run(status_of(p.client.stub.Unregister(request, metadata=metadata)))
        event(f"unregister ({fault}): {code.name}")
        if fault != "none":
            assert code == (UNAUTHENTICATED if fault == "no_token" else DENIED), (code, details)
            return
        if t.status != tpb.TOURNAMENT_STATUS_REGISTERING:
            assert code == PRECONDITION and "only before the start" in details, (code, details)
            return
        assert code == OK, (code, details)
        assert state.entries == len(t.players) - 1, state
        t.gone.append(t.players.pop(p.player_id))
        code, _, details = self.run(status_of(p.client.stub.Unregister(request, metadata=metadata)))
        assert code == NOT_FOUND, (code, details)  # its token went with it

    def _player_call(
        self, which: int, who: int, fault: str, choose: Callable[[Player], bool] = lambda p: True
    ) -> tuple[Tournament, Player, Any] | None:
        """A player of a tournament (among those ``choose`` takes) and the metadata of its call for
        ``fault``: its own token, none, or a token that is nobody's."""
        t = pick(self.tournaments, which)
        if t is None:
            return None
        p = pick([p for p in t.players.values() if choose(p)], who)
        if p is None:
            return None
        return t, p, {"none": player(p.token), "no_token": None, "stranger": player("z" * 32)}[fault]

    @rule(which=index, who=index, add_on=st.booleans(), fault=st.sampled_from(("none", "none", "none", "no_token")))
    def buy_chips(self, which: int, who: int, add_on: bool, fault: str) -> None:
        """TOURN-10: a rebuy or the add-on. Whether the window is still open is the clock's; when
        the director says yes, the chips must come (a RebuyTaken or AddOnTaken event)."""
        chosen = self._player_call(which, who, fault, lambda p: add_on or not p.auto_rebuy)
        if chosen is None:
            return
        t, p, metadata = chosen
        request = tpb.PlayerRequest(tournament_id=t.tournament_id, player_id=p.player_id)
        call = p.client.stub.AddOn if add_on else p.client.stub.Rebuy
        code, _, details = self.run(status_of(call(request, metadata=metadata)))
        event(f"{'add-on' if add_on else 'rebuy'}: {code.name}")
        if fault == "no_token":
            assert code == UNAUTHENTICATED, (code, details)
            return
        offered = t.structure.HasField("add_on" if add_on else "rebuys")
        if code == OK:
            assert offered and t.status in (tpb.TOURNAMENT_STATUS_RUNNING, tpb.TOURNAMENT_STATUS_PAUSED), t.status
            if add_on:
                p.add_ons += 1
            else:
                p.rebuys += 1
            return
        assert code == PRECONDITION, (code, details)
        refusals = REFUSED_ADD_ON if add_on else REFUSED_REBUY
        assert any(r in details for r in refusals), details
        if not offered:  # the director asks whether the player plays first
            assert ("no add-on" if add_on else "no rebuys") in details or any(r in details for r in PLAYING), details

    @rule(which=index, who=index, away=st.booleans(), at_table=st.booleans())
    def away_or_back(self, which: int, who: int, away: bool, at_table: bool) -> None:
        """TOURN-7: away or back, through the tournament (SetAway) or at the table (SitOut, SitIn)."""
        if at_table:
            chosen = pick(self.seats(), who)
            if chosen is None:
                return
            _, p, seat = chosen
            code, reply, details = self.run(status_of(sit(p, seat, away)))
            event(f"{'sit out' if away else 'sit in'}: {code.name}")
            # The seat may have been given up since (a move, a bust): its token is then dead.
            assert code in (OK, UNAUTHENTICATED, NOT_FOUND), (code, details)
            if code == OK:
                assert reply.status == (pb.SEAT_STATUS_SITTING_OUT if away else pb.SEAT_STATUS_PLAYING), reply
            return
        chosen_player = self._player_call(which, who, "none")
        if chosen_player is None:
            return
        t, p, metadata = chosen_player
        request = tpb.PlayerAwayRequest(tournament_id=t.tournament_id, player_id=p.player_id, away=away)
        code, _, details = self.run(status_of(p.client.stub.SetAway(request, metadata=metadata)))
        event(f"set away {away}: {code.name}")
        assert code in (OK, PRECONDITION), (code, details)
        if code == PRECONDITION:
            assert any(r in details for r in PLAYING), details
            if t.status == tpb.TOURNAMENT_STATUS_REGISTERING:
                assert "not running" in details, details

    # ----------------------------------------------------------------- playing the seats

    async def _send(self, p: Player, seat: Seat, request: pb.ActRequest) -> pb.ActResult | None:
        """Send an action on the seat's stream and wait for its result (None: the stream ended
        first, the seat taken away from it: moved, out, or its table closed)."""
        stream = seat.stream
        request.action_id = f"{p.player_id}-{next(self.ids)}"
        stream.turn = None
        try:
            await stream.call.write(pb.ClientMessage(act=request))
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            return None
        await stream.until(lambda: request.action_id in stream.results or stream.ended)
        return stream.results.get(request.action_id)

    @rule(which=index, choice=index, top=st.booleans(), illegal=st.integers(0, 3))
    def act(self, which: int, choice: int, top: bool, illegal: int) -> None:
        """One seat acts: a legal action (the clock may have taken the turn first: refused), or one
        beyond what the turn offers (always refused)."""
        chosen = pick(self.turns(), which)
        if chosen is None:
            return
        p, seat, turn = chosen
        offered = pick(list(turn.legal), choice)
        request = pb.ActRequest(kind=offered.kind, turn_seq=turn.seq)
        if offered.kind in AMOUNT_KINDS:
            request.amount = offered.max if top else offered.min
        if illegal == 0:
            if offered.kind in AMOUNT_KINDS:
                request.amount = offered.max + 1
            else:
                request.turn_seq = turn.seq + 1000
        result = self.run(self._send(p, seat, request))
        if result is None:  # the stream ended first: taken off the table (OK), or its server died
            gone = self.host_of(seat.assigned.endpoint).lives != seat.life
            assert seat.stream.error is None or (gone and seat.stream.error.code() in SERVER_GONE), seat.stream.error
            return
        event(f"act ({'illegal' if illegal == 0 else 'legal'}): code {result.code}")
        if illegal == 0:
            assert result.code == PRECONDITION.value[0], (result, turn)
        else:
            assert result.code in (OK.value[0], PRECONDITION.value[0]), (result, turn)

    @rule(rounds=st.integers(1, 10))
    def play_on(self, rounds: int) -> None:
        """Round after round, every seat whose turn it is, at every table of every tournament,
        acts at the same time with a random legal action."""
        rng = random.Random(rounds)

        async def together() -> None:
            for _ in range(rounds):
                turns = self.turns()
                if not turns:
                    return
                results = await asyncio.gather(*(self._send(p, seat, random_action(turn, rng))
                                                 for p, seat, turn in turns))
                for result in results:
                    assert result is None or result.code in (OK.value[0], PRECONDITION.value[0]), result

        self.run(together())

    @rule(which=index)
    def let_the_clock_run(self, which: int) -> None:
        """CLOCK-2, TOURN-7: a seat whose turn it is stays silent; the clock acts for it and
        marks it away (a SeatChanged to SITTING_OUT on its stream), unless the hand ends first."""
        chosen = pick(self.turns(), which)
        if chosen is None:
            return
        _, seat, _ = chosen
        stream = seat.stream
        before = len(stream.events)

        def moved() -> bool:
            return stream.ended or any(
                e.HasField("timed_out") or e.HasField("hand_ended") or e.HasField("hand_voided")
                for e in stream.events[before:]
            )

        self.run(self.until(moved))
        timed_out = [e.timed_out for e in stream.events[before:] if e.HasField("timed_out")]
        if any(t.seat == seat.assigned.seat for t in timed_out):
            away = [e.seat_changed.seat for e in stream.events[before:] if e.HasField("seat_changed")]
            assert any(s.seat == seat.assigned.seat and s.status == pb.SEAT_STATUS_SITTING_OUT for s in away), (
                "TOURN-7: a player the clock acted for is away"
            )
            event("the clock acted: away")
        else:
            event("the turn passed otherwise")

    @rule(which=index, where=index)
    def watch_again(self, which: int, where: int) -> None:
        """A Watch resumed after any seq replays exactly what the spectator saw from there; past
        the last seq it is OUT_OF_RANGE."""
        t = pick(self.tournaments, which)
        if t is None:
            return
        last = self.run(self.state(t)).last_seq
        after = where % (last + 2)
        if after > last:
            request = tpb.WatchRequest(tournament_id=t.tournament_id, resume_after_seq=last + 1000)
            feed = Feed(self.stub, request, None, self.changed)
            self.run(self.until(lambda: feed.ended))
            assert feed.code == OUT_OF_RANGE and feed.details.startswith("resume_after_seq"), (feed.code, feed.details)
            return
        feed = Feed(self.stub, tpb.WatchRequest(tournament_id=t.tournament_id, resume_after_seq=after), None,
                    self.changed)
        try:
            self.run(self.until(lambda: (feed.last_seq >= last and t.spectator.last_seq >= last) or feed.ended))
            assert feed.code in (None, OK), (feed.code, feed.details)
            replayed, seen = feed.public(), t.spectator.public()[after:]
            common = min(len(replayed), len(seen))
            assert common >= last - after and replayed[:common] == seen[:common], (after, last)
            assert feed.numbering_fault() is None, feed.numbering_fault()
        finally:
            self.run(feed.close())
        event("watch resumed")

    @rule(which=index)
    def play_to_the_end(self, which: int) -> None:
        """Every player of a started tournament plays (and comes back when away) until it ends."""
        t = pick([t for t in self.running() if t.status != tpb.TOURNAMENT_STATUS_REGISTERING], which)
        if t is None:
            return
        self.run(self._play_until(t, lambda: False), timeout=WAIT * 3)
        assert t.spectator.code == OK, (t.spectator.code, t.spectator.details)
        t.status = self.run(self.state(t)).status
        assert t.status == tpb.TOURNAMENT_STATUS_FINISHED, t.status
        event("played to the end")

    async def _play_until(self, t: Tournament, done: Callable[[], bool]) -> None:
        """Every seat given plays random legal actions, and comes back once when the clock sent it
        away, until ``done()`` or the end of ``t`` (resumed first if paused)."""
        if t.status == tpb.TOURNAMENT_STATUS_PAUSED:
            await self.stub.Resume(tpb.TournamentRequest(tournament_id=t.tournament_id), metadata=operator())
            t.status = tpb.TOURNAMENT_STATUS_RUNNING
        rng = random.Random(t.tournament_id)
        back: set[str] = set()
        while not (done() or t.spectator.ended):
            for p, seat, turn in self.turns():
                await self._send(p, seat, random_action(turn, rng))
            for _, p, seat in self.seats():
                if seat.assigned.seat_token not in back and away_at(seat):
                    back.add(seat.assigned.seat_token)  # once a seat: the clock may send it away again
                    with contextlib.suppress(grpc.aio.AioRpcError):
                        await sit(p, seat, away=False)
            await self.until(lambda: done() or t.spectator.ended or bool(self.turns()))

    # ----------------------------------------------------------------- host faults

    @rule(which=index, restart=st.sampled_from(("never", "after the rebuild", "at once")))
    def kill_a_table_server(self, which: int, restart: str) -> None:
        """A table server dies (no drain): the tournaments rebuild its tables on the servers left
        (TOURN-11: a running hand is voided) and give their players new seats (SeatAssigned).
        A fresh server may take its slot once that is done, or at once (a paused tournament with
        seats there is then resumed, so that its next deal goes there whatever the tournament
        server has noticed yet)."""
        alive = [h for h in self.hosts if h.server is not None]
        if len(alive) < 2:
            return
        host = pick(alive, which)
        assert host.server is not None
        affected = [(t, p, len(p.seats)) for t, p, seat in self.seats() if seat.assigned.endpoint == host.endpoint]
        voided = sum(len(t.spectator.of("hand_voided")) for t in self.tournaments)
        self.run(host.server.kill())
        host.server = None
        host.lives += 1
        if restart == "at once":
            self.run(self._restart(host))
            for t in {id(t): t for t, _, _ in affected}.values():
                if t.status == tpb.TOURNAMENT_STATUS_PAUSED:
                    request = tpb.TournamentRequest(tournament_id=t.tournament_id)
                    code, _, details = self.run(status_of(self.stub.Resume(request, metadata=operator())))
                    assert code == OK or (code == PRECONDITION and "not paused" in details), (code, details)
                    t.status = tpb.TOURNAMENT_STATUS_RUNNING if code == OK else self.run(self.state(t)).status

        def reseated() -> bool:
            return all(len(p.seats) > count or p.entry_id in t.out() or t.spectator.ended for t, p, count in affected)

        self.run(self.until(reseated))
        if restart != "at once":
            for _, p, count in affected:
                assert all(s.assigned.endpoint != host.endpoint for s in p.seats[count:]), "reseated on a dead server"
        event(f"table server killed under {min(len(affected), 4)}+ seats, restarted {restart}")
        if sum(len(t.spectator.of("hand_voided")) for t in self.tournaments) > voided:
            event("a hand voided by a dead table server")
        if restart == "after the rebuild":
            self.run(self._restart(host))

    @rule(which=index)
    def restart_a_table_server(self, which: int) -> None:
        """A fresh table server in a dead one's slot (same port): the tournament server finds it
        healthy and places tables there again."""
        host = pick([h for h in self.hosts if h.server is None], which)
        if host is None:
            return
        self.run(self._restart(host))
        event("table server restarted")

    async def _restart(self, host: Host) -> None:
        servers, up = self.lobby.servers, asyncio.Event()
        unlisten = servers.listen(lambda endpoint, is_up: up.set() if endpoint == host.endpoint and is_up else None)
        try:
            host.server = await self._table_server(host.port)
            if not servers.is_up(host.endpoint):
                await asyncio.wait_for(up.wait(), WAIT)
        finally:
            unlisten()

    @rule()
    def kill_the_tournament_server(self) -> None:
        """The tournament server dies where it stands and a new one starts on its port from its
        journal: every tournament carries on where it was (the invariants read the same books,
        TOURN-11, through the new one), its tables found where they dealt on, and every Watch
        stream the death ended, resumed after the last seq it saw, goes on gap-free."""
        feeds = [(f, unregistered) for t in self.tournaments
                 for f, unregistered in ((t.spectator, False), *((p.feed, False) for p in t.players.values()),
                                         *((p.feed, True) for p in t.gone))
                 if not f.ended]
        self.run(self.server.kill())
        self.run(self.until(lambda: all(f.ended for f, _ in feeds)))
        self.server = TournamentServer(self.config)
        self.run(self.server.start())
        assert self.server.restored == len(self.tournaments)
        for feed, unregistered in feeds:
            feed.reopen(as_spectator=unregistered)
        event(f"tournament server killed and restarted under {min(len(self.running()), 2)} running")

    # ----------------------------------------------------------------- after every step

    @invariant()
    def the_service_keeps_its_word(self) -> None:
        self.run(self._check())

    async def _check(self) -> None:
        reply = await health_pb2_grpc.HealthStub(self.clients[0].channel).Check(
            health_pb2.HealthCheckRequest(service=TOURNAMENT_SERVICE), timeout=CALL_TIMEOUT
        )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        for host in self.hosts:
            if host.server is not None:
                async with grpc.aio.insecure_channel(host.endpoint) as channel:
                    assert await serving(channel), f"table server {host.endpoint} is not SERVING"
        for t in self.tournaments:
            await self._check_books(t)
            for feed in [t.spectator, *(p.feed for p in [*t.players.values(), *t.gone])]:
                assert feed.numbering_fault() is None, (t.tournament_id, feed.numbering_fault())
                assert feed.code in (None, OK), (t.tournament_id, feed.code, feed.details)
            for p in t.gone:  # its token died with its registration: nobody's seat comes on its stream
                assert not p.feed.of("seat_assigned"), (p.player_id, p.feed.of("seat_assigned"))
            if t.spectator.ended and not t.checked_end:
                await self._check_end(t)
        assert not self.logged.lines(), self.logged.lines()

    async def _consistent(self, t: Tournament) -> tuple[tpb.TournamentState, list[tpb.Standing]]:
        """The tournament's state and standings at one seq (read again if an event came between)."""
        request = tpb.StandingsRequest(tournament_id=t.tournament_id, page_size=1000)
        for _ in range(10):
            before = await self.state(t)
            standings = await self.stub.GetStandings(request, timeout=CALL_TIMEOUT)
            after = await self.state(t)
            if before.last_seq == after.last_seq:
                assert standings.total == len(standings.standings), standings
                return after, list(standings.standings)
        raise AssertionError(f"{t.tournament_id}: no two readings at the same seq in ten")

    async def _check_books(self, t: Tournament) -> None:
        """TOURN-11 and the pool, from the public events up to a consistent reading."""
        state, standings = await self._consistent(t)
        await self.until(lambda: t.spectator.last_seq >= state.last_seq or t.spectator.ended)
        events = t.spectator.public()[: state.last_seq]
        kinds = Counter(kind_of(e) for e in events)
        entries = kinds["registered"] - kinds["unregistered"]
        rebuys = [e.rebuy for e in events if e.HasField("rebuy")]
        add_ons = [e.add_on for e in events if e.HasField("add_on")]
        structure = t.structure
        chips = structure.starting_stack * entries + sum(r.chips for r in rebuys) + sum(a.chips for a in add_ons)
        assert state.entries == entries == len(standings), (state, entries)
        assert sum(s.stack for s in standings) == chips, (t.tournament_id, standings, chips)  # TOURN-11
        assert state.players_left == entries - kinds["eliminated"], (state, kinds)
        # Requests paid now whose chips wait for the player's next hand (TDA 27) are in the pool too.
        waiting = 0
        for p in t.players.values():
            given_rebuys = sum(1 for r in rebuys if r.entry_id.startswith(f"{p.player_id}#"))
            given_add_ons = sum(1 for a in add_ons if a.entry_id.startswith(f"{p.player_id}#"))
            if not p.auto_rebuy:
                assert given_rebuys <= p.rebuys, (p.player_id, rebuys)
                waiting += (p.rebuys - given_rebuys) * t.rebuy_cost
            assert given_add_ons <= p.add_ons, (p.player_id, add_ons)
            waiting += (p.add_ons - given_add_ons) * t.add_on_cost
        paid = structure.buy_in * entries + sum(r.cost for r in rebuys) + sum(a.cost for a in add_ons) + waiting
        assert state.prize_pool == paid, (state.prize_pool, paid)

    async def _check_end(self, t: Tournament) -> None:
        """The end: TOURN-6 (every entry placed once), TOURN-9 (prizes sum to the pool), TOURN-11
        (the winner holds every chip), every seat learned from the player's own stream, every
        stream ended as the proto says, and nothing of it left on the table servers."""
        t.checked_end = True
        spectator = t.spectator
        assert spectator.code == OK, (spectator.code, spectator.details)
        state, standings = await self._consistent(t)
        assert state.status == tpb.TOURNAMENT_STATUS_FINISHED and state.players_left == 1, state
        t.status = state.status
        payouts = await self.stub.GetPayouts(tpb.TournamentRequest(tournament_id=t.tournament_id))
        order = list(payouts.finishing_order)
        entries = sorted(e for p in t.players.values() for e in p.entries)
        assert sorted(p.entry_id for p in order) == entries and len(order) == state.entries, (order, entries)
        assert tie_consistent([p.place for p in order]), [p.place for p in order]  # TOURN-6
        assert sum(payouts.prizes) == payouts.prize_pool == state.prize_pool == sum(p.prize for p in order)  # TOURN-9
        finished = spectator.of("finished")
        assert len(finished) == 1 and finished[0].winner_entry_id == order[0].entry_id, finished
        expected = sum(s.stack for s in standings)
        assert standings[0].stack == expected and all(s.stack == 0 for s in standings[1:]), standings
        for p in t.players.values():
            await self.until(lambda p=p: p.feed.ended)
            assert p.feed.code == OK, (p.feed.code, p.feed.details)
            for entry_id in p.entries:
                told = [(s.assigned.table_id, s.assigned.seat) for s in p.seats if s.assigned.entry_id == entry_id]
                public = [
                    (e.seated.table_id, e.seated.seat) if e.HasField("seated") else (e.moved.to_table, e.moved.to_seat)
                    for e in spectator.events
                    if (e.HasField("seated") and e.seated.entry_id == entry_id)
                    or (e.HasField("moved") and e.moved.entry_id == entry_id)
                ]
                assert collapse(told) == collapse(public), (entry_id, told, public)
            for k, seat in enumerate(p.seats):
                await seat.stream.until_end()
                code = OK if seat.stream.error is None else seat.stream.error.code()
                allowed = {OK}
                if self.host_of(seat.assigned.endpoint).lives != seat.life:
                    allowed |= SERVER_GONE | SEAT_GONE
                if k < len(p.seats) - 1 or seat.assigned.entry_id in t.out():
                    allowed |= SEAT_GONE
                assert code in allowed, (seat.assigned, seat.stream.error)
        left_over = await self._tables_of(t)
        assert not left_over, left_over
        event(f"finished: {min(len(order), 8)}+ entries")


def passive(turn: pb.YourTurn) -> pb.ActRequest:
    """The most passive action the turn offers (check, call, bring-in, stand pat, else fold)."""
    offered = {a.kind: a for a in turn.legal}
    for kind in (pb.ACTION_KIND_CHECK, pb.ACTION_KIND_CALL, pb.ACTION_KIND_BRING_IN, pb.ACTION_KIND_DRAW):
        if kind in offered:
            return pb.ActRequest(kind=kind, amount=offered[kind].min if kind in AMOUNT_KINDS else 0,
                                 turn_seq=turn.seq)
    return pb.ActRequest(kind=turn.legal[0].kind, turn_seq=turn.seq)


def random_action(turn: pb.YourTurn, rng: random.Random) -> pb.ActRequest:
    """A random legal action for exactly this turn, aggressive often enough that tournaments end."""
    option = rng.choice(list(turn.legal))
    request = pb.ActRequest(kind=option.kind, turn_seq=turn.seq)
    if option.kind in AMOUNT_KINDS:
        request.amount = rng.choice((option.min, option.max))
    return request


def sit(p: Player, seat: Seat, away: bool) -> Any:
    """The seat's own SitOut (away) or SitIn (back) at its table (TOURN-7), with its seat token."""
    a = seat.assigned
    stub, metadata = p.client.tables.stub(a.endpoint), token(a.seat_token)
    if away:
        return stub.SitOut(pb.SeatRequest(table_id=a.table_id, seat=a.seat), metadata=metadata)
    return stub.SitIn(pb.SitInRequest(table_id=a.table_id, seat=a.seat), metadata=metadata)


def away_at(seat: Seat) -> bool:
    """Whether the seat's stream last showed it away (TOURN-7)."""
    state = None
    for e in seat.stream.events:
        changed = e.seat_changed.seat
        if e.HasField("seat_changed") and changed.seat == seat.assigned.seat:
            state = changed.status
    return state == pb.SEAT_STATUS_SITTING_OUT


def test_the_tournament_service_keeps_the_model_s_state() -> None:  # TOURN-2..11
    explore(TournamentServiceModel, examples=4, steps=25)


@pytest.mark.slow
def test_the_tournament_service_keeps_the_model_s_state_long() -> None:  # TOURN-2..11
    explore(TournamentServiceModel, examples=15, steps=50)
