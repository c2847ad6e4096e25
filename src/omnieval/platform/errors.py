"""The platform's domain errors, at the bottom of its layers: every module may raise or catch them, and this
module imports nothing of the platform. Each message is safe to show the user; the routes map each kind to
an HTTP status."""

from __future__ import annotations

from typing import Any

__all__ = [
    "AccountError",
    "AnnotationError",
    "BenchmarkError",
    "Busy",
    "DuplicateUpload",
    "Forbidden",
    "InvalidSubmission",
    "NotFound",
    "QuotaExceeded",
    "UploadError",
]


class NotFound(LookupError):
    """Absent, or not visible to this user (the same answer either way)."""


class Forbidden(PermissionError):
    """The user's role may not do this."""


class AccountError(ValueError):
    """A bad username, password or role, with a message safe to show."""


class Busy(RuntimeError):
    """Too many password checks are waiting: the caller answers 503."""


class BenchmarkError(ValueError):
    """A benchmark that cannot be registered, with the reason."""


class UploadError(ValueError):
    """An upload refused, with a message safe to show the user."""


class QuotaExceeded(Exception):
    """The user's daily submissions to this benchmark are used up (HTTP 429)."""


class DuplicateUpload(Exception):
    """The user already uploaded this exact zip to this benchmark and the policy refuses it (HTTP 409)."""

    def __init__(self, message: str, *, earlier: int) -> None:
        super().__init__(message)
        self.earlier = earlier


class InvalidSubmission(ValueError):
    """The archive is safe but not a valid submission; ``report`` says why, per task."""

    def __init__(self, message: str, report: dict[str, Any]) -> None:
        super().__init__(message)
        self.report = report


class AnnotationError(ValueError):
    """A score the form must refuse, with the reason shown to the annotator."""
