"""State shared by server processes through the database: rate limits and boards.

Two ``create_app`` over one data dir (or one PostgreSQL database) stand for two server processes; the
last test starts ``omnieval serve --workers 2`` for real. ``test_postgres.py`` reruns the checks below
on PostgreSQL.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.platform.conftest import make_settings, register, submission_zip, token, upload, wait_status

ROOT = Path(__file__).resolve().parents[2]
WRONG = {"username": "admin", "password": "wrong-guess"}


@contextlib.contextmanager
def two_apps(settings: Any, **overrides: Any) -> Iterator[tuple[Any, Any]]:
    """Two apps on the same database, as two server processes would be (scoring worker in the first only)."""
    from dataclasses import replace

    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    first, second = replace(settings, **overrides), replace(settings, **{**overrides, "worker": False})
    with TestClient(create_app(first)) as a, TestClient(create_app(second)) as b:
        yield a, b


def shared_login_limit_check(settings: Any) -> None:
    """4 attempts in total across both apps (API and pages share the key); the 5th is refused on either."""
    with two_apps(settings, login_limit=(4, 60.0)) as (a, b):
        statuses = [client.post("/api/v1/auth/token", json=WRONG).status_code for client in (a, b, a, b)]
        assert statuses == [401] * 4
        for client in (a, b):
            r = client.post("/api/v1/auth/token", json={"username": "admin", "password": "password-admin"})
            assert (
                r.status_code == 429
                and r.json()["detail"] == "too many login attempts; wait a minute and try again"
            )
        page = b.post("/login", data={**WRONG, "csrf": _csrf(b)})  # the page form: same key, same refusal
        assert page.status_code == 429 and "too many login attempts; wait a minute" in page.text
        other = a.post("/api/v1/auth/token", json={"username": "reviewer", "password": "password-reviewer"})
        assert other.status_code == 200  # another username is another key


def _csrf(client: Any) -> str:
    import re

    match = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)
    assert match, "login form without a CSRF field"
    return match.group(1)


def concurrent_limit_check(settings: Any) -> None:
    """40 simultaneous attempts on one key through two database handles (two processes): exactly 10 pass."""
    from omnieval.platform.services.ratelimit import RateLimiter
    from omnieval.platform.storage.db import Database

    dbs = [Database(settings), Database(settings)]
    limiters = [RateLimiter(db, kind="login", limit=10, window_s=60.0) for db in dbs]
    try:
        with ThreadPoolExecutor(8) as pool:
            allowed = list(pool.map(lambda i: limiters[i % 2].allow("alice|10.0.0.1"), range(40)))
        assert allowed.count(True) == 10
        assert not limiters[0].allow("alice|10.0.0.1") and not limiters[1].allow("alice|10.0.0.1")
        assert limiters[1].allow("bob|10.0.0.1")
    finally:
        for db in dbs:
            db.dispose()


def board_visible_everywhere_check(settings: Any, mera_root: Path) -> None:
    """Publish and review through one app; the other's board follows at once, model information included."""
    with two_apps(settings) as (a, b):
        alice, reviewer = register(a, "alice"), token(a, "reviewer")
        sub_id = upload(
            a, alice, submission_zip(mera_root, right={"ruclevr": 6}), model="alice-model"
        ).json()["id"]
        wait_status(a, alice, sub_id)
        assert (
            b.get("/api/v1/boards/mera/multi").json()["rows"] == []
        )  # b's board is computed (and cached) empty

        def publish_and_approve(parameters: str) -> None:
            body = {"boards": ["multi"], "model_info": {"parameters": parameters}}
            assert (
                a.post(f"/api/v1/submissions/{sub_id}/publish", headers=alice, json=body).status_code == 202
            )
            assert b.get("/api/v1/boards/mera/multi").json()["rows"] == []  # requested: off the board again
            review = {"decision": "approve", "comment": "ok"}
            assert a.post(f"/api/v1/reviews/{sub_id}", headers=reviewer, json=review).status_code == 200

        publish_and_approve("7B")
        rows = b.get("/api/v1/boards/mera/multi").json()["rows"]
        assert [(r["model"], r["model_info"]) for r in rows] == [("alice-model", {"parameters": "7B"})]
        assert "alice-model" in b.get("/boards/mera/multi").text
        publish_and_approve("8B")  # the same approved set as before, with new model information
        rows = b.get("/api/v1/boards/mera/multi").json()["rows"]
        assert [r["model_info"] for r in rows] == [{"parameters": "8B"}]


def test_two_apps_share_the_login_limit(data_dir: Path) -> None:
    shared_login_limit_check(make_settings(data_dir))


def test_two_apps_share_the_upload_limit(data_dir: Path, mera_root: Path) -> None:
    with two_apps(make_settings(data_dir), upload_limit=(2, 60.0), worker=False) as (a, b):
        alice = register(a, "alice")
        data = submission_zip(mera_root, right={"ruclevr": 1})
        assert [upload(client, alice, data).status_code for client in (a, b, a, b)] == [202, 202, 429, 429]


def test_concurrent_attempts_never_exceed_the_limit(data_dir: Path) -> None:
    concurrent_limit_check(make_settings(data_dir))


