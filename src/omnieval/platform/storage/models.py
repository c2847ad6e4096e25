"""The platform's tables (SQLAlchemy 2 declarative). Alembic migrations in ``migrations/`` create them."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint, func, true
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "ROLES",
    "AnnotationItem",
    "AnnotationScore",
    "ApiToken",
    "Base",
    "Benchmark",
    "Job",
    "RateLimitHits",
    "Submission",
    "User",
]

ROLES = ("user", "reviewer", "annotator", "admin")


def _now() -> float:
    return time.time()


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16), default="user")
    panel: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[float] = mapped_column(Float, default=_now)
    approved: Mapped[bool] = mapped_column(default=True, server_default=true())
    """False for a self-registered account awaiting an admin (``--registration approval``): it cannot log
    in."""

    __table_args__ = (
        Index("ix_users_username_lower", func.lower(username), unique=True),
    )  # ``Alice`` and ``alice`` are one account (migration 0005); create_all makes it too


class ApiToken(Base):
    __tablename__ = "api_tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[float] = mapped_column(Float, default=_now)
    kind: Mapped[str] = mapped_column(String(8), default="api", server_default="api")
    """``api`` (a bearer token) or ``web`` (a page session: the signed cookie holds the token)."""
    expires_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    """None only for tokens issued before expiry existed."""


class Benchmark(Base):
    __tablename__ = "benchmarks"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    format: Mapped[str] = mapped_column(String(32))
    scheme: Mapped[str] = mapped_column(String(32))
    tasks: Mapped[list[str]] = mapped_column(JSON)
    created_at: Mapped[float] = mapped_column(Float, default=_now)
    board_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Bumped by every change that can alter a board (publish, review, re-registering): the board cache's
    key."""
    policy: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """Overrides of the server's oracle defences for this benchmark (``platform/policy.py``)."""


class Submission(Base):
    __tablename__ = "submissions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    benchmark_id: Mapped[int] = mapped_column(ForeignKey("benchmarks.id"))
    status: Mapped[str] = mapped_column(String(16), default="queued")
    upload: Mapped[str] = mapped_column(String(255))
    validation: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    results: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    times_scored: Mapped[int] = mapped_column(Integer, default=0)
    model_name: Mapped[str] = mapped_column(String(128), default="")
    publication: Mapped[str] = mapped_column(String(16), default="private", index=True)
    """private | requested | approved | rejected."""
    boards: Mapped[list[str]] = mapped_column(JSON, default=list)
    model_info: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    review_comment: Mapped[str | None] = mapped_column(Text, nullable=True)
    reviewer_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    created_at: Mapped[float] = mapped_column(Float, default=_now)
    client: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """SHA-256 of the uploading client's address: relates accounts for the probe detector."""
    fingerprint: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """Per task, a short hash of each answer by id: what the probe detector compares (never shown)."""
    flag: Mapped[str | None] = mapped_column(Text, nullable=True)
    """Why the probe detector put this submission on the reviewers' queue."""
    content_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    """SHA-256 of the zip's answer files (``files.answers_sha256``): the same user's re-upload of them is
    warned about or refused."""
    duplicate_of: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The same user's earlier submission with the same answer files (policy ``duplicate_uploads: warn``)."""
    scoring_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    """Wall time of the scoring that produced ``results`` (seconds)."""


class Job(Base):
    """One scoring job; a worker owns it while ``lease_until`` is in the future and its ``claim`` matches."""

    __tablename__ = "jobs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id"), unique=True)
    state: Mapped[str] = mapped_column(String(16), default="queued", index=True)
    """queued | running | done | failed."""
    claim: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lease_until: Mapped[float] = mapped_column(Float, default=0.0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[float] = mapped_column(Float, default=_now)


class AnnotationItem(Base):
    """One (instruction, answer, criterion) triple to be scored by ``overlap`` annotators of ``panel``."""

    __tablename__ = "annotation_items"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[str] = mapped_column(String(128))
    criterion: Mapped[str] = mapped_column(String(255))
    panel: Mapped[str] = mapped_column(String(64), index=True)
    overlap: Mapped[int] = mapped_column(Integer, default=2)
    instruction: Mapped[str] = mapped_column(Text)
    answer: Mapped[str] = mapped_column(Text)
    reference: Mapped[str | None] = mapped_column(Text, nullable=True)
    description: Mapped[str] = mapped_column(Text, default="")
    rubric: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    scale: Mapped[list[int]] = mapped_column(JSON, default=list)
    allow_na: Mapped[bool] = mapped_column(default=True)
    __table_args__ = (UniqueConstraint("item_id", "criterion"),)


class AnnotationScore(Base):
    __tablename__ = "annotation_scores"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_pk: Mapped[int] = mapped_column(ForeignKey("annotation_items.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    score: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """None is "not applicable" (NA)."""
    rationale: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float, default=_now)
    __table_args__ = (UniqueConstraint("item_pk", "user_id"),)


class RateLimitHits(Base):
    """One rate-limit key's recent attempts, shared by every server process (``platform/ratelimit.py``)."""

    __tablename__ = "rate_limit_hits"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    """SHA-256 of the limit's kind and key (usernames and addresses are never stored in clear)."""
    hits: Mapped[list[float]] = mapped_column(JSON, default=list)
    """Wall-clock times of the allowed attempts still inside the window."""
    expires_at: Mapped[float] = mapped_column(Float, default=0.0, index=True)
    """When the newest hit leaves the window: older rows hold nothing and are pruned."""
