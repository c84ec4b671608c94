"""Players and spectators on a table server's Play streams: reading them in the background,
seating a table, and playing hands through them."""

from __future__ import annotations

import asyncio
import random
import typing
from collections.abc import Callable, Sequence
from typing import Any

import grpc

from support.table_server import GateLedger, token
from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc

TIMEOUT = 10.0
"""How long a stream waits for what a test expects on it."""
AMOUNT_KINDS = frozenset({pb.ACTION_KIND_BRING_IN, pb.ACTION_KIND_COMPLETE, pb.ACTION_KIND_BET, pb.ACTION_KIND_RAISE})
"""The actions that carry an amount (a street total)."""
AGGRESSIVE_KINDS = (pb.ACTION_KIND_COMPLETE, pb.ACTION_KIND_BET, pb.ACTION_KIND_RAISE)


class Stream:
    """One Play stream, read in the background; tests wait on conditions over what arrived."""

    def __init__(
        self,
        stub: rpc.TableServiceStub,
        table_id: str,
        seat: int = 0,
        seat_token: str = "",
        resume_after: int | None = None,
        changed: asyncio.Condition | None = None,
    ) -> None:
        hello = pb.Hello(table_id=table_id, seat=seat)
        if resume_after is not None:
            hello.resume_after_seq = resume_after
        self.seat = seat
        self.call = stub.Play(metadata=token(seat_token) if seat_token else None)
        self.events: list[pb.Event] = []
        self.results: dict[str, pb.ActResult] = {}
        self.result_log: list[pb.ActResult] = []
        """Every ActResult, in order (``results`` keeps the last per action id)."""
        self.pongs: set[int] = set()
        self.welcome: pb.Welcome | None = None
        self.turn: pb.YourTurn | None = None
        self.messages = 0
        """ServerMessages read."""
        self.sent = 1
        """ClientMessages written (the Hello first)."""
        self.error: grpc.aio.AioRpcError | None = None
        self.ended = False
        self._changed = changed or asyncio.Condition()
        """Notified on every message; streams of one table share it, so a wait can watch them all."""
        self._count = 0
        self._task = asyncio.ensure_future(self._pump(hello))

    async def _pump(self, hello: pb.Hello) -> None:
        try:
            await self.call.write(pb.ClientMessage(hello=hello))
            while (msg := await self.call.read()) is not grpc.aio.EOF:
                self.messages += 1
                if msg.HasField("welcome"):
                    self.welcome = msg.welcome
                for result in msg.results:
                    self.results[result.action_id] = result
                self.result_log.extend(msg.results)
                self.events.extend(msg.events)
                if msg.HasField("your_turn"):
                    self.turn = msg.your_turn
                self.pongs.update(p.nonce for p in msg.pongs)
                async with self._changed:
                    self._changed.notify_all()
        except grpc.aio.AioRpcError as exc:
            self.error = exc
        finally:
            self.ended = True
            async with self._changed:
                self._changed.notify_all()

    async def until(self, predicate: Callable[[], bool], timeout: float = TIMEOUT) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: predicate() or self.ended), timeout)
        assert predicate(), f"stream ended first: {self.error!r}"

    async def until_end(self, timeout: float = TIMEOUT) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: self.ended), timeout)

    def kinds(self) -> list[str]:
        return [str(e.WhichOneof("kind")) for e in self.events]

    def of(self, kind: str) -> list[Any]:
        return [getattr(e, kind) for e in self.events if e.WhichOneof("kind") == kind]

    async def act(
        self,
        kind: int,
        amount: int = 0,
        action_id: str | None = None,
        discard: Sequence[int] = (),
        turn_seq: int | None = None,
    ) -> pb.ActResult:
        """Send an action and wait for its result."""
        await self.until(lambda: self.welcome is not None)
        self._count += 1
        action_id = action_id or f"{self.seat}-{self._count}"
        self.turn = None
        request = pb.ActRequest(action_id=action_id, kind=kind, amount=amount, discard=discard)
        if turn_seq is not None:
            request.turn_seq = turn_seq
        await self.call.write(pb.ClientMessage(act=request))
        self.sent += 1
        await self.until(lambda: action_id in self.results)
        return self.results[action_id]

    async def ping(self, nonce: int) -> None:
        """A round trip: everything the server queued for this stream before the Pong has arrived."""
        pongs = self.pongs
        await self.call.write(pb.ClientMessage(ping=pb.Ping(nonce=nonce)))
        self.sent += 1
        await self.until(lambda: nonce in pongs)

    def own_down(self, hand_number: int) -> list[int]:
        """This seat's face-down cards in hand ``hand_number`` as its stream showed them."""
        cards: list[int] = []
        for e in self.events:
            if e.hand_number != hand_number:
                continue
            if e.HasField("cards_dealt") and e.cards_dealt.seat == self.seat:
                cards.extend(e.cards_dealt.down)
            elif e.HasField("drew") and e.drew.seat == self.seat:
                cards = [c for c in cards if c not in e.drew.discarded] + list(e.drew.drawn)
        return cards

    async def play_turn(self) -> pb.ActResult:
        """Act on the current YourTurn with a passive legal action."""
        assert self.turn is not None
        legal = {a.kind: a for a in self.turn.legal}
        for kind in (pb.ACTION_KIND_CHECK, pb.ACTION_KIND_CALL, pb.ACTION_KIND_BRING_IN, pb.ACTION_KIND_DRAW):
            if kind in legal:
                return await self.act(kind, legal[kind].min)
        raise AssertionError(f"no passive action in {self.turn}")

    async def close(self) -> None:
        self.call.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


