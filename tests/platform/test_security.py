"""Upload limits, hidden answers never shown, rate limits, and the authorization matrix."""

from __future__ import annotations

import io
import json
import logging
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.platform.conftest import make_settings, register, submission_zip, token, upload, wait_status


def _zip(members: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return buf.getvalue()


def _symlink_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        info = zipfile.ZipInfo("ruCLEVR.json")
        info.external_attr = 0o120777 << 16
        zf.writestr(info, "/etc/passwd")
    return buf.getvalue()


def _runs(n: int) -> bytes:
    """``n`` runs of 100 equal random bytes: compresses about 30x, under the ratio cap, yet large."""
    return b"".join(bytes([b]) * 100 for b in os.urandom(n))


def _non_utf8_zip() -> bytes:
    raw = _zip({"Xq.json": b"{}"})
    return raw.replace(b"Xq.json", b"\xe9\xff.json")  # a legacy-encoded name, no UTF-8 flag


@pytest.fixture
def limited(data_dir: Path) -> Any:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    settings = make_settings(
        data_dir, max_upload_bytes=300_000, max_unpacked_bytes=2_000_000, upload_limit=(100, 60.0)
    )
    with TestClient(create_app(settings)) as client:
        client.settings = settings  # type: ignore[attr-defined]
        yield client


BAD_UPLOADS = {
    "size cap": (
        lambda: _zip({"ruCLEVR.json": os.urandom(400_000)}, compression=zipfile.ZIP_STORED),
        413,
        "limit",
    ),
    "zip bomb ratio": (lambda: _zip({"ruCLEVR.json": b"0" * 5_000_000}), 422, "zip bomb"),
    "total size": (lambda: _zip({f"part{i}.bin": _runs(12_500) for i in range(2)}), 422, "unpacks to"),
    "path traversal": (lambda: _zip({"../../escape.json": b"{}"}), 422, "unsafe path"),
    "absolute path": (lambda: _zip({"/tmp/escape.json": b"{}"}), 422, "unsafe path"),
    "symlink": (_symlink_zip, 422, "symbolic links"),
    "non-UTF-8 name": (_non_utf8_zip, 422, "not UTF-8"),
    "not a zip": (lambda: b"PK\x03\x04 definitely not a zip", 422, "not a readable zip"),
    "malformed JSON": (lambda: _zip({"ruCLEVR.json": b'{"data": {"test": [ oops'}), 422, "not valid JSON"),
    "wrong shape": (lambda: _zip({"ruCLEVR.json": b'{"data": {"test": [{"outputs": 1}]}}'}), 422, "meta.id"),
}


@pytest.mark.parametrize("case", sorted(BAD_UPLOADS))
def test_bad_uploads_are_refused_and_leave_nothing(limited: Any, tmp_path: Path, case: str) -> None:
    make, status, message = BAD_UPLOADS[case]
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if "platform.db" not in p.name)
    alice = register(limited, "alice")
    r = upload(limited, alice, make())
    assert r.status_code == status, r.text
    assert message in json.dumps(r.json()), r.text
    after = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if "platform.db" not in p.name)
    assert [
        p for p in after if p not in before and p.name != "uploads"
    ] == []  # nothing kept, nothing escaped
    assert limited.get("/api/v1/submissions", headers=alice).json()["submissions"] == []


