"""SQLite response cache keyed by request fingerprint. Only successful responses are stored.

Writes are buffered and committed in short batches (every ``commit_every`` rows, and at most
``commit_after_s`` after the first row waiting), so no write transaction stays open while a run waits
on a model, and a killed process or a lost node loses at most the last half second of answers.
Each entry remembers the session (one run invocation) that wrote it, and a
session never reads its own entries: a response is ``cached`` only when an earlier invocation got it.
Otherwise a prompt asked twice in one run would be a hit or not depending on when the buffer was
committed (and on a cluster, on which shard ran first), and two runs of one configuration would
write different records. The cache is an optimisation: if the database is busy or broken the run
goes on without it and says so once.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
import time
import uuid
from collections.abc import Iterable
from pathlib import Path

from omnieval.types import Response

__all__ = ["CacheEntry", "ResponseCache", "read_entries"]

COMMIT_AFTER_S = 0.5
"""The longest an answer waits in memory before it is committed (what a kill can lose)."""

CacheEntry = tuple[str, str, str]
"""One stored response as a row: its key, its body (JSON) and the session that wrote it."""


class ResponseCache:
    """A small key → response table."""

    def __init__(
        self,
        path: Path,
        *,
        commit_every: int = 256,
        commit_after_s: float = COMMIT_AFTER_S,
        session: str | None = None,
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.session = session or uuid.uuid4().hex
        """This invocation: every process of one run (a cluster's shards) passes the same one."""
        self._pending: list[tuple[str, str, str]] = []
        self._commit_every = commit_every
        self._commit_after_s = commit_after_s
        self._waiting_since: float | None = None
        """When the oldest row not yet committed was put (``None``: none waits)."""
        self._timer: asyncio.TimerHandle | None = None
        self._db: sqlite3.Connection | None = sqlite3.connect(str(path), timeout=2.0, check_same_thread=False)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, body TEXT NOT NULL, "
                "session TEXT NOT NULL DEFAULT '')"
            )
            self._add_session_column(self._db)
            self._db.commit()
        except sqlite3.Error as exc:
            self._disable(exc)

    @staticmethod
    def _add_session_column(db: sqlite3.Connection) -> None:
        """A cache written before sessions: its entries count as an earlier session's."""
        columns = {row[1] for row in db.execute("PRAGMA table_info(responses)")}
        if "session" not in columns:
            try:
                db.execute("ALTER TABLE responses ADD COLUMN session TEXT NOT NULL DEFAULT ''")
            except sqlite3.OperationalError as exc:  # another process of the run added it first
                if "duplicate column" not in str(exc):
                    raise

    def _disable(self, exc: sqlite3.Error) -> None:
        print(f"omnieval: warning: response cache {self.path} disabled ({exc})", file=sys.stderr)
        self._db = None

    def get(self, key: str) -> Response | None:
        if self._db is None:
            return None
        try:
            row = self._db.execute(
                "SELECT body FROM responses WHERE key = ? AND session != ?", (key, self.session)
            ).fetchone()
        except sqlite3.Error as exc:
            self._disable(exc)
            return None
        if row is None:
            return None
        return Response.model_validate(json.loads(row[0])).model_copy(update={"cached": True})

    def put(self, key: str, response: Response) -> None:
        if response.error is not None or self._db is None:
            return
        self._pending.append((key, response.model_dump_json(exclude={"cached"}), self.session))
        now = time.monotonic()
        if self._waiting_since is None:
            self._waiting_since = now
        if len(self._pending) >= self._commit_every or now - self._waiting_since >= self._commit_after_s:
            self.flush()
        elif self._timer is None:
            self._commit_later()

    def _commit_later(self) -> None:
        """Commit the rows waiting once ``commit_after_s`` has passed, even if no other answer comes (on
        the running event loop; without one, the next ``put`` or ``close`` commits)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timer = loop.call_later(self._commit_after_s, self.flush)

    def flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._waiting_since = None
        if self._db is None or not self._pending:
            return
        try:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO responses (key, body, session) VALUES (?, ?, ?)", self._pending
                )
        except sqlite3.Error as exc:
            self._disable(exc)
        self._pending.clear()

    def add(self, entries: Iterable[CacheEntry]) -> None:
        """Entries another process wrote, each kept with its own session (a cluster's workers off the
        driver's node send theirs to the driver's cache, and get the driver's to start from)."""
        self._pending.extend(entries)
        self.flush()

    def close(self) -> None:
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None


def read_entries(path: Path, *, session: str | None = None, after: int = 0) -> tuple[list[CacheEntry], int]:
    """The entries stored after row ``after`` (only ``session``'s when given) and the last row read, so the
    next call gets only newer ones; none for a missing or unreadable file (the cache is an optimisation)."""
    if not path.exists():
        return [], after
    where, args = ("rowid > ? AND session = ?", (after, session)) if session else ("rowid > ?", (after,))
    try:
        db = sqlite3.connect(str(path), timeout=2.0)
        try:
            rows = db.execute(
                f"SELECT rowid, key, body, session FROM responses WHERE {where} ORDER BY rowid", args
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return [], after
    last = rows[-1][0] if rows else after
    return [(key, body, who) for _, key, body, who in rows], last