def open_streams(stub: rpc.TableServiceStub, table_id: str, tokens: dict[int, str]) -> dict[int, Stream]:
    changed = asyncio.Condition()
    return {seat: Stream(stub, table_id, seat, tokens[seat], changed=changed) for seat in tokens}


async def first_to_act(streams: dict[int, Stream]) -> Stream:
    """The stream of the player whose turn comes first, once it has come."""
    await next(iter(streams.values())).until(lambda: any(s.turn is not None for s in streams.values()))
    return next(s for s in streams.values() if s.turn is not None)


async def seat_players(stub: rpc.TableServiceStub, table_id: str, seats: int) -> dict[int, str]:
    tokens = {}
    for seat in range(1, seats + 1):
        reply = await stub.SitDown(pb.SitDownRequest(table_id=table_id, seat=seat, player_id=f"p{seat}"))
        tokens[seat] = reply.seat_token
    return tokens


async def play_hand(streams: dict[int, Stream], hand_number: int) -> None:
    """Every seat checks or calls until hand ``hand_number`` ends."""
    watcher = next(iter(streams.values()))

    def ended() -> bool:
        return any(e.hand_number == hand_number and e.HasField("hand_ended") for e in watcher.events)

    while not ended():
        await watcher.until(
            lambda: (
                ended()
                or any(s.turn is not None and s.turn.hand_number == hand_number for s in streams.values())
            )
        )
        for stream in streams.values():
            if stream.turn is not None and stream.turn.hand_number == hand_number and not ended():
                result = await stream.play_turn()
                assert result.code == 0, result


async def play_to_a_fold(streams: dict[int, Stream], aggressor: int) -> None:
    """Hand 1 with the ``aggressor`` seat betting whenever it may and the others folding whenever
    they may (checking, calling or bringing in otherwise): it ends without a showdown."""
    watcher = streams[aggressor]

    def ended() -> bool:
        return any(e.hand_number == 1 and e.HasField("hand_ended") for e in watcher.events)

    while not ended():
        await watcher.until(lambda: ended() or any(s.turn is not None for s in streams.values()))
        for stream in streams.values():
            if stream.turn is None or ended():
                continue
            legal = {a.kind: a for a in stream.turn.legal}
            prefer = AGGRESSIVE_KINDS if stream.seat == aggressor else (pb.ACTION_KIND_FOLD,)
            kind = next((k for k in prefer if k in legal), None)
            result = await (stream.play_turn() if kind is None else stream.act(kind, legal[kind].min))
            assert result.code == 0, result


Decision: typing.TypeAlias = tuple[int, int, Sequence[int]]
"""An action to send: kind, amount (a street total), discards."""
Decide: typing.TypeAlias = Callable[[Stream, pb.YourTurn], Decision]


async def seated_table(
    stub: rpc.TableServiceStub,
    ledger: GateLedger,
    table_id: str,
    options: pb.TableOptions,
    seed: int,
    players: int,
) -> tuple[dict[int, str], dict[int, Stream], Stream]:
    """A seeded table with ``players`` seated (seats 1..n) and watching, all dealt into hand 1.

    Returns the seat tokens, each seat's Play stream and a spectator stream (one shared condition).
    """
    await stub.CreateTable(pb.CreateTableRequest(table_id=table_id, options=options, seed=seed))
    changed = asyncio.Condition()
    spectator = Stream(stub, table_id, changed=changed)
    tokens = await seat_players(stub, table_id, players)
    streams = {seat: Stream(stub, table_id, seat, tokens[seat], changed=changed) for seat in tokens}
    await spectator.until(lambda: all(s.welcome is not None for s in [spectator, *streams.values()]))
    ledger.gate(table_id).set()  # deal hand 1, to everyone seated
    return tokens, streams, spectator


