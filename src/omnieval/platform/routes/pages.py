"""Server-rendered pages (Jinja2, no build step). A signed session cookie holds the user id and a CSRF
token; every form carries the token and every POST checks it."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from sqlalchemy import select

from omnieval.platform.errors import (
    AccountError,
    AnnotationError,
    Busy,
    DuplicateUpload,
    InvalidSubmission,
    NotFound,
    QuotaExceeded,
    UploadError,
)
from omnieval.platform.routes.api import SessionDep, SubmissionId, client_key, http_errors
from omnieval.platform.routes.api_annotation import ItemId
from omnieval.platform.routes.i18n import LANG_COOKIE, TEMPLATES_DIR, pick_language, translator
from omnieval.platform.routes.transactions import CommittingRoute, committed
from omnieval.platform.services import annotation, overview, publication
from omnieval.platform.services.accounts import (
    authenticate,
    create_user,
    issue_token,
    revoke_token,
    user_for_token,
)
from omnieval.platform.services.submissions import accept_upload
from omnieval.platform.storage.models import Benchmark, Submission, User

__all__ = ["router"]

router = APIRouter(include_in_schema=False, route_class=CommittingRoute)
templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
STATIC = Path(__file__).with_name("static")
"""The pages' stylesheet and script, served at ``/static/`` (no CDN)."""
templates.env.filters["datetime_utc"] = lambda t: time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t))
BOARD_COLUMNS = {"multi": ("model", "total", "attempted", "coverage", "image", "audio", "video")}
MODALITY_COLUMNS = ("model", "total", "attempted", "coverage")


def _csrf(request: Request) -> str:
    if "csrf" not in request.session:
        request.session["csrf"] = secrets.token_urlsafe(24)
    return str(request.session["csrf"])


def _check_csrf(request: Request, token: str) -> None:
    if not token or not secrets.compare_digest(token, request.session.get("csrf", "")):
        raise HTTPException(403, "invalid or missing CSRF token: reload the page and try again")


def _user(request: Request, session: Any) -> User | None:
    """The signed-in user: the cookie names a server-side session row, which logout deletes."""
    sid = request.session.get("sid")
    return user_for_token(session, sid, kind="web") if isinstance(sid, str) else None


def _sign_in(request: Request, session: Any, user: User) -> None:
    request.session.clear()
    request.session["sid"] = issue_token(
        session, user, kind="web", ttl_s=request.app.state.settings.session_ttl_s
    )


def _need(request: Request, session: Any, *roles: str) -> User:
    user = _user(request, session)
    if user is None:  # a GET is redirected to /login?next=... (see page_errors)
        raise HTTPException(401, "log in to open this page")
    if roles and user.role not in roles:
        raise HTTPException(403, f"only {' or '.join(roles)} accounts may open this page")
    return user


def page_context(request: Request, session: Any) -> dict[str, Any]:
    """What ``base.html`` needs on every page: the signed-in user (or None), the CSRF token, the language."""
    return {"user": _user(request, session), "csrf": _csrf(request)} | language_context(request)


def language_context(request: Request) -> dict[str, Any]:
    """The page language and its ``_``/``ngettext`` (see ``i18n``)."""
    return translator(_language(request)).context()


def _language(request: Request) -> str:
    return pick_language(
        query=request.query_params.get("lang"),
        cookie=request.cookies.get(LANG_COOKIE),
        accept=request.headers.get("accept-language"),
    )


DUPLICATE_MESSAGE = (
    "This zip holds the same answer files as your submission %(id)s: it would get the same scores "
    "(change the answers to submit again)."
)
PAGE_MESSAGES = (
    "Tick at least one board to publish on.",
    DUPLICATE_MESSAGE,
)
"""Messages the handlers put on pages (translated there with ``_``)."""
FLASHES = {
    "published": "Publication requested: a reviewer will look at it.",
    "approved": "Approved: the model is now on the boards you see below.",
    "rejected": "Rejected: the submitter sees your reason.",
    "saved": "Saved.",
}


def _render(
    request: Request, session: Any, name: str, status_code: int = 200, **context: Any
) -> HTMLResponse:
    context |= page_context(request, session)
    language = context["lang"]
    done = request.query_params.get("done")
    if done in FLASHES and "flash" not in context:
        context["flash"] = context["_"](FLASHES[done])
    response = templates.TemplateResponse(request, name, context, status_code=status_code)
    if request.query_params.get("lang") == language and request.cookies.get(LANG_COOKIE) != language:
        response.set_cookie(LANG_COOKIE, language, max_age=365 * 24 * 3600, samesite="lax", httponly=True)
    return response


