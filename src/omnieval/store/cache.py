"""SQLite response cache keyed by request fingerprint. Only successful responses are stored."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from omnieval.types import Response

__all__ = ["ResponseCache"]


class ResponseCache:
    """A small key → response table; writes are batched and committed every ``commit_every`` puts."""

    def __init__(self, path: Path, *, commit_every: int = 256) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, body TEXT NOT NULL)")
        self._pending = 0
        self._commit_every = commit_every
        self._db.execute("BEGIN")

    def get(self, key: str) -> Response | None:
        row = self._db.execute("SELECT body FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return Response.model_validate(json.loads(row[0])).model_copy(update={"cached": True})

    def put(self, key: str, response: Response) -> None:
        if response.error is not None:
            return
        body = response.model_dump_json(exclude={"cached"})
        self._db.execute("INSERT OR REPLACE INTO responses (key, body) VALUES (?, ?)", (key, body))
        self._pending += 1
        if self._pending >= self._commit_every:
            self.flush()

    def flush(self) -> None:
        self._db.execute("COMMIT")
        self._db.execute("BEGIN")
        self._pending = 0

    def close(self) -> None:
        self._db.execute("COMMIT")
        self._db.close()
