"""Uploads are authenticated before their body is read, limited per user, and read against a clock.

The multipart parser reads a whole upload (spooled to disk) before any route runs, so a route's own
authentication came after 20 MiB of an anonymous body had been received and stored. This ASGI middleware
answers from the headers first: the bearer token (API) or the session cookie (the page form) must name a
signed-in user, who may have at most ``Settings.concurrent_uploads`` uploads in flight in this process
(429 past it). The body is then passed on with a timeout on each chunk (``Settings.body_timeout_s``): a
client that stops sending gets 408 instead of holding a request thread and a spool file.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
from starlette.requests import Request

from omnieval.platform.settings import Settings

__all__ = ["UploadGate"]

UPLOAD_PATHS = {"/api/v1/submissions", "/submit"}


class _Slots:
    """Uploads in flight per user (this process)."""

    def __init__(self, limit: int) -> None:
        self.limit, self._held, self._lock = limit, Counter[int](), threading.Lock()

    @contextmanager
    def hold(self, user_id: int) -> Iterator[bool]:
        with self._lock:
            free = self._held[user_id] < self.limit
            if free:
                self._held[user_id] += 1
        try:
            yield free
        finally:
            if free:
                with self._lock:
                    self._held[user_id] -= 1


class _BodyTimeout(Exception):
    pass


class UploadGate:
    """ASGI middleware (inside the session middleware, so the page's session cookie is decoded)."""

    def __init__(self, app: Any, *, db: Any, settings: Settings) -> None:
        self.app, self.db, self.settings = app, db, settings
        self.slots = _Slots(settings.concurrent_uploads)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] not in UPLOAD_PATHS:
            await self.app(scope, receive, send)
            return
        user_id = await anyio.to_thread.run_sync(self._user_id, scope)
        if user_id is None:
            await self._refuse(scope, receive, send, 401, "log in (or send a valid bearer token) to upload")
            return
        with self.slots.hold(user_id) as free:
            if not free:
                message = f"at most {self.slots.limit} uploads at once per user: wait for one to finish"
                await self._refuse(scope, receive, send, 429, message)
                return
            await self._timed(scope, receive, send)

    async def _timed(self, scope: Any, receive: Any, send: Any) -> None:
        """Pass the request on; a body that stalls past ``body_timeout_s`` is answered 408 (whatever the app
        made of the interrupted body: the form parser calls it a 400)."""
        timeout, started, stalled = self.settings.body_timeout_s, False, False

        async def timed_receive() -> Any:
            nonlocal stalled
            try:
                with anyio.fail_after(timeout):
                    return await receive()
            except TimeoutError:
                stalled = True
                raise

        async def tracked(message: Any) -> None:
            nonlocal started
            if stalled and not started:
                return  # the app's own answer to the broken body is replaced below
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, timed_receive, tracked)
        except TimeoutError:
            if started:
                raise
        if stalled and not started:
            await self._refuse(scope, receive, send, 408, f"no part of the upload came for {timeout:g} s")

    def _user_id(self, scope: Any) -> int | None:
        from omnieval.platform.services.accounts import user_for_token

        headers = dict(scope["headers"])
        auth = headers.get(b"authorization", b"").decode("latin-1")
        scheme, _, credential = auth.partition(" ")
        if scheme.lower() == "bearer" and credential:
            token, kind = credential.strip(), "api"
        else:
            sid = scope.get("session", {}).get("sid")
            if not isinstance(sid, str):
                return None
            token, kind = sid, "web"
        with self.db.session() as session:
            user = user_for_token(session, token, kind=kind)
            return user.id if user is not None else None

    async def _refuse(self, scope: Any, receive: Any, send: Any, status: int, message: str) -> None:
        from omnieval.platform.routes.page_errors import error_answer

        response = error_answer(Request(scope, receive), status, message)
        response.headers["connection"] = "close"  # the unread body is never read: the connection ends
        if status == 401:
            response.headers["www-authenticate"] = "Bearer"
        await response(scope, receive, send)
