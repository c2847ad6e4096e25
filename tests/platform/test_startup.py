"""A cold ``omnieval serve``: plugins are loaded before the first request; internal scoring errors retry."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.platform.conftest import create, make_settings, submission_zip

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_socket(port: int, server: subprocess.Popen[bytes], *, timeout: float = 60) -> None:
    """Wait until the port accepts a connection, without sending a request (the first request is the
    test's)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert server.poll() is None, "the server exited"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise AssertionError("the server never listened")


def _tokens(settings: Any, names: list[str]) -> list[str]:
    from omnieval.platform.services.accounts import issue_token
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import User

    db = Database(settings)
    with db.session() as session:
        out = [issue_token(session, session.query(User).filter_by(username=n).one()) for n in names]
    db.dispose()
    return out


def test_cold_server_accepts_and_scores_8_concurrent_uploads(data_dir: Path, mera_root: Path) -> None:
    settings = make_settings(data_dir)
    names = [f"user{i}" for i in range(8)]
    for name in names:
        create(settings, name, "user")
    tokens = _tokens(settings, names)
    data = submission_zip(mera_root, right={"ruclevr": 6, "ruslun": 6})
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "omnieval", "serve", "--data-dir", str(data_dir), "--port", str(port)]
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_socket(port, server)
        base = f"http://127.0.0.1:{port}/api/v1"

        def send(tok: str) -> httpx.Response:
            return httpx.post(
                f"{base}/submissions",
                headers={"Authorization": f"Bearer {tok}"},
                timeout=60,
                data={"benchmark": "mera", "model": "m"},
                files={"file": ("s.zip", data)},
            )

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(send, tokens))
        assert [r.status_code for r in answers] == [202] * 8, [r.text for r in answers]
        deadline = time.monotonic() + 60
        statuses: list[str] = []
        while time.monotonic() < deadline:
            statuses = [
                httpx.get(
                    f"{base}/submissions/{r.json()['id']}", headers={"Authorization": f"Bearer {t}"}
                ).json()["status"]
                for r, t in zip(answers, tokens, strict=True)
            ]
            if all(s in ("scored", "failed") for s in statuses):
                break
            time.sleep(0.1)
        assert statuses == ["scored"] * 8
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_an_internal_error_is_retried_not_failed_for_good(
    tmp_path: Path, mera_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omnieval.errors import RegistryError
    from omnieval.platform.services import scoring
    from omnieval.platform.services.jobs import run_one
    from tests.platform.test_jobs import _queued_submission, _submission

    settings = make_settings(tmp_path / "data", retry_s=0.0)
    db, sub_id = _queued_submission(settings, mera_root)
    real = scoring.score_submission
    calls = []

    def flaky(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise RegistryError("unknown submission reader 'mera'")  # a half-loaded registry
        return real(*args, **kwargs)

    monkeypatch.setattr(scoring, "score_submission", flaky)
    assert run_one(db, settings) is True
    assert _submission(db, sub_id).status == "queued"
    assert run_one(db, settings) is True
    row = _submission(db, sub_id)
    assert row.status == "scored" and row.times_scored == 1 and len(calls) == 2


def test_an_internal_error_that_persists_fails_after_max_attempts(
    tmp_path: Path, mera_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omnieval.platform.services import scoring
    from omnieval.platform.services.jobs import run_one
    from tests.platform.test_jobs import _queued_submission, _submission

    settings = make_settings(tmp_path / "data", retry_s=0.0, max_attempts=2)
    db, sub_id = _queued_submission(settings, mera_root)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise OSError("disk gone")

    monkeypatch.setattr(scoring, "score_submission", broken)
    assert run_one(db, settings) and run_one(db, settings) and not run_one(db, settings)
    row = _submission(db, sub_id)
    assert row.status == "failed" and row.error == "scoring failed after 2 attempts: OSError"


def test_load_plugins_is_complete_for_every_concurrent_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    """Threads arriving while the first one imports wait for it; the flag is set only after success."""
    import threading

    from omnieval import registry

    imported: list[int] = []

    class SlowPlugin:
        value, dist = "tests.slow_plugin", None

        def load(self) -> None:
            time.sleep(0.2)
            imported.append(1)

    group = registry.PLUGINS_GROUP
    monkeypatch.setattr(registry, "_loaded_groups", set())
    monkeypatch.setattr(registry, "_loaded", set())
    monkeypatch.setattr(registry, "_failures", {})
    monkeypatch.setattr(registry, "entry_points", lambda g: {"slow": SlowPlugin()} if g == group else {})
    seen: list[int] = []
    threads = [
        threading.Thread(target=lambda: (registry.load_plugins(), seen.append(len(imported))))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert imported == [1] and seen == [1] * 8  # imported once; nobody returned before it was done
    assert group in registry._loaded_groups

    class BrokenPlugin(SlowPlugin):
        def load(self) -> None:
            raise ImportError("a plugin is broken")

    monkeypatch.setattr(registry, "_loaded_groups", set())
    monkeypatch.setattr(registry, "_loaded", set())
    monkeypatch.setattr(registry, "entry_points", lambda g: {"broken": BrokenPlugin()} if g == group else {})
    registry.load_plugins()  # a broken plugin is recorded, never raised, and never marked loaded
    failure = registry.plugin_failures()[f"{group}:broken"]
    assert (group, "broken") not in registry._loaded and "a plugin is broken" in failure
