"""Table service load benchmark: N bots over Play streams, against a gRPC echo baseline.

    .venv/bin/python benchmarks/table_service.py [--bots 100 1000 5000] [--duration 20] [--runs 1]

For each N the driver starts three processes: the table server (``tablestorm serve``), an echo
server speaking the same proto (every ActRequest answered at once with an ActResult: the cost of
gRPC streaming alone, no poker), and one client process holding N bot coroutines, seated 8 to a
Seven Card Stud table. The client measures, each for ``--duration`` seconds after a warm-up:

* the table service at zero think time (bots act the moment YourTurn arrives),
* the table service at 1 s think time,
* the echo server with N streams at zero think time.

It reports actions/s, events/s, stream messages/s (sent + received by the client), the
client-observed action round trip (ActRequest sent to ActResult received) p50/p99, the prompt
delay (the server arming a turn to the bot reading its YourTurn) p50/p99, and errors (non-OK
results, failed calls, broken streams). The last line printed is one JSON object.

Both the client and the echo server use the table server's garbage-collector policy
(``tablestorm.services.rpc.gc_policy.tune_for_latency``), so a collection pause is never billed to the wrong
side.

Targets (the issue's): 5,000 seated bots at 1 s think with p99 < 100 ms and no errors; at zero
think time, the table service's messages/s at least half the echo server's.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tablestorm.services.api import table_service_pb2 as pb  # noqa: E402
from tablestorm.services.api import table_service_pb2_grpc as rpc  # noqa: E402
from tablestorm.services.rpc.gc_policy import tune_for_latency  # noqa: E402
from tablestorm.sim.bots.client.transport import token_metadata  # noqa: E402

if TYPE_CHECKING:
    from tablestorm.services.api.table_service_pb2_grpc import TableServiceAsyncStub

SEATS = 8
BOTS_PER_CHANNEL = 250
"""Bots share a connection up to this many streams (the server allows 1,000 per connection)."""
WARMUP = 3.0
JOIN_BATCH = 200
CLOCK_SECONDS = 10.0
OK = 0


# ----------------------------------------------------------------- measurement


@dataclass
class Tally:
    """What the client saw during one measurement window."""

    actions: int = 0
    events: int = 0
    sent: int = 0
    received: int = 0
    errors: int = 0
    rtts: list[float] = field(default_factory=list)
    prompts: list[float] = field(default_factory=list)
    """Server's turn start (YourTurn.deadline minus the clock) to the bot reading the prompt."""
    error_samples: list[str] = field(default_factory=list)

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what)

    def report(self, seconds: float) -> dict[str, Any]:
        rtts = sorted(self.rtts)

        prompts = sorted(self.prompts)

        def pct(p: float, values: list[float] = rtts) -> float | None:
            return round(values[min(len(values) - 1, int(p * len(values)))] * 1000, 2) if values else None

        return {
            "actions_per_s": round(self.actions / seconds, 1),
            "events_per_s": round(self.events / seconds, 1),
            "messages_per_s": round((self.sent + self.received) / seconds, 1),
            "rtt_p50_ms": pct(0.50),
            "rtt_p99_ms": pct(0.99),
            "prompt_p50_ms": pct(0.50, prompts),
            "prompt_p99_ms": pct(0.99, prompts),
            "errors": self.errors,
            "error_samples": self.error_samples,
        }


class Window:
    """The current tally; bots count into whichever window is open (warm-up counts are dropped)."""

    def __init__(self) -> None:
        self.tally = Tally()

    def reset(self) -> Tally:
        done, self.tally = self.tally, Tally()
        return done


def channels(target: str, count: int) -> list[grpc.aio.Channel]:
    """Separate connections (a local subchannel pool each), so streams spread over several."""
    return [
        grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(count)
    ]


# ----------------------------------------------------------------- bots


def choose(turn: pb.YourTurn, rng: random.Random) -> pb.ActRequest:
    """A random legal action: mostly passive, sometimes aggressive, sometimes a fold."""
    legal = {a.kind: a for a in turn.legal}
    roll = rng.random()
    for kind in (pb.ACTION_KIND_BET, pb.ACTION_KIND_RAISE, pb.ACTION_KIND_COMPLETE):
        if kind in legal and roll < 0.15:
            return pb.ActRequest(kind=kind, amount=legal[kind].min)
    if pb.ACTION_KIND_FOLD in legal and roll > 0.85:
        return pb.ActRequest(kind=pb.ACTION_KIND_FOLD)
    for kind in (pb.ACTION_KIND_CHECK, pb.ACTION_KIND_CALL, pb.ACTION_KIND_BRING_IN):
        if kind in legal:
            return pb.ActRequest(kind=kind, amount=legal[kind].min)
    if pb.ACTION_KIND_DRAW in legal:
        return pb.ActRequest(kind=pb.ACTION_KIND_DRAW)
    first = turn.legal[0]
    return pb.ActRequest(kind=first.kind, amount=first.min)


