"""One user cannot hang the server: storms of re-publishes, registrations and uploads against a live server
on SQLite and on PostgreSQL, while another user reads the boards; the daily cap holds under a race; the
server stops on SIGTERM, its scoring child with it."""

from __future__ import annotations

import dataclasses
import io
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest

from tests.platform.conftest import add_mera, create, make_settings, submission_zip
from tests.platform.live import live_server
from tests.platform.pg import PgCluster, available, postgres_cluster

STALL_S = 2.0
"""No other user's request may take longer than this during a storm."""


def _tokens(settings: Any, names: list[str]) -> dict[str, dict[str, str]]:
    from omnieval.platform.services.accounts import issue_token
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import User

    db = Database(settings)
    with db.session() as session:
        users = {n: session.query(User).filter_by(username=n).one() for n in names}
        out = {n: {"Authorization": f"Bearer {issue_token(session, u)}"} for n, u in users.items()}
    db.dispose()
    return out


class Reader:
    """Another user reading the boards and their own submission in a loop; records the slowest answer."""

    def __init__(self, base: str, headers: dict[str, str]) -> None:
        self.base, self.headers = base, headers
        self.slowest, self.statuses = 0.0, list[int]()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> Reader:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _loop(self) -> None:
        paths = ("/api/v1/boards/mera/image", "/api/v1/benchmarks", "/api/v1/submissions", "/")
        with httpx.Client(base_url=self.base, headers=self.headers, timeout=60) as client:
            while not self._stop.is_set():
                for path in paths:
                    started = time.perf_counter()
                    status = client.get(path).status_code
                    self.slowest = max(self.slowest, time.perf_counter() - started)
                    self.statuses.append(status)
                time.sleep(0.02)


def _storm(n: int, call: Callable[[int], httpx.Response]) -> list[int]:
    with ThreadPoolExecutor(n) as pool:
        return [r.status_code for r in pool.map(call, range(n))]


def _scored(client: httpx.Client, headers: dict[str, str], data: bytes) -> int:
    r = client.post(
        "/api/v1/submissions", headers=headers, data={"benchmark": "mera"}, files={"file": ("s.zip", data)}
    )
    assert r.status_code == 202, r.text
    sub = r.json()["id"]
    deadline = time.monotonic() + 60
    while client.get(f"/api/v1/submissions/{sub}", headers=headers).json()["status"] != "scored":
        assert time.monotonic() < deadline, "never scored"
        time.sleep(0.1)
    return int(sub)


def _set_policy(settings: Any, **overrides: Any) -> None:
    from omnieval.platform.services.policy import set_policy
    from omnieval.platform.storage.db import Database

    db = Database(settings)
    with db.session() as session:
        set_policy(session, "mera", overrides)
    db.dispose()


def storms(settings: Any, mera_root: Path, *, publishes: int) -> None:
    """Re-publishes, anonymous registrations and one account's uploads, each concurrent, while a reader
    reads: no 5xx anywhere, no reader answer slower than ``STALL_S``, and exactly the daily cap accepted."""
    names = ["publisher", "racer", "reader"]
    for name in names:
        create(settings, name, "user")
    heads = _tokens(settings, names)
    _set_policy(settings, network_daily_cap=0)  # one account's cap races here; every client is 127.0.0.1
    data = submission_zip(mera_root, right={"ruclevr": 6, "ruslun": 6})
    fields = {k: getattr(settings, k) for k in ("data_dir", "database_url", "poll_s", "scoring_process")}
    fields["publish_limit"] = (10_000, 60.0)  # the lock path itself is under test, not the rate limit
    fields["concurrent_uploads"] = 20  # so is the cap's lock, not the per-user limit of uploads in flight
    with live_server(fields) as (base, _), httpx.Client(base_url=base, timeout=120) as client:
        sub = _scored(client, heads["publisher"], data)
        with Reader(base, heads["reader"]) as reader:
            published = _storm(
                publishes,
                lambda _: client.post(
                    f"/api/v1/submissions/{sub}/publish",
                    headers=heads["publisher"],
                    json={"boards": ["image"]},
                ),
            )
            registered = _storm(
                40,
                lambda i: client.post(
                    "/api/v1/auth/register", json={"username": f"storm{i}", "password": "password-storm"}
                ),
            )
            uploaded = _storm(
                20,
                lambda i: client.post(
                    "/api/v1/submissions",
                    headers=heads["racer"],
                    data={"benchmark": "mera", "model": f"m{i}"},
                    files={"file": ("s.zip", data)},
                ),
            )
    assert set(published) == {202}, published
    assert sorted(set(registered)) == [201, 429] and registered.count(201) == settings.register_limit[0]
    assert uploaded.count(202) == settings.policy.daily_cap, uploaded
    assert set(uploaded) == {202, 429}, uploaded
    assert reader.statuses and max(reader.statuses) < 500, sorted(set(reader.statuses))
    assert reader.slowest < STALL_S, f"a reader waited {reader.slowest:.2f}s"


