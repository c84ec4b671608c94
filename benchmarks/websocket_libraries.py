"""Which WebSocket library the front door (``services/websocket``) is built on: ``websockets``
against ``aiohttp``, measured in the same run on loopback.

Every pairing of a server library and a client library (2 x 2) runs two workloads, each server in
a process of its own and the clients in this one:

* **echo**: ``--connections`` clients each keep ``--window`` text frames in flight (a ~200-byte
  JSON action, as a bot sends one), the server answers every frame with it; the figure is frames
  echoed per second, read at the clients.
* **broadcast**: one frame asks the server to write ``--burst`` frames (a ~300-byte JSON event
  batch) to each client as fast as the socket takes them; the figure is frames received per
  second by all the clients together (the table service's fan-out).

Runs interleave the pairings (run 1 of each, then run 2...) so a busy machine slows them alike; a
figure is the median over ``--runs``. The server library is what the front door serves with (the
broadcast column), the client library what a bot's adapter would use; the ratios compare each to
``websockets`` on both sides.

Usage: ``python benchmarks/websocket_libraries.py [--connections 50] [--window 8] [--burst 400]
[--seconds 3] [--runs 3]``; the last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Protocol

import aiohttp
from aiohttp import web
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.version import version as websockets_version

LIBRARIES = ("websockets", "aiohttp")
ACTION = json.dumps(
    {"type": "act", "table_id": "t-0001", "action_id": "bot-17-000042", "kind": "raise", "amount": 16,
     "turn_seq": 1234, "padding": "x" * 60}
)
EVENTS = json.dumps(
    {"type": "events", "table_id": "t-0001", "events": [
        {"seq": 1234 + k, "hand_number": 7, "server_time_us": 1_700_000_000_000_000, "type": "acted",
         "seat": 3, "kind": "raise", "to": 16, "added": 8, "all_in": False} for k in range(2)]}
)
GO = "go"


# ----------------------------------------------------------------- servers (one process each)


async def _answer(message: str, send: Callable[[str], Awaitable[None]], burst: int) -> None:
    if message == GO:
        for _ in range(burst):
            await send(EVENTS)
    else:
        await send(message)


async def _websockets_server(burst: int, ready: Connection) -> None:
    async def handler(connection: ServerConnection) -> None:
        async for message in connection:
            await _answer(str(message), connection.send, burst)

    async with serve(handler, "127.0.0.1", 0, compression=None, max_queue=None) as server:
        ready.send(next(iter(server.sockets)).getsockname()[1])
        await asyncio.Future()


async def _aiohttp_server(burst: int, ready: Connection) -> None:
    async def handler(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(compress=False)
        await ws.prepare(request)
        async for message in ws:
            await _answer(message.data, ws.send_str, burst)
        return ws

    app = web.Application()
    app.router.add_get("/ws", handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    ready.send(runner.addresses[0][1])
    await asyncio.Future()


def _serve(library: str, burst: int, ready: Connection) -> None:
    server = _websockets_server if library == "websockets" else _aiohttp_server
    asyncio.run(server(burst, ready))


# ----------------------------------------------------------------- clients


class Client(Protocol):
    async def send(self, text: str) -> None: ...
    async def recv(self) -> str: ...
    async def close(self) -> None: ...


class _Websockets:
    def __init__(self, connection: ClientConnection) -> None:
        self._connection = connection

    async def send(self, text: str) -> None:
        await self._connection.send(text)

    async def recv(self) -> str:
        return str(await self._connection.recv())

    async def close(self) -> None:
        await self._connection.close()


class _Aiohttp:
    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._session, self._ws = session, ws

    async def send(self, text: str) -> None:
        await self._ws.send_str(text)

    async def recv(self) -> str:
        return await self._ws.receive_str()

    async def close(self) -> None:
        await self._ws.close()
        await self._session.close()


async def _connect(library: str, url: str) -> Client:
    if library == "websockets":
        return _Websockets(await connect(url, compression=None, max_queue=None))
    session = aiohttp.ClientSession()
    return _Aiohttp(session, await session.ws_connect(url, compress=0))


async def _echo(client: Client, window: int, until: float) -> int:
    for _ in range(window):
        await client.send(ACTION)
    count = 0
    while time.perf_counter() < until:
        await client.recv()
        count += 1
        await client.send(ACTION)
    for _ in range(window):
        await client.recv()
    return count


async def _broadcast(client: Client, burst: int) -> int:
    await client.send(GO)
    for _ in range(burst):
        await client.recv()
    return burst


@dataclass(frozen=True, slots=True)
class Workload:
    connections: int
    window: int
    burst: int
    seconds: float


async def _measure(client_library: str, port: int, load: Workload) -> tuple[float, float]:
    """(echo frames/s, broadcast frames/s) with ``load.connections`` clients of ``client_library``."""
    url = f"ws://127.0.0.1:{port}/ws"
    clients = [await _connect(client_library, url) for _ in range(load.connections)]
    try:
        started = time.perf_counter()
        until = started + load.seconds
        echoed = sum(await asyncio.gather(*(_echo(c, load.window, until) for c in clients)))
        echo_rate = echoed / (time.perf_counter() - started)
        started = time.perf_counter()
        received = sum(await asyncio.gather(*(_broadcast(c, load.burst) for c in clients)))
        return echo_rate, received / (time.perf_counter() - started)
    finally:
        for client in clients:
            await client.close()


def run_pair(server_library: str, client_library: str, load: Workload) -> tuple[float, float]:
    receive, send = multiprocessing.Pipe(duplex=False)
    server = multiprocessing.get_context("spawn").Process(
        target=_serve, args=(server_library, load.burst, send), daemon=True
    )
    server.start()
    try:
        port = receive.recv()
        return asyncio.run(_measure(client_library, port, load))
    finally:
        server.terminate()
        server.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--burst", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    load = Workload(args.connections, args.window, args.burst, args.seconds)
    pairs = [(s, c) for s in LIBRARIES for c in LIBRARIES]
    echo: dict[str, list[float]] = {f"{s}/{c}": [] for s, c in pairs}
    broadcast: dict[str, list[float]] = {f"{s}/{c}": [] for s, c in pairs}
    for _ in range(args.runs):
        for server, client in pairs:
            e, b = run_pair(server, client, load)
            echo[f"{server}/{client}"].append(e)
            broadcast[f"{server}/{client}"].append(b)
    baseline = "websockets/websockets"
    result: dict[str, object] = {
        "versions": {"websockets": websockets_version, "aiohttp": aiohttp.__version__},
        "workload": vars(args),
    }
    print(f"{'server/client':<24} {'echo msg/s':>12} {'ratio':>6} {'broadcast msg/s':>16} {'ratio':>6}")
    for name in echo:
        e, b = statistics.median(echo[name]), statistics.median(broadcast[name])
        e_ratio = e / statistics.median(echo[baseline])
        b_ratio = b / statistics.median(broadcast[baseline])
        print(f"{name:<24} {e:>12,.0f} {e_ratio:>6.2f} {b:>16,.0f} {b_ratio:>6.2f}")
        result[name] = {"echo_per_s": round(e), "broadcast_per_s": round(b),
                        "echo_ratio": round(e_ratio, 3), "broadcast_ratio": round(b_ratio, 3)}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
