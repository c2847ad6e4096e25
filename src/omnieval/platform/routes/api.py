"""The REST API under ``/api/v1`` (JSON bodies, bearer tokens). Its OpenAPI schema is at ``/openapi.json``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, HTTPException, Path, Request, UploadFile
from fastapi.responses import PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import select
from sqlalchemy.orm import Session

from omnieval.platform.errors import (
    AccountError,
    Busy,
    DuplicateUpload,
    Forbidden,
    InvalidSubmission,
    NotFound,
    QuotaExceeded,
    UploadError,
)
from omnieval.platform.routes.api_errors import errors
from omnieval.platform.routes.transactions import CommittingRoute
from omnieval.platform.services import publication
from omnieval.platform.services.accounts import (
    USERNAME,
    authenticate,
    create_user,
    list_tokens,
    new_token,
    revoke_all,
    revoke_token,
    user_for_token,
)
from omnieval.platform.services.submissions import accept_upload, settings_network
from omnieval.platform.storage.models import Benchmark, Submission, User

__all__ = ["router"]

router = APIRouter(prefix="/api/v1", route_class=CommittingRoute)
bearer = HTTPBearer(auto_error=False)


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")
    username: str = Field(min_length=3, max_length=64, pattern=USERNAME.pattern)
    """As the accounts accept them: the schema says what a 422 would (an empty name was schema-valid)."""
    password: str = Field(max_length=256)


class PublishRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    boards: list[str] = Field(max_length=4)
    model_info: dict[str, Any] = Field(default_factory=dict, max_length=16)

    @field_validator("model_info")
    @classmethod
    def _small(cls, value: dict[str, Any]) -> dict[str, Any]:
        publication.check_model_info(value)
        return value


class ReviewRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decision: str
    comment: str = Field(default="", max_length=5000)


def get_session(request: Request) -> Iterator[Session]:
    with request.app.state.db.request_session() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session, scope="function")]
"""Committed before the response is sent: a redirect's follow-up GET must see what the POST wrote."""


def current_user(
    session: SessionDep, creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
) -> User:
    user = user_for_token(session, creds.credentials) if creds is not None else None
    session.commit()  # the connection goes back to the pool before the request waits for a thread
    if user is None:
        raise HTTPException(401, "missing or invalid token", headers={"WWW-Authenticate": "Bearer"})
    return user


UserDep = Annotated[User, Depends(current_user)]
SubmissionId = Annotated[int, Path(ge=1, le=2**31 - 1)]
"""Ids are 32-bit database integers: larger ones are a 422, never an overflow."""


@contextmanager
def http_errors(*, refused: int = 409) -> Iterator[None]:
    """Service errors as HTTP answers: not found 404, forbidden 403, a refused request ``refused``."""
    try:
        yield
    except NotFound as exc:
        raise HTTPException(404, str(exc)) from None
    except Forbidden as exc:
        raise HTTPException(403, str(exc)) from None
    except ValueError as exc:
        raise HTTPException(refused, str(exc)) from None


def _limited(request: Request, kind: str, key: str) -> None:
    if not request.app.state.limits[kind].allow(key):
        raise HTTPException(429, f"too many {kind} attempts; wait a minute and try again")


def client_key(request: Request) -> str:
    """The client's network, as the per-client limits and the probe detector count it: an IPv4 address's
    /24, an IPv6 address's /48 (``Settings.ipv6_network_prefix``: a /64 is one host's, a /48 a free
    tunnel's)."""
    return settings_network(request.app.state.settings, request.client.host if request.client else "?")


@router.post("/auth/register", status_code=201, responses=errors(400, 409, 422, 429, 503))
def register(body: Credentials, request: Request, session: SessionDep) -> dict[str, Any]:
    _limited(request, "register", client_key(request))
    approval = request.app.state.settings.registration == "approval"
    try:
        user = create_user(
            session, username=body.username, password=body.password, approved=not approval, self_service=True
        )
    except Busy as exc:
        raise HTTPException(503, str(exc), headers={"Retry-After": "5"}) from None
    except AccountError as exc:
        raise HTTPException(409 if "taken" in str(exc) else 422, str(exc)) from None
    return {"id": user.id, "username": user.username, "role": user.role}


@router.post("/auth/token", responses=errors(400, 401, 403, 422, 429, 503))
def token(body: Credentials, request: Request, session: SessionDep) -> dict[str, Any]:
    _limited(request, "login", f"{body.username}|{client_key(request)}")
    _limited(request, "login_client", client_key(request))  # a spray over many usernames from one client
    _limited(request, "login_account", body.username.lower())  # one account sprayed from many clients
    try:
        user = authenticate(session, username=body.username, password=body.password)
    except Busy as exc:
        raise HTTPException(503, str(exc), headers={"Retry-After": "5"}) from None
    if user is None:
        raise HTTPException(401, "wrong username or password")
    if not user.approved:
        raise HTTPException(403, "this account is waiting for an administrator's approval")
    row, text = new_token(session, user, kind="api", ttl_s=request.app.state.settings.token_ttl_s)
    return {"token": text, "id": row.id, "expires_at": row.expires_at}


@router.get("/auth/tokens", responses=errors(401))
def tokens(session: SessionDep, user: UserDep) -> dict[str, Any]:
    """Your API tokens (ids, creation and expiry times; never the tokens themselves)."""
    return {"tokens": list_tokens(session, user)}


