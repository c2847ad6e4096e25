"""Platform fixtures: a miniature MERA root with answers (generated), an app per test, API helpers."""

from __future__ import annotations

import io
import json
import shutil
import socket
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from omnieval.benchmarks.mera.catalog import catalogue
from omnieval.benchmarks.mera.mini import hidden_answers, make_mini

ENGLISH = {"Accept-Language": "en"}
"""Most page tests read the English texts; tests/platform/test_site.py checks the Russian pages."""
TASKS = ("ruclevr", "rucommonvqa", "ruslun", "aquaria")
"""Two image and two audio tasks: enough for the image, audio and multi boards (no video: no ffmpeg)."""


@pytest.fixture(scope="session")
def mera_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_mini(tmp_path_factory.mktemp("mera") / "root", n=6, with_answers=True, tasks=list(TASKS))


def answers_of(root: Path, name: str) -> dict[str, str]:
    return hidden_answers(root, catalogue().by_name()[name])


def submission_zip(root: Path, *, right: dict[str, int], extra: dict[str, bytes] | None = None) -> bytes:
    """A MERA zip answering each task in ``right`` with that many correct answers (the rest wrong)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, n_right in right.items():
            task = catalogue().by_name()[name]
            items = []
            for i, (sid, answer) in enumerate(
                sorted(answers_of(root, name).items(), key=lambda kv: int(kv[0]))
            ):
                outputs = answer if i < n_right else "неверный ответ"
                items.append({"outputs": outputs, "meta": {"id": int(sid)}})
            zf.writestr(f"{task.submission}.json", json.dumps({"data": {"test": items}}, ensure_ascii=False))
        logs = io.BytesIO()
        with zipfile.ZipFile(logs, "w") as inner:
            inner.writestr("00_run/results.json", "{}")
        zf.writestr("logs_public.zip", logs.getvalue())
        for member, content in (extra or {}).items():
            zf.writestr(member, content)
    return buf.getvalue()


def make_settings(data_dir: Path, **overrides: Any) -> Any:
    from omnieval.platform import Settings
    from omnieval.platform.settings import Policy

    # Scoring in the worker thread: tests patch it in process, and a spawned child per app would cost seconds.
    # The real default (a scoring child process) is exercised by the cold-server and kill -9 tests.
    # Exact scores (no release noise): these tests check the scoring itself; test_oracle_attack.py runs the
    # default policy, noise included.
    exact = Policy(score_noise=0.0, score_ladder=0.0)
    return Settings(
        data_dir=data_dir, poll_s=0.05, **{"scoring_process": False, "policy": exact, **overrides}
    )


def add_mera(settings: Any, root: Path, name: str = "mera") -> None:
    from omnieval.platform.services.benchmarks import add_benchmark
    from omnieval.platform.storage.db import Database

    db = Database(settings)
    with db.session() as session:
        add_benchmark(session, settings, name=name, tasks_spec=f"mera:{root}")
    db.dispose()


def create(settings: Any, username: str, role: str, panel: str | None = None) -> None:
    from omnieval.platform.services.accounts import create_user
    from omnieval.platform.storage.db import Database

    db = Database(settings)
    with db.session() as session:
        create_user(session, username=username, password="password-" + username, role=role, panel=panel)
    db.dispose()


@pytest.fixture(scope="session")
def template_dir(tmp_path_factory: pytest.TempPathFactory, mera_root: Path) -> Path:
    """A data dir with benchmark ``mera`` and one account per staff role, built once and copied per test."""
    settings = make_settings(tmp_path_factory.mktemp("template") / "data")
    add_mera(settings, mera_root)
    for role in ("reviewer", "annotator", "admin"):
        create(settings, role, role, panel="literature" if role == "annotator" else None)
    return settings.data_dir


@pytest.fixture
def data_dir(tmp_path: Path, template_dir: Path) -> Path:
    shutil.copytree(template_dir, tmp_path / "data")
    return tmp_path / "data"


@pytest.fixture
def platform(data_dir: Path) -> Iterator[Any]:
    """A running app (worker on) with benchmark ``mera`` and one account per staff role."""
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    settings = make_settings(data_dir)
    with TestClient(create_app(settings), headers=ENGLISH) as client:
        client.settings = settings  # type: ignore[attr-defined]
        yield client


def token(client: Any, username: str, password: str | None = None) -> dict[str, str]:
    r = client.post(
        "/api/v1/auth/token", json={"username": username, "password": password or f"password-{username}"}
    )
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def register(client: Any, username: str) -> dict[str, str]:
    r = client.post("/api/v1/auth/register", json={"username": username, "password": f"password-{username}"})
    assert r.status_code == 201, r.text
    return token(client, username)


def upload(
    client: Any, headers: dict[str, str], data: bytes, *, model: str = "m", benchmark: str = "mera"
) -> Any:
    return client.post(
        "/api/v1/submissions",
        headers=headers,
        data={"benchmark": benchmark, "model": model},
        files={"file": ("submission.zip", data, "application/zip")},
    )


def wait_status(client: Any, headers: dict[str, str], sub_id: int, *, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body: dict[str, Any] = client.get(f"/api/v1/submissions/{sub_id}", headers=headers).json()
        if body["status"] in ("scored", "failed"):
            return body
        time.sleep(0.05)
    raise AssertionError(f"submission {sub_id} not scored within {timeout}s")


CHROMIUM = "/usr/bin/chromium"


@pytest.fixture
def server(data_dir: Path) -> Iterator[str]:
    """The app served by uvicorn on a free port, for the browser tests."""
    import uvicorn

    from omnieval.platform.app import create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(
        create_app(make_settings(data_dir)), host="127.0.0.1", port=port, log_level="warning"
    )
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()