def _local(target: str | None) -> str:
    """Where to go after logging in: a path on this site only (never ``//host`` or a scheme), else home."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")):
        return target
    return "/"


def _go(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


@router.get("/", response_class=HTMLResponse)
def home(request: Request, session: SessionDep) -> HTMLResponse:
    settings = request.app.state.settings
    benchmarks = session.scalars(select(Benchmark).order_by(Benchmark.name)).all()
    cards = [overview.benchmark_overview(session, settings, b) for b in benchmarks]
    return _render(request, session, "home.html", benchmarks=cards, boards=publication.BOARDS)


@router.get("/register", response_class=HTMLResponse)
def register_page(request: Request, session: SessionDep) -> HTMLResponse:
    return _render(request, session, "auth.html", heading="Register", action="/register")


@router.post("/register")
def register(
    request: Request,
    session: SessionDep,
    username: Annotated[str, Form()],
    password: Annotated[str, Form()],
    csrf: Annotated[str, Form()] = "",
) -> Response:
    _check_csrf(request, csrf)
    again = {"heading": "Register", "action": "/register"}
    if not request.app.state.limits["register"].allow(client_key(request)):
        return _render(
            request, session, "auth.html", 429, **again, error="too many registrations; try again later"
        )
    approval = request.app.state.settings.registration == "approval"
    try:
        user = create_user(
            session, username=username, password=password, approved=not approval, self_service=True
        )
    except (AccountError, Busy) as exc:
        return _render(request, session, "auth.html", 422, **again, error=str(exc), username=username)
    if approval:
        return _render(
            request, session, "auth.html", 202, **again, error="account created: an administrator approves it"
        )
    _sign_in(request, session, user)
    return _go("/submit")


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, session: SessionDep, next: str | None = None) -> HTMLResponse:
    return _render(request, session, "auth.html", heading="Log in", action="/login", next=_local(next))


@router.post("/login")
def login(
    request: Request,
    session: SessionDep,
    username: Annotated[str, Form()],
    password: Annotated[str, Form()],
    csrf: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/",
) -> Response:
    _check_csrf(request, csrf)
    again = {"heading": "Log in", "action": "/login", "next": _local(next), "username": username}
    limits = request.app.state.limits
    if not (
        limits["login"].allow(f"{username}|{client_key(request)}")
        and limits["login_client"].allow(client_key(request))
        and limits["login_account"].allow(username.lower())
    ):
        return _render(
            request, session, "auth.html", 429, **again, error="too many login attempts; wait a minute"
        )
    try:
        user = authenticate(session, username=username, password=password)
    except Busy as exc:
        return _render(request, session, "auth.html", 503, **again, error=str(exc))
    if user is None:
        return _render(request, session, "auth.html", 401, **again, error="wrong username or password")
    if not user.approved:
        return _render(
            request, session, "auth.html", 403, **again, error="this account is waiting for approval"
        )
    _sign_in(request, session, user)
    return _go(_local(next))


@router.post("/logout")
def logout(request: Request, session: SessionDep, csrf: Annotated[str, Form()] = "") -> Response:
    _check_csrf(request, csrf)
    user, sid = _user(request, session), request.session.get("sid")
    if user is not None and isinstance(sid, str):
        revoke_token(session, user, token=sid)  # a copy of the cookie is worthless from now on
    request.session.clear()
    return _go("/")


@router.get("/submit", response_class=HTMLResponse)
def submit_page(request: Request, session: SessionDep) -> HTMLResponse:
    _need(request, session)
    return _render(
        request, session, "submit.html", benchmarks=session.scalars(select(Benchmark)).all(), form={}
    )


@router.post("/submit")
def submit(
    request: Request,
    session: SessionDep,
    benchmark: Annotated[str, Form()],
    file: UploadFile,
    model: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    _check_csrf(request, csrf)
    user = _need(request, session)
    benchmarks = session.scalars(select(Benchmark)).all()
    form = {"benchmark": benchmark, "model": model}
    limits = request.app.state.limits
    if not (limits["upload"].allow(str(user.id)) and limits["upload_day"].allow(str(user.id))):
        error = "too many uploads; wait a minute"
        return _render(request, session, "submit.html", 429, benchmarks=benchmarks, error=error, form=form)
    try:
        row = accept_upload(
            session,
            request.app.state.settings,
            user,
            benchmark=benchmark,
            stream=file.file,
            model=model,
            client=client_key(request),
        )
    except QuotaExceeded as exc:
        return _render(request, session, "submit.html", 429, benchmarks=benchmarks, error=str(exc), form=form)
    except DuplicateUpload as exc:
        error = language_context(request)["_"](DUPLICATE_MESSAGE) % {"id": exc.earlier}
        return _render(request, session, "submit.html", 409, benchmarks=benchmarks, error=error, form=form)
    except InvalidSubmission as exc:
        report = json.dumps(exc.report, ensure_ascii=False, indent=1)
        lines = validation_errors(exc.report)
        return _render(
            request,
            session,
            "submit.html",
            422,
            benchmarks=benchmarks,
            error=str(exc),
            error_lines=lines,
            report=report,
            form=form,
        )
    except UploadError as exc:
        return _render(request, session, "submit.html", 422, benchmarks=benchmarks, error=str(exc), form=form)
    return _go(f"/submissions/{row.id}")


@router.get("/submissions", response_class=HTMLResponse)
def my_submissions(request: Request, session: SessionDep) -> HTMLResponse:
    user = _need(request, session)
    rows = session.scalars(
        select(Submission).where(Submission.user_id == user.id).order_by(Submission.id)
    ).all()
    views = [publication.submission_view(session, r, release=request.app.state.release) for r in rows]
    return _render(
        request, session, "submissions.html", heading="My submissions", submissions=views, link="/submissions"
    )


@router.get("/submissions/{submission_id}", response_class=HTMLResponse)
def submission_page(request: Request, session: SessionDep, submission_id: SubmissionId) -> HTMLResponse:
    user = _need(request, session)
    with http_errors():
        row = publication.get_submission(session, user, submission_id)
    return _submission(request, session, user, row)


def _submission(
    request: Request, session: Any, user: User, row: Submission, status_code: int = 200, **context: Any
) -> HTMLResponse:
    """The submission page: headline scores first, then the actions open to ``user``, then per-task tables."""
    reviewer = publication.can_review(user)
    view = publication.submission_view(session, row, release=request.app.state.release)
    context.setdefault("form", {})
    return _render(
        request,
        session,
        "submission.html",
        status_code,
        s=view,
        owner=row.user_id == user.id,
        reviewer=reviewer,
        logs=publication.log_files(session, user, row.id) if reviewer else None,
        boards=publication.BOARDS,
        headline=overview.headline(session, row),
        states=_states(row),
        **context,
    )


def _states(row: Submission) -> dict[str, int]:
    """Sample states summed over the submission's tasks (read through the results model)."""
    total: dict[str, int] = {}
    results = publication.stored_results(row)
    for block in results.tasks.values() if results is not None else ():
        for state, count in block.states.items():
            total[state] = total.get(state, 0) + count
    return {k: v for k, v in total.items() if v}


