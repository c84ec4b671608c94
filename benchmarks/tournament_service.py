"""Hands per second of a live tournament against cash tables of the same table servers, same run.

Two ``tablestorm serve`` processes and one ``tablestorm serve-tournaments`` process; this process
holds N bot coroutines playing random legal actions at once (no think time: the servers are the
bottleneck) over Play streams.

* **Cash** (the baseline): N/8 Seven Card Stud tables spread over the two table servers, the bots
  sit down and play; hands deal themselves.
* **Tournament**: one Seven Card Stud MTT of N entrants on the same servers, ten-minute levels and
  deep stacks (nothing changes during the measurement: no level, hardly an elimination), the
  bots register, watch with their token and play every SeatAssigned seat. Every hand is a
  DealHand from the tournament server, its result fed back to the director, the next DealHand
  issued: ``ratio`` is the share of the cash tables' throughput the tournament's round trips
  leave.

Each measurement counts the hands the table servers finished (``tablestorm_hands_by_kind_total``
from their /metrics) over ``--seconds`` after a warm-up of ``--warmup`` seconds; the runs alternate
cash and tournament, and the medians are reported with their ratio. The last line is JSON.

Usage: ``python benchmarks/tournament_service.py [--bots 64] [--seconds 10] [--warmup 3] [--runs 3]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import grpc
from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.api import tournament_pb2_grpc as trpc
from tablestorm.sim.bots.client.transport import token_metadata

if TYPE_CHECKING:
    from tablestorm.services.api.table_service_pb2_grpc import TableServiceAsyncStub

TABLESTORM = Path(sys.executable).parent / "tablestorm"
STAKES = pb.Stakes(ante=1, bring_in=2, small_bet=4, big_bet=8)


@contextlib.contextmanager
def started(*argv: str) -> Iterator[dict[str, int]]:
    """A tablestorm process and the ports it printed; SIGTERM at the end."""
    child = subprocess.Popen([str(TABLESTORM), *argv], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert child.stdout is not None
        yield json.loads(child.stdout.readline())
    finally:
        child.terminate()
        child.wait(timeout=60)


def hands_finished(metrics_ports: list[int], kind: str) -> float:
    total = 0.0
    for port in metrics_ports:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == "tablestorm_hands_by_kind_total" and sample.labels == {"kind": kind}:
                    total += sample.value
    return total


async def play(
    stub: TableServiceAsyncStub, table_id: str, seat: int, token: str, resume: int, rng: random.Random
) -> None:
    """Play one seat with random legal actions until its stream ends."""
    call = stub.Play(metadata=token_metadata(token))
    with contextlib.suppress(grpc.aio.AioRpcError):
        await call.write(pb.ClientMessage(hello=pb.Hello(table_id=table_id, seat=seat, resume_after_seq=resume)))
        count = 0
        async for message in call:
            if message.HasField("your_turn"):
                legal = list(message.your_turn.legal)
                option = rng.choice(legal)
                count += 1
                act = pb.ActRequest(action_id=str(count), kind=option.kind, amount=option.min,
                                    turn_seq=message.your_turn.seq)
                await call.write(pb.ClientMessage(act=act))


async def measure(metrics_ports: list[int], kind: str, seconds: float, warmup: float) -> float:
    await asyncio.sleep(warmup)  # a benchmark's measurement window, not a wait for a state
    before, start = hands_finished(metrics_ports, kind), time.perf_counter()
    await asyncio.sleep(seconds)
    return (hands_finished(metrics_ports, kind) - before) / (time.perf_counter() - start)


async def cash_run(
    endpoints: list[str], metrics_ports: list[int], bots: int, run: int, args: argparse.Namespace
) -> float:
    channels = [grpc.aio.insecure_channel(e) for e in endpoints]
    stubs = [rpc.TableServiceStub(c) for c in channels]
    tasks = []
    for t in range(bots // 8):
        stub = stubs[t % len(stubs)]
        table_id = f"cash-{run}-{t}"
        options = pb.TableOptions(game="7stud", stakes=STAKES, clock_seconds=30)
        await stub.CreateTable(pb.CreateTableRequest(table_id=table_id, options=options))
        for seat in range(1, 9):
            reply = await stub.SitDown(pb.SitDownRequest(table_id=table_id, seat=seat, player_id=f"b{seat}"))
            tasks.append(asyncio.ensure_future(
                play(stub, table_id, seat, reply.seat_token, reply.resume_after_seq, random.Random(t * 8 + seat))
            ))
    rate = await measure(metrics_ports, "cash", args.seconds, args.warmup)
    for t in range(bots // 8):
        await stubs[t % len(stubs)].CloseTable(pb.CloseTableRequest(table_id=f"cash-{run}-{t}"))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in channels:
        await channel.close()
    return rate


async def tournament_run(
    tournaments: int, metrics_ports: list[int], bots: int, run: int, args: argparse.Namespace
) -> float:
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{tournaments}")
    stub = trpc.TournamentServiceStub(channel)
    level = tpb.Level(duration_s=600, stakes=STAKES)
    structure = tpb.TournamentStructure(game="7stud", starting_stack=100_000, clock_seconds=30, levels=[level])
    tournament_id = f"bench-{run}"
    await stub.CreateTournament(tpb.CreateTournamentRequest(tournament_id=tournament_id, structure=structure, seed=run))
    table_channels: dict[str, grpc.aio.Channel] = {}
    seats: list[asyncio.Task[None]] = []

    async def follow(player_id: str, token: str, rng: random.Random) -> None:
        request = tpb.WatchRequest(tournament_id=tournament_id, player_id=player_id)
        async for event in stub.Watch(request, metadata=(("x-player-token", token),)):
            if event.HasField("seat_assigned"):
                s = event.seat_assigned
                if s.endpoint not in table_channels:
                    table_channels[s.endpoint] = grpc.aio.insecure_channel(s.endpoint)
                table = rpc.TableServiceStub(table_channels[s.endpoint])
                seated = play(table, s.table_id, s.seat, s.seat_token, s.resume_after_seq, rng)
                seats.append(asyncio.ensure_future(seated))

    watchers = []
    for k in range(bots):
        reply = await stub.Register(tpb.RegisterRequest(tournament_id=tournament_id, player_id=f"p{k}"))
        watchers.append(asyncio.ensure_future(follow(f"p{k}", reply.player_token, random.Random(k))))
    await stub.Start(tpb.TournamentRequest(tournament_id=tournament_id))
    rate = await measure(metrics_ports, "tournament", args.seconds, args.warmup)
    await stub.Pause(tpb.TournamentRequest(tournament_id=tournament_id))
    for task in [*watchers, *seats]:
        task.cancel()
    await asyncio.gather(*watchers, *seats, return_exceptions=True)
    for table_channel in table_channels.values():
        await table_channel.close()
    await channel.close()
    return rate


async def main(args: argparse.Namespace) -> dict[str, object]:
    with started("serve", "--port", "0", "--metrics-port", "0", "--drain-seconds", "0") as a, \
            started("serve", "--port", "0", "--metrics-port", "0", "--drain-seconds", "0") as b:
        endpoints = [f"127.0.0.1:{a['grpc_port']}", f"127.0.0.1:{b['grpc_port']}"]
        metrics_ports = [a["metrics_port"], b["metrics_port"]]
        with started("serve-tournaments", "--tables", ",".join(endpoints), "--port", "0", "--drain-seconds", "0") as t:
            cash, tournament = [], []
            for run in range(args.runs):
                cash.append(await cash_run(endpoints, metrics_ports, args.bots, run, args))
                tournament.append(await tournament_run(t["grpc_port"], metrics_ports, args.bots, run, args))
                print(f"run {run + 1}: cash {cash[-1]:.1f} hands/s, tournament {tournament[-1]:.1f} hands/s",
                      file=sys.stderr)
    cash_median, tournament_median = statistics.median(cash), statistics.median(tournament)
    return {
        "bots": args.bots, "tables": args.bots // 8, "seconds": args.seconds, "runs": args.runs,
        "cash_hands_per_s": round(cash_median, 1), "tournament_hands_per_s": round(tournament_median, 1),
        "ratio": round(tournament_median / cash_median, 3),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=64, help="bots (8 a table; default 64)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measurement window (default 10)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring (default 3)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each (default 3)")
    print(json.dumps(asyncio.run(main(parser.parse_args()))))
