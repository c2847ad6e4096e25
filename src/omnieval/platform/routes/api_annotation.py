"""REST endpoints of expert annotation: load triples (admin), next triple and scoring (annotators), progress
and export (admin)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from omnieval.platform.errors import AnnotationError
from omnieval.platform.routes.api import SessionDep, UserDep
from omnieval.platform.routes.api_errors import errors
from omnieval.platform.routes.transactions import CommittingRoute
from omnieval.platform.services import annotation
from omnieval.platform.storage.models import User

__all__ = ["router"]

router = APIRouter(prefix="/api/v1/annotation", route_class=CommittingRoute)
ItemId = Annotated[int, Path(ge=1, le=2**31 - 1)]


class TripleBatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[annotation.Triple] = Field(max_length=10_000)


class ScoreBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    score: int | None = Field(default=None, ge=-100, le=100)
    rationale: str = Field(max_length=10_000)


def _require(user: User, *roles: str) -> None:
    if user.role not in roles:
        raise HTTPException(403, f"only {' or '.join(roles)} accounts may do this")


@router.post("/items", responses=errors(400, 401, 403, 422))
def load_items(body: TripleBatch, session: SessionDep, user: UserDep) -> dict[str, int]:
    _require(user, "admin")
    return {"loaded": annotation.load_triples(session, body.items)}


@router.get("/next", responses=errors(401, 403))
def next_triple(session: SessionDep, user: UserDep) -> dict[str, Any]:
    _require(user, "annotator", "admin")
    item = annotation.next_item(session, user)
    return {"item": None if item is None else annotation.item_view(item)}


@router.post("/items/{item_pk}/scores", status_code=201, responses=errors(400, 401, 403, 404, 422))
def score(item_pk: ItemId, body: ScoreBody, session: SessionDep, user: UserDep) -> dict[str, Any]:
    _require(user, "annotator", "admin")
    try:
        row = annotation.record_score(session, user, item_pk, score=body.score, rationale=body.rationale)
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from None
    except AnnotationError as exc:
        raise HTTPException(422, str(exc)) from None
    return {"id": row.id, "score": row.score}


@router.get("/progress", responses=errors(401, 403))
def progress(session: SessionDep, user: UserDep) -> dict[str, Any]:
    _require(user, "admin")
    return annotation.progress(session)


@router.get("/export", response_class=PlainTextResponse, responses=errors(401, 403, 422, text=True))
def export(session: SessionDep, user: UserDep, rationales: bool = False) -> str:
    """JSON lines ``{item_id, criterion, annotator, score}`` (``rationales=true`` adds the comments)."""
    _require(user, "admin")
    return annotation.export_jsonl(session, rationales=rationales)
