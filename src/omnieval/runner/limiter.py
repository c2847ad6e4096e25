"""A concurrency limit that halves on HTTP 429 and creeps back up on success."""

from __future__ import annotations

import asyncio

__all__ = ["AdaptiveLimiter"]


class AdaptiveLimiter:
    """At most ``limit`` holders at once; ``limit`` adapts between 1 and ``maximum``."""

    def __init__(self, maximum: int) -> None:
        self.maximum = max(1, maximum)
        self.limit = self.maximum
        self._in_flight = 0
        self._successes = 0
        self._cond = asyncio.Condition()

    async def __aenter__(self) -> AdaptiveLimiter:
        async with self._cond:
            while self._in_flight >= self.limit:
                await self._cond.wait()
            self._in_flight += 1
        return self

    async def __aexit__(self, *exc: object) -> None:
        async with self._cond:
            self._in_flight -= 1
            self._cond.notify()

    def rate_limited(self) -> None:
        """A 429: halve the limit."""
        self.limit = max(1, self.limit // 2)
        self._successes = 0

    def succeeded(self) -> None:
        """After ``limit`` successes in a row, allow one more request in flight."""
        if self.limit >= self.maximum:
            return
        self._successes += 1
        if self._successes >= self.limit:
            self.limit += 1
            self._successes = 0
