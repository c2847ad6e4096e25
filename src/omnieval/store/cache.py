"""SQLite response cache keyed by request fingerprint. Only successful responses are stored.

Writes are buffered and committed in short batches, so no write transaction stays open while a
run waits on a model. The cache is an optimisation: if the database is busy or broken the run
goes on without it and says so once.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from omnieval.types import Response

__all__ = ["ResponseCache"]


class ResponseCache:
    """A small key → response table."""

    def __init__(self, path: Path, *, commit_every: int = 256) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._pending: list[tuple[str, str]] = []
        self._commit_every = commit_every
        self._db: sqlite3.Connection | None = sqlite3.connect(str(path), timeout=2.0, check_same_thread=False)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, body TEXT NOT NULL)")
            self._db.commit()
        except sqlite3.Error as exc:
            self._disable(exc)

    def _disable(self, exc: sqlite3.Error) -> None:
        print(f"omnieval: warning: response cache {self.path} disabled ({exc})", file=sys.stderr)
        self._db = None

    def get(self, key: str) -> Response | None:
        if self._db is None:
            return None
        try:
            row = self._db.execute("SELECT body FROM responses WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            self._disable(exc)
            return None
        if row is None:
            return None
        return Response.model_validate(json.loads(row[0])).model_copy(update={"cached": True})

    def put(self, key: str, response: Response) -> None:
        if response.error is not None or self._db is None:
            return
        self._pending.append((key, response.model_dump_json(exclude={"cached"})))
        if len(self._pending) >= self._commit_every:
            self.flush()

    def flush(self) -> None:
        if self._db is None or not self._pending:
            return
        try:
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO responses (key, body) VALUES (?, ?)", self._pending)
        except sqlite3.Error as exc:
            self._disable(exc)
        self._pending.clear()

    def close(self) -> None:
        self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None
