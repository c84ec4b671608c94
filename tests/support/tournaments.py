"""The tournament service under test, and clients of it that know only the protos.

:func:`tournament_servers` starts table servers (``tablestorm.v1.TableService``, in-process, port 0)
and a tournament server given them, all on 127.0.0.1. A :class:`Bot` registers, watches the
tournament with its token, and plays every seat its SeatAssigned events give it over
``TableService.Play`` with random legal actions, coming back (SitIn) when it sees itself away.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.api import tournament_pb2_grpc as trpc
from tablestorm.services.rpc.tls import ClientTls, channel
from tablestorm.services.table.host import HostLimits
from tablestorm.services.table.server import ServerConfig, TableServer
from tablestorm.services.tournament.lobby import LobbyLimits
from tablestorm.services.tournament.server import TournamentServer, TournamentServerConfig
from tablestorm.services.tournament.servers import FaultPolicy

TIMEOUT = 120.0
"""A whole tournament's bound (they take seconds; the machine is shared and noisy)."""
OPERATOR = "operator-secret-0123456789"


# ----------------------------------------------------------------- structures


def fast_structure(
    game: str = "7stud", levels: int = 30, level_s: float = 1.0, **fields: Any
) -> tpb.TournamentStructure:
    """Second-long levels whose stakes double every two levels: 20-40 bots finish in seconds."""
    rows = []
    for k in range(levels):
        unit = 2 ** (k // 2 + 1)  # 2, 2, 4, 4, 8, ...
        if game == "7a5draw":
            stakes = pb.Stakes(small_blind=unit // 2, big_blind=unit, small_bet=unit, big_bet=2 * unit)
        else:
            stakes = pb.Stakes(ante=unit // 2, bring_in=unit // 2, small_bet=unit, big_bet=2 * unit)
        rows.append(tpb.Level(duration_s=level_s, stakes=stakes))
    base: dict[str, Any] = {
        "name": f"fast {game}", "game": game, "starting_stack": 200, "buy_in": 10, "clock_seconds": 2.0,
        "levels": rows,
    }
    return tpb.TournamentStructure(**(base | fields))


# ----------------------------------------------------------------- servers


@dataclass
class Servers:
    tournaments: TournamentServer
    stub: trpc.TournamentServiceStub
    tables: list[TableServer]
    channel: grpc.aio.Channel

    @property
    def lobby(self) -> Any:
        assert self.tournaments.lobby is not None
        return self.tournaments.lobby


@asynccontextmanager
async def tournament_servers(
    tables: int = 2, operator_token: str | None = OPERATOR, faults: FaultPolicy | None = None, **limits: Any
) -> AsyncIterator[Servers]:
    """``tables`` table servers and a tournament server given them, all on 127.0.0.1."""
    table_servers = []
    for _ in range(tables):
        server = TableServer(ServerConfig(port=0, limits=HostLimits(), drain_seconds=1))
        await server.start()
        table_servers.append(server)
    config = TournamentServerConfig(
        tables=tuple(f"127.0.0.1:{s.port}" for s in table_servers),
        port=0,
        operator_token=operator_token,
        limits=LobbyLimits(drain_seconds=1, **limits),
        faults=faults or FaultPolicy(interval_s=0.5, timeout_s=2.0, failures=2),
    )
    tournaments = TournamentServer(config)
    await tournaments.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{tournaments.port}")
    try:
        yield Servers(tournaments, trpc.TournamentServiceStub(channel), table_servers, channel)
    finally:
        await channel.close()
        assert tournaments.lobby is not None
        if tournaments.lobby.accepting:
            await tournaments.stop()
        for server in table_servers:
            if server.host is not None and server.host.accepting:
                await server.stop(drain_seconds=0)


def operator() -> tuple[tuple[str, str]]:
    return (("x-operator-token", OPERATOR),)


def player(token: str) -> tuple[tuple[str, str]]:
    return (("x-player-token", token),)


# ----------------------------------------------------------------- clients that know only the protos


class Channels:
    """One channel per table server endpoint, shared by every bot of a test: TLS with ``tls`` (a
    player's certificate, for mutual TLS), else plaintext."""

    def __init__(self, tls: ClientTls | None = None) -> None:
        self._tls = tls
        self._channels: dict[str, grpc.aio.Channel] = {}

    def stub(self, endpoint: str) -> rpc.TableServiceStub:
        if endpoint not in self._channels:
            self._channels[endpoint] = channel(endpoint, self._tls)
        return rpc.TableServiceStub(self._channels[endpoint])

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self._channels.values()))


WEIGHTS = {
    pb.ACTION_KIND_FOLD: 1, pb.ACTION_KIND_CHECK: 3, pb.ACTION_KIND_CALL: 3, pb.ACTION_KIND_BRING_IN: 2,
    pb.ACTION_KIND_COMPLETE: 3, pb.ACTION_KIND_BET: 3, pb.ACTION_KIND_RAISE: 3,
}


def random_action(legal: list[pb.LegalAction], rng: random.Random) -> pb.ActRequest:
    """A random legal action, aggressive often enough that a tournament ends soon; a draw stands pat."""
    kinds = {a.kind: a for a in legal}
    if pb.ACTION_KIND_DRAW in kinds:
        return pb.ActRequest(kind=pb.ACTION_KIND_DRAW)
    kind = rng.choices(sorted(kinds), [WEIGHTS[k] for k in sorted(kinds)])[0]
    option = kinds[kind]
    return pb.ActRequest(kind=kind, amount=rng.choice((option.min, option.max)))


@dataclass
class Bot:
    """A tournament player written from the protos alone."""

    player_id: str
    stub: trpc.TournamentServiceStub
    channels: Channels
    rng: random.Random
    acting: asyncio.Event = field(default_factory=asyncio.Event)
    """Cleared: the bot holds its actions (a test keeps a hand running)."""
    token: str = ""
    entry_id: str = ""
    events: list[tpb.TournamentEvent] = field(default_factory=list)
    seats: list[tpb.SeatAssigned] = field(default_factory=list)
    held_at: str = ""
    """While ``acting`` is clear: the table server where the bot has a turn it does not take."""
    seat_ends: list[tuple[str, grpc.StatusCode]] = field(default_factory=list)
    """Where and how each of its Play streams ended (OK: moved or out; UNAVAILABLE: the server died)."""
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    """Notified on everything the bot sees (the bots of a test share one)."""
    restarts: int = 0
    """Watch streams the tournament server's death ended, and that were opened again."""
    _count: int = 0
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.acting.set()

    async def register(self, tournament_id: str, auto_rebuy: bool = False) -> tpb.RegisterResponse:
        request = tpb.RegisterRequest(tournament_id=tournament_id, player_id=self.player_id, auto_rebuy=auto_rebuy)
        reply = await self.stub.Register(request, metadata=player(self.token) if self.token else None)
        self.token, self.entry_id = reply.player_token, reply.entry_id
        return reply

    def of(self, kind: str) -> list[Any]:
        return [getattr(e, kind) for e in self.events if e.WhichOneof("kind") == kind]

    async def _notify(self) -> None:
        async with self.changed:
            self.changed.notify_all()

    async def watch(self, tournament_id: str, *, through_restarts: bool = False) -> None:
        """Follow the tournament with the token until it finishes, playing every seat given; then
        play on until each seat's stream ends, as the server ends every one (a table left on a
        server down is closed once it is back, however late; a stream to a dead server fails).
        ``through_restarts``: a Watch the tournament server's death ends UNAVAILABLE is opened
        again once it is back, resuming after the last seq seen (its seats play on meanwhile)."""
        request = tpb.WatchRequest(tournament_id=tournament_id, player_id=self.player_id)
        try:
            while True:
                try:
                    async for event in self.stub.Watch(
                        request, metadata=player(self.token), wait_for_ready=through_restarts
                    ):
                        self.events.append(event)
                        request.resume_after_seq = event.seq
                        if event.HasField("seat_assigned"):
                            self.seats.append(event.seat_assigned)
                            task = asyncio.ensure_future(self._play(event.seat_assigned))
                            self._tasks.add(task)
                            task.add_done_callback(self._tasks.discard)
                        await self._notify()
                    break
                except grpc.aio.AioRpcError as exc:
                    if not through_restarts or exc.code() != grpc.StatusCode.UNAVAILABLE:
                        raise
                    self.restarts += 1
            await asyncio.gather(*self._tasks)
        finally:
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _play(self, seat: tpb.SeatAssigned) -> None:
        stub = self.channels.stub(seat.endpoint)
        call = stub.Play(metadata=(("x-seat-token", seat.seat_token),))
        hello = pb.Hello(table_id=seat.table_id, seat=seat.seat, resume_after_seq=seat.resume_after_seq)
        try:
            await call.write(pb.ClientMessage(hello=hello))
            async for message in call:
                for event in message.events:
                    state = event.seat_changed.seat
                    mine = state.seat == seat.seat and state.player_id == seat.entry_id
                    if event.HasField("seat_changed") and mine and state.status == pb.SEAT_STATUS_SITTING_OUT:
                        sit_in = pb.SitInRequest(table_id=seat.table_id, seat=seat.seat)  # timed out: back (TOURN-7)
                        with contextlib.suppress(grpc.aio.AioRpcError):
                            await stub.SitIn(sit_in, metadata=(("x-seat-token", seat.seat_token),))
                if message.HasField("your_turn"):
                    if not self.acting.is_set():
                        self.held_at = seat.endpoint  # a hand is running there, waiting for this bot
                        await self._notify()
                        await self.acting.wait()
                        self.held_at = ""
                    self._count += 1
                    action = random_action(list(message.your_turn.legal), self.rng)
                    action.action_id, action.turn_seq = f"{self.player_id}-{self._count}", message.your_turn.seq
                    await call.write(pb.ClientMessage(act=action))
            self.seat_ends.append((seat.endpoint, await call.code()))
        except grpc.aio.AioRpcError as exc:
            self.seat_ends.append((seat.endpoint, exc.code()))
        finally:
            await self._notify()


def bots(servers: Servers, count: int, seed: int, prefix: str = "p") -> tuple[list[Bot], Channels]:
    channels = Channels()
    changed = asyncio.Condition()
    rng = random.Random(seed)
    return [
        Bot(f"{prefix}{k}", servers.stub, channels, random.Random(rng.random()), changed=changed)
        for k in range(1, count + 1)
    ], channels


# ----------------------------------------------------------------- a tournament played and checked


async def until(changed: asyncio.Condition, predicate: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    async with changed:
        await asyncio.wait_for(changed.wait_for(predicate), timeout)


async def create(servers: Servers, tournament_id: str, structure: tpb.TournamentStructure, seed: int = 1) -> None:
    request = tpb.CreateTournamentRequest(tournament_id=tournament_id, structure=structure, seed=seed)
    await servers.stub.CreateTournament(request, metadata=operator())


async def standings(servers: Servers, tournament_id: str) -> list[tpb.Standing]:
    reply = await servers.stub.GetStandings(tpb.StandingsRequest(tournament_id=tournament_id, page_size=1000))
    return list(reply.standings)


async def check_finished(servers: Servers, tournament_id: str, players: list[Bot], expected_chips: int) -> None:
    """The end (TOURN-6, TOURN-9, TOURN-11): one winner with every chip, every entry placed once,
    places 1..N, the prizes summing to the pool."""
    state = await servers.stub.GetTournament(tpb.TournamentRequest(tournament_id=tournament_id))
    assert state.status == tpb.TOURNAMENT_STATUS_FINISHED and state.players_left == 1
    payouts = await servers.stub.GetPayouts(tpb.TournamentRequest(tournament_id=tournament_id))
    order = list(payouts.finishing_order)
    entries = {e.entry_id for bot in players for e in bot.of("registered") if e.player_id == bot.player_id}
    assert {p.entry_id for p in order} == entries and len(order) == len(entries) == state.entries
    assert tie_consistent([p.place for p in order]), sorted(p.place for p in order)  # TOURN-6
    assert sum(payouts.prizes) == payouts.prize_pool == state.prize_pool
    assert sum(p.prize for p in order) == payouts.prize_pool
    final = await standings(servers, tournament_id)
    assert final[0].stack == expected_chips and all(s.stack == 0 for s in final[1:])
    finished = players[0].of("finished")
    assert len(finished) == 1 and finished[0].winner_entry_id == order[0].entry_id


def tie_consistent(places: list[int]) -> bool:
    """TOURN-6: places 1..N where tied entries share the best of their places."""
    expected = 1
    for place in sorted(set(places)):
        if place != expected:
            return False
        expected += places.count(place)
    return expected == len(places) + 1


async def started(
    servers: Servers, tournament_id: str, structure: tpb.TournamentStructure, *, entrants: int, seed: int,
    spare: int = 0,
) -> tuple[list[Bot], Channels, list[asyncio.Task[None]]]:
    """A tournament created with ``entrants`` bots registered, started and watching; ``spare``
    more bots are made but neither registered nor watching (the last of the list)."""
    await create(servers, tournament_id, structure, seed=seed)
    players, channels = bots(servers, entrants + spare, seed=seed)
    for bot in players[:entrants]:
        await bot.register(tournament_id)
    await servers.stub.Start(tpb.TournamentRequest(tournament_id=tournament_id), metadata=operator())
    return players, channels, await play_to_the_end(servers, tournament_id, players[:entrants])


async def play_to_the_end(servers: Servers, tournament_id: str, players: list[Bot]) -> list[asyncio.Task[None]]:
    """Start every bot's Watch; returns the tasks (they end when the tournament finishes)."""
    return [asyncio.ensure_future(bot.watch(tournament_id)) for bot in players]


async def seated_sit_and_go(
    stub: trpc.TournamentServiceStub, structure: tpb.TournamentStructure, channels: Channels,
    tournament_id: str = "sng", seed: int = 2,
) -> tuple[list[Bot], list[asyncio.Task[None]]]:
    """A sit-and-go created (as the operator) and filled by ``structure.max_entrants`` bots (the
    last registration starts it), once every bot watching it holds its seat: the bots (p1..pN) and
    their Watch tasks (they end when it finishes)."""
    request = tpb.CreateTournamentRequest(tournament_id=tournament_id, structure=structure, seed=seed)
    await stub.CreateTournament(request, metadata=operator())
    changed = asyncio.Condition()
    players = [Bot(f"p{k}", stub, channels, random.Random(k), changed=changed)
               for k in range(1, structure.max_entrants + 1)]
    for bot in players:
        await bot.register(tournament_id)
    watching = [asyncio.ensure_future(bot.watch(tournament_id)) for bot in players]
    await until(changed, lambda: all(bot.seats for bot in players))
    return players, watching