def test_window_slides_and_old_rows_are_pruned(data_dir: Path) -> None:
    from sqlalchemy import func, select

    from omnieval.platform.services.ratelimit import RateLimiter
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import RateLimitHits

    db = Database(make_settings(data_dir))
    now = [1_000.0]  # a fake wall clock: a loaded machine cannot stretch the window under the test
    try:
        limiter = RateLimiter(db, kind="upload", limit=2, window_s=0.5, clock=lambda: now[0])
        assert [limiter.allow("1") for _ in range(3)] == [True, True, False]
        now[0] += 0.4  # still inside the window
        assert limiter.allow("1") is False
        now[0] += 0.2  # both hits have left the window; the refused attempts never counted
        assert [limiter.allow("2"), limiter.allow("1"), limiter.allow("1"), limiter.allow("1")] == [
            True,
            True,
            True,
            False,
        ]
        now[0] += 0.6
        limiter.allow("3")  # a prune is due: keys 1 and 2 hold no hit in their window any more
        with db.session() as session:
            assert session.scalar(select(func.count()).select_from(RateLimitHits)) == 1
            stored = session.scalars(select(RateLimitHits.key)).all()
        assert stored == [hashlib.sha256(b"upload\x003").hexdigest()]  # kind and key hashed, never in clear
    finally:
        db.dispose()


def test_board_published_on_one_app_is_visible_on_the_other(data_dir: Path, mera_root: Path) -> None:
    board_visible_everywhere_check(make_settings(data_dir), mera_root)


def test_unsupported_database_is_a_clear_error(tmp_path: Path) -> None:
    import pytest

    from omnieval.errors import ConfigError
    from omnieval.platform.services.ratelimit import RateLimiter
    from omnieval.platform.storage.db import Database

    db = Database(make_settings(tmp_path / "data"))
    db.engine.dialect.name = "mysql"  # a dialect without the upsert the limiter relies on
    with pytest.raises(ConfigError, match="rate limits need SQLite or PostgreSQL, not 'mysql'"):
        RateLimiter(db, kind="login", limit=1, window_s=1.0)
    db.dispose()


def test_migrations_match_the_models(tmp_path: Path) -> None:
    """The Alembic head creates exactly the tables and columns the models declare."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import Base

    db = Database(make_settings(tmp_path / "data"))
    with db.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    db.dispose()
    assert diff == []


def test_the_models_alone_keep_usernames_unique_ignoring_case(tmp_path: Path) -> None:
    """``create_all`` (without the migrations) builds the same case-insensitive index as migration 0005:
    Alembic's comparison cannot see expression indexes, so this checks the behaviour on both."""
    import sqlalchemy as sa

    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import Base, User

    def second_alice_refused(engine: sa.Engine) -> bool:
        with engine.begin() as conn:
            conn.execute(sa.insert(User).values(username="Alice", password_hash="x", role="user"))
        try:
            with engine.begin() as conn:
                conn.execute(sa.insert(User).values(username="alice", password_hash="x", role="user"))
        except sa.exc.IntegrityError:
            return True
        return False

    engine = sa.create_engine(f"sqlite:///{tmp_path / 'models.db'}")
    Base.metadata.create_all(engine)
    assert second_alice_refused(engine), "the models' own index"
    engine.dispose()
    db = Database(make_settings(tmp_path / "data"))
    assert second_alice_refused(db.engine), "the migrated schema"
    db.dispose()


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _spawned_workers(parent: int) -> int:
    """Live processes started by ``parent`` through multiprocessing's spawn (uvicorn's workers)."""
    n = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if ppid == parent and b"spawn_main" in (stat.parent / "cmdline").read_bytes():
                n += 1
    return n


def test_serve_with_two_workers_shares_the_login_limit(data_dir: Path) -> None:
    """``omnieval serve --workers 2``: 11 simultaneous wrong logins on fresh connections, 10 refused with 401
    and exactly one 429 (per-process limits would let all 11 through)."""
    import httpx

    port = _port()
    cmd = [
        sys.executable,
        "-m",
        "omnieval",
        "serve",
        "--data-dir",
        str(data_dir),
        "--port",
        str(port),
        "--workers",
        "2",
    ]
    proc = subprocess.Popen(
        cmd,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while _spawned_workers(proc.pid) < 2 or not _answers(base):
            assert proc.poll() is None and time.monotonic() < deadline, (
                proc.stderr.read().decode() if proc.stderr else ""
            )
            time.sleep(0.2)

        def attempt(_: int) -> int:
            with httpx.Client(
                timeout=30
            ) as client:  # a new connection each time: either worker may accept it
                return client.post(f"{base}/api/v1/auth/token", json=WRONG).status_code

        with ThreadPoolExecutor(11) as pool:
            statuses = sorted(pool.map(attempt, range(11)))
        assert statuses == [401] * 10 + [429]
        assert _spawned_workers(proc.pid) == 2
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _answers(base: str) -> bool:
    import httpx

    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"{base}/api/v1/benchmarks", timeout=1).status_code == 200
    return False
