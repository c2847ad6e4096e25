"""Password checks wait at the door, not in a request thread.

A login (or a registration: both hash a password) spent its request thread on three rate-limit
transactions and an argon2 hash, and a spray from 60 addresses kept every one of the 32 request threads
busy: another reader's board request waited in the same queue behind them (p99 6 ms -> seconds). This ASGI
middleware lets at most ``inside`` such requests into the app at once per process; the others wait on the
event loop (a coroutine each, no thread), and past ``waiting`` of them a new one is told "busy" at once
(503 with ``Retry-After``), so the request threads always have room for everybody else.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
from starlette.requests import Request

__all__ = ["PASSWORD_PATHS", "LoginGate"]

PASSWORD_PATHS = {"/api/v1/auth/token", "/api/v1/auth/register", "/login", "/register"}
"""The POSTs that compute a password hash."""


class LoginGate:
    """ASGI middleware: a bounded, first-come first-served door for the requests that hash passwords."""

    def __init__(self, app: Any, *, inside: int, waiting: int) -> None:
        self.app, self.inside, self.waiting_limit = app, inside, waiting
        self._door: asyncio.Semaphore | None = None
        self.waiting = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] not in PASSWORD_PATHS:
            await self.app(scope, receive, send)
            return
        if self._door is None:  # made in the server's event loop, on its first password request
            self._door = asyncio.Semaphore(self.inside)
        if self._door.locked() and self.waiting >= self.waiting_limit:
            await self._busy(scope, receive, send)
            return
        self.waiting += 1
        try:
            await self._door.acquire()
        finally:
            self.waiting -= 1
        try:
            await self.app(scope, receive, send)
        finally:
            self._door.release()

    async def _busy(self, scope: Any, receive: Any, send: Any) -> None:
        from omnieval.platform.routes.page_errors import error_answer

        message = "the server is busy checking passwords; try again in a moment"
        response = await anyio.to_thread.run_sync(error_answer, Request(scope, receive), 503, message)
        response.headers["retry-after"] = "5"
        response.headers["connection"] = "close"  # the unread body is never read: the connection ends
        await response(scope, receive, send)
