"""A stateful model of the table service, driven over gRPC by several clients at once.

``TableServiceModel`` (a ``hypothesis.stateful.RuleBasedStateMachine``) runs a real server on
127.0.0.1 whose ledger is a real :class:`tablestorm.sim.load.registry.Registry`, kept by the test, and three
clients on their own channels. Its rules create tables of random games, structures, stakes and
clocks; sit down (valid and invalid seats and buy-ins); act (legal actions from YourTurn, and
illegal ones, on Play streams and as unary calls, several clients at once); let a short clock time
a seat out; drop a Play stream and resume it, with and without ``resume_after_seq``; stand up
(refused while dealt into the hand); sit out and in; rebuy when broke; close tables; and kill the
server (no drain) and start another that rebuilds every table from the ledger's last entries as a
load run's recovery does (``tablestorm.sim.load.recovery``), seat tokens still valid.

The model holds what each client should hold: its seats and tokens, the chips it bought and cashed
out. After every step: the chips on the tables equal buy-ins less cash-outs (across restarts, with
the ledger's refunds) and the ledger says the same; every table's seats are the model's; no stream
showed a seat another seat's face-down card or broke its sequence numbers (unless its Welcome
announced a gap); the server answers health and GetTable; nothing was logged at ERROR.

Time is real here (clocks run while the loop does), so expectations that a short clock could
overtake allow for it; on the long-clock tables nothing moves unless a client acts, and those are
exact. Rules RULES.md cites: TABLE-1 (buy-ins, rebuys), CLOCK-2/CLOCK-3 (the clock), SHOW-4.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import grpc
import pytest
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, rule
from support.service_model import ServiceModel, explore, index, pick, status_of
from support.table_contract import ACT_RESULT_CODES, ALLOWED, GAMES
from support.table_invariants import CALL_TIMEOUT, chips_in, first_sight, leak, seq_break, serving
from support.table_server import token
from support.table_streams import Stream

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.table.host import HostLimits
from tablestorm.services.table.ledger import LedgerEntry
from tablestorm.services.table.server import ServerConfig, TableServer
from tablestorm.sim.load.registry import Registry

OK = grpc.StatusCode.OK
INVALID = grpc.StatusCode.INVALID_ARGUMENT
PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION
EXISTS = grpc.StatusCode.ALREADY_EXISTS
NOT_FOUND = grpc.StatusCode.NOT_FOUND
UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
SHORT_CLOCK = 0.3
"""Seconds: a silent seat times out within a step or two (CLOCK-2)."""
LONG_CLOCK = 120.0
"""Seconds: longer than any run, so nothing moves at these tables unless a client acts."""
CLIENTS = 3
MAX_OPEN_TABLES = 4
AMOUNT_KINDS = frozenset({pb.ACTION_KIND_BRING_IN, pb.ACTION_KIND_COMPLETE, pb.ACTION_KIND_BET, pb.ACTION_KIND_RAISE})
PASSIVE = (pb.ACTION_KIND_CHECK, pb.ACTION_KIND_CALL, pb.ACTION_KIND_BRING_IN, pb.ACTION_KIND_DRAW)
AGGRESSIVE = (pb.ACTION_KIND_RAISE, pb.ACTION_KIND_BET, pb.ACTION_KIND_COMPLETE)
SERVER_GONE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})
"""How a client sees its stream end when the server dies under it."""

class HostLedger:
    """One server's :class:`~tablestorm.services.table.ledger.TableLedger`: every entry goes straight into the
    test's registry under this server's host id (durable at once, like a registry that answers)."""

    def __init__(self, registry: Registry, host_id: str) -> None:
        self.registry = registry
        self.host_id = host_id

    async def record(self, entry: LedgerEntry) -> None:
        self.registry.record(self.host_id, [entry])

    def note(self, entry: LedgerEntry) -> None:
        self.registry.record(self.host_id, [entry])


@dataclass
class Holding:
    """A seat a client holds, as the model expects the server to know it."""

    table_id: str
    seat: int
    player_id: str
    token: str
    resume_after: int
    """SitDownResponse.resume_after_seq."""
    sat_in: int
    """The server generation the seat was taken on (its ``resume_after`` is a seq of that server's)."""
    stream: Stream | None = None
    resumed_from: int | None = None
    """The stream's Hello.resume_after_seq."""
    last_seq: int | None = None
    """The last event seq a dropped stream of this seat had read."""
    seen_in: int = 0
    """The server generation ``last_seq`` was read from."""


@dataclass
class Client:
    """One client on its own channel: the seats it holds, the chips it bought and cashed out."""

    name: str
    holdings: dict[str, Holding] = field(default_factory=dict)
    bought: int = 0
    cashed_out: int = 0
    channel: grpc.aio.Channel | None = None
    stub: rpc.TableServiceStub | None = None


@dataclass
class Table:
    """A table as the model knows it: who sits where, whether it is closing or gone."""

    table_id: str
    posted_buy_in: int
    max_seats: int
    short_clock: bool
    seats: dict[int, str] = field(default_factory=dict)
    """Seat number to player id."""
    closing: bool = False
    gone: bool = False


@dataclass(frozen=True)
class Snapshot:
    """A table at one instant, as a spectator's Welcome shows it."""

    state: pb.TableState
    dealt: tuple[int, ...]
    """The seats dealt into the running hand (none between hands)."""

    def stack(self, seat: int) -> int:
        return next(s.stack for s in self.state.seats if s.seat == seat)


class SeatCall(NamedTuple):
    """A seat call made, with the table as it stood just before and the answer."""

    client: Client
    holding: Holding
    table: Table
    before: Snapshot
    dealt: bool
    """The seat was dealt into the hand running just before."""
    code: grpc.StatusCode
    reply: Any
    details: str


def end_code(stream: Stream) -> grpc.StatusCode:
    return OK if stream.error is None else stream.error.code()


class TableServiceModel(ServiceModel):
    """The server, its ledger and its clients, with what the model expects each client to hold;
    each rule is something clients (or a crash) do, each invariant what must hold after it."""

    def __init__(self) -> None:
        super().__init__()
        self.registry = Registry()
        self.generation = 0
        self.ids = itertools.count(1)
        self.clients = [Client(f"c{k}") for k in range(CLIENTS)]
        self.tables: list[Table] = []
        self.server = self.run(self._start())

    async def close(self) -> None:
        for client in self.clients:
            for holding in client.holdings.values():
                if holding.stream is not None:
                    await holding.stream.close()
        await self.server.stop(drain_seconds=0)
        for client in self.clients:
            assert client.channel is not None
            await client.channel.close()

    async def _start(self) -> TableServer:
        host_id = f"h{self.generation}"
        config = ServerConfig(port=0, limits=HostLimits(), drain_seconds=0, ledger=HostLedger(self.registry, host_id))
        server = TableServer(config)
        await server.start()
        self.registry.register_host(host_id, f"127.0.0.1:{server.port}", "", "local")
        for client in self.clients:
            client.channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")
            client.stub = rpc.TableServiceStub(client.channel)
        return server

    # ----------------------------------------------------------------- what the model can see

    @property
    def stub(self) -> rpc.TableServiceStub:
        stub = self.clients[0].stub
        assert stub is not None
        return stub

    def open_tables(self) -> list[Table]:
        return [t for t in self.tables if not t.gone]

    def table(self, table_id: str) -> Table:
        return next(t for t in self.tables if t.table_id == table_id)

    def holdings(self) -> list[tuple[Client, Holding]]:
        return [(c, h) for c in self.clients for h in c.holdings.values()]

    async def snapshot(self, table_id: str) -> Snapshot:
        """The table and the running hand's seats, at one instant."""
        first = await first_sight(self.stub, table_id)
        assert first is not None, f"table {table_id!r} is gone"
        state = first.welcome.table
        started = [e.hand_started for e in first.events if e.HasField("hand_started")]
        dealt = tuple(started[-1].seats) if state.hand_running and started else ()
        return Snapshot(state, dealt)

    def watch(self, client: Client, holding: Holding, resume_after: int | None) -> Stream:
        """Open the seat's Play stream (a stream it had ends ABORTED: the check is the caller's)."""
        assert client.stub is not None
        holding.resumed_from = resume_after
        holding.stream = Stream(client.stub, holding.table_id, holding.seat, holding.token, resume_after=resume_after)
        return holding.stream

    # ----------------------------------------------------------------- tables

    @initialize(games=st.tuples(st.sampled_from(sorted(GAMES)), st.sampled_from(sorted(GAMES))), structures=index)
    def a_room_in_play(self, games: tuple[str, str], structures: int) -> None:
        """Two tables in play from the start, one on a long clock and one on a short clock, every
        client seated and watching at both: the rules then act on live hands at once."""
        for game, short in zip(games, (False, True), strict=True):
            self.create_table(game, structures, 4, short, 0, 1, 3)
            table = self.tables[-1]
            for k, client in enumerate(self.clients):
                self.sit_down(k, len(self.open_tables()) - 1, k, "none")
                assert table.table_id in client.holdings

    @rule(
        game=st.sampled_from(sorted(GAMES)),
        structure=index,
        small_bet=st.sampled_from((2, 4, 10)),
        short=st.booleans(),
        seats=st.sampled_from((0, 2, 3)),
        invalid=st.integers(0, 7),
        big_bets=st.sampled_from((0, 3, 10)),
    )
    def create_table(
        self, game: str, structure: int, small_bet: int, short: bool, seats: int, invalid: int, big_bets: int
    ) -> None:
        """A table; with ``big_bets`` its buy-in is that many big bets, so short stacks go broke."""
        options = pb.TableOptions(
            game=game,
            structure=pick(GAMES[game], structure),
            stakes=pb.Stakes(small_bet=small_bet),
            clock_seconds=SHORT_CLOCK if short else LONG_CLOCK,
            max_seats=seats,
            buy_in=2 * small_bet * big_bets,
        )
        if invalid == 0:  # no stud is played no limit: refused, naming the field
            options.game, options.structure = "7stud", pb.STRUCTURE_NO_LIMIT
        elif len(self.open_tables()) >= MAX_OPEN_TABLES:
            return
        table_id = f"m{next(self.ids)}"
        code, state, details = self.run(
            status_of(self.stub.CreateTable(pb.CreateTableRequest(table_id=table_id, options=options)))
        )
        event(f"create table: {code.name}")
        if invalid == 0:
            assert code == INVALID and "structure" in details, (code, details)
            return
        assert code == OK, (code, details)
        self.tables.append(Table(table_id, state.posted_buy_in, state.options.max_seats, short))

    @rule(which=index)
    def close_table(self, which: int) -> None:
        table = pick(self.tables, which)
        if table is None:
            return
        code, reply, details = self.run(status_of(self.stub.CloseTable(pb.CloseTableRequest(table_id=table.table_id))))
        if table.gone:
            assert code == NOT_FOUND, (code, details)
            return
        assert code == OK, (code, details)
        assert (reply.closed, reply.seats_taken) == (not table.seats, len(table.seats)), reply
        table.closing = True
        table.gone = reply.closed

    # ----------------------------------------------------------------- seats

    @rule(
        who=index, which=index, seat=index, fault=st.sampled_from(("none", "none", "seat", "buy_in", "taken", "player"))
    )
    def sit_down(self, who: int, which: int, seat: int, fault: str) -> None:
        client = pick(self.clients, who)
        table = pick(self.open_tables(), which)
        if table is None:
            return
        free = [s for s in range(1, table.max_seats + 1) if s not in table.seats]
        seat_no = pick(free, seat) or 1
        held = client.holdings.get(table.table_id)
        player_id = held.player_id if held is not None else f"{client.name}-{next(self.ids)}"
        buy_in = pick((0, table.posted_buy_in), seat)
        if fault == "seat":
            seat_no = pick((0, table.max_seats + 1, 2**32 - 1), seat)
        elif fault == "buy_in":
            buy_in = pick((table.posted_buy_in - 1, table.posted_buy_in + 1, -1), seat)
        elif fault == "taken" and table.seats:
            seat_no = pick(sorted(table.seats), seat)
        elif fault == "player":
            player_id = pick([*table.seats.values(), player_id], seat)
        if fault == "seat":
            expected = INVALID
        elif table.closing:
            expected = PRECONDITION
        elif fault == "buy_in":
            expected = INVALID
        elif seat_no in table.seats or player_id in table.seats.values():
            expected = EXISTS
        else:
            expected = OK
        request = pb.SitDownRequest(table_id=table.table_id, seat=seat_no, player_id=player_id, buy_in=buy_in)
        assert client.stub is not None
        code, reply, details = self.run(status_of(client.stub.SitDown(request)))
        assert code == expected, (fault, code, details, table)
        event(f"sit down: {code.name}")
        if code != OK:
            return
        assert reply.seat.stack == table.posted_buy_in and reply.seat.seat == seat_no  # TABLE-1
        table.seats[seat_no] = player_id
        client.bought += table.posted_buy_in
        holding = Holding(table.table_id, seat_no, player_id, reply.seat_token, reply.resume_after_seq, self.generation)
        client.holdings[table.table_id] = holding
        stream = self.watch(client, holding, reply.resume_after_seq)  # it misses nothing from its sit-down on
        self.run(stream.until(lambda: stream.welcome is not None))

    def seat_call(self, which: int, method: str) -> SeatCall | None:
        """Call ``method`` (StandUp, Rebuy) for one of the seats held, with a snapshot of its table
        just before: what the answer must be depends on the hand running then."""
        chosen = pick(self.holdings(), which)
        if chosen is None:
            return None
        client, holding = chosen
        before = self.run(self.snapshot(holding.table_id))
        request = pb.SeatRequest(table_id=holding.table_id, seat=holding.seat)
        assert client.stub is not None
        call = getattr(client.stub, method)(request, metadata=token(holding.token))
        code, reply, details = self.run(status_of(call))
        return SeatCall(
            client, holding, self.table(holding.table_id), before, holding.seat in before.dealt, code, reply, details
        )

    @rule(which=index)
    def stand_up(self, which: int) -> None:
        done = self.seat_call(which, "StandUp")
        if done is None:
            return
        client, holding, table, before, dealt, code, reply, details = done
        request = pb.SeatRequest(table_id=holding.table_id, seat=holding.seat)
        allowed = {PRECONDITION} if dealt else {OK}
        if table.short_clock:  # the clock may end the hand first, and the next may deal the seat in
            allowed = {OK, PRECONDITION}
        assert code in allowed, (code, details, before.state)
        event(f"stand up: {code.name}")
        if code == PRECONDITION:
            assert "dealt into hand" in details, details
            return
        if not table.short_clock:  # nothing moved since the snapshot: it cashes out that stack
            assert reply.chips == before.stack(holding.seat), (reply, before.state)
        client.cashed_out += reply.chips
        del client.holdings[holding.table_id]
        del table.seats[holding.seat]
        if table.closing and not table.seats:
            table.gone = True
        if holding.stream is not None:  # standing up ends the seat's stream, OK
            self.run(holding.stream.until_end())
            assert end_code(holding.stream) == OK, holding.stream.error
        # The token died with the seat.
        code, _, details = self.run(status_of(client.stub.SitOut(request, metadata=token(holding.token))))
        assert code == (NOT_FOUND if table.gone else UNAUTHENTICATED), (code, details)

    @rule(which=index, out=st.booleans())
    def sit_out_or_in(self, which: int, out: bool) -> None:
        chosen = pick(self.holdings(), which)
        if chosen is None:
            return
        client, holding = chosen
        assert client.stub is not None
        metadata = token(holding.token)
        if out:
            call = client.stub.SitOut(pb.SeatRequest(table_id=holding.table_id, seat=holding.seat), metadata=metadata)
        else:
            call = client.stub.SitIn(pb.SitInRequest(table_id=holding.table_id, seat=holding.seat), metadata=metadata)
        code, reply, details = self.run(status_of(call))
        assert code == OK, (code, details)
        assert reply.status == (pb.SEAT_STATUS_SITTING_OUT if out else pb.SEAT_STATUS_PLAYING), reply

    @rule(which=index)
    def rebuy(self, which: int) -> None:
        done = self.seat_call(which, "Rebuy")
        if done is None:
            return
        client, holding, table, before, dealt, code, reply, details = done
        broke = before.stack(holding.seat) == 0
        allowed = {OK} if broke and not dealt and not table.closing else {PRECONDITION}
        if table.short_clock and not table.closing:
            allowed = {OK, PRECONDITION}  # hands may end and start since the snapshot
        assert code in allowed, (code, details, before.state)
        event(f"rebuy: {code.name}{' (broke)' if broke else ''}")
        if code == OK:
            assert reply.stack == table.posted_buy_in  # TABLE-1: the posted amount again
            client.bought += reply.stack

    # ----------------------------------------------------------------- streams

    @rule(which=index, resume=st.sampled_from(("none", "sit_down", "last_seen")))
    def open_stream(self, which: int, resume: str) -> None:
        chosen = pick(self.holdings(), which)
        if chosen is None:
            return
        client, holding = chosen
        old = holding.stream
        after = {"none": None, "sit_down": holding.resume_after, "last_seen": holding.last_seq}[resume]
        if resume == "sit_down" and holding.sat_in != self.generation:
            after = None  # a seq of a dead server's table: last_seen covers those
        stream = self.watch(client, holding, after)
        self.run(stream.until(lambda: stream.welcome is not None))
        assert stream.welcome is not None and stream.welcome.seat == holding.seat
        if resume == "last_seen" and after is not None and holding.seen_in != self.generation:
            assert stream.welcome.gap, "a resume after a dead server's seq must be told of the gap"
            event("resumed across a restart")
        if old is not None:  # one stream per seat: the newer replaces it
            self.run(old.until_end())
            assert end_code(old) == grpc.StatusCode.ABORTED, old.error

    @rule(which=index, seat=index)
    def two_take_one_seat(self, which: int, seat: int) -> None:
        """Two clients ask for the same free seat at once: exactly one gets it."""
        table = pick(self.open_tables(), which)
        if table is None or table.closing:
            return
        free = [s for s in range(1, table.max_seats + 1) if s not in table.seats]
        rivals = [c for c in self.clients if table.table_id not in c.holdings][:2]
        if not free or len(rivals) < 2:
            return
        seat_no = pick(free, seat)
        requests = [
            pb.SitDownRequest(table_id=table.table_id, seat=seat_no, player_id=f"{c.name}-{next(self.ids)}")
            for c in rivals
        ]

        async def race() -> list[tuple[grpc.StatusCode, Any, str]]:
            calls = []
            for client, request in zip(rivals, requests, strict=True):
                assert client.stub is not None
                calls.append(status_of(client.stub.SitDown(request)))
            return await asyncio.gather(*calls)

        answers = self.run(race())
        assert sorted(code.name for code, _, _ in answers) == ["ALREADY_EXISTS", "OK"], answers
        event("two took one seat")
        winner = next(k for k, (code, _, _) in enumerate(answers) if code == OK)
        client, reply = rivals[winner], answers[winner][1]
        table.seats[seat_no] = requests[winner].player_id
        client.bought += table.posted_buy_in
        client.holdings[table.table_id] = Holding(
            table.table_id,
            seat_no,
            requests[winner].player_id,
            reply.seat_token,
            reply.resume_after_seq,
            self.generation,
        )

    @rule(which=index, method=st.sampled_from(("StandUp", "Rebuy")))
    def the_same_call_twice_at_once(self, which: int, method: str) -> None:
        """A seat's StandUp (or Rebuy) sent twice at once is applied once at most: no double cash-out."""
        chosen = pick(self.holdings(), which)
        if chosen is None:
            return
        client, holding = chosen
        table = self.table(holding.table_id)
        request = pb.SeatRequest(table_id=holding.table_id, seat=holding.seat)
        assert client.stub is not None
        stub = client.stub

        async def twice() -> list[tuple[grpc.StatusCode, Any, str]]:
            calls = [getattr(stub, method)(request, metadata=token(holding.token)) for _ in range(2)]
            return await asyncio.gather(*(status_of(call) for call in calls))

        answers = self.run(twice())
        done = [reply for code, reply, _ in answers if code == OK]
        assert len(done) <= 1, answers
        event(f"{method} twice: {sorted(code.name for code, _, _ in answers)}")
        if not done:
            assert {code for code, _, _ in answers} == {PRECONDITION}, answers
            return
        if method == "Rebuy":
            client.bought += done[0].stack
            return
        client.cashed_out += done[0].chips
        del client.holdings[holding.table_id]
        del table.seats[holding.seat]
        table.gone = table.closing and not table.seats
        # The other call either came after the stand-up (its token is spent, or the table is gone) or
        # before the running hand ended (the seat was still dealt in): never a second cash-out.
        other = next(code for code, _, _ in answers if code != OK)
        refused = {UNAUTHENTICATED, PRECONDITION} | ({NOT_FOUND} if table.gone else set())
        assert other in refused, answers
        if holding.stream is not None:
            self.run(holding.stream.until_end())

    @rule(which=index)
    def look_back(self, which: int) -> None:
        """SHOW-4: a seat's history shows it its own cards and nobody else's."""
        chosen = pick(self.holdings(), which)
        if chosen is None:
            return
        client, holding = chosen
        assert client.stub is not None
        request = pb.SeatRequest(table_id=holding.table_id, seat=holding.seat)
        code, history, details = self.run(status_of(client.stub.GetHistory(request, metadata=token(holding.token))))
        assert code == OK, (code, details)
        # Only the hands the seat was dealt into, each as it saw them.
        leaks = [found for hand in history.hands for e in hand.events if (found := leak(e, holding.seat)) is not None]
        assert not leaks, leaks
        event(f"history of {min(len(history.hands), 3)}+ hands")

    @rule(which=index)
    def drop_stream(self, which: int) -> None:
        streaming = [(c, h) for c, h in self.holdings() if h.stream is not None]
        chosen = pick(streaming, which)
        if chosen is None:
            return
        _, holding = chosen
        stream = holding.stream
        assert stream is not None
        self.run(stream.close())
        if stream.events:
            holding.last_seq, holding.seen_in = stream.events[-1].seq, self.generation
        holding.stream = None

    # ----------------------------------------------------------------- acting

    def turns(self) -> list[tuple[Client, Holding, Stream, pb.YourTurn]]:
        found = []
        for client, holding in self.holdings():
            stream = holding.stream
            if stream is not None and stream.turn is not None and not stream.ended:
                found.append((client, holding, stream, stream.turn))
        return found

    def legal(self, stream: Stream, turn: pb.YourTurn, i: int, top: bool) -> pb.ActRequest:
        """An action the turn offers: a kind it lists, its min or max amount (DRAW: as many of the
        seat's own cards), for exactly that turn."""
        offered = pick(list(turn.legal), i)
        request = pb.ActRequest(kind=offered.kind, turn_seq=turn.seq)
        if offered.kind == pb.ACTION_KIND_DRAW:
            request.discard.extend(stream.own_down(turn.hand_number)[: offered.max if top else offered.min])
        elif offered.kind in AMOUNT_KINDS:
            request.amount = offered.max if top else offered.min
        return request

    async def send(
        self, client: Client, holding: Holding, stream: Stream, request: pb.ActRequest, unary: bool
    ) -> pb.ActResult:
        request.action_id = f"{holding.player_id}-{next(self.ids)}"
        if not unary:
            stream.turn = None
            await stream.call.write(pb.ClientMessage(act=request))
            await stream.until(lambda: request.action_id in stream.results)
            return stream.results[request.action_id]
        request.table_id, request.seat = holding.table_id, holding.seat
        assert client.stub is not None
        code, reply, details = await status_of(client.stub.Act(request, metadata=token(holding.token)))
        assert code in ALLOWED["Act"], (code, details)
        stream.turn = None
        return reply if code == OK else pb.ActResult(action_id=request.action_id, code=code.value[0], message=details)

    @rule(which=index, choice=index, top=st.booleans(), unary=st.booleans(), illegal=st.integers(0, 3))
    def act(self, which: int, choice: int, top: bool, unary: bool, illegal: int) -> None:
        chosen = pick(self.turns(), which)
        if chosen is None:
            return
        client, holding, stream, turn = chosen
        table = self.table(holding.table_id)
        request = self.legal(stream, turn, choice, top)
        if illegal == 0:  # beyond what the turn allows: refused, and nothing changes
            if request.kind in AMOUNT_KINDS:
                request.amount = max(a.max for a in turn.legal if a.kind == request.kind) + 1
            else:
                request.turn_seq = turn.seq + 1000  # a turn that has not come
            before = self.run(self.snapshot(holding.table_id)) if not table.short_clock else None
            result = self.run(self.send(client, holding, stream, request, unary))
            assert result.code == PRECONDITION.value[0], (result, turn)
            if before is not None:
                assert self.run(self.snapshot(holding.table_id)) == before, "a refused action changed the table"
            stream.turn = turn  # still this seat's turn
            return
        result = self.run(self.send(client, holding, stream, request, unary))
        allowed = {OK.value[0]} | ({PRECONDITION.value[0]} if table.short_clock else set())
        assert result.code in allowed, (result, turn, request)
        event(f"act: {pb.ActionKind.Name(request.kind)} code {result.code}")

    @rule(rounds=st.integers(1, 12), aggressive=st.booleans())
    def play_on(self, rounds: int, aggressive: bool) -> None:
        """Round after round, every client whose turn it is, at every table, acts at the same time:
        passively, or aggressively (the largest bet or raise offered: all-ins at pot and no limit)."""

        async def one(client: Client, holding: Holding, stream: Stream, turn: pb.YourTurn) -> None:
            offered = {a.kind: a for a in turn.legal}
            order = (*AGGRESSIVE, *PASSIVE) if aggressive else PASSIVE
            kind = next((k for k in order if k in offered), turn.legal[0].kind)
            amount = (offered[kind].max if aggressive else offered[kind].min) if kind in AMOUNT_KINDS else 0
            request = pb.ActRequest(kind=kind, amount=amount, turn_seq=turn.seq)
            result = await self.send(client, holding, stream, request, unary=False)
            short = self.table(holding.table_id).short_clock
            assert result.code == 0 or (short and result.code == PRECONDITION.value[0]), result
            event(f"play on: {pb.ActionKind.Name(kind)} code {result.code}")

        async def together() -> None:
            for _ in range(rounds):
                turns = self.turns()
                if not turns:
                    return
                await asyncio.gather(*(one(*chosen) for chosen in turns))
                # Every stream has read what the server sent it before its pong: the next turns too.
                await asyncio.gather(
                    *(h.stream.ping(next(self.ids)) for _, h in self.holdings() if h.stream is not None)
                )

        self.run(together())

    @rule(which=index)
    def let_the_clock_run(self, which: int) -> None:
        """CLOCK-2: at a short-clock table with a hand running, the silent actor times out."""
        running = [t for t in self.open_tables() if t.short_clock]
        table = pick(running, which)
        if table is None:
            return
        before = self.run(self.snapshot(table.table_id))
        if not before.state.hand_running:
            return
        watcher = Stream(self.stub, table.table_id, resume_after=before.state.last_seq)

        def moved() -> bool:
            return any(e.WhichOneof("kind") in ("timed_out", "hand_ended", "hand_voided") for e in watcher.events)

        try:
            self.run(watcher.until(moved, timeout=SHORT_CLOCK * 20))
        finally:
            self.run(watcher.close())
        event("the clock acted" if watcher.of("timed_out") else "the hand ended first")

    # ----------------------------------------------------------------- the server dies

    @rule(odds=st.integers(0, 5))
    def kill_and_restart(self, odds: int) -> None:
        """The server dies without a drain; another rebuilds every table from the ledger (one time
        in six this rule is drawn: often enough for every state, rarely enough for hands to end)."""
        if odds == 0:
            self.run(self._restart())

    async def _restart(self) -> None:
        await self.server.kill()
        for _, holding in self.holdings():
            stream = holding.stream
            if stream is None:
                continue
            await stream.until_end()
            assert end_code(stream) in SERVER_GONE, stream.error
            if stream.events:
                holding.last_seq, holding.seen_in = stream.events[-1].seq, self.generation
            holding.stream = None
        for client in self.clients:
            assert client.channel is not None
            await client.channel.close()
        dead = f"h{self.generation}"
        self.generation += 1
        self.server = await self._start()
        host = self.server.host
        assert host is not None
        for table_id in self.registry.mark_dead(dead):  # as tablestorm.sim.load.recovery.rebuild_tables does
            self.registry.move(table_id, f"h{self.generation}")
            await host.restore_table(self.registry.plan(table_id))
        for table in self.open_tables():
            table.closing = False  # the closing state is not in the ledger
        event(f"restart with {len(self.open_tables())} tables, {len(self.holdings())} seats")
        for client, holding in self.holdings():  # every seat token is still good: the clients come back
            assert client.stub is not None
            request = pb.SeatRequest(table_id=holding.table_id, seat=holding.seat)
            code, _, details = await status_of(client.stub.GetHistory(request, metadata=token(holding.token)))
            assert code == OK, (code, details)
            if holding.last_seq is not None:
                stream = self.watch(client, holding, holding.last_seq)
                await stream.until(lambda stream=stream: stream.welcome is not None)
                assert stream.welcome is not None and stream.welcome.gap, "a new incarnation: a gap"

    # ----------------------------------------------------------------- after every step

    @invariant()
    def the_service_keeps_its_word(self) -> None:
        self.run(self._check())

    async def _check(self) -> None:
        channel = self.clients[0].channel
        assert channel is not None
        assert await serving(channel), "health is not SERVING"
        chips = 0
        for table in self.tables:
            code, state, details = await status_of(
                self.stub.GetTable(pb.GetTableRequest(table_id=table.table_id), timeout=CALL_TIMEOUT)
            )
            if table.gone:
                assert code == NOT_FOUND, (table, code, details)
                continue
            assert code == OK, (table, code, details)
            assert {s.seat: s.player_id for s in state.seats if s.player_id} == table.seats, (state, table)
            assert state.closing == table.closing, (state, table)
            first = await first_sight(self.stub, table.table_id)
            assert first is not None, table
            chips += chips_in(first.welcome, first.events)
        bought = sum(c.bought for c in self.clients)
        cashed_out = sum(c.cashed_out for c in self.clients)
        assert chips == bought - cashed_out, (chips, bought, cashed_out)
        ledger = self.registry.chips()
        assert (ledger.bought, ledger.cashed_out) == (bought, cashed_out), ledger
        for _, holding in self.holdings():
            stream = holding.stream
            if stream is None:
                continue
            assert not stream.ended, (holding, stream.error)
            assert {r.code for r in stream.result_log} <= ACT_RESULT_CODES, stream.result_log
            leaks = [found for e in stream.events if (found := leak(e, holding.seat)) is not None]
            assert not leaks, leaks
            welcome = stream.welcome
            start = holding.resumed_from if welcome is not None and not welcome.gap else None
            assert seq_break(start, stream.events) is None, (start, [e.seq for e in stream.events])
        assert not self.logged.lines(), self.logged.lines()


def test_the_table_service_keeps_the_model_s_state() -> None:  # TABLE-1, CLOCK-2, CLOCK-3, SHOW-4
    explore(TableServiceModel, examples=8, steps=30)


@pytest.mark.slow
def test_the_table_service_keeps_the_model_s_state_long() -> None:  # TABLE-1, CLOCK-2, CLOCK-3, SHOW-4
    explore(TableServiceModel, examples=40, steps=60)
