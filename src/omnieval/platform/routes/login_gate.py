"""Password checks wait at the door, fairly between networks, and cheap refusals never enter the app.

A login (or a registration: both hash a password) spent its request thread on three rate-limit
transactions and an argon2 hash, and a spray from 60 addresses kept every one of the 32 request threads
busy: another reader's board request waited in the same queue behind them (p99 6 ms -> seconds). This ASGI
middleware, on the event loop, for each password request in turn:

1. reads its small body (at most ``MAX_BODY`` bytes) and takes the client's network (/24, /48) and, for a
   login, the account it names;
2. refuses it at once (429 with ``Retry-After``) when the network or the account has used its attempts
   within the window (in memory: the same limits as the database's, counted before any hash), or when the
   queue is full (``waiting`` in all, ``per_network`` of one network);
3. otherwise lets it wait its turn: at most ``inside`` are inside the app at once per process, and the next
   one in is taken round-robin between the networks that are waiting, so a spray from many addresses
   cannot make one user wait behind all of it; one not let in within ``max_wait_s`` is answered 429.

A refusal is built here, with no thread, database or template; a waiting request is a coroutine, holding
no thread and no connection. The hashes themselves run in their own niced threads
(``services/hashing.py``). The database's limits still apply inside, shared by every server process.
"""

from __future__ import annotations

import asyncio
import collections
import html
import json
import math
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs

from omnieval.platform.services.submissions import client_network

__all__ = ["LOGIN_PATHS", "MAX_BODY", "PASSWORD_PATHS", "LoginGate", "Window"]

LOGIN_PATHS = {"/api/v1/auth/token", "/login"}
PASSWORD_PATHS = LOGIN_PATHS | {"/api/v1/auth/register", "/register"}
"""The POSTs that compute a password hash."""
MAX_BODY = 16 * 1024
"""A login or registration body is a name, a password and a form's CSRF field: well under this."""
QUEUE_FULL_RETRY_S = 2


