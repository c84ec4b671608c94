"""Nothing secret in logs, in metrics or in the errors a client is told.

What a log line, a metric sample or an error message must never hold: a seat token (or its secret
part), a player, operator or director token, or a face-down card a spectator could not see (per
hand, the down cards of every seat that did not show them). Each test captures everything on
purpose, at DEBUG: the JSON log lines of every ``tablestorm serve`` process (stderr) and of the
test's own process (the bots, the in-process servers: every record through
:class:`~tablestorm.services.rpc.jsonlog.JsonFormatter`, so that ``extra`` fields count too), and every
sample of every server's ``/metrics`` over HTTP. The secrets are what the clients were given and
saw: the tokens from their replies, the down cards from their own streams.

* A short load: two ``tablestorm serve`` processes, five tables of three games, real bots
  (``tablestorm.sim.bots.client.Bot``: sleepers timing out, flaky ones dropping and resuming their streams,
  shovers all-in), refused calls with real tokens among them, then everyone stands up.
* A tournament: in-process table servers and a tournament server (with an operator token) and
  clients that know only the protos, a sit-and-go played to its winner.
* Refusals: every call that carries a token and is refused says why without echoing any token.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import random
import signal
import time
import urllib.request
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from support.calls import code_of
from support.processes import process
from support.running import run_async
from support.table_invariants import HIDDEN
from support.table_server import serving, stud_options, token
from support.table_streams import Stream, open_streams, play_to_a_fold, seat_players
from support.tournaments import OPERATOR, TIMEOUT, Bot, Channels, fast_structure, operator, player, until

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.api import tournament_pb2_grpc as trpc
from tablestorm.services.engine.cards import card_str
from tablestorm.services.engine.events import CardsDealt, Drew, HandEnded, HandShown
from tablestorm.services.rpc.jsonlog import JsonFormatter
from tablestorm.services.table.host import HostLimits
from tablestorm.services.table.server import ServerConfig, TableServer
from tablestorm.services.tournament.lobby import LobbyLimits
from tablestorm.services.tournament.server import TournamentServer, TournamentServerConfig
from tablestorm.services.tournament.servers import FaultPolicy
from tablestorm.sim.bots.client import Assignment, BotConfig, Tally
from tablestorm.sim.bots.client import Bot as LoadBot
from tablestorm.sim.distributions import Distribution
from tablestorm.sim.load.stats import RunStats
from tablestorm.sim.rooms.grpc import GrpcRoom
from tablestorm.sim.rooms.traffic import Traffic

HANDS = 6
"""Hands every cash table plays before the bots leave."""


# ----------------------------------------------------------------- what must stay secret


@dataclass
class Secrets:
    """The tokens issued and the down cards dealt, as the clients received them."""

    tokens: set[str] = field(default_factory=set)
    down: dict[tuple[str, int, int], list[int]] = field(default_factory=dict)
    """(table, hand, seat) -> the seat's face-down cards (dealt and drawn), from its own stream."""
    shown: set[tuple[str, int, int]] = field(default_factory=set)
    """(table, hand, seat) that showed its hand (HandShown: public from then on)."""

    def token(self, value: str) -> None:
        self.tokens.add(value)
        if "." in value:  # a seat token's secret alone is a secret too
            self.tokens.add(value.split(".", 1)[1])

    def saw(self, table_id: str, message: pb.ServerMessage) -> None:
        """A message of a seat's own stream at ``table_id``."""
        for event in message.events:
            key = (table_id, event.hand_number)
            if event.HasField("cards_dealt"):
                dealt = event.cards_dealt
                self._own(key, dealt.seat, dealt.down)
            elif event.HasField("drew"):
                self._own(key, event.drew.seat, event.drew.drawn)
            elif event.HasField("hand_shown"):
                self.shown.add((*key, event.hand_shown.seat))

    def saw_traffic(self, table_id: str, message: Traffic) -> None:
        """A message of a seat's own stream at ``table_id``, as a load bot reads it (its room's traffic)."""
        for event in message.events:
            key, body = (table_id, event.hand_number), event.event
            if isinstance(body, CardsDealt):
                self._own(key, body.player, body.down)
            elif isinstance(body, Drew):
                self._own(key, body.player, body.drawn)
            elif isinstance(body, HandShown):
                self.shown.add((*key, body.player))

    def _own(self, key: tuple[str, int], seat: int, cards: Iterable[int]) -> None:
        visible = [c for c in cards if c != HIDDEN]
        if visible:
            self.down.setdefault((*key, seat), []).extend(visible)

    def hidden_hands(self) -> list[list[int]]:
        """The down cards of every seat of every hand that did not show them."""
        return [cards for key, cards in self.down.items() if key not in self.shown]


