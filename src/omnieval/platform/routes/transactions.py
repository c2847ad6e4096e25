"""One request, one transaction, committed in the thread that did the work.

FastAPI runs a sync endpoint in one threadpool call and validates its answer in another; a session
dependency is closed only after both. An endpoint that wrote (a row lock on PostgreSQL, the write lock on
SQLite) would then wait for a free request thread while holding its lock, and when every request thread is
itself waiting for that lock nothing moves: the server hangs (PostgreSQL) or answers 500 after the busy
timeout (SQLite). Committing at the end of the endpoint's own call releases every lock and the connection
before the request waits for anything else.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from fastapi.routing import APIRoute

__all__ = ["CommittingRoute", "committed"]


def committed(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """``endpoint`` (sync, with a ``session`` parameter) committing its session before it returns; anything
    else unchanged (an error leaves the rollback to the session dependency)."""
    if inspect.iscoroutinefunction(endpoint):
        return endpoint
    signature = inspect.signature(endpoint)
    if "session" not in signature.parameters:
        return endpoint

    @functools.wraps(endpoint)
    def run(*args: Any, **kwargs: Any) -> Any:
        result = endpoint(*args, **kwargs)
        signature.bind(*args, **kwargs).arguments["session"].commit()
        return result

    return run


class CommittingRoute(APIRoute):
    """The routers' route class: every sync endpoint with a session commits in its own thread call."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, committed(endpoint), **kwargs)
