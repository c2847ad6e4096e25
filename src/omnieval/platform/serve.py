"""Run the platform under uvicorn, in one process or several (``omnieval serve --workers N``).

Several worker processes share everything through the database (rate limits, board versions, the job
queue) and the data dir, so they behave as one server. Migrations and the session key are made once in
the parent before any worker starts; each worker then builds its own app from the same settings.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from omnieval.errors import ConfigError
from omnieval.platform.settings import Settings

__all__ = ["GRACEFUL_STOP_S", "serve", "uvicorn_options"]

GRACEFUL_STOP_S = 5
"""On SIGTERM open requests get this long, then are cancelled: a request stuck on a lock never holds the
stop up (the lifespan then kills the scoring child)."""
KEEP_ALIVE_S = 5
"""An idle kept-alive connection is closed after this."""


class HeaderTimeoutH11(H11Protocol):  # type: ignore[misc]
    """uvicorn's h11 protocol closing a connection whose request headers are not complete within
    ``header_timeout_s`` of its opening or of its last response (1,100 idle connections exhausted the
    server's file descriptors; uvicorn times out only the idle time after a response). Module-level and
    bound with ``functools.partial``: ``--workers`` pickles it into each worker."""

    def __init__(self, *args: Any, header_timeout_s: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout_s = header_timeout_s

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def _arm(self) -> None:
        self.loop.call_later(self.header_timeout_s, self._expire, self.cycle)

    def _expire(self, armed_at: Any) -> None:
        if self.cycle is armed_at and not self.transport.is_closing():
            self.transport.close()  # no request began since the timer was armed


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """What every way of serving the app passes to uvicorn: the stop and connection timeouts."""
    return {
        "timeout_graceful_shutdown": GRACEFUL_STOP_S,
        "timeout_keep_alive": KEEP_ALIVE_S,
        "http": functools.partial(HeaderTimeoutH11, header_timeout_s=settings.header_timeout_s),
        "proxy_headers": bool(settings.trusted_proxies),
        "forwarded_allow_ips": list(settings.trusted_proxies) or None,
    }


def serve(settings: Settings, *, host: str, port: int, workers: int = 1) -> None:
    """Serve until interrupted; ``workers`` > 1 starts that many processes on one listening socket."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from omnieval.platform.app import create_app

    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")
    app = create_app(settings)  # migrations, session key, database check: once, before any worker starts
    if workers == 1:
        uvicorn.run(
            app,
            host=host,
            port=port,
            log_level="info",
            **uvicorn_options(settings),
        )
        return
    app.state.db.dispose()
    # uvicorn.run() wants an import string for workers; a picklable factory carries the settings instead.
    factory = functools.partial(create_app, settings)
    config = uvicorn.Config(
        factory,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="info",
        **uvicorn_options(settings),
    )
    server = uvicorn.Server(config)
    extra = (
        {"target": server.run} if "target" in inspect.signature(Multiprocess).parameters else {}
    )  # uvicorn < 0.30
    Multiprocess(config, sockets=[config.bind_socket()], **extra).run()
