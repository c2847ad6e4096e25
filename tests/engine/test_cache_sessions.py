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


def test_entries_move_between_caches_with_their_sessions(tmp_path: Path) -> None:
    """What a cluster's worker off the driver's node does: it reads its run's new entries (from a row on)
    and the driver adds them to its own cache, keeping who wrote them, so a later run hits them."""
    from omnieval.store import read_entries

    worker = ResponseCache(tmp_path / "worker.sqlite", commit_every=1, session="run-1")
    worker.add([("seeded", Response.from_text("0").model_dump_json(), "run-0")])  # the driver's, earlier
    worker.put("a", Response.from_text("1"))
    rows, last = read_entries(worker.path, session="run-1")
    assert [r[0] for r in rows] == ["a"] and rows[0][2] == "run-1", "only this run's entries"
    worker.put("b", Response.from_text("2"))
    newer, last = read_entries(worker.path, session="run-1", after=last)
    assert [r[0] for r in newer] == ["b"], "from the last row read on"
    assert read_entries(worker.path, session="run-1", after=last) == ([], last)
    assert read_entries(tmp_path / "missing.sqlite") == ([], 0)
    driver = ResponseCache(tmp_path / "driver.sqlite", session="run-1")
    driver.add(rows + newer)
    assert driver.get("a") is None, "the run's own entries are no hits for the run itself"
    driver.close()
    worker.close()
    later = ResponseCache(tmp_path / "driver.sqlite", session="run-2")
    hits = [later.get(k) for k in ("a", "b")]
    assert [h.text if h else None for h in hits] == ["1", "2"]
    later.close()
