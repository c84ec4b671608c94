"""tablestorm.sim.load.batching.Batched: one call out at a time, whatever was asked meanwhile in the next, each ask
answered by its own item's answer (or its batch's failure).

The remote side is a coroutine the test holds open with an event, so what is asked while a call
is out is decided by the test, not by timing.
"""

from __future__ import annotations

import asyncio

import pytest

from tablestorm.sim.load.batching import Batched


class Remote:
    """A list method whose calls the test lets return one at a time."""

    def __init__(self) -> None:
        self.calls: list[list[int]] = []
        self.arrived = asyncio.Condition()
        self.release = asyncio.Event()
        self.fail_next = False

    async def send(self, batch: list[int]) -> list[str]:
        async with self.arrived:
            self.calls.append(list(batch))
            self.arrived.notify_all()
        await self.release.wait()
        self.release.clear()
        if self.fail_next:
            self.fail_next = False
            raise ConnectionError("the registry is gone")
        return [f"answer-{item}" for item in batch]

    async def until_calls(self, count: int) -> None:
        async with self.arrived:
            await asyncio.wait_for(self.arrived.wait_for(lambda: len(self.calls) >= count), 5.0)


def test_asks_made_while_a_call_is_out_go_together_in_the_next() -> None:
    async def scenario() -> None:
        remote = Remote()
        batched: Batched[int, str] = Batched(remote.send)
        first = asyncio.ensure_future(batched.ask(0))
        await remote.until_calls(1)
        rest = [asyncio.ensure_future(batched.ask(k)) for k in range(1, 500)]
        batched.tell(500)
        await asyncio.sleep(0)
        assert remote.calls == [[0]], "one call out at a time"
        remote.release.set()
        assert await first == "answer-0"
        await remote.until_calls(2)
        assert sorted(remote.calls[1]) == list(range(1, 501))  # the told item too, unanswered
        remote.release.set()
        assert await asyncio.gather(*rest) == [f"answer-{k}" for k in range(1, 500)]

    asyncio.run(scenario())


def test_a_failed_call_fails_each_of_its_asks_and_the_next_batch_goes_on() -> None:
    async def scenario() -> None:
        remote = Remote()
        batched: Batched[int, str] = Batched(remote.send)
        remote.fail_next = True
        doomed = [asyncio.ensure_future(batched.ask(k)) for k in range(3)]
        await remote.until_calls(1)
        later = asyncio.ensure_future(batched.ask(7))
        remote.release.set()
        for ask in doomed:
            with pytest.raises(ConnectionError, match="gone"):
                await ask
        await remote.until_calls(2)
        remote.release.set()
        assert await later == "answer-7"

    asyncio.run(scenario())


def test_an_asker_that_gives_up_leaves_the_others_their_answers() -> None:
    async def scenario() -> None:
        remote = Remote()
        batched: Batched[int, str] = Batched(remote.send)
        asks = [asyncio.ensure_future(batched.ask(k)) for k in range(3)]
        await remote.until_calls(1)
        asks[1].cancel()
        remote.release.set()
        assert await asks[0] == "answer-0" and await asks[2] == "answer-2"
        assert asks[1].cancelled()
        assert remote.calls == [[0, 1, 2]]

    asyncio.run(scenario())
