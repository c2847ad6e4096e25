"""The endpoint gate and its worker clients without Ray: the limit holds, busy workers reuse their slots,
shares even out, nothing deadlocks, idle and cancelled slots go back."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from omnieval.executors.gate import EndpointGate, GateClient


class _Remote:
    """``handle.method.remote(...)`` as Ray spells it, calling the gate in the same loop; counts calls."""

    def __init__(self, gate: EndpointGate, calls: dict[str, int]) -> None:
        self.gate, self.calls = gate, calls

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.gate, name)
        calls = self.calls

        class _Method:
            @staticmethod
            def remote(*args: Any) -> asyncio.Future[Any]:
                calls[name] = calls.get(name, 0) + 1
                return asyncio.ensure_future(method(*args))

        return _Method()


class _Server:
    """What the endpoint sees: requests in flight at once."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0

    async def call(self, client: GateClient, seconds: float) -> None:
        await client.acquire()
        self.now += 1
        self.peak = max(self.peak, self.now)
        try:
            await asyncio.sleep(seconds)
        finally:
            self.now -= 1
            client.release()


async def _ticker(clients: list[GateClient], every: float) -> None:
    while True:
        await asyncio.sleep(every)
        for client in clients:
            await client.tick()


async def _burst(server: _Server, client: GateClient, n: int, *, concurrency: int, seconds: float) -> None:
    """A runner: ``n`` requests, at most ``concurrency`` of its own at once."""
    own = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with own:
            await server.call(client, seconds)

    await asyncio.gather(*(one() for _ in range(n)))


def test_a_busy_worker_reuses_its_slots_instead_of_asking_per_request() -> None:
    async def main() -> tuple[int, dict[str, int], int]:
        gate, calls, server = EndpointGate(8), {}, _Server()
        client = GateClient(_Remote(gate, calls), "w1", cap=8)
        await _burst(server, client, 400, concurrency=8, seconds=0.001)
        return server.peak, calls, gate.granted

    peak, calls, granted = asyncio.run(main())
    assert peak == 8
    assert calls["acquire"] < 20 and granted < 40, (
        calls,
        granted,
    )  # 400 requests; one call each would be 400


def test_many_workers_never_exceed_the_limit_and_all_finish() -> None:
    """Four workers whose runners each want the whole limit: the shape that once stalled with leases."""

    async def main() -> tuple[int, int]:
        gate, calls, server = EndpointGate(32), {}, _Server()
        clients = [GateClient(_Remote(gate, calls), f"w{i}", cap=32) for i in range(4)]
        ticker = asyncio.ensure_future(_ticker(clients, 0.02))
        rng = random.Random(7)
        bursts = [_burst(server, c, 300, concurrency=32, seconds=rng.uniform(0.001, 0.004)) for c in clients]
        await asyncio.wait_for(asyncio.gather(*bursts), timeout=60)
        ticker.cancel()
        for c in clients:
            c.give_back()
        await asyncio.sleep(0.01)
        return server.peak, gate.in_flight

    peak, left = asyncio.run(main())
    assert peak <= 32 and peak >= 16
    assert left == 0, "every slot is back at the gate"


def test_a_newcomer_gets_its_share_within_a_tick() -> None:
    async def main() -> tuple[int, int, int]:
        gate, calls, server = EndpointGate(8), {}, _Server()
        first, second = (GateClient(_Remote(gate, calls), w, cap=8) for w in ("a", "b"))
        hog = asyncio.ensure_future(_burst(server, first, 2000, concurrency=8, seconds=0.002))
        for _ in range(200):  # until the hog's pool has grown
            await asyncio.sleep(0.01)
            if first.held == 8:
                break
        held_alone = first.held
        late = asyncio.ensure_future(_burst(server, second, 40, concurrency=8, seconds=0.002))
        for _ in range(3):  # a few ticks: the hog learns its share is 4 and gives the rest back
            await asyncio.sleep(0.03)
            await first.tick()
            await second.tick()
        await asyncio.wait_for(late, timeout=5)
        held_shared = first.held
        hog.cancel()
        await asyncio.gather(hog, return_exceptions=True)
        return held_alone, held_shared, server.peak

    alone, shared, peak = asyncio.run(main())
    assert alone == 8 and shared <= 4 and peak <= 8


