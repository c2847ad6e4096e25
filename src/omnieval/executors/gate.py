"""One concurrency limit per endpoint across every worker: the gate actor and each worker's client.

The gate (:class:`EndpointGate`, a Ray actor) leases out at most ``limit`` slots in all. A worker's
client (:class:`GateClient`) keeps the slots it leased and reuses them request after request, so a
worker that is busy costs no actor call per request: it talks to the gate only to grow its pool, to
give back slots it has not used for a while, and once per tick to learn its fair share (the limit
over the workers that want slots). A busy worker above its share gives slots back as its requests
finish, so a newcomer gets its share within about one tick. With fewer slots than workers (a share
below one), a holder learns at its tick that another worker waits with none and then hands each slot
back as its request finishes, so the slots rotate among the workers instead of staying with their
first holders until their shards end. The sum of all pools never exceeds the
limit, so the server never sees more than ``--concurrency`` requests at once.

Plain classes: :mod:`omnieval.executors.ray_port` turns the gate into an actor, so this module
imports without Ray.
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections import Counter, deque
from typing import Any

__all__ = ["EndpointGate", "GateClient"]

REREGISTER_GRACE_S = 1.5
"""How long a restarted gate waits for its clients' ticks (every half second) to report their leases."""


class EndpointGate:
    """At most ``limit`` slots leased out at once, counted per owner (a worker).

    The driver hands back the slots of a worker that died holding them (:meth:`forget`); a dead
    owner's late acquisitions are returned at once. ``peak`` counts leased slots: an upper bound of
    the requests in flight.
    """

    def __init__(
        self,
        limit: int,
        *,
        restarted: bool | None = None,
        grace_s: float = REREGISTER_GRACE_S,
        leases: dict[str, int] | None = None,
    ) -> None:
        self.limit = max(1, limit)
        self.restarted = _reconstructed() if restarted is None else restarted
        """Ray restarted this actor (its node left): owners' leases are re-registered at their next tick."""
        # slots held by owners from the start (a worker that started before the gate, a run's reservation);
        # a restarted gate learns the live leases from its clients instead (counting these again would
        # lose slots)
        granted = {o: n for o, n in (leases or {}).items() if n > 0} if not self.restarted else {}
        if sum(granted.values()) > self.limit:
            raise ValueError(f"leases {granted} exceed the limit {self.limit}")
        self._free = asyncio.Semaphore(self.limit - sum(granted.values()))
        self._held: Counter[str] = Counter(granted)
        self._waiting: Counter[str] = Counter()
        self._dead: set[str] = set()
        self.in_flight = self.peak = self.granted = sum(granted.values())
        self._registered: set[str] = set()
        self._grace_until = time.monotonic() + grace_s if self.restarted else 0.0
        """A restarted gate grants nothing before its clients could re-register their leases."""
        self._debt = 0
        """Re-registered slots above what was free: released slots pay this back before anyone gets them."""
        self._returned: dict[str, int] = {}
        """A restarted gate: per owner, the slots it had given back in all when it registered."""

    def _wanting(self, owner: str) -> set[str]:
        return (
            {o for o, n in self._held.items() if n > 0}
            | {o for o, n in self._waiting.items() if n > 0}
            | {owner}
        )

    def _share(self, owner: str) -> int:
        return max(1, math.ceil(self.limit / len(self._wanting(owner))))

    async def share(self, owner: str, held: int = 0, returned: int = 0) -> int:
        """The fair pool size for ``owner``: the limit over the workers holding or waiting for slots.

        0 means one slot, handed back after each request: fewer slots than workers want them, and
        another worker waits holding none, so the slots must rotate rather than stay with their holders.
        ``held`` is what the owner holds by its own count (``returned``: all it ever gave back, when it
        counted): a restarted gate takes it as a live lease."""
        await self._register(owner, held, returned)
        starving = any(n > 0 and not self._held[o] for o, n in self._waiting.items() if o != owner)
        if starving and self._held[owner] > 0 and self.limit < len(self._wanting(owner)):
            return (
                0  # (with enough slots for all, holders above their share give back instead: see GateClient)
            )
        return self._share(owner)

    async def acquire(self, owner: str, most: int = 1, held: int = 0, returned: int = 0) -> int:
        """Wait for one slot, then take more that are free, up to ``most`` and the owner's share. ``held``,
        ``returned``: the owner's own counts when it asks (a restarted gate registers them first)."""
        await self._register(owner, held, returned)
        self._waiting[owner] += 1
        try:
            if (wait := self._grace_until - time.monotonic()) > 0:
                await asyncio.sleep(wait)
            await self._free.acquire()
        finally:
            self._waiting[owner] -= 1
        taken = 1
        most = min(most, self._share(owner) - self._held[owner])
        while taken < most and not self._free.locked():
            await self._free.acquire()  # free: returns at once
            taken += 1
        if owner in self._dead:
            for _ in range(taken):
                self._free.release()
            return 0
        self._held[owner] += taken
        self.in_flight += taken
        self.granted += taken
        self.peak = max(self.peak, self.in_flight)
        return taken

    async def _register(self, owner: str, held: int, returned: int) -> None:
        """On a restarted gate, an owner's first call (a tick, an acquisition or a release, whichever comes
        first: Ray may deliver them out of order after a restart) registers what it holds, and how many
        slots it had given back by then (``returned``), so that an older release arriving later is not
        taken off again. Registering at each kind of call keeps the count exact: before, only the tick
        registered, and a slot granted before it was counted twice, or one released before it not at all
        (slots nobody would ever release: with every slot so counted the workers waited for ever)."""
        if self.restarted and owner not in self._registered:
            self._registered.add(owner)
            self._returned[owner] = returned
            await self._reregister(owner, held)

    async def _reregister(self, owner: str, held: int) -> None:
        """Count a lease made before the restart: free slots are taken for it, the rest becomes debt."""
        if held <= 0 or owner in self._dead:
            return
        self._held[owner] += held
        self.in_flight += held
        self.peak = max(self.peak, self.in_flight)
        for _ in range(held):
            if self._free.locked():
                self._debt += 1
            else:
                await self._free.acquire()  # free: returns at once

    async def release(self, owner: str, count: int = 1, held: int = 0, returned: int | None = None) -> None:
        """``count`` slots back; ``held``, ``returned``: the owner's counts after this release (``None``: not
        counted; a restarted gate then trusts it as is). Async on purpose: Ray runs an async actor's plain
        methods off its event loop, where waking a semaphore's waiters is not safe (they would sleep until
        something else stirs the loop)."""
        if returned is not None:
            await self._register(owner, held + count, returned - count)  # the lease before this release
            if self.restarted and returned <= self._returned.get(owner, -1):
                return  # sent before the owner's registration, which already left it out
        count = min(count, self._held[owner])
        self._held[owner] -= count
        self.in_flight -= count
        self._give(count)

    def _give(self, count: int) -> None:
        paid = min(count, self._debt)
        self._debt -= paid
        for _ in range(count - paid):
            self._free.release()

    async def forget(self, owner: str) -> int:
        """A worker is gone: free every slot it held."""
        self._dead.add(owner)
        held = self._held.pop(owner, 0)
        self.in_flight -= held
        self._give(held)
        return held

    async def stats(self) -> dict[str, Any]:
        """The limit, the slots in flight, the most at once and in all, and the node the gate runs on."""
        from omnieval.executors.actors import node_id

        return {
            "limit": self.limit,
            "in_flight": self.in_flight,
            "peak": self.peak,
            "granted": self.granted,
            "node": node_id(),
        }


