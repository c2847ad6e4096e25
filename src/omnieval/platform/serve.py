"""Run the platform under uvicorn, in one process or several (``omnieval serve --workers N``).

Several worker processes share everything through the database (rate limits, board versions, the job
queue) and the data dir, so they behave as one server. Migrations and the session key are made once in
the parent before any worker starts; each worker then builds its own app from the same settings.
"""

from __future__ import annotations

import functools
import inspect

from omnieval.errors import ConfigError
from omnieval.platform.settings import Settings

__all__ = ["GRACEFUL_STOP_S", "serve"]

GRACEFUL_STOP_S = 5
"""On SIGTERM open requests get this long, then are cancelled: a request stuck on a lock never holds the
stop up (the lifespan then kills the scoring child)."""
KEEP_ALIVE_S = 5
"""An idle kept-alive connection is closed after this."""


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
            timeout_graceful_shutdown=GRACEFUL_STOP_S,
            timeout_keep_alive=KEEP_ALIVE_S,
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
        timeout_graceful_shutdown=GRACEFUL_STOP_S,
        timeout_keep_alive=KEEP_ALIVE_S,
    )
    server = uvicorn.Server(config)
    extra = (
        {"target": server.run} if "target" in inspect.signature(Multiprocess).parameters else {}
    )  # uvicorn < 0.30
    Multiprocess(config, sockets=[config.bind_socket()], **extra).run()