async def drive(streams: dict[int, Stream], watcher: Stream, hands: int, decide: Decide) -> int:
    """Play hands 1, 2, ... ``hands`` with ``decide`` answering every YourTurn; stops early when
    fewer than two players have chips left. Every action must be accepted. Returns hands played."""
    for number in range(1, hands + 1):
        ended_events = watcher.of("hand_ended")
        if ended_events and sum(stack > 0 for stack in ended_events[-1].stacks) < 2:
            return number - 1

        def ended(number: int = number) -> bool:
            return any(e.hand_number == number and e.HasField("hand_ended") for e in watcher.events)

        def turn(number: int = number) -> Stream | None:
            return next(
                (s for s in streams.values() if s.turn is not None and s.turn.hand_number == number), None
            )

        while not ended():
            await watcher.until(lambda: ended() or turn() is not None)
            stream = turn()
            if stream is None or ended():
                continue
            prompt = stream.turn
            assert prompt is not None
            kind, amount, discard = decide(stream, prompt)
            result = await stream.act(kind, amount, discard=discard, turn_seq=prompt.seq)
            assert result.code == 0, (result, prompt)
    return hands


def random_policy(rng: random.Random) -> Decide:
    """Random legal actions, passive more often than not so that hands reach showdowns."""
    weights = {
        pb.ACTION_KIND_FOLD: 1,
        pb.ACTION_KIND_CHECK: 5,
        pb.ACTION_KIND_CALL: 5,
        pb.ACTION_KIND_BRING_IN: 3,
        pb.ACTION_KIND_COMPLETE: 2,
        pb.ACTION_KIND_BET: 2,
        pb.ACTION_KIND_RAISE: 2,
    }

    def decide(stream: Stream, turn: pb.YourTurn) -> Decision:
        legal = {a.kind: a for a in turn.legal}
        if pb.ACTION_KIND_DRAW in legal:
            bounds = legal[pb.ACTION_KIND_DRAW]
            cards = stream.own_down(turn.hand_number)
            return pb.ACTION_KIND_DRAW, 0, rng.sample(cards, rng.randint(bounds.min, min(bounds.max, 4)))
        kinds = sorted(legal)
        kind = rng.choices(kinds, [weights[k] for k in kinds])[0]
        option = legal[kind]
        if kind not in AMOUNT_KINDS:
            return kind, 0, ()
        roll = rng.random()
        if option.min == option.max or roll < 0.6:
            return kind, option.min, ()
        if roll < 0.75 or stream.welcome is None or stream.welcome.table.options.structure == pb.STRUCTURE_FIXED_LIMIT:
            return kind, option.max, ()  # fixed limit: only the two ends are legal
        return kind, rng.randint(option.min, option.max), ()

    return decide


Policy: typing.TypeAlias = Callable[[int, int, dict[int, pb.LegalAction]], tuple[int, int] | None]
"""(seat, street, legal actions by kind) -> (kind, amount) to act, or None to let the clock run."""


def street_of(stream: Stream, number: int) -> int:
    """The betting round the stream's latest turn belongs to (its events precede its YourTurn)."""
    rounds = [e.round_started.street for e in stream.events if e.hand_number == number and e.HasField("round_started")]
    return rounds[-1] if rounds else 0


async def play_script(
    streams: dict[int, Stream], watcher: Stream, number: int, policy: Policy, run_out: Callable[[], None] | None = None
) -> bool:
    """Answer every turn of hand ``number`` with ``policy`` until the hand ends; False if the clock
    beat a player who meant to act (the run is disturbed). ``run_out`` runs a silent player's clock
    out as soon as its turn arrives (a ``ManualClock``'s); without it the server's clock runs."""
    ignored: set[tuple[int, int]] = set()

    def ended() -> bool:
        return any(e.hand_number == number and e.HasField("hand_ended") for e in watcher.events)

    def pending() -> Stream | None:
        for stream in streams.values():
            turn = stream.turn
            if turn is not None and turn.hand_number == number and (stream.seat, turn.seq) not in ignored:
                return stream
        return None

    while not ended():
        await watcher.until(lambda: ended() or pending() is not None)
        stream = pending()
        if stream is None or ended():
            continue
        turn = stream.turn
        assert turn is not None
        decision = policy(stream.seat, street_of(stream, number), {a.kind: a for a in turn.legal})
        if decision is None:
            ignored.add((stream.seat, turn.seq))  # silent: the clock acts
            if run_out is not None:
                run_out()
            continue
        kind, amount = decision
        result = await stream.act(kind, amount, turn_seq=turn.seq)
        if result.code:
            assert result.code == grpc.StatusCode.FAILED_PRECONDITION.value[0], result
            return False  # the turn had passed: the clock acted first
    return True
