"""POLLUX-style expert annotation: triples routed to panels with a target overlap, scored with rationales.

The rationale rule is POLLUX App. B, as the POLLUX suite implements it (Russian, at least two words, one
word only for the perfect score); a criterion's perfect score is its scale maximum unless the triple says
otherwise (Critical criteria: 0).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from omnieval.platform.errors import AnnotationError
from omnieval.platform.storage.models import AnnotationItem, AnnotationScore, User

__all__ = [
    "Triple",
    "export_jsonl",
    "export_rows",
    "load_triples",
    "my_progress",
    "next_item",
    "progress",
    "rationale_problem",
    "record_score",
]


class Triple(BaseModel):
    """One (instruction, answer, criterion) triple as an admin loads it; the criterion travels as data."""

    model_config = ConfigDict(extra="forbid")
    item_id: str = Field(min_length=1, max_length=128)
    criterion: str = Field(min_length=1, max_length=255)
    panel: str = Field(min_length=1, max_length=64)
    overlap: int = Field(default=2, ge=1, le=20)
    instruction: str
    answer: str
    reference: str | None = None
    description: str = ""
    rubric: dict[str, str] = Field(default_factory=dict)
    scale: list[int] = Field(default_factory=lambda: [0, 1, 2], min_length=1, max_length=11)
    allow_na: bool = True
    perfect: StrictInt | None = None
    """Strict: ``false`` is not a score (lax validation read it as 0)."""


def rationale_problem(text: str, *, score: int | None, perfect: int) -> str | None:
    """Why a rationale breaks POLLUX App. B, or None: the rule of ``omnieval.benchmarks.pollux``."""
    from omnieval.benchmarks.pollux.rationale import rationale_problem as pollux_rule

    return pollux_rule(text, score=score, perfect=perfect)


LOOKUP_CHUNK = 500
"""Item ids per lookup query when loading triples (bound parameters stay well under SQLite's limit)."""


def load_triples(session: Session, triples: list[Triple]) -> int:
    """Add (or update) triples; returns how many. The stored ones are read in a few queries, not one per
    triple: 10,000 triples one query each (with a flush before each) held a request over 10 s."""
    ids = sorted({t.item_id for t in triples})
    stored: dict[tuple[str, str], AnnotationItem] = {}
    for start in range(0, len(ids), LOOKUP_CHUNK):
        chunk = ids[start : start + LOOKUP_CHUNK]
        for item in session.scalars(select(AnnotationItem).where(AnnotationItem.item_id.in_(chunk))):
            stored[(item.item_id, item.criterion)] = item
    with session.no_autoflush:
        for t in triples:
            values = t.model_dump(exclude={"perfect"})
            rubric = dict(values.pop("rubric"))
            if t.perfect is not None:
                rubric["__perfect__"] = str(t.perfect)
            row = stored.get((t.item_id, t.criterion))
            if row is None:  # new (a triple repeated in the batch updates this one: last wins)
                added = AnnotationItem(**values, rubric=rubric)
                stored[(t.item_id, t.criterion)] = added
                session.add(added)
            else:
                for key, value in values.items():
                    setattr(row, key, value)
                row.rubric = rubric
    return len(triples)


def perfect_of(item: AnnotationItem) -> int:
    return int(item.rubric.get("__perfect__", max(item.scale)))


def _done(session: Session) -> dict[int, int]:
    rows = session.execute(
        select(AnnotationScore.item_pk, func.count()).group_by(AnnotationScore.item_pk)
    ).all()
    return {int(pk): int(n) for pk, n in rows}


def routed(user: User, item: AnnotationItem) -> bool:
    """Annotators see their panel's triples; admins see every panel."""
    return user.role == "admin" or (user.role == "annotator" and user.panel == item.panel)


def next_item(session: Session, user: User) -> AnnotationItem | None:
    """The routed triple furthest from its overlap target that this annotator has not scored."""
    open_items, done = _open_items(session, user)
    return min(open_items, key=lambda i: (done.get(i.id, 0), i.id), default=None)


def my_progress(session: Session, user: User) -> dict[str, int]:
    """What the annotator sees above an item: triples still open to them and those they scored."""
    open_items, _ = _open_items(session, user)
    scored = session.scalar(select(func.count(AnnotationScore.id)).where(AnnotationScore.user_id == user.id))
    return {"open": len(open_items), "scored": int(scored or 0)}


def _open_items(session: Session, user: User) -> tuple[list[AnnotationItem], dict[int, int]]:
    mine = set(session.scalars(select(AnnotationScore.item_pk).where(AnnotationScore.user_id == user.id)))
    query = select(AnnotationItem).order_by(AnnotationItem.id)
    if user.role != "admin":
        query = query.where(AnnotationItem.panel == (user.panel or ""))
    done = _done(session)
    open_items = [i for i in session.scalars(query) if i.id not in mine and done.get(i.id, 0) < i.overlap]
    return open_items, done


def record_score(
    session: Session, user: User, item_pk: int, *, score: int | None, rationale: str
) -> AnnotationScore:
    item = session.get(AnnotationItem, item_pk)
    if item is None or not routed(user, item):
        raise LookupError(f"triple {item_pk} not found")
    if score is None and not item.allow_na:
        raise AnnotationError("this criterion must be scored: NA is not allowed")
    if score is not None and score not in item.scale:
        raise AnnotationError(f"score must be one of {item.scale}" + (" or NA" if item.allow_na else ""))
    problem = rationale_problem(rationale, score=score, perfect=perfect_of(item))
    if problem:
        raise AnnotationError(problem)
    if session.scalar(
        select(AnnotationScore).where(AnnotationScore.item_pk == item_pk, AnnotationScore.user_id == user.id)
    ):
        raise AnnotationError("you have already scored this triple")
    if _done(session).get(item_pk, 0) >= item.overlap:
        raise AnnotationError("this triple already has all the scores it needs")
    row = AnnotationScore(item_pk=item_pk, user_id=user.id, score=score, rationale=rationale.strip())
    session.add(row)
    session.flush()
    return row


def item_view(item: AnnotationItem) -> dict[str, Any]:
    return {
        "id": item.id,
        "item_id": item.item_id,
        "criterion": item.criterion,
        "panel": item.panel,
        "instruction": item.instruction,
        "answer": item.answer,
        "reference": item.reference,
        "description": item.description,
        "rubric": {k: v for k, v in item.rubric.items() if k != "__perfect__"},
        "scale": item.scale,
        "allow_na": item.allow_na,
        "perfect": perfect_of(item),
    }


def progress(session: Session) -> dict[str, Any]:
    """Per criterion: triples, scores done against the overlap target, and agreement.

    Agreement is POLLUX's Verdict Confidence: per triple the share of its most common label (NA counts as
    a label), averaged over triples with at least two scores.
    """
    items = list(session.scalars(select(AnnotationItem)))
    labels: dict[int, list[int | None]] = defaultdict(list)
    for pk, score in session.execute(select(AnnotationScore.item_pk, AnnotationScore.score)).all():
        labels[int(pk)].append(score)
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        block = out.setdefault(
            item.criterion, {"triples": 0, "target": 0, "done": 0, "complete": 0, "_vc": []}
        )
        got = labels.get(item.id, [])
        block["triples"] += 1
        block["target"] += item.overlap
        block["done"] += min(len(got), item.overlap)
        block["complete"] += len(got) >= item.overlap
        if len(got) >= 2:
            block["_vc"].append(Counter(got).most_common(1)[0][1] / len(got))
    for block in out.values():
        vc = block.pop("_vc")
        block["agreement"] = sum(vc) / len(vc) if vc else None
        block["agreement_n"] = len(vc)
    return {"criteria": dict(sorted(out.items()))}


def export_rows(session: Session) -> list[dict[str, Any]]:
    """``{item_id, criterion, annotator, score}`` per score (NA is null): the ``judge-agreement`` input."""
    query = (
        select(
            AnnotationItem.item_id,
            AnnotationItem.criterion,
            User.username,
            AnnotationScore.score,
            AnnotationScore.rationale,
        )
        .join(AnnotationScore, AnnotationScore.item_pk == AnnotationItem.id)
        .join(User, User.id == AnnotationScore.user_id)
        .order_by(AnnotationItem.id, User.username)
    )
    return [
        {"item_id": i, "criterion": c, "annotator": u, "score": s, "rationale": r}
        for i, c, u, s, r in session.execute(query)
    ]


def export_jsonl(session: Session, *, rationales: bool = False) -> str:
    """The export as JSON lines (``rationales`` adds the comments as a fifth key)."""
    import json

    keep = ("item_id", "criterion", "annotator", "score", *(("rationale",) if rationales else ()))
    return "".join(
        json.dumps({k: r[k] for k in keep}, ensure_ascii=False) + "\n" for r in export_rows(session)
    )