def validation_errors(report: Any, where: str = "") -> list[str]:
    """Every error of a validation report, one line each, prefixed by where it was found (task, file)."""
    lines: list[str] = []
    if isinstance(report, dict):
        for key, value in report.items():
            if key == "errors" and isinstance(value, list):
                lines += [f"{where}: {e}" if where else str(e) for e in value]
            elif isinstance(value, dict | list):
                lines += validation_errors(value, f"{where}/{key}" if where else str(key))
    elif isinstance(report, list):
        for value in report:
            lines += validation_errors(value, where)
    return lines


@router.get("/submissions/{submission_id}/logs/{name:path}", response_class=PlainTextResponse)
def log_page(
    request: Request, session: SessionDep, submission_id: SubmissionId, name: str
) -> PlainTextResponse:
    """A log file of the submission's logs_public.zip as plain text, for reviewers."""
    user = _need(request, session)
    with http_errors():
        return PlainTextResponse(publication.log_text(session, user, submission_id, name))


@router.post("/submissions/{submission_id}/publish")
async def publish(request: Request, session: SessionDep, submission_id: SubmissionId) -> Response:
    """Async only to read the form; the database work runs in the threadpool, never on the event loop (on
    SQLite a write waits for the write lock: up to ``busy_timeout``, while every other request would)."""
    from starlette.concurrency import run_in_threadpool

    form = await request.form()
    return await run_in_threadpool(_publish, request, session, submission_id, form)


@committed
def _publish(request: Request, session: Any, submission_id: int, form: Any) -> Response:
    _check_csrf(request, str(form.get("csrf", "")))
    user = _need(request, session)
    if not request.app.state.limits["publish"].allow(str(user.id)):
        raise HTTPException(429, "too many publication requests; wait a minute and try again")
    info = {
        k: str(form.get(k, "")).strip() for k in publication.MODEL_INFO_KEYS if str(form.get(k, "")).strip()
    }
    boards = [str(b) for b in form.getlist("boards")]
    try:
        with http_errors():
            publication.publish(session, user, submission_id, boards=boards, model_info=info)
    except HTTPException as exc:
        if exc.status_code != 409:
            raise
        row = publication.get_submission(session, user, submission_id)
        message = str(exc.detail) if boards else language_context(request)["_"](PAGE_MESSAGES[0])
        return _submission(request, session, user, row, 409, error=message, form={**info, "boards": boards})
    return _go(f"/submissions/{submission_id}?done=published")


