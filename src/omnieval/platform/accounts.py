"""Users, argon2 password hashes and API tokens (only a token's SHA-256 is stored)."""

from __future__ import annotations

import hashlib
import re
import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from omnieval.platform.models import ROLES, ApiToken, User

__all__ = ["AccountError", "approve_user", "authenticate", "create_user", "issue_token", "user_for_token"]

USERNAME = re.compile(r"^[A-Za-z0-9_.@+-]{3,64}$")  # e-mail addresses are valid names
MIN_PASSWORD = 8


class AccountError(ValueError):
    """A bad username, password or role, with a message safe to show."""


def _hasher():  # type: ignore[no-untyped-def]
    from argon2 import PasswordHasher

    return PasswordHasher()


def create_user(
    session: Session, *, username: str, password: str, role: str = "user", panel: str | None = None,
    approved: bool = True,
) -> User:  # fmt: skip
    """A new account; ``approved=False`` (self-registration in approval mode) cannot log in until approved."""
    if not USERNAME.match(username):
        raise AccountError("username: 3-64 characters of letters, digits, '_', '.', '@', '+', '-'")
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"password: at least {MIN_PASSWORD} characters")
    if role not in ROLES:
        raise AccountError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
    if session.scalar(select(User).where(User.username == username)) is not None:
        raise AccountError(f"username {username!r} is taken")
    user = User(username=username, password_hash=_hasher().hash(password), role=role, panel=panel, approved=approved)
    session.add(user)
    session.flush()
    return user


def approve_user(session: Session, *, username: str) -> User:
    user = session.scalar(select(User).where(User.username == username))
    if user is None:
        raise AccountError(f"no user {username!r}")
    user.approved = True
    return user


def authenticate(session: Session, *, username: str, password: str) -> User | None:
    """The user when the password matches; None otherwise (same answer for unknown names)."""
    from argon2.exceptions import VerificationError

    user = session.scalar(select(User).where(User.username == username))
    if user is None:
        _hasher().hash(password)  # same cost either way: no user enumeration by timing
        return None
    try:
        _hasher().verify(user.password_hash, password)
    except VerificationError:
        return None
    return user


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_token(session: Session, user: User) -> str:
    token = secrets.token_urlsafe(32)
    session.add(ApiToken(user_id=user.id, token_hash=_digest(token)))
    return token


def user_for_token(session: Session, token: str) -> User | None:
    row = session.scalar(select(ApiToken).where(ApiToken.token_hash == _digest(token)))
    return None if row is None else session.get(User, row.user_id)