def test_storms_on_sqlite(data_dir: Path, mera_root: Path) -> None:
    storms(make_settings(data_dir), mera_root, publishes=60)


@pytest.fixture(scope="module")
def cluster() -> Iterator[PgCluster]:
    if not available() and not os.environ.get("CI"):
        pytest.skip("PostgreSQL binaries not found (make system-deps)")
    with postgres_cluster() as c:
        yield c


def test_storms_on_postgres(tmp_path: Path, cluster: PgCluster, mera_root: Path) -> None:
    settings = make_settings(tmp_path / "data", database_url=cluster.new_database())
    add_mera(settings, mera_root)
    storms(settings, mera_root, publishes=120)


def _scoring_child(server: Any) -> list[psutil.Process]:
    """The live server's scoring child (spawned at start), and any helper of multiprocessing's."""
    proc, deadline = psutil.Process(server.pid), time.monotonic() + 60
    while not (children := proc.children(recursive=True)):
        assert time.monotonic() < deadline, "no scoring child"
        time.sleep(0.1)
    return children


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
def test_the_server_and_its_scoring_child_stop_on_a_signal(data_dir: Path, stop: str) -> None:
    with live_server({"data_dir": data_dir, "scoring_process": True}) as (_, server):
        children = _scoring_child(server)
        started = time.monotonic()
        server.send_signal(getattr(signal, stop))
        server.wait(timeout=10)
        assert time.monotonic() - started < 10
        _gone, alive = psutil.wait_procs(children, timeout=5)
        assert alive == [], [p.cmdline() for p in alive]


def network_cap_race(settings: Any, data: bytes, *, accounts: int = 20) -> list[str]:
    """``accounts`` different accounts on one network upload at the same instant (straight into the service,
    each in its own transaction): what each got, ``accepted`` or the refusal's kind."""
    from omnieval.platform.errors import QuotaExceeded
    from omnieval.platform.services.submissions import accept_upload
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import User

    db = Database(settings)
    with db.session() as session:
        users = [User(username=f"net{i}", password_hash="-", role="user") for i in range(accounts)]
        session.add_all(users)
        session.flush()
        ids = [u.id for u in users]
    start = threading.Barrier(accounts)

    def upload(user_id: int) -> str:
        start.wait()
        try:
            with db.session() as session:
                user = session.get(User, user_id)
                assert user is not None
                accept_upload(
                    session,
                    settings,
                    user,
                    benchmark="mera",
                    stream=io.BytesIO(data),
                    model="m",
                    client="198.51.100.0/24",
                )
        except QuotaExceeded:
            return "refused"
        return "accepted"

    try:
        with ThreadPoolExecutor(accounts) as pool:
            return list(pool.map(upload, ids))
    finally:
        db.dispose()


def _cap_race_settings(settings: Any) -> Any:
    from omnieval.platform.settings import Policy

    return dataclasses.replace(settings, policy=Policy(daily_cap=10, network_daily_cap=7))


def test_the_network_cap_holds_under_a_race_on_sqlite(data_dir: Path, mera_root: Path) -> None:
    settings = _cap_race_settings(make_settings(data_dir))
    got = network_cap_race(settings, submission_zip(mera_root, right={"ruclevr": 6}))
    assert got.count("accepted") == settings.policy.network_daily_cap, got
    assert got.count("refused") == len(got) - settings.policy.network_daily_cap


def test_the_network_cap_holds_under_a_race_on_postgres(
    tmp_path: Path, cluster: PgCluster, mera_root: Path
) -> None:
    settings = _cap_race_settings(make_settings(tmp_path / "data", database_url=cluster.new_database()))
    add_mera(settings, mera_root)
    got = network_cap_race(settings, submission_zip(mera_root, right={"ruclevr": 6}))
    assert got.count("accepted") == settings.policy.network_daily_cap, got
    assert got.count("refused") == len(got) - settings.policy.network_daily_cap
