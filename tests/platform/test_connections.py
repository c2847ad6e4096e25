"""Connections: header and body timeouts, authentication before the body, uploads in flight per user,
and the zip's member count read from its end record before the directory is listed."""

from __future__ import annotations

import io
import socket
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.platform.conftest import create, make_settings
from tests.platform.live import free_port


@pytest.fixture
def live(data_dir: Path) -> Iterator[tuple[int, Any]]:
    """The app under uvicorn (in a thread) with the server's own options and short timeouts."""
    import uvicorn

    from omnieval.platform.app import create_app
    from omnieval.platform.serve import uvicorn_options

    settings = make_settings(data_dir, header_timeout_s=1.0, body_timeout_s=1.0)
    create(settings, "uploader", "user")
    port = free_port()
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning", **uvicorn_options(settings)
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    yield port, settings
    server.should_exit = True
    thread.join(timeout=10)


def _token(settings: Any) -> str:
    from omnieval.platform.services.accounts import issue_token
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import User

    db = Database(settings)
    with db.session() as session:
        text = issue_token(session, session.query(User).filter_by(username="uploader").one())
    db.dispose()
    return text


def _open(port: int, head: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(head)
    return sock


def _status(sock: socket.socket) -> int:
    data = sock.recv(4096)
    return int(data.split(b" ", 2)[1]) if data else 0


def _upload_head(port: int, *, token: str | None, length: int = 20 << 20) -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return (
        f"POST /api/v1/submissions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{auth}"
        f"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def test_an_anonymous_upload_is_refused_before_its_body_is_read(live: tuple[int, Any]) -> None:
    port, _ = live
    with _open(port, _upload_head(port, token=None)) as sock:  # 20 MiB declared, not one byte sent
        started = time.monotonic()
        assert _status(sock) == 401
        assert time.monotonic() - started < 2


def test_a_user_has_at_most_two_uploads_in_flight_and_a_stalled_body_gets_408(live: tuple[int, Any]) -> None:
    port, settings = live
    token = _token(settings)
    first, second = (_open(port, _upload_head(port, token=token)) for _ in range(2))
    time.sleep(0.3)  # both are in flight, waiting for their bodies
    with _open(port, _upload_head(port, token=token)) as third:
        assert _status(third) == 429
    with first, second:
        assert _status(first) == 408  # no byte of the body within body_timeout_s
        assert _status(second) == 408


def test_a_connection_that_never_completes_its_headers_is_closed(live: tuple[int, Any]) -> None:
    port, _ = live
    with _open(port, b"GET / HTTP/1.1\r\nHost: x\r\n") as sock:  # headers never finished
        started = time.monotonic()
        assert sock.recv(4096) == b""  # closed by the server
        assert time.monotonic() - started < 5


def test_a_zip_declaring_too_many_members_is_refused_from_its_end_record(tmp_path: Path) -> None:
    from omnieval.platform.errors import UploadError
    from omnieval.platform.storage.files import check_zip

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for i in range(3000):
            zf.writestr(f"f{i}", b"")
    path = tmp_path / "many.zip"
    path.write_bytes(buf.getvalue())
    settings = make_settings(tmp_path / "data")
    started = time.perf_counter()
    with pytest.raises(UploadError, match="3000 files"):
        check_zip(path, settings)
    assert time.perf_counter() - started < 0.05  # the directory was never listed