def test_a_busy_worker_leases_the_slots_an_idle_one_gave_back_when_told_not_at_its_tick() -> None:
    async def main() -> tuple[int, int, int, int]:
        gate, calls, server = EndpointGate(8), {}, _Server()
        busy, done = (GateClient(_Remote(gate, calls), w, cap=4) for w in ("busy", "done"))  # a share each
        done_early = asyncio.ensure_future(_burst(server, done, 8, concurrency=8, seconds=0.01))
        work = asyncio.ensure_future(_burst(server, busy, 400, concurrency=8, seconds=0.01))
        await done_early
        done.give_back()  # its shard ended
        await asyncio.sleep(0.02)  # the release reaches the gate
        before = busy.held
        await busy.reshare()  # what the driver asks of the busy workers then; no tick in this test
        for _ in range(50):
            await asyncio.sleep(0.01)
            if busy.held == 8:
                break
        after = busy.held
        work.cancel()
        await asyncio.gather(work, return_exceptions=True)
        return before, after, server.peak, calls["share"]

    before, after, peak, asked = asyncio.run(main())
    assert (before, after) == (4, 8) and peak <= 8 and asked == 1


def test_idle_slots_go_back_after_a_tick_and_cancelled_waiters_lose_nothing() -> None:
    async def main() -> tuple[int, int, int]:
        gate, calls, server = EndpointGate(2), {}, _Server()
        client = GateClient(_Remote(gate, calls), "w", cap=2)
        await _burst(server, client, 10, concurrency=2, seconds=0.001)
        await client.tick()  # the slots sat free since the burst ended... first tick sets the low-water mark
        await client.tick()
        await asyncio.sleep(0.01)  # the release call runs
        idle_back = gate.in_flight
        holders = [asyncio.ensure_future(server.call(client, 0.2)) for _ in range(2)]
        await asyncio.sleep(0.01)
        waiter = asyncio.ensure_future(client.acquire())  # the limit is full: this one waits
        await asyncio.sleep(0.01)
        waiter.cancel()
        await asyncio.gather(waiter, *holders, return_exceptions=True)
        client.give_back()
        await asyncio.sleep(0.01)
        return idle_back, gate.in_flight, client.held

    idle_back, in_flight, held = asyncio.run(main())
    assert idle_back == 0 and in_flight == 0 and held == 0


def test_fewer_slots_than_workers_rotate_among_them_instead_of_waiting_for_shards_to_end() -> None:
    """Limit 2, three busy workers: a share below one. Each worker is served while the others are still
    busy."""

    async def main() -> tuple[dict[str, int], int, int]:
        gate, calls, server = EndpointGate(2), {}, _Server()
        clients = [GateClient(_Remote(gate, calls), w, cap=2) for w in ("a", "b", "c")]
        ticker = asyncio.ensure_future(_ticker(clients, 0.02))
        done: dict[str, int] = {}
        served_when_first_ended: dict[str, int] = {}

        async def worker(client: GateClient) -> None:
            async def one() -> None:
                await server.call(client, 0.003)
                done[client.owner] = done.get(client.owner, 0) + 1

            own = asyncio.Semaphore(2)

            async def limited() -> None:
                async with own:
                    await one()

            await asyncio.gather(*(limited() for _ in range(120)))
            if not served_when_first_ended:
                served_when_first_ended.update(done)
            client.give_back()

        await asyncio.wait_for(asyncio.gather(*(worker(c) for c in clients)), timeout=30)
        ticker.cancel()
        await asyncio.sleep(0.01)
        return served_when_first_ended, server.peak, gate.in_flight

    served, peak, left = asyncio.run(main())
    assert peak <= 2 and left == 0
    assert len(served) == 3 and min(served.values()) >= 10, (
        f"requests each worker had done when the first ended: {served}"
    )


