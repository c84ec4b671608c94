"""A table rebuilt on another server from its ledger entries (a load run's node lost): it keeps every
seat token and never shows without them, and deals only once the ledger holds its seats.

Found by the 3-node load test; reproduced step by step against real servers on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import logging

import grpc
import pytest
from support.calls import code_of
from support.running import run_async
from support.table_server import stud_options, token
from support.table_streams import Stream, seat_players

from tablestorm.services.api import table_service_pb2 as pb
from tablestorm.services.api import table_service_pb2_grpc as rpc
from tablestorm.services.table.ledger import LedgerEntry
from tablestorm.services.table.server import ServerConfig, TableServer
from tablestorm.sim.load.registry import Registry


class RegistryLedger:
    """One server's ledger writing straight into a :class:`tablestorm.sim.load.registry.Registry` under its host
    id; ``hold`` makes the next ``"created"`` record wait (a registry slow to answer)."""

    def __init__(self, registry: Registry, host_id: str) -> None:
        self.registry = registry
        self.host_id = host_id
        self.kinds: list[str] = []
        self.hold = asyncio.Event()
        self.hold.set()
        self.holding = asyncio.Event()
        """Set while a "created" record waits on ``hold``."""

    async def record(self, entry: LedgerEntry) -> None:
        if entry.kind == "created" and not self.hold.is_set():
            self.holding.set()
            await self.hold.wait()
        self.note(entry)

    def note(self, entry: LedgerEntry) -> None:
        self.kinds.append(entry.kind)
        self.registry.record(self.host_id, [entry])


@run_async
async def test_a_table_rebuilt_from_the_ledger_never_shows_without_its_seat_tokens(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The 3-node load test's UNAUTHENTICATED after a node loss, reproduced step by step. A
    rebuilt table used to join its new server's tables first and get its seats (and their
    tokens) back only after the ledger had answered its "created" record: a player reaching the
    table in between was told UNAUTHENTICATED ("unknown or expired seat token"), which a bot
    takes as final and gives up on its seat. Now the table appears with its tokens in one step,
    and deals only once the ledger holds its seats. A refused call logs what traces it: the
    handle of the token presented (never its secret), the seat it names and what the table holds."""
    registry = Registry()
    old_ledger, new_ledger = RegistryLedger(registry, "old"), RegistryLedger(registry, "new")
    old = TableServer(ServerConfig(port=0, drain_seconds=0, ledger=old_ledger))
    new = TableServer(ServerConfig(port=0, drain_seconds=0, ledger=new_ledger))
    await old.start()
    await new.start()
    registry.register_host("old", f"127.0.0.1:{old.port}", "", "a")
    registry.register_host("new", f"127.0.0.1:{new.port}", "", "b")
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{old.port}") as channel:
            stub = rpc.TableServiceStub(channel)
            await stub.CreateTable(pb.CreateTableRequest(table_id="t", options=stud_options(), seed=3))
            tokens = await seat_players(stub, "t", 2)
            assert (await stub.GetTable(pb.GetTableRequest(table_id="t"))).hand_running
        await old.kill()
        assert registry.mark_dead("old") == ["t"]
        registry.move("t", "new")  # as tablestorm.sim.load.recovery.rebuild_tables does
        assert new.host is not None
        new_ledger.hold.clear()
        rebuild = asyncio.ensure_future(new.host.restore_table(registry.plan("t")))
        await asyncio.wait_for(new_ledger.holding.wait(), 10)
        assert "t" in new.host.tables  # the table is on the new server; the ledger has not answered
        async with grpc.aio.insecure_channel(f"127.0.0.1:{new.port}") as channel:
            stub = rpc.TableServiceStub(channel)
            stream = Stream(stub, "t", 1, tokens[1])
            await stream.until(lambda: stream.welcome is not None)  # was: UNAUTHENTICATED
            assert stream.welcome is not None and stream.welcome.table.seats[0].player_id == "p1"
            assert not stream.welcome.table.hand_running, "nothing is dealt before the ledger holds the seats"
            forged = tokens[1].split(".")[0] + ".forged"
            with caplog.at_level(logging.WARNING, logger="tablestorm.services.table.host"):
                code, _ = await code_of(stub.SitOut(pb.SeatRequest(table_id="t", seat=1), metadata=token(forged)))
            assert code == grpc.StatusCode.UNAUTHENTICATED
            refusal = next(r for r in caplog.records if r.getMessage() == "seat token refused")
            handle = tokens[1].split(".")[0]
            assert (refusal.token_handle, refusal.token_names) == (handle, "t#1/1")  # type: ignore[attr-defined]
            assert (refusal.table_incarnation, refusal.seat_token_handle) == (1, handle)  # type: ignore[attr-defined]
            assert tokens[1].split(".")[1] not in str(refusal.__dict__)
            new_ledger.hold.set()
            await asyncio.wait_for(rebuild, 10)
            await stream.until(lambda: bool(stream.of("hand_started")))
            assert new_ledger.kinds[:3] == ["created", "seats", "hand_started"]
            assert registry.where("t") == f"127.0.0.1:{new.port}"
            await stream.close()
    finally:
        await new.stop(drain_seconds=0)
