"""The response cache's sessions: an invocation never hits its own entries, a later one does, and a cache
written before sessions existed still serves its entries."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from omnieval.store import ResponseCache
from omnieval.types import Response


def test_a_session_reads_earlier_sessions_only(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    first = ResponseCache(path, commit_every=1, session="run-1")
    first.put("k", Response.from_text("7"))
    assert first.get("k") is None, "asked twice in one run: not a hit, however the writes were committed"
    other_shard = ResponseCache(path, session="run-1")  # another process of the same run
    assert other_shard.get("k") is None
    first.close()
    other_shard.close()
    later = ResponseCache(path, session="run-2")
    hit = later.get("k")
    assert hit is not None and hit.text == "7" and hit.cached
    later.close()


def test_a_cache_from_before_sessions_is_upgraded_and_still_serves(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, body TEXT NOT NULL)")
    db.execute(
        "INSERT INTO responses VALUES (?, ?)",
        ("old", Response.from_text("5").model_dump_json(exclude={"cached"})),
    )
    db.commit()
    db.close()
    cache = ResponseCache(path)
    hit = cache.get("old")
    assert hit is not None and hit.text == "5" and hit.cached
    cache.put("new", Response.from_text("6"))
    cache.close()
    reopened = ResponseCache(path)
    assert reopened.get("new") is not None and reopened.get("new").text == "6"  # type: ignore[union-attr]
    reopened.close()