class Bot:
    def __init__(
        self,
        stub: TableServiceAsyncStub,
        table_id: str,
        seat: int,
        token: str,
        window: Window,
        think: list[float],
        seed: int,
    ) -> None:
        self.stub = stub
        self.table_id = table_id
        self.seat = seat
        self.metadata = token_metadata(token)
        self.window = window
        self.think = think  # shared, so the driver can change it between windows
        self.rng = random.Random(seed)
        self.pending: dict[str, float] = {}
        self.count = 0
        self.call: Any = None
        self.first: Any = None
        self.background: set[asyncio.Future[None]] = set()

    async def connect(self) -> None:
        """Open the Play stream and wait for the Welcome (bots join in batches: a client that opens
        thousands of streams in one burst sees some of them fail inside gRPC Core)."""
        call = self.call = self.stub.Play(metadata=self.metadata)
        await call.write(pb.ClientMessage(hello=pb.Hello(table_id=self.table_id, seat=self.seat)))
        welcome = await call.read()
        if not isinstance(welcome, pb.ServerMessage) or not welcome.HasField("welcome"):  # EOF: ended
            raise RuntimeError(f"seat {self.seat}@{self.table_id}: no welcome")
        self.first = welcome

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        call = self.call
        msg = self.first
        try:
            while True:
                if msg is None:
                    msg = await call.read()
                if msg is grpc.aio.EOF:
                    self.window.tally.error(f"seat {self.seat}@{self.table_id}: stream ended")
                    return
                now = time.perf_counter()
                tally = self.window.tally
                tally.received += 1
                tally.events += len(msg.events)
                for result in msg.results:
                    sent = self.pending.pop(result.action_id, None)
                    if result.code != OK:
                        tally.error(f"act {result.code}: {result.message}")
                    elif sent is not None:
                        tally.actions += 1
                        tally.rtts.append(now - sent)
                for event in msg.events:
                    kind = event.WhichOneof("kind")
                    if kind == "hand_ended":
                        ended = event.hand_ended
                        for seat, stack in zip(ended.seats, ended.stacks, strict=True):
                            if seat == self.seat and stack == 0:
                                self.spawn(self.unary(self.stub.Rebuy))
                    elif kind == "seat_changed":
                        state = event.seat_changed.seat
                        if state.seat == self.seat and state.status == pb.SEAT_STATUS_SITTING_OUT:
                            self.spawn(self.unary(self.stub.SitIn))
                if msg.HasField("your_turn"):
                    tally.prompts.append(time.time() - msg.your_turn.deadline_unix_ms / 1000 + CLOCK_SECONDS)
                    request = choose(msg.your_turn, self.rng)
                    if self.think[0] > 0:
                        loop.call_later(self.think[0], self.send, request)
                    else:
                        self.send(request)
                msg = None
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self.window.tally.error(f"stream: {exc.code().name} {exc.details()}")

    def send(self, request: pb.ActRequest) -> None:
        self.count += 1
        request.action_id = str(self.count)
        self.pending[request.action_id] = time.perf_counter()
        self.window.tally.sent += 1
        self.spawn(self._write(request))

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` in the background, holding a reference until it is done."""
        task = asyncio.ensure_future(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def _write(self, request: pb.ActRequest) -> None:
        try:
            await self.call.write(pb.ClientMessage(act=request))
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError) as exc:
            self.window.tally.error(f"write: {exc!r}"[:200])

    async def unary(self, method: Any) -> None:
        try:
            await method(pb.SeatRequest(table_id=self.table_id, seat=self.seat), metadata=self.metadata)
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:  # e.g. rebuy raced the next deal
                self.window.tally.error(f"{exc.code().name}: {exc.details()}")


async def seat_bots(
    target: str, n: int, window: Window, think: list[float], tag: str
) -> tuple[list[Bot], list[grpc.aio.Channel]]:
    chans = channels(target, max(1, math.ceil(n / BOTS_PER_CHANNEL)))
    stubs = [rpc.TableServiceStub(c) for c in chans]
    tables = math.ceil(n / SEATS)
    options = pb.TableOptions(game="7stud", stakes=pb.Stakes(small_bet=10), clock_seconds=CLOCK_SECONDS)
    gate = asyncio.Semaphore(200)

    async def create(t: int) -> None:
        async with gate:
            await stubs[t % len(stubs)].CreateTable(
                pb.CreateTableRequest(table_id=f"{tag}-{t}", options=options)
            )

    await asyncio.gather(*(create(t) for t in range(tables)))

    async def sit(i: int) -> Bot:
        table, seat = divmod(i, SEATS)
        stub = stubs[(i // BOTS_PER_CHANNEL) % len(stubs)]
        async with gate:
            reply = await stub.SitDown(
                pb.SitDownRequest(table_id=f"{tag}-{table}", seat=seat + 1, player_id=f"b{i}")
            )
        return Bot(stub, f"{tag}-{table}", seat + 1, reply.seat_token, window, think, seed=i)

    bots = await asyncio.gather(*(sit(i) for i in range(n)))
    return list(bots), chans


async def measure(window: Window, seconds: float) -> dict[str, Any]:
    await asyncio.sleep(float(os.environ.get("BENCH_WARMUP", WARMUP)))
    window.reset()
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    tally = window.reset()
    return tally.report(time.perf_counter() - started)


async def table_client(target: str, n: int, duration: float, scenarios: Sequence[str]) -> dict[str, Any]:
    window = Window()
    think = [0.0]
    bots, chans = await seat_bots(target, n, window, think, tag=f"n{n}-{os.getpid()}")
    for start in range(0, n, JOIN_BATCH):
        await asyncio.gather(*(bot.connect() for bot in bots[start : start + JOIN_BATCH]))
    window.reset()  # the table plays from the first sit-down; count from here
    gc.freeze()  # the bots live to the end: keep them out of every collection
    tasks = [asyncio.ensure_future(bot.run()) for bot in bots]
    results = {}
    for scenario, seconds in (("zero_think", 0.0), ("think_1s", 1.0)):
        if scenario in scenarios:
            think[0] = seconds
            results[scenario] = await measure(window, duration)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for chan in chans:
        await chan.close()
    return results


async def echo_client(target: str, n: int, duration: float) -> dict[str, Any]:
    window = Window()
    chans = channels(target, max(1, math.ceil(n / BOTS_PER_CHANNEL)))
    stubs = [rpc.TableServiceStub(c) for c in chans]

    async def open_stream(i: int) -> Any:
        call = stubs[(i // BOTS_PER_CHANNEL) % len(stubs)].Play()
        await call.write(pb.ClientMessage(act=pb.ActRequest(action_id="0", kind=pb.ACTION_KIND_CALL)))
        await call.read()
        return call

    async def pinger(call: Any) -> None:
        count = 0
        try:
            while True:
                count += 1
                sent = time.perf_counter()
                await call.write(
                    pb.ClientMessage(act=pb.ActRequest(action_id=str(count), kind=pb.ACTION_KIND_CALL))
                )
                msg = await call.read()
                tally = window.tally
                tally.sent += 1
                tally.received += 1
                tally.actions += 1
                tally.rtts.append(time.perf_counter() - sent)
                if msg is grpc.aio.EOF:
                    tally.error("echo stream ended")
                    return
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                window.tally.error(f"echo: {exc.code().name}")

    calls = []
    for start in range(0, n, JOIN_BATCH):
        calls += await asyncio.gather(*(open_stream(i) for i in range(start, min(n, start + JOIN_BATCH))))
    gc.freeze()
    tasks = [asyncio.ensure_future(pinger(call)) for call in calls]
    report = await measure(window, duration)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for chan in chans:
        await chan.close()
    return report


async def client_main(args: argparse.Namespace) -> None:
    tune_for_latency()  # the server's policy: a full collection here would be billed to it
    report = {"bots": args.bots}
    report["table"] = await table_client(args.target, args.bots, args.duration, args.scenarios)
    if "echo" in args.scenarios:
        report["echo"] = await echo_client(args.echo_target, args.bots, args.duration)
    print(json.dumps(report), flush=True)


# ----------------------------------------------------------------- the echo server


async def echo_server_main(args: argparse.Namespace) -> None:
    """Answers each ActRequest with an ActResult: a Play stream with nothing behind it."""

    async def play(requests: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        async for message in requests:
            await context.write(pb.ServerMessage(results=[pb.ActResult(action_id=message.act.action_id)]))

    tune_for_latency()  # the table server's policy, for a fair baseline
    server = grpc.aio.server(options=[("grpc.max_concurrent_streams", 1000)])
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                "tablestorm.v1.TableService",
                {
                    "Play": grpc.stream_stream_rpc_method_handler(
                        play,
                        request_deserializer=pb.ClientMessage.FromString,
                        response_serializer=pb.ServerMessage.SerializeToString,
                    ),
                },
            ),
        )
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(json.dumps({"grpc_port": port}), flush=True)
    await server.wait_for_termination()


# ----------------------------------------------------------------- the driver


def _start(command: Sequence[str]) -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        process.kill()
        raise RuntimeError(f"{command} did not start")
    return process, int(json.loads(line)["grpc_port"])


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run_once(n: int, duration: float, profile: Path | None) -> dict[str, Any]:
    server, port = _start(
        [
            sys.executable,
            "-m",
            "tablestorm",
            "serve",
            "--port",
            "0",
            "--log-level",
            "warning",
            "--max-tables",
            str(max(1000, n // SEATS + 10)),
            "--drain-seconds",
            "1",
        ]
    )
    echo, echo_port = _start([sys.executable, __file__, "echo-server"])
    spy = None
    try:
        if profile is not None:
            spy = subprocess.Popen(
                [
                    "py-spy",
                    "record",
                    "-p",
                    str(server.pid),
                    "-d",
                    str(int(WARMUP + duration + 20)),
                    "-f",
                    "speedscope",
                    "-o",
                    str(profile),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        client = subprocess.run(
            [
                sys.executable,
                __file__,
                "client",
                "--target",
                f"127.0.0.1:{port}",
                "--echo-target",
                f"127.0.0.1:{echo_port}",
                "--bots",
                str(n),
                "--duration",
                str(duration),
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=3 * (WARMUP + duration) + 600,
        )
        if client.returncode != 0:
            raise RuntimeError(f"client failed:\n{client.stderr[-3000:]}")
        return dict(json.loads(client.stdout.strip().splitlines()[-1]))
    finally:
        if spy is not None:
            spy.wait()
        _stop(server)
        _stop(echo)


def _median(runs: list[dict[str, Any]], *path: str) -> float | None:
    values = []
    for run in runs:
        value: Any = run
        for key in path:
            value = value[key]
        if value is not None:
            values.append(value)
    return round(statistics.median(values), 2) if values else None


def driver(args: argparse.Namespace) -> None:
    summary: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "duration_s": args.duration,
        "runs": args.runs,
        "results": [],
    }
    for n in args.bots:
        runs = []
        for k in range(args.runs):
            profile = Path(args.profile) / f"server-{n}-{k}.json" if args.profile else None
            load_before = os.getloadavg()[0]
            run = run_once(n, args.duration, profile)
            run["loadavg_1m"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
            runs.append(run)
            print(f"N={n} run {k + 1}: {json.dumps(run)}", flush=True)
        medians: dict[str, Any] = {"bots": n, "tables": math.ceil(n / SEATS)}
        for scenario in ("zero_think", "think_1s", "echo"):
            path = ("table", scenario) if scenario != "echo" else ("echo",)
            medians[scenario] = {
                metric: _median(runs, *path, metric)
                for metric in (
                    "actions_per_s",
                    "events_per_s",
                    "messages_per_s",
                    "rtt_p50_ms",
                    "rtt_p99_ms",
                    "prompt_p50_ms",
                    "prompt_p99_ms",
                    "errors",
                )
            }
        zero, echo = medians["zero_think"]["messages_per_s"], medians["echo"]["messages_per_s"]
        medians["zero_think_vs_echo"] = round(zero / echo, 3) if zero and echo else None
        zero_think, think = medians["zero_think"], medians["think_1s"]
        print(
            f"N={n:>5} ({medians['tables']} tables), median of {args.runs}: "
            f"zero think {zero_think['actions_per_s']} actions/s, {zero_think['messages_per_s']} msgs/s, "
            f"p99 {zero_think['rtt_p99_ms']} ms | 1 s think {think['actions_per_s']} actions/s, "
            f"p50 {think['rtt_p50_ms']} ms, p99 {think['rtt_p99_ms']} ms, errors {think['errors']} | "
            f"echo {echo} msgs/s; table/echo = {medians['zero_think_vs_echo']}",
            flush=True,
        )
        summary["results"].append(medians)
    print(json.dumps(summary), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode")
    client = sub.add_parser("client", help="(internal) the bot process")
    client.add_argument("--target", required=True)
    client.add_argument("--echo-target", required=True)
    client.add_argument("--bots", type=int, required=True)
    client.add_argument("--duration", type=float, required=True)
    client.add_argument("--scenarios", nargs="+", default=["zero_think", "think_1s", "echo"])
    sub.add_parser("echo-server", help="(internal) the echo baseline server")
    parser.add_argument("--bots", type=int, nargs="+", default=[100, 1000, 5000])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per measurement")
    parser.add_argument("--runs", type=int, default=1, help="runs per N (medians are reported)")
    parser.add_argument("--profile", help="directory for py-spy profiles of the server (speedscope JSON)")
    args = parser.parse_args()
    if args.mode == "client":
        asyncio.run(client_main(args))
    elif args.mode == "echo-server":
        asyncio.run(echo_server_main(args))
    else:
        driver(args)


if __name__ == "__main__":
    main()
