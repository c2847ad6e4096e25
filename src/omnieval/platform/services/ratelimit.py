"""A sliding-window rate limiter per key (login: username and client; upload: user), kept in the database.

Every server process (``omnieval serve --workers N``, or replicas sharing one PostgreSQL) reads and writes
the same rows, so N attempts are allowed in total, not N per process. One attempt is one transaction that
first takes the key's row lock (an upsert that changes nothing: a row lock on PostgreSQL, the write lock
on SQLite), then reads the recent hits, and records the attempt only when it is allowed (refused attempts
are not counted, as before). Rows whose hits have all left the window are pruned now and then.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from omnieval.errors import ConfigError
from omnieval.platform.storage.db import Database
from omnieval.platform.storage.models import RateLimitHits

__all__ = ["RateLimiter"]

log = logging.getLogger(__name__)
DIALECTS = ("postgresql", "sqlite")
"""Databases with ``INSERT ... ON CONFLICT DO UPDATE`` (the atomic per-key lock the limiter needs)."""


def _lock_row(session: Session, digest: str) -> None:
    """Create the key's row if missing and hold its lock until the transaction ends."""
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        stmt: Any = pg_insert(RateLimitHits)
    else:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        stmt = sqlite_insert(RateLimitHits)
    stmt = stmt.values(key=digest, hits=[], expires_at=0.0)
    table = RateLimitHits.__table__
    session.execute(
        stmt.on_conflict_do_update(index_elements=[table.c.key], set_={"expires_at": table.c.expires_at})
    )


class RateLimiter:
    """At most ``limit`` attempts per key within ``window_s`` seconds, across every process on ``db``."""

    def __init__(
        self, db: Database, *, kind: str, limit: int, window_s: float, clock: Callable[[], float] = time.time
    ) -> None:
        """``clock`` is the wall clock (shared by processes; monotonic clocks are not); tests pass a fake
        one."""
        dialect = db.engine.dialect.name
        if dialect not in DIALECTS:
            raise ConfigError(
                f"the platform's rate limits need SQLite or PostgreSQL, not {dialect!r} ({db.engine.url})"
            )
        self.db, self.kind, self.limit, self.window_s = db, kind, limit, window_s
        self.clock = clock
        self._next_prune = 0.0

    def allow(self, key: str) -> bool:
        """Record one attempt for ``key``; False when it is over the limit."""
        now = self.clock()
        digest = hashlib.sha256(f"{self.kind}\0{key}".encode()).hexdigest()
        with self.db.session() as session:
            _lock_row(session, digest)
            hits = session.scalar(select(RateLimitHits.hits).where(RateLimitHits.key == digest)) or []
            recent = [t for t in hits if t > now - self.window_s]
            allowed = len(recent) < self.limit
            if allowed:
                recent.append(now)
            expires = max(recent, default=now) + self.window_s
            session.execute(
                update(RateLimitHits)
                .where(RateLimitHits.key == digest)
                .values(hits=recent, expires_at=expires)
            )
        self._prune(now)
        return allowed

    def _prune(self, now: float) -> None:
        """Drop rows with no hit left in their window, at most once a window per process (housekeeping
        only)."""
        if now < self._next_prune:
            return
        self._next_prune = now + self.window_s
        try:
            with self.db.session() as session:
                session.execute(delete(RateLimitHits).where(RateLimitHits.expires_at < now))
        except DBAPIError as exc:  # e.g. a deadlock with another pruner: the next prune retries
            log.warning("rate-limit pruning skipped: %s", type(exc).__name__)