def renderings(cards: list[int]) -> set[str]:
    """How a hand of face-down cards could be written into a log or a label: a proto text dump of
    the event, and (two cards or more: one card's name or number is too short to tell from other
    text) the engine's ints as a list, the cards' names joined."""
    found = {"\n".join(f"down: {c}" for c in cards)}
    if len(cards) > 1:
        names = [card_str(c) for c in cards]
        found |= {"".join(names), " ".join(names), ",".join(names), ", ".join(names)}
        found |= {json.dumps(cards), str(cards), ",".join(map(str, cards))}
    return found


def assert_nothing_secret(text: str, secrets: Secrets, where: str) -> None:
    assert secrets.tokens and secrets.down, "nothing was captured: the test would prove nothing"
    for secret in secrets.tokens:
        assert secret not in text, f"a token in the {where}"
    for cards in secrets.hidden_hands():
        for written in renderings(cards):
            assert written not in text, f"face-down cards {written!r} in the {where}"


# ----------------------------------------------------------------- capturing everything


@contextlib.contextmanager
def every_log_record() -> Iterator[io.StringIO]:
    """Every log record of this process from DEBUG up, as the JSON lines its servers would write."""
    lines = io.StringIO()
    handler = logging.StreamHandler(lines)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield lines
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def scrape(port: int) -> str:
    text: str = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    assert "tablestorm_" in text
    return text


def json_lines(stderr: str) -> str:
    """A process's stderr, checked to be the JSON lines its logs are (so nothing else slipped in)."""
    for line in stderr.splitlines():
        if line.strip():
            json.loads(line)
    return stderr


class RecordingBot(LoadBot):
    """A load test's bot that also tells :class:`Secrets` what its own stream showed it."""

    def __init__(self, assignment: Assignment, secrets: Secrets, **shared: Any) -> None:
        super().__init__(assignment, **shared)
        self.secrets = secrets
        self.hands_seen = 0

    def handle(self, message: Traffic) -> None:
        self.secrets.saw_traffic(self.table_id, message)
        self.hands_seen += sum(isinstance(e.event, HandEnded) for e in message.events)
        super().handle(message)


async def until_every_table_played(bots: list[RecordingBot], tally: Tally, hands: int) -> None:
    """Wait, hand by hand (the bots' ``hand_counted`` event), until every table played ``hands``."""
    tables: dict[tuple[str, str], list[RecordingBot]] = {}
    for bot in bots:
        tables.setdefault((bot.endpoint, bot.table_id), []).append(bot)
    deadline = time.monotonic() + TIMEOUT
    while not all(max(bot.hands_seen for bot in seats) >= hands for seats in tables.values()):
        tally.hand_counted.clear()
        await asyncio.wait_for(tally.hand_counted.wait(), deadline - time.monotonic())


TABLES = {
    "stud": (pb.TableOptions(game="7stud", stakes=pb.Stakes(small_bet=10), clock_seconds=0.4),
             ["maniac", "sleeper", "flaky", "calling_station", "strength"]),
    "draw": (pb.TableOptions(game="7a5draw", structure=pb.STRUCTURE_NO_LIMIT,
                             stakes=pb.Stakes(small_blind=5, big_blind=10), clock_seconds=0.4),
             ["shover", "shover", "random", "flaky"]),
    "five": (pb.TableOptions(game="5stud", stakes=pb.Stakes(small_bet=10), clock_seconds=0.4),
             ["random", "sleeper", "calling_station"]),
}