@router.get("/reviews", response_class=HTMLResponse)
def reviews(request: Request, session: SessionDep, id: int | None = None) -> HTMLResponse:
    """The queue, and one request (``?id=N``, else the first) with its model information, scores, logs
    and the decision side by side (stacked on a phone)."""
    user = _need(request, session, "reviewer", "admin")
    rows = publication.review_queue(session)
    chosen = next((r for r in rows if r.id == id), rows[0] if rows else None)
    queue = [
        {**publication.submission_view(session, r, release=request.app.state.release), "flag": r.flag}
        for r in rows
    ]
    detail = None
    if chosen is not None:
        detail = {
            "s": publication.submission_view(session, chosen, release=request.app.state.release),
            "flag": chosen.flag,
            "logs": _request_logs(session, user, chosen),
            "headline": overview.headline(session, chosen),
        }
    return _render(request, session, "reviews.html", requests=queue, detail=detail)


def _request_logs(session: Any, user: User, row: Submission) -> list[dict[str, Any]] | None:
    """The logs' listing; None for a flagged submission nobody asked to publish (its logs stay private)."""
    try:
        return publication.log_files(session, user, row.id)
    except NotFound:
        return None


@router.post("/reviews/{submission_id}")
def review(
    request: Request,
    session: SessionDep,
    submission_id: SubmissionId,
    decision: Annotated[str, Form()],
    comment: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    _check_csrf(request, csrf)
    user = _need(request, session, "reviewer", "admin")
    with http_errors():
        publication.review(session, user, submission_id, decision=decision, comment=comment)
    return _go(f"/reviews?done={'approved' if decision == 'approve' else 'rejected'}")


@router.get("/boards/{benchmark}/{board}", response_class=HTMLResponse)
def board_page(
    request: Request,
    session: SessionDep,
    benchmark: str,
    board: str,
    sort: str | None = None,
    order: str = "desc",
    q: str | None = None,
) -> HTMLResponse:
    with http_errors(refused=422):
        data = publication.board(session, benchmark, board, sort=sort, order=order, query=q)
    columns = BOARD_COLUMNS.get(board, MODALITY_COLUMNS)
    return _render(request, session, "board.html", b=data, columns=columns, sort=sort, order=order, q=q)


@router.get("/models/{submission_id}", response_class=HTMLResponse)
def model_page(request: Request, session: SessionDep, submission_id: SubmissionId) -> HTMLResponse:
    with http_errors():
        data = publication.model_page(session, submission_id)
    row = session.get(Submission, submission_id)
    history = overview.model_history(session, row) if row is not None else []
    headline = overview.headline(session, row) if row is not None else {}
    return _render(request, session, "model.html", m=data, headline=headline, history=history)


@router.get("/annotate", response_class=HTMLResponse)
def annotate_page(request: Request, session: SessionDep, saved: bool = False) -> HTMLResponse:
    user = _need(request, session, "annotator", "admin")
    item = annotation.next_item(session, user)
    return _render(
        request,
        session,
        "annotate.html",
        item=None if item is None else annotation.item_view(item),
        saved=saved,
        progress=annotation.my_progress(session, user),
    )


@router.post("/annotate/{item_pk}")
def annotate(
    request: Request,
    session: SessionDep,
    item_pk: ItemId,
    score: Annotated[str, Form()],
    rationale: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    _check_csrf(request, csrf)
    user = _need(request, session, "annotator", "admin")
    value = None if score == "NA" else int(score) if score.lstrip("-").isdigit() else -999
    try:
        annotation.record_score(session, user, item_pk, score=value, rationale=rationale)
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from None
    except AnnotationError as exc:
        item = session.get(annotation.AnnotationItem, item_pk)
        view = annotation.item_view(item) if item else None
        form = {"score": score, "rationale": rationale}
        progress = annotation.my_progress(session, user)
        return _render(
            request, session, "annotate.html", 422, item=view, error=str(exc), form=form, progress=progress
        )
    return _go("/annotate?saved=true")


@router.get("/annotation/progress", response_class=HTMLResponse)
def progress_page(request: Request, session: SessionDep) -> HTMLResponse:
    _need(request, session, "admin")
    return _render(request, session, "progress.html", p=annotation.progress(session))


@router.get("/annotation/export", response_class=PlainTextResponse)
def export(request: Request, session: SessionDep) -> str:
    _need(request, session, "admin")
    return annotation.export_jsonl(session)
