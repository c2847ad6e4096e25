"""A sliding-window rate limiter per key (login: username and client; upload: user), in process memory."""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque

__all__ = ["RateLimiter"]


class RateLimiter:
    def __init__(self, limit: int, window_s: float) -> None:
        self.limit, self.window_s = limit, window_s
        self._hits: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        """Record one attempt for ``key``; False when it is over the limit."""
        now = time.monotonic()
        with self._lock:
            hits = self._hits[key]
            while hits and hits[0] <= now - self.window_s:
                hits.popleft()
            if len(hits) >= self.limit:
                return False
            hits.append(now)
            return True
