"""The database job queue: leases, reclaim after a crash, never scored twice; kill -9 of a live server."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.platform.conftest import add_mera, create, make_settings, submission_zip


def _queued_submission(settings: Any, root: Path) -> tuple[Any, int]:
    import io

    from omnieval.platform.services.submissions import accept_upload
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import User

    add_mera(settings, root)
    create(settings, "alice", "user")
    db = Database(settings)
    with db.session() as session:
        user = session.query(User).filter_by(username="alice").one()
        row = accept_upload(
            session,
            settings,
            user,
            benchmark="mera",
            stream=io.BytesIO(submission_zip(root, right={"ruclevr": 6})),
            model="m",
        )
        return db, row.id


def _submission(db: Any, sub_id: int) -> Any:
    from omnieval.platform.storage.models import Submission

    with db.session() as session:
        return session.get(Submission, sub_id)


def test_stale_worker_cannot_commit_after_its_lease_was_reclaimed(tmp_path: Path, mera_root: Path) -> None:
    stale_worker_check(make_settings(tmp_path / "data"), mera_root)


def stale_worker_check(settings: Any, mera_root: Path) -> None:
    """Two claimants of one job: only the live lease commits, once (any database ``settings`` name)."""
    from omnieval.platform.services.jobs import _finish, claim_next

    db, sub_id = _queued_submission(settings, mera_root)
    first = claim_next(db, lease_s=-1.0)  # a worker that then hangs: its lease is already over
    assert first is not None and _submission(db, sub_id).status == "scoring"
    second = claim_next(db, lease_s=60.0)
    assert second is not None and second[0] == first[0] and second[1] != first[1]
    assert claim_next(db, lease_s=60.0) is None  # a live lease is never taken
    assert _finish(db, *first, results={"tasks": {}}, error=None) is False
    assert _finish(db, *second, results={"tasks": {"x": {}}}, error=None) is True
    assert _finish(db, *second, results={"tasks": {}}, error=None) is False  # done: a replay changes nothing
    row = _submission(db, sub_id)
    assert row.status == "scored" and row.times_scored == 1 and row.results == {"tasks": {"x": {}}}


def test_a_broken_archive_fails_its_job_only(tmp_path: Path, mera_root: Path) -> None:
    from omnieval.platform.services.jobs import run_one

    settings = make_settings(tmp_path / "data")
    db, sub_id = _queued_submission(settings, mera_root)
    Path(_submission(db, sub_id).upload).write_bytes(b"not a zip any more")
    assert run_one(db, settings) is True and run_one(db, settings) is False
    row = _submission(db, sub_id)
    assert row.status == "failed" and row.results is None and "scoring failed" in (row.error or "")


SERVER = """
import sys, uvicorn
from pathlib import Path
from omnieval.platform import Settings
from omnieval.platform.app import create_app
settings = Settings(data_dir=Path(sys.argv[1]), lease_s=2.0, poll_s=0.05, hold_s=float(sys.argv[3]))
uvicorn.run(create_app(settings), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(data_dir: Path, *, hold_s: float) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    return subprocess.Popen(
        [sys.executable, "-c", SERVER, str(data_dir), str(_free_port()), str(hold_s)], env=env
    )


def _wait(db: Any, sub_id: int, status: str, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row = _submission(db, sub_id)
        if row.status == status:
            return row
        time.sleep(0.05)
    raise AssertionError(f"submission {sub_id} never reached {status!r}")


@pytest.mark.slow
def test_kill_9_during_scoring_then_restart_scores_exactly_once(tmp_path: Path, mera_root: Path) -> None:
    settings = make_settings(tmp_path / "data")
    db, sub_id = _queued_submission(settings, mera_root)
    server = _serve(settings.data_dir, hold_s=60.0)  # scoring holds the claim: the kill lands mid-job
    try:
        _wait(db, sub_id, "scoring", timeout=30)
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
        assert _submission(db, sub_id).times_scored == 0
        server = _serve(settings.data_dir, hold_s=0.0)
        row = _wait(db, sub_id, "scored", timeout=30)
        time.sleep(0.5)  # a second (wrong) scoring would land now
        row = _submission(db, sub_id)
        assert row.times_scored == 1 and row.results["tasks"]["ruclevr"]["score"] == 1.0
        from omnieval.platform.storage.models import Job

        with db.session() as session:
            job = session.query(Job).filter_by(submission_id=sub_id).one()
            assert job.state == "done" and job.attempts == 2
    finally:
        server.kill()
        server.wait(timeout=10)