async def seated(endpoint: str, tables: dict[str, tuple[pb.TableOptions, list[str]]], secrets: Secrets,
                 refusals: list[str]) -> list[Assignment]:
    """Open ``tables`` and sit their players down; returns the bots' assignments (with the tokens).
    Each table also sees a forged and a misplaced token (refused, and logged by the server)."""
    assignments = []
    async with grpc.aio.insecure_channel(endpoint) as channel:
        stub = rpc.TableServiceStub(channel)
        for table_id, (options, kinds) in tables.items():
            await stub.CreateTable(pb.CreateTableRequest(table_id=table_id, options=options, seed=len(assignments)))
            tokens = []
            for seat, kind in enumerate(kinds, start=1):
                request = pb.SitDownRequest(table_id=table_id, seat=seat, player_id=f"{table_id}{seat}")
                reply = await stub.SitDown(request)
                secrets.token(reply.seat_token)
                tokens.append(reply.seat_token)
                think = Distribution("uniform", 0.01, 0.0, 0.02)
                assignments.append(Assignment(endpoint, table_id, seat, f"{table_id}{seat}", kind, think,
                                              len(assignments), seat_token=reply.seat_token))
            forged = tokens[0].split(".")[0] + ".not-the-secret"
            for presented, seat in ((forged, 1), (tokens[0], 2)):
                _, details = await code_of(stub.SitOut(pb.SeatRequest(table_id=table_id, seat=seat),
                                                       metadata=token(presented)))
                refusals.append(details)
    return assignments


# ----------------------------------------------------------------- the load


@run_async
async def test_a_short_load_logs_and_exports_no_token_and_no_hidden_card() -> None:
    secrets, refusals = Secrets(), []
    flags = ("serve", "--port", "0", "--metrics-port", "0", "--log-level", "debug", "--drain-seconds", "1")
    with every_log_record() as bots_log, process(*flags) as (first, first_ports), process(*flags) as (second, ports):
        servers = {first: first_ports, second: ports}
        endpoints = [f"127.0.0.1:{p['grpc_port']}" for p in servers.values()]
        assignments = await seated(endpoints[0], {k: TABLES[k] for k in ("stud", "draw")}, secrets, refusals)
        assignments += await seated(endpoints[1], TABLES, secrets, refusals)
        room, stats, tally = GrpcRoom(), RunStats(), Tally()
        config = BotConfig(strategies={"flaky": {"interval": (0.3, 0.8)}, "sleeper": {"sleep_probability": 0.3}})
        bots = [
            RecordingBot(a, secrets, room=room, stats=stats, tally=tally, start=time.time(), config=config)
            for a in assignments
        ]
        try:
            assert all(await asyncio.gather(*(bot.start() for bot in bots)))
            await until_every_table_played(bots, tally, HANDS)
        finally:
            chips = sum(await asyncio.gather(*(bot.stop() for bot in bots)))
            await room.close()
        assert chips > 0 and stats.timeouts > 0, "the sleepers let the clock act"
        metrics = "".join(scrape(p["metrics_port"]) for p in servers.values())
        logs = []
        for server in servers:
            server.send_signal(signal.SIGTERM)
            _, stderr = server.communicate(timeout=60)
            assert server.returncode == 0, stderr
            logs.append(json_lines(stderr))
    server_logs = "\n".join(logs)
    assert "seat token refused" in server_logs and "table created" in server_logs  # DEBUG and up, all of it
    assert len(secrets.hidden_hands()) > HANDS
    assert_nothing_secret(server_logs, secrets, "table servers' logs")
    assert_nothing_secret(bots_log.getvalue(), secrets, "bots' log")
    assert_nothing_secret(metrics, secrets, "metrics")
    assert_nothing_secret("\n".join(refusals), secrets, "refusals")


