"""Small coordination actors: the per-endpoint concurrency gate and the progress board.

Plain classes here; :mod:`omnieval.executors.ray_executor` turns them into Ray actors, so this module
imports without Ray.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

__all__ = ["EndpointGate", "ProgressBoard"]


class EndpointGate:
    """At most ``limit`` requests in flight to one endpoint, whichever worker sends them.

    Slots are counted per owner (a worker), so the driver can hand back the slots of a worker that
    died holding them (:meth:`forget`); a dead owner's late acquisitions are returned at once.
    Workers lease several slots per call (see ``_GateClient`` in the worker), so the gate costs one
    actor call per lease, not per request; ``peak`` counts leased slots, an upper bound of requests.
    """

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self._free = asyncio.Semaphore(self.limit)
        self._held: Counter[str] = Counter()
        self._dead: set[str] = set()
        self.in_flight = 0
        self.peak = 0
        self.granted = 0

    async def acquire(self, owner: str, most: int = 1) -> int:
        """Wait for one slot, then take up to ``most`` in all if free (a worker's lease); the count."""
        await self._free.acquire()
        taken = 1
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

    async def release(self, owner: str, count: int = 1) -> None:
        """Async on purpose: Ray runs an async actor's plain methods off its event loop, where waking a
        semaphore's waiters is not safe (they would sleep until something else stirs the loop)."""
        count = min(count, self._held[owner])
        self._held[owner] -= count
        self.in_flight -= count
        for _ in range(count):
            self._free.release()

    async def forget(self, owner: str) -> int:
        """A worker is gone: free every slot it held."""
        self._dead.add(owner)
        held = self._held.pop(owner, 0)
        for _ in range(held):
            self.in_flight -= 1
            self._free.release()
        return held

    async def stats(self) -> dict[str, int]:
        return {"limit": self.limit, "in_flight": self.in_flight, "peak": self.peak, "granted": self.granted}


class ProgressBoard:
    """Latest counts per shard, pushed by workers and read by the driver's progress display."""

    def __init__(self) -> None:
        self._shards: dict[str, dict[str, Any]] = {}

    def report(self, key: str, counts: dict[str, Any]) -> None:
        self._shards[key] = counts

    def snapshot(self) -> dict[str, dict[str, Any]]:
        return dict(self._shards)
