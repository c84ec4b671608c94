"""The tournament server's journal, and the server killed (SIGKILL) and restarted from it.

The journal alone: every input read back as written, a snapshot replacing the inputs before it,
a player's token kept as a digest, a file that is not a journal refused. Then the real thing, all
processes on 127.0.0.1: two ``tablestorm serve`` table servers and ``tablestorm serve-tournaments
--journal``, killed with SIGKILL mid-tournament while hands are running, then started again on the
same file and port. The tables dealt on (or waited for a deal); the restarted server rebuilds the
tournament, collects the results it missed, and plays it to its winner with every chip (TOURN-11),
the places given before the kill unchanged; the players' Watch streams resume by seq, gap-free.
"""

from __future__ import annotations

import asyncio
import random
import socket
import sqlite3
import time
from pathlib import Path

import grpc
import pytest
from support.processes import assert_refused, process, tablestorm
from support.running import run_async
from support.tournament_room import stud_structure
from support.tournaments import OPERATOR, TIMEOUT, Bot, Channels, fast_structure, operator, until

from tablestorm.services.api import tournament_pb2 as tpb
from tablestorm.services.api import tournament_pb2_grpc as trpc
from tablestorm.services.director import inputs as di
from tablestorm.services.director.director import Director
from tablestorm.services.director.snapshot import restore, snapshot
from tablestorm.services.engine.tournament_table import HandResult, SeatResult
from tablestorm.services.tournament.auth import token_digest
from tablestorm.services.tournament.journal import Journal, JournalError, TournamentRecord

RESULT = HandResult("T/t1", 1, (SeatResult(1, "a#1", 1000, 900, False), SeatResult(4, "b#1", 1000, 1100, True)),
                    False, (4, 1), ())


def record(tournament_id: str = "T") -> TournamentRecord:
    return TournamentRecord(tournament_id, b"structure", 2**64 - 1, None, "director-token", 1.5e9)