# ----------------------------------------------------------------- a tournament


class RecordingStub:
    """A TableService stub whose Play streams tell :class:`Secrets` what they show their seat."""

    def __init__(self, stub: rpc.TableServiceStub, secrets: Secrets) -> None:
        self._stub = stub
        self._secrets = secrets

    def Play(self, **options: Any) -> RecordingCall:
        return RecordingCall(self._stub.Play(**options), self._secrets)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stub, name)


class RecordingCall:
    """A Play call, read through: each message goes to :class:`Secrets` under the table welcomed."""

    def __init__(self, call: Any, secrets: Secrets) -> None:
        self._call = call
        self._secrets = secrets
        self._table = ""

    async def write(self, message: pb.ClientMessage) -> None:
        await self._call.write(message)

    async def code(self) -> grpc.StatusCode:
        code: grpc.StatusCode = await self._call.code()
        return code

    def __aiter__(self) -> AsyncIterator[pb.ServerMessage]:
        return self._read()

    async def _read(self) -> AsyncIterator[pb.ServerMessage]:
        async for message in self._call:
            if message.HasField("welcome"):
                self._table = message.welcome.table.table_id
            self._secrets.saw(self._table, message)
            yield message


class RecordingChannels(Channels):
    def __init__(self, secrets: Secrets) -> None:
        super().__init__()
        self._secrets = secrets

    def stub(self, endpoint: str) -> rpc.TableServiceStub:
        recording: Any = RecordingStub(super().stub(endpoint), self._secrets)
        return recording


@run_async
async def test_a_tournament_logs_and_exports_no_token_and_no_hidden_card() -> None:
    secrets = Secrets()
    secrets.token(OPERATOR)
    with every_log_record() as everything:
        tables = [TableServer(ServerConfig(port=0, metrics_port=0, limits=HostLimits(), drain_seconds=1))
                  for _ in range(2)]
        for server in tables:
            await server.start()
        config = TournamentServerConfig(
            tables=tuple(f"127.0.0.1:{s.port}" for s in tables), port=0, metrics_port=0, operator_token=OPERATOR,
            limits=LobbyLimits(drain_seconds=1), faults=FaultPolicy(interval_s=0.5, timeout_s=2.0, failures=2),
        )
        tournaments = TournamentServer(config)
        await tournaments.start()
        channels = RecordingChannels(secrets)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{tournaments.port}") as channel:
                stub = trpc.TournamentServiceStub(channel)
                structure = fast_structure("7stud", max_entrants=9, seats=5)
                await stub.CreateTournament(
                    tpb.CreateTournamentRequest(tournament_id="sng", structure=structure, seed=8), metadata=operator()
                )
                changed = asyncio.Condition()
                players = [Bot(f"p{k}", stub, channels, random.Random(k), changed=changed) for k in range(1, 10)]
                for bot in players:
                    await bot.register("sng")
                    secrets.token(bot.token)
                assert tournaments.lobby is not None
                director_token = tournaments.lobby.tournament("sng")._token  # only ever sent to the table servers
                secrets.token(director_token)
                watching = [asyncio.ensure_future(bot.watch("sng")) for bot in players]
                await until(changed, lambda: all(bot.seats for bot in players))
                refusals = await refused_with_tokens(stub, players)
                await asyncio.wait_for(asyncio.gather(*watching), TIMEOUT)
                for bot in players:
                    for seat in bot.seats:
                        secrets.token(seat.seat_token)
                assert players[0].of("finished") and any(len(bot.seats) > 1 for bot in players)  # moved: TOURN-3
                metrics = "".join(scrape(s.metrics_port) for s in [*tables, tournaments] if s.metrics_port)
        finally:
            await channels.close()
            await tournaments.stop()
            for server in tables:
                await server.stop(drain_seconds=0)
    logs = everything.getvalue()
    assert "serving" in logs and "seat token refused" in logs
    assert len(secrets.hidden_hands()) > 5
    assert_nothing_secret(logs, secrets, "servers' logs")
    assert_nothing_secret(metrics, secrets, "metrics")
    assert_nothing_secret("\n".join(refusals), secrets, "refusals")


