"""The load run's registry with a journal: dropped where it stands (its process dead) and made again
on the same file, it answers exactly as before (where each table lives, each table's last ledger
entry, the seat tokens, the chips), and a call made again after the restart changes nothing; on
Ray, its actor killed and restarted by Ray recovers so, as a load run deploys it too, and a call
sent while it is dead waits for the new process. The journal never holds a seat token in the
clear, and another key does not open it."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet

from tablestorm.services.table.ledger import LedgerEntry, SeatRecord
from tablestorm.sim.cluster import connection
from tablestorm.sim.load.registry import Registry
from tablestorm.sim.load.registry_journal import RegistryJournalError


def entry(table: str, kind: str, hand: int, stacks: tuple[int, ...], bought: int = 2000, **extra: Any) -> LedgerEntry:
    seats = tuple(SeatRecord(k + 1, f"p{k}", stack, f"secret-{table}-{k}", k == 1) for k, stack in enumerate(stacks))
    return LedgerEntry(table, kind, hand, seats, bought=bought, **extra)


def play(registry: Any, call: Any = lambda method, *args: method(*args)) -> None:
    """Two hosts, three tables; one host dies mid-hand and its table moves to the other."""
    call(registry.register_host, "h1", "127.0.0.1:1", "127.0.0.1:2", "node-a")
    call(registry.register_host, "h2", "127.0.0.1:3", "127.0.0.1:4", "node-b")
    for table, host in (("t1", "h1"), ("t2", "h2"), ("t3", "h2")):
        call(registry.record, host, [entry(table, "created", 0, (), bought=0, options=b"\x00opts", seed=2**63 + 5)])
        hand = [entry(table, "seats", 0, (1000, 1000)), entry(table, "hand_started", 1, (990, 990))]
        call(registry.record, host, hand)
    call(registry.record, "h2", [entry("t3", "hand_ended", 1, (1500, 500)), entry("t3", "closed", 1, ())])
    call(registry.mark_dead, "h1")
    call(registry.move, "t1", "h2")


def answers(registry: Registry) -> tuple[Any, ...]:
    return (
        registry.tables(), registry.where_many(["t1", "t2", "t3"]), registry.plan("t1"), registry.plan("t2"),
        registry.seat_token("t2", 2, "p1"), registry.chips(), registry.hosts,
    )


def test_a_registry_made_again_on_its_journal_answers_as_before(tmp_path: Path) -> None:
    key, path = Fernet.generate_key(), tmp_path / "registry.db"
    first = Registry(str(path), key)
    play(first)
    before = answers(first)
    again = Registry(str(path), key)  # the first one is dropped, not closed: as if its process died
    assert answers(again) == before
    assert again.plan("t1").hand_voided and again.plan("t1").incarnation == 1 and again.where("t1") is None
    again.record("h2", [entry("t1", "seats", 1, (1000, 1000))])  # the rebuild seated: handed out again
    assert Registry(str(path), key).where("t1") == "127.0.0.1:3"
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert b"secret-" not in stored, "seat tokens are encrypted in the journal"
    with pytest.raises(RegistryJournalError, match="not under this key"):
        Registry(str(path), Fernet.generate_key())
    with pytest.raises(ValueError, match="key"):
        Registry(str(path))


def test_a_call_made_again_after_a_restart_changes_nothing(tmp_path: Path) -> None:
    """Ray makes a call again on the restarted actor when the dead one never answered it, though it
    may have stored its work: the last batch a host wrote and the last move, made again on a
    registry read back from the journal, leave every answer as it was (a move counts one rebuild)."""
    key, path = Fernet.generate_key(), tmp_path / "registry.db"
    first = Registry(str(path), key)
    play(first)
    first.move("t1", "h2")  # made again at once: no second rebuild
    assert first.plan("t1").incarnation == 1
    before = answers(first)
    again = Registry(str(path), key)
    again.record("h2", [entry("t3", "hand_ended", 1, (1500, 500)), entry("t3", "closed", 1, ())])
    again.move("t1", "h2")
    assert answers(again) == before
    assert again.plan("t1").incarnation == 1


def test_the_registry_actor_killed_and_restarted_by_ray_recovers_from_its_journal(
    ray_local: connection.ClusterInfo, tmp_path: Path
) -> None:
    import ray

    from tablestorm.sim.load.actors import RegistryActor

    key, path = Fernet.generate_key(), tmp_path / "registry.db"
    handle = RegistryActor.options(max_restarts=1, max_task_retries=3).remote(str(path), key)
    play(handle, lambda method, *args: ray.get(method.remote(*args), timeout=60))
    plan = ray.get(handle.plan.remote("t1"), timeout=60)
    pid = ray.get(handle.__ray_call__.remote(lambda actor: os.getpid()), timeout=60)
    ray.kill(handle, no_restart=False)  # a forced kill; Ray restarts the actor with its arguments,
    # and retries the calls that met the restart
    assert ray.get(handle.plan.remote("t1"), timeout=120) == plan
    assert ray.get(handle.where_many.remote(["t1", "t2", "t3"]), timeout=60) == [None, "127.0.0.1:3", "127.0.0.1:3"]
    assert ray.get(handle.seat_token.remote("t2", 2, "p1"), timeout=60) == "secret-t2-1"
    assert ray.get(handle.__ray_call__.remote(lambda actor: os.getpid()), timeout=60) != pid, "a new process"
    ray.kill(handle, no_restart=True)


def test_a_runs_registry_killed_comes_back_from_its_journal_and_calls_to_it_meanwhile_wait(
    ray_local: connection.ClusterInfo, tmp_path: Path
) -> None:
    """The deployment's registry, as a load run has it: its journal in the run's directory, under
    the run's key. The chaos's kill (its process SIGKILLed) is answered by a new process with every
    answer as before; and a host's ledger write sent through its own handle (``ray.get_actor``, as
    the hosts and fleets have it) the moment the registry dies waits for the new process and lands."""
    import ray

    from tablestorm.sim.cluster.deployment import Deployment

    @ray.remote(num_cpus=0)
    class Host:
        def __init__(self, registry: str) -> None:
            self.registry = ray.get_actor(registry)

        def kill_then_record(self, pid: int, entries: list[LedgerEntry]) -> None:
            os.kill(pid, signal.SIGKILL)
            ray.get(self.registry.record.remote("h2", entries))

    deployment = Deployment(ray, tmp_path / "run", host_limits={}, bot_config={}, start=time.time())
    try:
        registry = deployment.registry
        play(registry, lambda method, *args: ray.get(method.remote(*args), timeout=60))
        before = ray.get([registry.tables.remote(), registry.plan.remote("t1"), registry.chips.remote()], timeout=60)
        pid = ray.get(registry.pid.remote(), timeout=60)
        restart_s = deployment.kill_registry()
        assert 0 < restart_s < 60
        assert ray.get(registry.pid.remote(), timeout=60) != pid, "a new process"
        assert ray.get([registry.tables.remote(), registry.plan.remote("t1"), registry.chips.remote()]) == before
        assert deployment.registry_journal == (tmp_path / "run" / "registry.db").resolve()
        assert (deployment.registry_journal_bytes() or 0) > 0

        host = Host.remote(deployment.registry_name)
        pid = ray.get(registry.pid.remote(), timeout=60)
        ray.get(host.kill_then_record.remote(pid, [entry("t1", "seats", 1, (1000, 1000))]), timeout=120)
        assert ray.get(registry.pid.remote(), timeout=60) != pid
        assert ray.get(registry.where.remote("t1"), timeout=60) == "127.0.0.1:3", "the rebuild's seats, stored"
        stored = b"".join(p.read_bytes() for p in (tmp_path / "run").iterdir())
        assert b"secret-" not in stored
    finally:
        deployment.kill_all()
