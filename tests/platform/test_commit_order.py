"""A write is committed before its response leaves: a client that follows a redirect at once sees it.

The browser journey once read a stale page because the session committed after the response was sent.
Here the ASGI ``send`` hook looks at the database the moment the response starts, which is deterministic.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.platform.conftest import make_settings


def test_registration_is_committed_before_the_response_starts(data_dir: Path) -> None:
    from sqlalchemy import select

    from omnieval.platform.app import create_app
    from omnieval.platform.storage.db import Database
    from omnieval.platform.storage.models import User

    settings = make_settings(data_dir)
    app = create_app(settings)
    body = json.dumps({"username": "dora", "password": "password-dora"}).encode()
    seen: list[bool] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            db = Database(settings)
            with db.session() as session:
                seen.append(session.scalar(select(User).where(User.username == "dora")) is not None)
            db.dispose()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/v1/auth/register",
        "raw_path": b"/api/v1/auth/register",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"host", b"test")],
        "client": ("127.0.0.1", 1),
        "server": ("test", 80),
        "state": {},
    }
    asyncio.run(app(scope, receive, send))  # an http scope only: no lifespan, so no scoring worker
    assert seen == [True]
