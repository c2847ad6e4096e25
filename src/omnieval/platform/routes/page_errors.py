"""Error answers by audience: the REST API under ``/api/`` keeps FastAPI's JSON bodies; the browser pages get
an HTML page (``error.html``) with the same status code, a human message and a link onwards.

An anonymous visitor who GETs a page that needs an account is redirected (303) to ``/login?next=PATH``
rather than shown a 401, the usual web-app convention; any other method gets the 401 page with a login link.
No answer of either kind carries a traceback or an exception's text beyond the ``detail`` a route chose.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler, request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Mount

__all__ = ["allowed_methods", "error_answer", "install_error_handlers"]

log = logging.getLogger("omnieval.platform")

TITLES = {
    400: "Bad request",
    401: "Please log in",
    403: "Access denied",
    404: "Page not found",
    405: "Method not allowed",
    409: "Request refused",
    411: "Length required",
    413: "Upload too large",
    422: "Invalid request",
    429: "Too many requests",
    500: "Something went wrong",
}
_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")
_STARLETTE_DETAILS = {
    "Not Found": "there is no such page",
    "Method Not Allowed": "this page does not take that method",
}


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _render(request: Request, status: int, message: str) -> Response:
    """``error.html`` with the visitor's nav bar (when their session and the database can be read).

    It reads the database: the async handlers call it in the threadpool, never on the event loop."""
    from omnieval.platform.routes.pages import language_context, page_context, templates

    context: dict[str, Any] = {
        "status": status,
        "title": TITLES.get(status, "Error"),
        "message": message,
        "login": f"/login?next={quote(_here(request))}" if status == 401 else None,
    }
    try:
        with request.app.state.db.session() as session:
            context |= page_context(request, session)
            return templates.TemplateResponse(request, "error.html", context, status_code=status)
    except Exception as exc:  # no session middleware (a 500) or no database: render without the nav's user
        log.debug("error page without a user: %s", type(exc).__name__)
        context |= {"user": None, "csrf": ""} | language_context(request)
        return templates.TemplateResponse(request, "error.html", context, status_code=status)


def _here(request: Request) -> str:
    return request.url.path + (f"?{request.url.query}" if request.url.query else "")


def allowed_methods(request: Request) -> str | None:
    """Every method some route takes at this path (``None`` under a mount: its app answers for itself).
    Starlette's 405 names only the first route whose path matched (``GET`` for ``/api/v1/auth/tokens``,
    which ``DELETE`` serves too); ``Allow`` must list all. Each route is asked whether it would take each
    method, so routes nested in included routers count too."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, Mount):
            continue
        methods |= {m for m in _METHODS if route.matches({**request.scope, "method": m})[0] == Match.FULL}
    return ", ".join(sorted(methods)) or None


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 405 and (allow := allowed_methods(request)):
        exc.headers = {**(exc.headers or {}), "Allow": allow}
    if _is_api(request):
        return await http_exception_handler(request, exc)
    if exc.status_code == 401 and request.method in ("GET", "HEAD"):
        return RedirectResponse(f"/login?next={quote(_here(request))}", status_code=303)
    detail = str(exc.detail) if exc.detail else TITLES.get(exc.status_code, "error")
    page = await run_in_threadpool(_render, request, exc.status_code, _STARLETTE_DETAILS.get(detail, detail))
    page.headers.update(exc.headers or {})  # a 405's Allow, a 401's WWW-Authenticate
    return page


def error_answer(request: Request, status: int, message: str) -> Response:
    """An error answered outside the routes (middleware): ``{"detail"}`` under /api/, else the error page."""
    if _is_api(request):
        return JSONResponse({"detail": message}, status_code=status)
    return _render(request, status, message)


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    if _is_api(request):
        return await request_validation_exception_handler(request, exc)
    return await run_in_threadpool(
        _render, request, 422, "the address or the form holds a value of the wrong kind"
    )


async def _internal(request: Request, exc: Exception) -> Response:
    log.error("internal error: %s", type(exc).__name__)  # never the message: it could quote data
    return await run_in_threadpool(_internal_answer, request)


def _internal_answer(request: Request) -> Response:
    if _is_api(request):
        return JSONResponse({"detail": "internal error"}, status_code=500)
    return _render(request, 500, "internal error; the server log names its kind")


class ContainFailures:
    """Answer an unexpected exception here, logging only its type.

    Starlette's outermost error middleware re-raises every exception after its handler ran, so that the
    server logs it, and uvicorn then logs the whole traceback with the exception's message, which could
    quote a hidden answer. Caught here, inside that middleware, nothing is re-raised.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            log.error("internal error: %s", type(exc).__name__)  # never the message: it could quote data
            if not started:  # otherwise the answer is cut short; the client sees a broken response
                await _internal_answer(Request(scope, receive))(scope, receive, send)


def install_error_handlers(app: FastAPI) -> None:
    """JSON for ``/api/``, HTML pages elsewhere, for HTTP errors, bad parameters and unexpected failures."""
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _internal)
    app.add_middleware(ContainFailures)
