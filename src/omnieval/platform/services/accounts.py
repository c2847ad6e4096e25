"""Users, argon2 password hashes and API tokens (only a token's SHA-256 is stored)."""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from omnieval.platform.errors import AccountError, Busy
from omnieval.platform.services.hashing import HashPool
from omnieval.platform.settings import HASH_WORKERS
from omnieval.platform.storage.models import ROLES, ApiToken, User

__all__ = [
    "USERNAME",
    "Busy",
    "approve_user",
    "authenticate",
    "create_user",
    "issue_token",
    "list_tokens",
    "new_token",
    "revoke_all",
    "revoke_token",
    "user_for_token",
]

USERNAME = re.compile(r"^[A-Za-z0-9_.@+-]{3,64}$")  # e-mail addresses are valid names
MIN_PASSWORD = 8
RESERVED = frozenset(
    {
        "admin",
        "administrator",
        "root",
        "system",
        "sysadmin",
        "superuser",
        "support",
        "security",
        "staff",
        "moderator",
        "reviewer",
        "omnieval",
        "platform",
        "api",
        "null",
        "none",
        "anonymous",
        "postmaster",
        "webmaster",
    }
)
"""Names a self-registering user may not take (they would look like the platform's own accounts)."""


def _by_name(session: Session, username: str) -> User | None:
    return session.scalar(select(User).where(func.lower(User.username) == username.lower()))


HASH_CONCURRENCY = HASH_WORKERS
"""Hashes at once per process by default (``Settings.hash_workers``)."""
HASHING = HashPool()
"""The process's password-hashing threads (``services/hashing.py``); the app sizes it from its settings."""


def use_hashing(*, workers: int, nice: int) -> HashPool:
    """The process's hashing pool with these settings (kept when it has them: one pool per process)."""
    global HASHING
    if (HASHING.workers, HASHING.nice) != (workers, nice):
        HASHING = HashPool(workers=workers, pending=max(10, workers), nice=nice)
    return HASHING


def _hash(password: str) -> str:
    return HASHING.run(lambda: str(_hasher().hash(password)))


def _verify(password_hash: str, password: str) -> None:
    HASHING.run(lambda: _hasher().verify(password_hash, password))


def _hasher():  # type: ignore[no-untyped-def]
    from argon2 import PasswordHasher

    return PasswordHasher()


def create_user(
    session: Session,
    *,
    username: str,
    password: str,
    role: str = "user",
    panel: str | None = None,
    approved: bool = True,
    self_service: bool = False,
) -> User:
    """A new account; ``approved=False`` (self-registration in approval mode) cannot log in until approved.

    ``self_service`` (the register API and page) refuses the reserved names: only an admin creates those."""
    if not USERNAME.match(username):
        raise AccountError("username: 3-64 characters of letters, digits, '_', '.', '@', '+', '-'")
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"password: at least {MIN_PASSWORD} characters")
    if role not in ROLES:
        raise AccountError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
    if self_service and username.lower() in RESERVED:
        raise AccountError(f"username {username!r} is reserved")
    if _by_name(session, username) is not None:  # unique whatever the case (an index says so too)
        raise AccountError(f"username {username!r} is taken")
    user = User(username=username, password_hash=_hash(password), role=role, panel=panel, approved=approved)
    session.add(user)
    session.flush()
    return user


def approve_user(session: Session, *, username: str) -> User:
    user = _by_name(session, username)
    if user is None:
        raise AccountError(f"no user {username!r}")
    user.approved = True
    return user


def authenticate(session: Session, *, username: str, password: str) -> User | None:
    """The user when the password matches; None otherwise (same answer for unknown names)."""
    from argon2.exceptions import VerificationError

    user = _by_name(session, username)
    if user is None:
        _hash(password)  # same cost either way: no user enumeration by timing
        return None
    try:
        _verify(user.password_hash, password)
    except VerificationError:
        return None
    return user


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_token(session: Session, user: User, *, kind: str = "api", ttl_s: float = 30 * 86400.0) -> str:
    """A new credential for ``user``, valid ``ttl_s`` seconds (or until revoked); only its SHA-256 is kept."""
    return new_token(session, user, kind=kind, ttl_s=ttl_s)[1]


def new_token(session: Session, user: User, *, kind: str, ttl_s: float) -> tuple[ApiToken, str]:
    token = secrets.token_urlsafe(32)
    row = ApiToken(user_id=user.id, token_hash=_digest(token), kind=kind, expires_at=time.time() + ttl_s)
    session.add(row)
    session.flush()
    return row, token


def user_for_token(session: Session, token: str, *, kind: str = "api") -> User | None:
    """The token's user while the token is of ``kind``, unexpired and not revoked."""
    row = session.scalar(select(ApiToken).where(ApiToken.token_hash == _digest(token), ApiToken.kind == kind))
    if row is None or (row.expires_at is not None and row.expires_at <= time.time()):
        return None
    user = session.get(User, row.user_id)
    return user if user is not None and user.approved else None


def revoke_token(
    session: Session, user: User, *, token: str | None = None, token_id: int | None = None
) -> bool:
    """End one of ``user``'s credentials, named by its text or its id; False when there is no such one."""
    where = ApiToken.token_hash == _digest(token) if token is not None else ApiToken.id == token_id
    return bool(session.execute(delete(ApiToken).where(where, ApiToken.user_id == user.id)).rowcount)  # type: ignore[attr-defined]


def revoke_all(session: Session, user: User) -> int:
    """Log ``user`` out everywhere: every API token and page session ends."""
    return int(session.execute(delete(ApiToken).where(ApiToken.user_id == user.id)).rowcount)  # type: ignore[attr-defined]


def list_tokens(session: Session, user: User) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(ApiToken).where(ApiToken.user_id == user.id, ApiToken.kind == "api").order_by(ApiToken.id)
    )
    return [{"id": r.id, "created_at": r.created_at, "expires_at": r.expires_at} for r in rows]