@router.delete("/auth/tokens/{token_id}", status_code=204, responses=errors(401, 404, 422))
def revoke(token_id: SubmissionId, session: SessionDep, user: UserDep) -> None:
    """Revoke one of your API tokens (the one in use included)."""
    if not revoke_token(session, user, token_id=token_id):
        raise HTTPException(404, f"token {token_id} not found")


@router.delete("/auth/tokens", responses=errors(401))
def revoke_everywhere(session: SessionDep, user: UserDep) -> dict[str, int]:
    """Log out everywhere: every API token and page session of yours ends."""
    return {"revoked": revoke_all(session, user)}


@router.get("/me", responses=errors(401))
def me(user: UserDep) -> dict[str, Any]:
    return {"id": user.id, "username": user.username, "role": user.role}


@router.get("/benchmarks")
def benchmarks(session: SessionDep) -> dict[str, Any]:
    rows = session.scalars(select(Benchmark).order_by(Benchmark.name)).all()
    return {
        "benchmarks": [
            {"name": b.name, "format": b.format, "tasks": b.tasks, "boards": list(publication.BOARDS)}
            for b in rows
        ]
    }


@router.post("/submissions", status_code=202, responses=errors(400, 401, 408, 409, 411, 413, 422, 429))
def submit(
    request: Request,
    session: SessionDep,
    user: UserDep,
    file: Annotated[UploadFile, File()],
    benchmark: Annotated[
        str, Form(max_length=64, description="required; an empty one is a 422 that says so")
    ] = "",
    model: Annotated[str, Form(max_length=128)] = "",
) -> dict[str, int]:
    _limited(request, "upload", str(user.id))
    _limited(request, "upload_day", str(user.id))
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
        raise HTTPException(429, str(exc)) from None
    except DuplicateUpload as exc:
        raise HTTPException(409, str(exc)) from None
    except InvalidSubmission as exc:
        raise HTTPException(422, {"message": str(exc), "report": exc.report}) from None
    except UploadError as exc:
        raise HTTPException(413 if "limit" in str(exc) else 422, str(exc)) from None
    return {"id": row.id}


@router.get("/submissions", responses=errors(401))
def my_submissions(request: Request, session: SessionDep, user: UserDep) -> dict[str, Any]:
    rows = session.scalars(
        select(Submission).where(Submission.user_id == user.id).order_by(Submission.id)
    ).all()
    return {
        "submissions": [
            publication.submission_view(session, r, release=request.app.state.release) for r in rows
        ]
    }


@router.get("/submissions/{submission_id}", responses=errors(401, 404, 422))
def get_submission(
    submission_id: SubmissionId, request: Request, session: SessionDep, user: UserDep
) -> dict[str, Any]:
    with http_errors():
        return publication.submission_view(
            session,
            publication.get_submission(session, user, submission_id),
            release=request.app.state.release,
        )


@router.post(
    "/submissions/{submission_id}/publish", status_code=202, responses=errors(400, 401, 404, 409, 422, 429)
)
def publish(
    submission_id: SubmissionId, body: PublishRequest, request: Request, session: SessionDep, user: UserDep
) -> dict[str, Any]:
    _limited(request, "publish", str(user.id))
    with http_errors():
        row = publication.publish(
            session, user, submission_id, boards=body.boards, model_info=body.model_info
        )
    return {"id": row.id, "publication": row.publication, "boards": row.boards}


@router.get("/reviews", responses=errors(401, 403))
def review_queue(request: Request, session: SessionDep, user: UserDep) -> dict[str, Any]:
    if not publication.can_review(user):
        raise HTTPException(403, "only reviewers and admins review submissions")
    return {
        "submissions": [
            publication.submission_view(session, r, release=request.app.state.release) | {"flag": r.flag}
            for r in publication.review_queue(session)
        ]
    }


@router.post("/reviews/{submission_id}", responses=errors(400, 401, 403, 404, 409, 422))
def review(
    submission_id: SubmissionId, body: ReviewRequest, session: SessionDep, user: UserDep
) -> dict[str, Any]:
    with http_errors():
        row = publication.review(session, user, submission_id, decision=body.decision, comment=body.comment)
    return {"id": row.id, "publication": row.publication, "comment": row.review_comment}


@router.get("/reviews/{submission_id}/logs", responses=errors(401, 403, 404, 422))
def review_logs(submission_id: SubmissionId, session: SessionDep, user: UserDep) -> dict[str, Any]:
    """The files of the submission's logs_public.zip (reviewers and admins)."""
    with http_errors():
        return {"id": submission_id, "files": publication.log_files(session, user, submission_id)}


@router.get(
    "/reviews/{submission_id}/logs/{name:path}",
    response_class=PlainTextResponse,
    responses=errors(401, 403, 404, 422, text=True),
)
def review_log(submission_id: SubmissionId, name: str, session: SessionDep, user: UserDep) -> str:
    """One log file as text (reviewers and admins)."""
    with http_errors():
        return publication.log_text(session, user, submission_id, name)


@router.get("/boards/{benchmark}/{board}", responses=errors(404, 422))
def board(
    benchmark: str,
    board: str,
    session: SessionDep,
    sort: str | None = None,
    order: str = "desc",
    q: str | None = None,
) -> dict[str, Any]:
    with http_errors(refused=422):
        return publication.board(session, benchmark, board, sort=sort, order=order, query=q)


@router.get("/models/{submission_id}", responses=errors(404, 422))
def model(submission_id: SubmissionId, session: SessionDep) -> dict[str, Any]:
    with http_errors():
        return publication.model_page(session, submission_id)