def test_oversized_body_is_refused_before_it_is_read(limited: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A body declared past the cap (plus the form's overhead) is a 413 from the headers alone: the multipart
    parser, which would spool it to the system's temp dir, never runs. A chunked body (no length) is a 411."""
    from starlette.formparsers import MultiPartParser

    from omnieval.platform.routes.body_limit import FORM_OVERHEAD

    alice = register(limited, "alice")

    def never(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("the multipart parser read an oversized body")

    monkeypatch.setattr(MultiPartParser, "parse", never)
    big = os.urandom(limited.settings.max_upload_bytes + FORM_OVERHEAD + 1)
    r = upload(limited, alice, big)
    assert r.status_code == 413 and "300000 byte upload limit" in r.json()["detail"]
    page = limited.post(
        "/submit", files={"file": ("s.zip", big, "application/zip")}, data={"benchmark": "mera"}
    )
    assert page.status_code == 413 and page.headers["content-type"].startswith("text/html")

    def chunks() -> Any:
        yield b"--x\r\n"

    r = limited.post(
        "/api/v1/submissions",
        headers={**alice, "Content-Type": "multipart/form-data; boundary=x"},
        content=chunks(),
    )
    assert r.status_code == 411 and "Content-Length" in r.json()["detail"]


def test_login_is_rate_limited(platform: Any) -> None:
    for _ in range(10):
        assert (
            platform.post(
                "/api/v1/auth/token", json={"username": "admin", "password": "wrong-guess"}
            ).status_code
            == 401
        )
    r = platform.post("/api/v1/auth/token", json={"username": "admin", "password": "password-admin"})
    assert r.status_code == 429 and "too many" in r.json()["detail"]


def test_upload_is_rate_limited(data_dir: Path, mera_root: Path) -> None:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    with TestClient(create_app(make_settings(data_dir, upload_limit=(2, 60.0), worker=False))) as client:
        alice = register(client, "alice")
        data = submission_zip(mera_root, right={"ruclevr": 1})
        assert [upload(client, alice, data).status_code for _ in range(3)] == [202, 202, 429]


def test_hidden_answers_never_leave_the_server(
    platform: Any, mera_root: Path, caplog: Any, capfd: Any
) -> None:
    """Every response, every log line: none carries an answer of the OE task (distinctive multi-word
    answers)."""
    import pyarrow.parquet as pq

    from tests.platform.conftest import answers_of

    secrets_ = {a for a in answers_of(mera_root, "ruslun").values()}  # JSON answers: unique enough to search
    table = pq.read_table(next((mera_root / "RuSLUn" / "data").glob("test-*.parquet")))
    assert {r for r in table.column("outputs").to_pylist()} == secrets_  # the server does hold them
    caplog.set_level(logging.DEBUG)
    alice, reviewer = register(platform, "alice"), token(platform, "reviewer")
    seen: list[str] = []
    for right in (0, 3):
        sub = upload(platform, alice, submission_zip(mera_root, right={"ruclevr": right, "ruslun": 0}))
        seen.append(sub.text)
        body = wait_status(platform, alice, sub.json()["id"])
        seen.append(json.dumps(body, ensure_ascii=False))
    sub_id = body["id"]
    platform.post(
        f"/api/v1/submissions/{sub_id}/publish", headers=alice, json={"boards": ["multi"], "model_info": {}}
    )
    platform.post(
        f"/api/v1/reviews/{sub_id}", headers=reviewer, json={"decision": "approve", "comment": "ok"}
    )
    for path, headers in (
        (f"/api/v1/submissions/{sub_id}", alice),
        ("/api/v1/submissions", alice),
        ("/api/v1/reviews", reviewer),
        ("/api/v1/boards/mera/multi", {}),
        ("/api/v1/boards/mera/audio", {}),
        (f"/api/v1/models/{sub_id}", {}),
        ("/api/v1/benchmarks", {}),
        ("/openapi.json", {}),
        ("/", {}),
        ("/boards/mera/multi", {}),
        (f"/models/{sub_id}", {}),
    ):
        seen.append(platform.get(path, headers=headers).text)
    out, err = capfd.readouterr()
    everything = "\n".join([*seen, caplog.text, out, err])
    assert '"score"' in everything  # the scan looks at real content
    leaked = [s for s in secrets_ if s in everything or json.dumps(s) in everything]
    assert leaked == []


def test_page_forms_need_the_session_csrf_token(platform: Any) -> None:
    import re

    r = platform.post("/register", data={"username": "mallory", "password": "password-mallory"})
    assert r.status_code == 403 and "CSRF" in r.text and r.headers["content-type"].startswith("text/html")
    token_ = re.search(r'name="csrf" value="([^"]+)"', platform.get("/register").text)
    assert token_ is not None
    r = platform.post(
        "/register", data={"username": "mallory", "password": "password-mallory", "csrf": "forged"}
    )
    assert r.status_code == 403
    r = platform.post(
        "/register",
        data={"username": "mallory", "password": "password-mallory", "csrf": token_.group(1)},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == "/submit"


def test_cli_fixed_interfaces(tmp_path: Path, mera_root: Path) -> None:
    from typer.testing import CliRunner

    from omnieval.cli.app import app

    data = str(tmp_path / "data")
    r = CliRunner().invoke(
        app,
        ["platform", "add-benchmark", "--data-dir", data, "--name", "mera", "--tasks", f"mera:{mera_root}"],
    )
    assert r.exit_code == 0 and json.loads(r.output)["tasks"]["ruclevr"] == 6
    r = CliRunner().invoke(
        app,
        [
            "platform",
            "create-user",
            "--data-dir",
            data,
            "--username",
            "boss",
            "--password",
            "long-password",
            "--role",
            "admin",
        ],
    )
    assert r.exit_code == 0 and json.loads(r.output)["role"] == "admin"
    r = CliRunner().invoke(
        app,
        [
            "platform",
            "create-user",
            "--data-dir",
            data,
            "--username",
            "x2y",
            "--password",
            "long-password",
            "--role",
            "king",
        ],
    )
    assert r.exit_code == 2 and "role must be one of" in r.output
    hidden = make_mini_hidden(tmp_path)
    r = CliRunner().invoke(
        app,
        ["platform", "add-benchmark", "--data-dir", data, "--name", "hidden", "--tasks", f"mera:{hidden}"],
    )
    assert r.exit_code == 2 and "has no answer" in r.output
    r = CliRunner().invoke(
        app,
        [
            "platform",
            "add-benchmark",
            "--data-dir",
            data,
            "--name",
            "two",
            "--tasks",
            f"mera:{mera_root}",
            "--tasks",
            f"mera:{hidden}",
        ],
    )
    assert r.exit_code == 2 and "one FORMAT:PATH source" in r.output, (
        "a repeated --tasks is refused, not cut to the last"
    )


def make_mini_hidden(tmp_path: Path) -> Path:
    """A private task as published: empty ``outputs``, so not loadable as a benchmark with answers."""
    from omnieval.benchmarks.mera.mini import make_mini

    return make_mini(tmp_path / "hidden", n=3, tasks=["realvqa"])


def _lying_zip(*, members: int, real: int, declared: int) -> bytes:
    """``members`` members of one name whose headers declare ``declared`` bytes but inflate to ``real``."""
    import struct
    import warnings

    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate names
        for _ in range(members):
            zf.writestr("ruCLEVR.json", b"0" * real)
    raw = bytearray(buf.getvalue())
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = 0
        while (at := raw.find(signature, start)) >= 0:
            if struct.unpack_from("<I", raw, at + offset)[0] == real:
                struct.pack_into("<I", raw, at + offset, declared)
            start = at + 4
    return bytes(raw)


def test_a_zip_lying_about_its_sizes_is_refused_fast(limited: Any, tmp_path: Path) -> None:
    import time

    alice = register(limited, "alice")
    data = _lying_zip(members=1, real=8 * 1024 * 1024, declared=59)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert [i.file_size for i in zf.infolist()] == [59]  # the headers lie
    started = time.monotonic()
    r = upload(limited, alice, data)
    assert r.status_code == 422 and "does not match its header" in r.json()["detail"], r.text
    assert time.monotonic() - started < 5
    assert list((limited.settings.data_dir / "uploads").glob("*")) == []


def test_duplicate_member_names_are_refused(limited: Any) -> None:
    alice = register(limited, "alice")
    r = upload(limited, alice, _lying_zip(members=20, real=1000, declared=1000))
    assert r.status_code == 422 and "two files named 'ruCLEVR.json'" in r.json()["detail"], r.text


def test_actual_bytes_are_counted_not_the_headers(tmp_path: Path) -> None:
    """A member whose header under-declares its size is caught by the streamed count, not the header sum."""
    from omnieval.platform.errors import UploadError
    from omnieval.platform.storage.files import _check_actual_sizes

    settings = make_settings(tmp_path, max_unpacked_bytes=100_000)
    path = tmp_path / "big.zip"
    path.write_bytes(_zip({"a.bin": _runs(600), "b.bin": _runs(600)}))  # 120,000 real bytes, under the ratio
    with pytest.raises(UploadError, match="unpacks to more than 100000 bytes"):
        _check_actual_sizes(path, settings)


def test_an_upload_the_validator_cannot_read_leaves_no_file(
    limited: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omnieval.submission.base import validators

    def broken(path: Any) -> dict[str, Any]:
        raise RuntimeError("the validator failed")  # e.g. the audit's half-loaded registry

    monkeypatch.setattr(validators, "get", lambda name: broken)
    alice = register(limited, "alice")
    r = upload(limited, alice, submission_zip(Path("."), right={}))
    assert r.status_code == 422 and "could not be read" in r.text, r.text
    assert list((limited.settings.data_dir / "uploads").glob("*")) == []


def test_start_up_sweeps_orphaned_uploads_only(data_dir: Path, mera_root: Path) -> None:
    import time

    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    settings = make_settings(data_dir)
    with TestClient(create_app(settings)) as client:
        alice = register(client, "alice")
        kept = wait_status(
            client, alice, upload(client, alice, submission_zip(mera_root, right={"ruclevr": 6})).json()["id"]
        )
    uploads = settings.uploads
    old, fresh = uploads / "orphan.zip", uploads / "in-flight.zip"
    old.write_bytes(b"x" * 1000)
    fresh.write_bytes(b"x")
    long_ago = time.time() - 3600
    os.utime(old, (long_ago, long_ago))
    for path in uploads.iterdir():
        os.utime(
            path, (long_ago, long_ago)
        )  # the kept upload is old too: it survives because it is referenced
    os.utime(fresh, None)
    with TestClient(create_app(settings)):
        pass
    assert sorted(p.name for p in uploads.iterdir()) == sorted(
        ["in-flight.zip", Path(kept_upload(settings, kept["id"])).name]
    )


def kept_upload(settings: Any, sub_id: int) -> str:
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import Submission

    db = Database(settings)
    with db.session() as session:
        path = session.get(Submission, sub_id).upload
    db.dispose()
    return str(path)


def test_a_reviewer_cannot_approve_their_own_submission(platform: Any, mera_root: Path) -> None:
    reviewer, other = token(platform, "reviewer"), token(platform, "admin")
    sub = upload(platform, reviewer, submission_zip(mera_root, right={"ruclevr": 6})).json()["id"]
    wait_status(platform, reviewer, sub)
    assert (
        platform.post(
            f"/api/v1/submissions/{sub}/publish", headers=reviewer, json={"boards": ["image"]}
        ).status_code
        == 202
    )
    r = platform.post(f"/api/v1/reviews/{sub}", headers=reviewer, json={"decision": "approve"})
    assert r.status_code == 403 and "own submission" in r.json()["detail"]
    assert platform.get("/api/v1/boards/mera/image").json()["rows"] == []
    assert (
        platform.post(f"/api/v1/reviews/{sub}", headers=other, json={"decision": "approve"}).status_code
        == 200
    )


def _page_login(platform: Any, username: str) -> Any:
    import re

    from fastapi.testclient import TestClient

    client = TestClient(platform.app)
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)  # type: ignore[union-attr]
    r = client.post(
        "/login",
        data={"username": username, "password": f"password-{username}", "csrf": csrf},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return client


def test_a_session_cookie_captured_before_logout_is_dead_after_it(platform: Any) -> None:
    import re

    browser = _page_login(platform, "reviewer")
    captured = dict(browser.cookies)
    assert browser.get("/reviews", follow_redirects=False).status_code == 200
    csrf = re.search(r'name="csrf" value="([^"]+)"', browser.get("/").text).group(1)  # type: ignore[union-attr]
    assert browser.post("/logout", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    from fastapi.testclient import TestClient

    thief = TestClient(platform.app, cookies=captured)
    assert (
        thief.get("/reviews", follow_redirects=False).status_code == 303
    )  # to the login page: not signed in


def test_tokens_expire_and_can_be_revoked_one_or_all(platform: Any, data_dir: Path) -> None:
    import time

    alice = register(platform, "alice")
    second = token(platform, "alice")
    listed = platform.get("/api/v1/auth/tokens", headers=alice).json()["tokens"]
    assert len(listed) == 2 and all(t["expires_at"] > time.time() + 29 * 86400 for t in listed)
    assert platform.delete(f"/api/v1/auth/tokens/{listed[1]['id']}", headers=alice).status_code == 204
    assert (
        platform.get("/api/v1/me", headers=second).status_code == 401
        and platform.get("/api/v1/me", headers=alice).status_code == 200
    )
    browser = _page_login(platform, "alice")
    assert browser.get("/submissions", follow_redirects=False).status_code == 200
    assert platform.delete("/api/v1/auth/tokens", headers=alice).json() == {
        "revoked": 2
    }  # the page session too
    assert platform.get("/api/v1/me", headers=alice).status_code == 401
    assert browser.get("/submissions", follow_redirects=False).status_code == 303
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    with TestClient(create_app(make_settings(data_dir, token_ttl_s=2.0))) as short:  # 0.5 s flaked under load
        bob = token(short, "alice")
        assert short.get("/api/v1/me", headers=bob).status_code == 200
        time.sleep(2.1)
        assert short.get("/api/v1/me", headers=bob).status_code == 401


def test_login_spraying_over_usernames_is_limited_per_client(data_dir: Path) -> None:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    with TestClient(create_app(make_settings(data_dir, login_client_limit=(5, 60.0)))) as client:
        codes = [
            client.post(
                "/api/v1/auth/token", json={"username": f"victim{i}", "password": "password-x"}
            ).status_code
            for i in range(8)
        ]
        assert (
            codes == [401] * 5 + [429] * 3
        )  # each username is tried once: only the per-client limit stops it


def test_password_hashing_runs_in_a_bounded_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from omnieval.platform.services import accounts

    running, peak, lock = [0], [0], threading.Lock()

    class SlowHasher:
        def hash(self, password: str) -> str:
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            time.sleep(0.05)
            with lock:
                running[0] -= 1
            return "h"

    def attempt(password: str) -> str:
        try:
            return accounts._hash(password)
        except accounts.Busy:
            return "busy"

    monkeypatch.setattr(accounts, "_hasher", SlowHasher)
    with ThreadPoolExecutor(16) as pool:
        outcomes = list(pool.map(attempt, ["p"] * 32))
    assert peak[0] == accounts.HASH_CONCURRENCY  # 16 threads asked at once; never more hashes together
    # at most 10 requests hash or wait to hash: the others are told "busy" at once, never parked
    assert outcomes.count("h") >= 10 and outcomes.count("busy") >= 1, outcomes


def test_one_account_sprayed_from_many_clients_backs_off(data_dir: Path) -> None:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    settings = make_settings(data_dir, login_limit=(100, 60.0), login_account_limit=(3, 300.0))
    with TestClient(create_app(settings)) as client:
        codes = [
            client.post(
                "/api/v1/auth/token",
                json={"username": name, "password": "wrong-guess"},
            ).status_code
            for name in ("admin", "ADMIN", "Admin", "admin", "reviewer")
        ]
    assert codes == [401, 401, 401, 429, 401]  # per account, whatever the case; other accounts unaffected


def test_model_info_is_bounded(platform: Any, mera_root: Path) -> None:
    alice = register(platform, "alice")
    sub = upload(platform, alice, submission_zip(mera_root, right={"ruclevr": 6})).json()["id"]
    wait_status(platform, alice, sub)
    big = {"parameters": "x" * 5000}
    r = platform.post(
        f"/api/v1/submissions/{sub}/publish", headers=alice, json={"boards": ["image"], "model_info": big}
    )
    assert r.status_code == 422 and "model_info" in json.dumps(r.json()), r.text
    ok = {"parameters": "7B"}
    assert (
        platform.post(
            f"/api/v1/submissions/{sub}/publish", headers=alice, json={"boards": ["image"], "model_info": ok}
        ).status_code
        == 202
    )


def test_a_nested_logs_zip_with_too_many_entries_is_refused(limited: Any, mera_root: Path) -> None:
    logs = io.BytesIO()
    with zipfile.ZipFile(logs, "w") as inner:
        for i in range(2001):
            inner.writestr(f"{i}.txt", "")
    alice = register(limited, "alice")
    data = _zip({"logs_public.zip": logs.getvalue()})
    r = upload(limited, alice, data)
    assert r.status_code == 422 and "logs_public.zip has 2001 files" in r.json()["detail"], r.text


def test_security_headers_on_pages_api_and_errors(platform: Any) -> None:
    for path in ("/", "/api/v1/benchmarks", "/no-such-page", "/api/v1/me"):
        r = platform.get(path)
        assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff", (
            path
        )
        assert r.headers["referrer-policy"] == "same-origin", path
        csp = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp, path
        assert "script-src 'self';" in csp and "unsafe-inline" not in csp, path  # only /static/ files run


def test_secure_cookies_when_configured(data_dir: Path) -> None:
    from fastapi.testclient import TestClient

    from omnieval.platform.app import create_app

    for secure in (False, True):
        with TestClient(
            create_app(make_settings(data_dir, secure_cookies=secure)), base_url="https://testserver"
        ) as c:
            cookie = c.get("/login").headers["set-cookie"]
            assert ("secure" in cookie.lower()) is secure, cookie


def test_usernames_are_unique_whatever_the_case_and_reserved_ones_refused(platform: Any) -> None:
    def reg(name: str) -> Any:
        return platform.post("/api/v1/auth/register", json={"username": name, "password": "password-x"})

    assert reg("Alice").status_code == 201
    r = reg("alice")
    assert r.status_code == 409 and "taken" in r.json()["detail"]
    for name in ("root", "Administrator", "SUPPORT"):
        r = reg(name)
        assert r.status_code == 422 and "reserved" in r.json()["detail"], name
    assert (
        platform.post("/api/v1/auth/token", json={"username": "ALICE", "password": "password-x"}).status_code
        == 200
    )


def test_the_database_and_data_dir_are_owner_only(tmp_path: Path) -> None:
    import stat

    from omnieval.platform.storage.db import Database

    settings = make_settings(tmp_path / "fresh")
    Database(settings).dispose()
    assert stat.S_IMODE(settings.data_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((settings.data_dir / "platform.db").stat().st_mode) == 0o600


def test_a_sqlite_database_elsewhere_and_its_wal_are_owner_only(tmp_path: Path) -> None:
    """``--database-url sqlite:///...`` outside the data dir: the file, its WAL and shared memory 0600."""
    import os
    import stat

    from omnieval.platform.storage.db import Database

    elsewhere = tmp_path / "other" / "platform.db"
    elsewhere.parent.mkdir()
    old = os.umask(0o022)
    try:
        settings = make_settings(tmp_path / "data", database_url=f"sqlite:///{elsewhere}")
        db = Database(settings)
        with db.engine.connect() as conn:  # an open connection keeps the WAL and shared-memory files
            files = [elsewhere, *(elsewhere.with_name(elsewhere.name + s) for s in ("-wal", "-shm"))]
            modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in files if p.exists()}
            conn.exec_driver_sql("select 1")
        db.dispose()
    finally:
        os.umask(old)
    assert modes and set(modes.values()) == {0o600}, modes
    assert len(modes) == 3, modes


def test_password_requests_wait_at_the_door_holding_no_thread() -> None:
    """At most ``inside`` logins and registrations are inside the app at once; the rest wait on the event
    loop (past ``waiting`` of them: 429 at once), while any other request goes straight in."""
    import asyncio

    from omnieval.platform.routes.login_gate import LoginGate

    async def scenario() -> tuple[int, list[int], int, int]:
        inside, most, release = 0, 0, asyncio.Event()

        async def app(scope: Any, receive: Any, send: Any) -> None:
            nonlocal inside, most
            inside += 1
            most = max(most, inside)
            if scope["path"] != "/boards/mera/multi":
                await release.wait()
            inside -= 1
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b""})

        gate = LoginGate(app, inside=2, waiting=3)

        async def call(method: str, path: str) -> int:
            scope = {"type": "http", "method": method, "path": path, "headers": [], "query_string": b""}
            scope |= {"server": ("t", 80), "scheme": "http", "root_path": ""}
            sent: list[dict[str, Any]] = []

            async def receive() -> dict[str, Any]:
                return {"type": "http.request", "body": b"", "more_body": False}

            async def send(message: dict[str, Any]) -> None:
                sent.append(message)

            await gate(scope, receive, send)
            return int(sent[0]["status"])

        logins = [asyncio.create_task(call("POST", "/api/v1/auth/token")) for _ in range(5)]
        await asyncio.sleep(0.05)
        refused = await asyncio.wait_for(call("POST", "/api/v1/auth/register"), 5)  # 2 in, 3 waiting
        reader = await asyncio.wait_for(call("GET", "/boards/mera/multi"), 5)
        assert (inside, gate.waiting) == (2, 3)
        release.set()
        return refused, list(await asyncio.gather(*logins)), reader, most

    refused, answers, reader, most = asyncio.run(scenario())
    assert refused == 429 and reader == 200 and answers == [200] * 5
    assert most == 3  # two logins and the reader, never more