def _reconstructed() -> bool:
    """Whether Ray restarted the current actor (False outside an actor or without Ray)."""
    ray = sys.modules.get("ray")
    if ray is None or not ray.is_initialized():  # asking would start a local Ray (its auto-init hook)
        return False
    try:
        return bool(ray.get_runtime_context().was_current_actor_reconstructed)
    except Exception:
        return False


class GateClient:
    """A worker's pool of leased slots, seen by its backend as ``acquire()`` / ``release()``.

    ``handle`` is the gate actor's handle (or any object whose methods have an awaitable ``.remote``);
    ``None`` for a worker without a gate (a lone worker, or one whose gate comes later through
    :meth:`attach`), which works with the ``lease`` it holds: it neither asks for more nor gives any
    back.
    Call :meth:`tick` about every half second and :meth:`give_back` when a shard ends.
    """

    def __init__(self, handle: Any, owner: str, *, cap: int, lease: int = 0) -> None:
        self.handle, self.owner = handle, owner
        self.cap = max(1, cap)
        self.rotate = False
        """Another worker waits with no slot while the limit is below the workers: each slot goes back
        to the gate as its request finishes (the gate hands it to the longest waiting worker)."""
        self.held = lease
        """Slots leased from the gate: in use plus ``free``."""
        self.returned = 0
        """Slots given back to the gate in all (a restarted gate tells late releases from new ones)."""
        self.free = lease
        self._low_water = 0
        """The fewest free slots since the last tick: slots nobody used for a whole tick go back."""
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._fetching: asyncio.Future[None] | None = None

    def grant(self, count: int) -> None:
        """Slots the gate was created holding for this client: its own from now on."""
        self.held += count
        self.free += count
        self._handout()

    def attach(self, handle: Any) -> None:
        """The gate is up: from now on the pool grows, shrinks and rotates through it."""
        self.handle = handle
        self._fetch_if_short()

    async def acquire(self) -> None:
        if self.free and not self._waiters:
            self._take()
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self._handout()
        self._fetch_if_short()
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # handed a slot just as it was cancelled
                self.release()
            raise

    def release(self) -> None:
        self.free += 1
        if self.rotate:  # others wait with nothing: the slot goes back; our next request queues behind them
            self._return(self.free)
        elif self.held > self.cap:  # above our share: the slot goes back to the gate at once
            self._return(min(self.free, self.held - self.cap))
        self._handout()
        self._fetch_if_short()

    async def tick(self) -> None:
        """Learn the fair share; give back what is above it and what sat unused since the last tick."""
        if await self.reshare():
            self._return(min(self.free, max(self.held - self.cap, self._low_water)))
            self._low_water = self.free
            self._fetch_if_short()

    async def reshare(self) -> bool:
        """Learn the fair share now and lease up to it (another worker went idle: without this, a busy
        worker stays at its old share until its next tick, and the endpoint at part of its limit);
        ``False`` without a gate."""
        if self.handle is None:
            return False
        share = int(await self.handle.share.remote(self.owner, self.held, self.returned))
        self.cap, self.rotate = max(1, share), share == 0
        self._fetch_if_short()
        return True

    def give_back(self) -> None:
        """Every free slot back to the gate (a shard ended: an idle worker never sits on slots)."""
        self._return(self.free)

    def _take(self) -> None:
        self.free -= 1
        self._low_water = min(self._low_water, self.free)

    def _handout(self) -> None:
        while self.free and self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():  # a cancelled waiter is skipped
                self._take()
                waiter.set_result(None)

    def _return(self, count: int) -> None:
        if count > 0 and self.handle is not None:  # before the gate is up, the granted lease is kept
            self.free -= count
            self.held -= count
            self.returned += count
            self._low_water = min(self._low_water, self.free)
            self.handle.release.remote(self.owner, count, self.held, self.returned)

    def _fetch_if_short(self) -> None:
        if (
            self.handle is not None
            and any(not w.done() for w in self._waiters)
            and self.held < self.cap
            and (self._fetching is None or self._fetching.done())
        ):
            self._fetching = asyncio.ensure_future(self._fetch())

    def _fail_waiters(self, exc: BaseException) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_exception(RuntimeError(f"the endpoint's concurrency gate failed: {exc}"))

    async def _fetch(self) -> None:
        """Lease slots for the waiters, one gate call at a time, up to the share."""
        while any(not w.done() for w in self._waiters) and self.held < self.cap:
            try:
                got = int(
                    await self.handle.acquire.remote(
                        self.owner, self.cap - self.held, self.held, self.returned
                    )
                )
            except Exception as exc:  # the gate is gone: the waiting requests fail (counted), none hangs
                self._fail_waiters(exc)
                return
            if got == 0:  # this worker was declared dead: it gets nothing more
                return
            self.held += got
            self.free += got
            self._handout()