async def refused_with_tokens(stub: trpc.TournamentServiceStub, players: list[Bot]) -> list[str]:
    """Calls carrying real tokens in the wrong places, each refused: their details."""
    first, second = players[0], players[1]
    seat = first.seats[0]
    details = []
    calls = [
        (stub.Rebuy(tpb.PlayerRequest(tournament_id="sng", player_id=second.player_id), metadata=player(first.token)),
         grpc.StatusCode.PERMISSION_DENIED),
        (stub.Start(tpb.TournamentRequest(tournament_id="sng"), metadata=(("x-operator-token", first.token),)),
         grpc.StatusCode.PERMISSION_DENIED),
        (stub.Watch(tpb.WatchRequest(tournament_id="sng", player_id=first.player_id),
                    metadata=player(seat.seat_token)).read(), grpc.StatusCode.PERMISSION_DENIED),
    ]
    async with grpc.aio.insecure_channel(seat.endpoint) as channel:
        tables = rpc.TableServiceStub(channel)
        other = next(s for bot in players for s in bot.seats if (s.table_id, s.seat) != (seat.table_id, seat.seat))
        table_calls = [
            (tables.SitOut(pb.SeatRequest(table_id=seat.table_id, seat=seat.seat), metadata=token(other.seat_token)),
             grpc.StatusCode.PERMISSION_DENIED if other.endpoint == seat.endpoint else grpc.StatusCode.UNAUTHENTICATED),
            (tables.AddChips(pb.AddChipsRequest(table_id=seat.table_id, seat=seat.seat, chips=5),
                             metadata=(("x-director-token", seat.seat_token),)), grpc.StatusCode.PERMISSION_DENIED),
            (tables.SitIn(pb.SitInRequest(table_id=seat.table_id, seat=seat.seat), metadata=token(first.token)),
             grpc.StatusCode.UNAUTHENTICATED),
        ]
        for call, expected in [*calls, *table_calls]:
            code, message = await code_of(call)
            assert code == expected, (code, message)
            details.append(message)
    return details


# ----------------------------------------------------------------- a seat's next player


@run_async
async def test_the_next_player_of_a_seat_never_sees_the_last_ones_cards() -> None:
    """A seat's log replays the previous hand: a new player of the seat resuming from seq 0 gets it,
    with the down cards of the player who sat there before (who folded: never shown) hidden, and
    its history starts with its own hands. Face-down cards belong to an occupancy, not a seat."""
    async with serving() as (_, stub):
        await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(clock_seconds=600), seed=9))
        tokens = await seat_players(stub, "t", 2)
        streams = open_streams(stub, "t", tokens)
        await stub.SitOut(pb.SeatRequest(table_id="t", seat=1), metadata=token(tokens[1]))  # no hand 2 for it
        await play_to_a_fold(streams, aggressor=2)
        before = streams[1].own_down(1)
        assert len(before) == 2 and HIDDEN not in before
        await stub.StandUp(pb.SeatRequest(table_id="t", seat=1), metadata=token(tokens[1]))
        newcomer = await stub.SitDown(pb.SitDownRequest(table_id="t", seat=1, player_id="p3"))  # hand 2 deals
        stream = Stream(stub, "t", 1, newcomer.seat_token, resume_after=0)
        await stream.until(lambda: len(stream.own_down(2)) == 2)
        assert stream.welcome is not None and not stream.welcome.gap
        replayed = [e.cards_dealt for e in stream.events if e.hand_number == 1 and e.HasField("cards_dealt")]
        assert [d.down for d in replayed if d.seat == 1] == [[HIDDEN, HIDDEN]], "the last player's hole cards"
        history = await stub.GetHistory(pb.SeatRequest(table_id="t", seat=1), metadata=token(newcomer.seat_token))
        assert [h.hand_number for h in history.hands] in ([], [2])
        for s in (*streams.values(), stream):
            await s.close()
