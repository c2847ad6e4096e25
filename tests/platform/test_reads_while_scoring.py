"""Issue 20.12: readers are not slowed by scoring on SQLite (the load ratio itself is measured by
``benchmarks/platform_load.py``; these tests pin the mechanisms it relies on)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import text

from tests.platform.conftest import make_settings
from tests.platform.test_jobs import _queued_submission, _submission


def test_every_pooled_sqlite_connection_has_wal_and_a_busy_timeout(tmp_path: Path) -> None:
    """Connections held at once are distinct pool members: each got the pragmas when it was opened."""
    from omnieval.platform.db import Database

    db = Database(make_settings(tmp_path / "data"))
    with contextlib.ExitStack() as stack:
        conns = [stack.enter_context(db.engine.connect()) for _ in range(6)]
        assert len({id(c.connection.dbapi_connection) for c in conns}) == 6
        for conn in conns:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 30000
            assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
    db.dispose()


def test_the_scoring_child_runs_at_a_lower_priority(tmp_path: Path) -> None:
    from omnieval.platform.db import Database
    from omnieval.platform.jobs import Worker

    settings = make_settings(tmp_path / "data", scoring_process=True, scoring_nice=7)
    db = Database(settings)
    worker = Worker(db, settings)
    pool = worker._scoring_pool()
    assert pool is not None
    try:
        assert pool.submit(os.nice, 0).result(timeout=60) == min(19, os.nice(0) + 7)
    finally:
        pool.shutdown()
        db.dispose()


def test_no_write_lock_is_held_while_the_probe_detector_compares(
    tmp_path: Path, mera_root: Path, monkeypatch: Any
) -> None:
    """The fingerprint comparison (up to 100 earlier answer sets) runs before the commit's write
    transaction: another writer can take SQLite's write lock at once meanwhile."""
    from omnieval.platform import jobs

    settings = make_settings(tmp_path / "data")
    db, sub_id = _queued_submission(settings, mera_root)
    compare = jobs._probe_flag
    seen: list[str] = []

    def probing(*args: Any, **kwargs: Any) -> Any:
        other = sqlite3.connect(tmp_path / "data" / "platform.db", timeout=0)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            seen.append("free")
        except sqlite3.OperationalError as exc:  # "database is locked"
            seen.append(str(exc))
        finally:
            other.close()
        return compare(*args, **kwargs)

    monkeypatch.setattr(jobs, "_probe_flag", probing)
    assert jobs.run_one(db, settings) is True
    assert seen == ["free"]
    assert _submission(db, sub_id).status == "scored"
    db.dispose()