def test_holders_rotate_slots_only_while_the_limit_is_below_the_workers_wanting_them() -> None:
    async def main() -> list[int]:
        gate = EndpointGate(2)
        assert await gate.acquire("a", 2) == 2
        b = asyncio.ensure_future(gate.acquire("b"))
        await asyncio.sleep(0)
        shares = [await gate.share("a")]  # 2 slots, 2 workers: a's share is 1 (it gives back above that)
        c = asyncio.ensure_future(gate.acquire("c"))
        await asyncio.sleep(0)
        shares.append(await gate.share("a"))  # 2 slots, 3 workers, b and c with none: a rotates (0)
        await gate.release("a", 1)
        await asyncio.sleep(0)
        shares += [await gate.share("a"), await gate.share("b")]  # b holds one now; c still waits with none
        await gate.release("a", 1)
        await asyncio.gather(b, c)
        shares.append(await gate.share("b"))  # nobody waits with none: shares as usual
        return shares

    assert asyncio.run(main()) == [1, 0, 0, 0, 1]


def test_a_restarted_gate_rebuilds_its_leases_from_the_clients_and_keeps_the_limit() -> None:
    """The gate's node left and Ray restarted it empty: at their next tick the workers report what they
    hold; leases above the limit become debt that released slots pay back before anyone gets one."""

    async def scenario() -> None:
        gate = EndpointGate(2, restarted=True, grace_s=0.0)
        assert await gate.share("a", 2) >= 1 and gate.in_flight == 2
        assert await gate.share("b", 1) >= 1 and gate.in_flight == 3, "b's old slot counts too"
        await gate.share("a", 2)
        assert gate.in_flight == 3, "a lease is registered once per restart"
        waiting = asyncio.ensure_future(gate.acquire("c"))
        await asyncio.sleep(0.01)
        await gate.release("a", 1)
        await asyncio.sleep(0.01)
        assert not waiting.done(), "the first released slot pays the debt: still 2 in flight"
        await gate.release("a", 1)
        assert await asyncio.wait_for(waiting, 1) == 1 and gate.in_flight == 2
        fresh = EndpointGate(2, restarted=False)
        await fresh.share("a", 2)
        assert fresh.in_flight == 0, "a gate that never restarted trusts its own count"

    asyncio.run(scenario())


def test_a_client_reports_what_it_holds_at_each_tick() -> None:
    async def scenario() -> None:
        gate, calls = EndpointGate(4), {}
        client = GateClient(_Remote(gate, calls), "w", cap=4)
        await client.acquire()
        restarted = EndpointGate(4, restarted=True, grace_s=0.0)
        client.handle = _Remote(restarted, calls)
        await client.tick()
        assert restarted.in_flight == client.held >= 1
        client.release()
        client.give_back()
        await asyncio.sleep(0.01)
        assert restarted.in_flight == 0 and client.held == 0

    asyncio.run(scenario())


def test_a_restarted_gate_grants_nothing_until_its_clients_could_report() -> None:
    async def scenario() -> None:
        gate = EndpointGate(2, restarted=True, grace_s=0.3)
        waiting = asyncio.ensure_future(gate.acquire("new"))
        await asyncio.sleep(0.1)
        await gate.share("old", 2)
        assert not waiting.done()
        await asyncio.sleep(0.4)
        assert not waiting.done(), "after the grace the old lease holds both slots"
        await gate.release("old", 1)
        assert await asyncio.wait_for(waiting, 1) == 1

    asyncio.run(scenario())