class Window:
    """Attempts per key within the last ``window_s`` seconds, at most ``limit`` (in memory, this process).

    Keys whose attempts have all left the window are dropped as new ones come, and at most ``max_keys``
    are kept (the oldest go first): a spray over a million usernames costs bounded memory."""

    def __init__(
        self, limit: int, window_s: float, *, clock: Callable[[], float], max_keys: int = 100_000
    ) -> None:
        self.limit, self.window_s, self.clock, self.max_keys = limit, window_s, clock, max_keys
        self._hits: collections.OrderedDict[str, collections.deque[float]] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._hits)

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` may try again; 0 when it may now."""
        hits = self._hits.get(key)
        if not hits:
            return 0.0
        now = self.clock()
        while hits and hits[0] <= now - self.window_s:
            hits.popleft()
        return hits[0] + self.window_s - now if len(hits) >= self.limit else 0.0

    def record(self, key: str) -> None:
        now = self.clock()
        self._hits.setdefault(key, collections.deque()).append(now)
        self._hits.move_to_end(key)
        while self._hits:
            oldest = next(iter(self._hits.values()))
            if len(self._hits) <= self.max_keys and oldest[-1] > now - self.window_s:
                break
            self._hits.popitem(last=False)


class LoginGate:
    """ASGI middleware: a bounded, fair door for the requests that hash passwords (module docstring)."""

    def __init__(
        self,
        app: Any,
        *,
        inside: int,
        waiting: int,
        per_network: int | None = None,
        network_limits: Mapping[str, tuple[int, float]] | None = None,
        account_limit: tuple[int, float] | None = None,
        body_timeout_s: float = 30.0,
        max_wait_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        network: Callable[[str], str] = client_network,
    ) -> None:
        """``network_limits``: ``{"login": (N, S), "register": (N, S)}``, attempts per network within S
        seconds for the login and the registration paths; ``account_limit``: login attempts per account;
        ``network``: a client address's network (the server's prefixes)."""
        self.app, self.inside, self.waiting_limit = app, inside, waiting
        self._network = network
        self.per_network = waiting if per_network is None else per_network
        self.body_timeout_s, self.max_wait_s = body_timeout_s, max_wait_s
        limits = network_limits or {}
        self._networks = {kind: Window(n, s, clock=clock) for kind, (n, s) in limits.items()}
        self._accounts = Window(*account_limit, clock=clock) if account_limit else None
        self._queues: collections.OrderedDict[str, collections.deque[asyncio.Future[None]]] = (
            collections.OrderedDict()
        )
        self.in_app = 0
        self.waiting = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] not in PASSWORD_PATHS:
            await self.app(scope, receive, send)
            return
        body = await self._body(scope, receive, send)
        if body is None:
            return
        login = scope["path"] in LOGIN_PATHS
        client = scope.get("client")
        network = self._network(client[0] if client else "?")
        account = _account(scope, body) if login else None
        refusal = self._refusal(network, account, login)
        if refusal is not None:
            await _answer(scope, send, 429, *refusal)
            return
        self._record(network, account, login)
        if not await self._enter(network):
            await _answer(scope, send, 429, "the server is busy checking passwords", QUEUE_FULL_RETRY_S)
            return
        try:
            await self.app(scope, _replay(body, receive), send)
        finally:
            self._leave()

    def _refusal(self, network: str, account: str | None, login: bool) -> tuple[str, float] | None:
        """Why this request is refused at once, and when to come back; None to let it queue."""
        window = self._networks.get("login" if login else "register")
        wait = window.retry_after(network) if window is not None else 0.0
        if wait:
            return f"too many {'login' if login else 'registration'} attempts from your network", wait
        wait = self._accounts.retry_after(account) if self._accounts is not None and account else 0.0
        if wait:
            return "too many login attempts for this account", wait
        queued = len(self._queues.get(network, ()))
        if self._full() and (self.waiting >= self.waiting_limit or queued >= self.per_network):
            return "the server is busy checking passwords", QUEUE_FULL_RETRY_S
        return None

    def _record(self, network: str, account: str | None, login: bool) -> None:
        window = self._networks.get("login" if login else "register")
        if window is not None:
            window.record(network)
        if self._accounts is not None and account:
            self._accounts.record(account)

    def _full(self) -> bool:
        return self.in_app >= self.inside or bool(self._queues)

    async def _enter(self, network: str) -> bool:
        """True once this request may go in: at once when there is room and nobody waits, else in its
        network's turn; False when that turn did not come within ``max_wait_s`` (it left the queue)."""
        if not self._full():
            self.in_app += 1
            return True
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queues.setdefault(network, collections.deque()).append(turn)
        self.waiting += 1
        try:
            await asyncio.wait({turn}, timeout=self.max_wait_s)
        except asyncio.CancelledError:
            if turn.done():
                self._leave()  # let in just as it was cancelled: pass the place on
            else:
                self._forget(network, turn)
            raise
        if turn.done():
            return True
        self._forget(network, turn)
        return False

    def _forget(self, network: str, turn: asyncio.Future[None]) -> None:
        queue = self._queues.get(network)
        if queue is not None and turn in queue:
            queue.remove(turn)
            self.waiting -= 1
            if not queue:
                del self._queues[network]

    def _leave(self) -> None:
        """One request left the app: let the next ones in, one network after another."""
        self.in_app -= 1
        while self.in_app < self.inside and self._queues:
            network, queue = next(iter(self._queues.items()))
            turn = queue.popleft()
            self.waiting -= 1
            if queue:
                self._queues.move_to_end(network)  # round-robin: this network goes to the back
            else:
                del self._queues[network]
            if not turn.done():
                self.in_app += 1
                turn.set_result(None)

    async def _body(self, scope: Any, receive: Any, send: Any) -> bytes | None:
        """The request's body, or None once it was answered (too large, too slow, or the client left)."""
        chunks, size = [], 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), self.body_timeout_s)
            except TimeoutError:
                await _answer(scope, send, 408, "the request body did not arrive in time", None, close=True)
                return None
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY:
                await _answer(scope, send, 413, "this request's body is too large", None, close=True)
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


def _account(scope: Any, body: bytes) -> str | None:
    """The username a login names (JSON from the API, a form from the page), lower-cased as the limits
    count it; None when it names none (the app then answers 422)."""
    content_type = dict(scope.get("headers") or []).get(b"content-type", b"").decode("latin-1")
    try:
        if "json" in content_type:
            value = json.loads(body)
            name = value.get("username") if isinstance(value, dict) else None
        else:
            name = parse_qs(body.decode("utf-8"), max_num_fields=20).get("username", [None])[0]
    except (ValueError, UnicodeDecodeError):
        return None
    return name.lower() if isinstance(name, str) else None


def _replay(body: bytes, receive: Any) -> Any:
    """A ``receive`` giving the app the body already read, then the connection's own messages."""
    given = False

    async def replay() -> dict[str, Any]:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return dict(await receive())

    return replay


TITLES = {408: "Request timeout", 413: "Request too large", 429: "Too many requests"}


async def _answer(
    scope: Any, send: Any, status: int, message: str, retry_s: float | None, *, close: bool = False
) -> None:
    """A refusal built here: the API's JSON ``detail`` or a small HTML page, ``Retry-After`` in whole
    seconds; no thread, template or database."""
    if retry_s is not None:
        message += f"; try again in {math.ceil(retry_s)} s"
    if scope["path"].startswith("/api/"):
        body, kind = json.dumps({"detail": message}).encode(), b"application/json"
    else:
        title, back = TITLES[status], html.escape(scope["path"])
        page = (
            f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
            f"<body><h1>{title}</h1><p>{html.escape(message)}</p>"
            f'<p><a href="{back}">Back</a></p></body></html>'
        )
        body, kind = page.encode(), b"text/html; charset=utf-8"
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
    if retry_s is not None:
        headers.append((b"retry-after", str(max(1, math.ceil(retry_s))).encode()))
    if close:
        headers.append((b"connection", b"close"))  # the unread body is never read: the connection ends
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
