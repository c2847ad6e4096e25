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
    from omnieval.platform.storage.db import Database

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
    from omnieval.platform.services.jobs import Worker
    from omnieval.platform.storage.db import Database

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
    from omnieval.platform.services import jobs

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


def test_publishing_from_the_page_never_blocks_the_event_loop(platform: Any, mera_root: Path) -> None:
    """While another writer holds SQLite's write lock, a page publish waits for it (``busy_timeout``) in a
    worker thread: the event loop keeps answering other requests meanwhile."""
    import re
    import threading
    import time

    from tests.platform.conftest import register, submission_zip, upload, wait_status

    carol = register(platform, "carol")
    sub_id = upload(platform, carol, submission_zip(mera_root, right={"ruclevr": 2})).json()["id"]
    assert wait_status(platform, carol, sub_id)["status"] == "scored"
    csrf = re.search(r'name="csrf" value="([^"]+)"', platform.get("/login").text).group(1)  # type: ignore[union-attr]
    form = {"username": "carol", "password": "password-carol", "csrf": csrf}
    assert platform.post("/login", data=form, follow_redirects=False).status_code == 303
    csrf = re.search(r'name="csrf" value="([^"]+)"', platform.get("/").text).group(1)  # type: ignore[union-attr]
    lock = sqlite3.connect(platform.settings.data_dir / "platform.db", timeout=0, check_same_thread=False)
    lock.execute("BEGIN IMMEDIATE")
    answers: list[int] = []
    publishing = threading.Thread(
        target=lambda: answers.append(
            platform.post(
                f"/submissions/{sub_id}/publish",
                data={"csrf": csrf, "boards": "image"},
                follow_redirects=False,
            ).status_code
        )
    )
    publishing.start()
    time.sleep(0.5)  # the publish is waiting for the lock
    start = time.monotonic()
    assert platform.get("/api/v1/benchmarks").status_code == 200
    waited = time.monotonic() - start
    held = answers == []
    lock.rollback()
    lock.close()
    publishing.join(timeout=60)
    assert held and waited < 3.0, (held, waited)  # answered while the lock was still held
    assert answers == [303]
    assert platform.get(f"/api/v1/submissions/{sub_id}", headers=carol).json()["publication"] == "requested"