def test_a_worker_started_before_its_gate_sends_with_the_slots_granted_to_it_and_the_limit_holds() -> None:
    """A worker holds no slot until the driver hands it those the gate was created holding for it (with
    its first shard); a second worker, given none, waits for the gate; the server never sees more than
    the limit, and the first worker gives the second its share at its next tick."""

    async def scenario() -> None:
        first = GateClient(None, "a", cap=4, lease=0)
        second = GateClient(None, "b", cap=4, lease=0)
        server = _Server()
        first.grant(4)
        calls_a = [asyncio.ensure_future(server.call(first, 0.15)) for _ in range(6)]
        calls_b = [asyncio.ensure_future(server.call(second, 0.05)) for _ in range(2)]
        await asyncio.sleep(0.05)
        assert server.now == 4 and first.held == 4, "every slot in use, no gate exists yet"
        first.give_back()
        assert first.held == 4, "without a gate the granted slots are kept"
        gate, calls = EndpointGate(4, leases={"a": 4}), {}
        assert gate.in_flight == 4 and gate.peak == 4, "the gate counts the slots it was created holding"
        first.attach(_Remote(gate, calls))
        second.attach(_Remote(gate, calls))
        ticker = asyncio.ensure_future(_ticker([first, second], 0.02))  # a learns b waits: its share is 2
        await asyncio.wait_for(asyncio.gather(*calls_a, *calls_b), 3)
        ticker.cancel()
        assert server.peak == 4 and calls.get("acquire", 0) >= 1, "b got its slots from the gate"
        first.give_back()
        second.give_back()
        await asyncio.sleep(0.01)
        assert gate.in_flight == 0 and gate.peak == 4


def test_a_restarted_gate_counts_a_slot_it_granted_before_the_owners_first_tick_once() -> None:
    """An acquisition reached the restarted gate before the owner's first tick: the tick's ``held``
    includes the slot just granted. Before, the tick registered it again, so the gate counted a slot
    that nobody would ever release, and with every slot counted so the workers waited for ever."""

    async def scenario() -> None:
        gate, calls = EndpointGate(2, restarted=True, grace_s=0.0), {}
        client = GateClient(_Remote(gate, calls), "w", cap=2)
        client.held = 1  # a slot leased before the restart, in use: the restarted gate knows nothing of it
        await client.acquire()  # this acquisition reaches the gate before the client's first tick
        await client.tick()
        assert gate.in_flight == client.held == 2, "each slot counted once"
        client.release()
        client.release()
        client.give_back()
        await asyncio.sleep(0.01)
        assert gate.in_flight == 0 and client.held == 0, "all slots went back: none left over"

    asyncio.run(scenario())


def test_a_restarted_gate_ignores_the_leases_it_was_created_with() -> None:
    """Ray restarts an actor with its first arguments: the leases then come from the clients' ticks,
    never twice."""

    async def scenario() -> None:
        gate = EndpointGate(4, restarted=True, grace_s=0.0, leases={"a": 2, "b": 2})
        assert gate.in_flight == 0
        await gate.share("a", 2)
        assert gate.in_flight == 2

    asyncio.run(scenario())
    with pytest.raises(ValueError, match="exceed the limit"):
        EndpointGate(2, leases={"a": 2, "b": 1})


def test_a_restarted_gate_keeps_exact_counts_whatever_order_a_worker_s_calls_arrive_in() -> None:
    """After a restart Ray may deliver a worker's calls out of order. A release sent after a tick but
    delivered first registers the worker's lease as it was before that release; the late tick then
    changes nothing; a release older than the registration is not taken off again. Before, the early
    release found nothing to release and the tick then registered the released slot for good."""

    async def scenario() -> list[int]:
        seen = []
        gate = EndpointGate(2, restarted=True, grace_s=0.0)
        await gate.release("w", 1, 1, 1)  # the worker held 2, gave 1 back (1 given back in all)...
        await gate.share("w", 2, 0)  # ...after a tick sent while it held 2 (none given back yet)
        seen.append(gate.in_flight)
        other = EndpointGate(2, restarted=True, grace_s=0.0)
        await other.share("v", 1, 1)  # a tick sent after the release below, delivered first
        await other.release("v", 1, 1, 1)
        seen.append(other.in_flight)
        await gate.release("w", 1, 0, 2)
        seen.append(gate.in_flight)
        return seen

    assert asyncio.run(scenario()) == [1, 1, 0]