def test_inputs_are_read_back_as_written_and_a_snapshot_replaces_those_before_it(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    journal = Journal(path, snapshot_every=3)
    journal.create(record())
    given = [(0.0, di.Register("a", True)), (0.5, di.Unregister("a")), (1.0, di.Start()),
             (2.0, di.HandFinished(RESULT)), (3.0, di.SetAway("b", False)), (4.0, di.TableLost("T/t1"))]
    due = [journal.append("T", now, item) for now, item in given[:3]]
    assert due == [False, False, True]
    journal.snapshot("T", b"state after 3", "{}")
    for now, item in given[3:]:
        journal.append("T", now, item)
    journal.player("T", "a", token_digest("secret-a"))
    journal.close()
    assert path.stat().st_mode & 0o777 == 0o600, "it holds director tokens: its owner's alone"
    (saved,) = Journal(path).tournaments()
    assert saved.record == record() and saved.snapshot == b"state after 3" and saved.inputs == given[3:]
    assert saved.players == {"a": token_digest("secret-a")}
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        dumped = "\n".join(db.iterdump())
    assert "secret-a" not in dumped, "a player's token is kept as its digest"


def test_a_journaled_director_replays_to_the_same_state(tmp_path: Path) -> None:
    structure = stud_structure()
    journal = Journal(tmp_path / "j.db", snapshot_every=2)
    journal.create(record())
    director = Director(structure, seed=7, tournament_id="T")
    for now, item in [(0.0, di.Register(p)) for p in "abcdefghij"] + [(1.0, di.Start()), (2.0, di.Tick())]:
        if journal.append("T", now, item):
            di.apply(director, item, now)
            journal.snapshot("T", snapshot(director), "{}")
        else:
            di.apply(director, item, now)
    (saved,) = journal.tournaments()
    assert saved.snapshot is not None
    rebuilt = di.replay(restore(structure, saved.snapshot), saved.inputs)
    assert rebuilt.seating() == director.seating() and rebuilt.events == director.events


def test_what_is_not_a_journal_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database, " * 100)
    with pytest.raises(JournalError, match="is not a tournament journal"):
        Journal(text)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(JournalError, match="is not a tournament journal"):
        Journal(other)
    with pytest.raises(JournalError, match="cannot create"):
        Journal(tmp_path / "missing" / "j.db")
    assert text.read_text() == "not a database, " * 100


def test_serve_tournaments_refuses_a_bad_journal(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database, " * 100)
    for journal, message in [(text, "--journal: "), (tmp_path / "missing" / "j.db", "--journal: cannot create")]:
        done = tablestorm("serve-tournaments", "--tables", "127.0.0.1:1", "--journal", str(journal), tmp=tmp_path)
        assert_refused(done, message)
    done = tablestorm("serve-tournaments", "--tables", "127.0.0.1:1", "--snapshot-every", "5", tmp=tmp_path)
    assert_refused(done, "--snapshot-every: needs --journal")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@run_async
async def test_the_tournament_server_killed_mid_hand_restarts_from_its_journal(tmp_path: Path) -> None:
    token_file = tmp_path / "operator"
    token_file.write_text(OPERATOR + "\n")
    journal = tmp_path / "tournaments.db"
    with process("serve", "--port", "0", "--drain-seconds", "0") as (_, a_ports), \
            process("serve", "--port", "0", "--drain-seconds", "0") as (_, b_ports):
        tables = f"127.0.0.1:{a_ports['grpc_port']},127.0.0.1:{b_ports['grpc_port']}"
        port = free_port()
        flags = ("serve-tournaments", "--tables", tables, "--port", str(port), "--operator-token-file",
                 str(token_file), "--journal", str(journal), "--snapshot-every", "25", "--log-level", "warning")
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.max_reconnect_backoff_ms", 200)])
        stub = trpc.TournamentServiceStub(channel)
        channels, changed = Channels(), asyncio.Condition()
        players = [Bot(f"p{k}", stub, channels, random.Random(k), changed=changed) for k in range(1, 25)]
        with process(*flags) as (first, _):
            structure = fast_structure("7stud", seats=6, clock_seconds=3.0)
            await stub.CreateTournament(tpb.CreateTournamentRequest(tournament_id="j", structure=structure, seed=9),
                                        metadata=operator())
            for bot in players:
                await bot.register("j")
            await stub.Start(tpb.TournamentRequest(tournament_id="j"), metadata=operator())
            watching = [asyncio.ensure_future(bot.watch("j", through_restarts=True)) for bot in players]
            watcher = players[0]
            await until(changed, lambda: len(watcher.of("eliminated")) >= 3)
            for bot in players:  # hold every next turn: hands are running when it dies
                bot.acting.clear()
            await until(changed, lambda: sum(1 for bot in players if bot.held_at) >= 2)
            before = {e.entry_id: e.place for e in watcher.of("eliminated")}
            first.kill()
            first.wait()
        for bot in players:
            bot.acting.set()  # the hands play on at the table servers while it is down
        began = time.perf_counter()
        with process(*flags) as (second, _):
            restart_s = time.perf_counter() - began
            await asyncio.wait_for(asyncio.gather(*watching), TIMEOUT)
            payouts = await stub.GetPayouts(tpb.TournamentRequest(tournament_id="j"))
            standings = await stub.GetStandings(tpb.StandingsRequest(tournament_id="j", page_size=100))
            assert standings.standings[0].stack == 24 * 200, "TOURN-11: the winner holds every chip"
            order = {p.entry_id: p.place for p in payouts.finishing_order}
            assert len(order) == 24 and sorted(order.values()) == list(range(1, 25))
            assert {entry: order[entry] for entry in before} == before, "places given before the kill stand"
            assert all(bot.restarts == 1 for bot in players)
            seqs = [e.seq for e in watcher.events if e.WhichOneof("kind") != "seat_assigned"]
            assert seqs == list(range(1, len(seqs) + 1)), "Watch resumed after the last seq: no gap, no repeat"
            assert watcher.of("finished")
            second.kill()  # a graceful stop would pause it in the journal: not what this test reads
            second.wait()
        print(f"restart {restart_s:.2f} s, journal {journal.stat().st_size} bytes")
        await channel.close()
        await channels.close()
