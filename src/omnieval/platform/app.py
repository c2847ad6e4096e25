"""The FastAPI application: migrations on start, the scoring worker, API and pages."""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from omnieval.platform.settings import Settings

__all__ = ["create_app"]

log = logging.getLogger("omnieval.platform")


def _sweep(db: Any, settings: Settings) -> None:
    """Remove uploads left by a crash between their copy and their commit (refused ones never stay)."""
    from sqlalchemy import select

    from omnieval.platform.storage.files import sweep_orphans
    from omnieval.platform.storage.models import Submission

    with db.session() as session:
        referenced = set(session.scalars(select(Submission.upload)))
    gone = sweep_orphans(referenced, settings, now=time.time())
    if gone:
        log.warning("removed %d orphaned upload file(s)", len(gone))


def _size_request_threads() -> None:
    """The event loop's request threads: as many as the database pool serves at once (``REQUEST_THREADS``)."""
    import anyio.to_thread

    from omnieval.platform.storage.db import REQUEST_THREADS

    anyio.to_thread.current_default_thread_limiter().total_tokens = REQUEST_THREADS


def create_app(settings: Settings) -> Any:
    from fastapi import FastAPI
    from fastapi.staticfiles import StaticFiles
    from starlette.middleware.sessions import SessionMiddleware

    from omnieval.platform.routes import api, api_annotation, pages
    from omnieval.platform.routes.body_limit import BodyLimit
    from omnieval.platform.routes.login_gate import LoginGate
    from omnieval.platform.routes.page_errors import install_error_handlers
    from omnieval.platform.routes.security_headers import SecurityHeaders
    from omnieval.platform.routes.upload_gate import UploadGate
    from omnieval.platform.services.accounts import use_hashing
    from omnieval.platform.services.jobs import Worker
    from omnieval.platform.services.ratelimit import RateLimiter
    from omnieval.platform.services.submissions import settings_network
    from omnieval.platform.storage.db import Database

    db = Database(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        from omnieval.registry import load_plugins

        # complete before the first request is accepted: no request sees a half-loaded registry
        load_plugins()
        _size_request_threads()
        use_hashing(workers=settings.hash_workers, nice=settings.hash_nice)
        _sweep(db, settings)
        worker = Worker(db, settings) if settings.worker else None
        if worker:
            worker.start()
        yield
        if worker:
            worker.stop()

    app = FastAPI(title="omnieval platform", version="1", lifespan=lifespan)
    app.state.settings, app.state.db = settings, db
    release_key = hashlib.sha256(f"score release\0{settings.secret_key()}".encode()).digest()
    app.state.release = (release_key, settings.policy)  # what ``publication.submission_view`` needs
    app.state.limits = {  # in the database: shared by every server process
        kind: RateLimiter(db, kind=kind, limit=limit, window_s=window_s)
        for kind, (limit, window_s) in {
            "login": settings.login_limit,
            "upload": settings.upload_limit,
            "upload_day": settings.upload_day_limit,
            "register": settings.register_limit,
            "login_client": settings.login_client_limit,
            "login_account": settings.login_account_limit,
            "publish": settings.publish_limit,
        }.items()
    }
    app.add_middleware(
        UploadGate, db=db, settings=settings
    )  # inside the session middleware: reads its cookie
    app.add_middleware(
        SessionMiddleware,
        secret_key=settings.secret_key(),
        same_site="strict",
        https_only=settings.secure_cookies,
        max_age=int(settings.session_ttl_s),
    )
    install_error_handlers(app)  # JSON under /api/, HTML pages elsewhere
    app.add_middleware(
        BodyLimit, max_bytes=settings.max_upload_bytes
    )  # before the multipart parser reads a byte
    app.add_middleware(  # outside the sessions and the body limit: a refused login costs no more than this
        LoginGate,
        inside=settings.login_inside,
        waiting=settings.login_waiting,
        per_network=settings.login_waiting_per_network,
        network_limits={"login": settings.login_client_limit, "register": settings.register_limit},
        account_limit=settings.login_account_limit,
        body_timeout_s=settings.body_timeout_s,
        max_wait_s=settings.login_wait_s,
        network=functools.partial(settings_network, settings),
    )
    app.add_middleware(SecurityHeaders)  # outermost: every answer carries the headers, errors included
    app.include_router(api.router)
    app.include_router(api_annotation.router)
    app.include_router(pages.router)
    app.mount(
        "/static", StaticFiles(directory=pages.STATIC), name="static"
    )  # the pages' stylesheet and script: no CDN
    return app
