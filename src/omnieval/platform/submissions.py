"""Accepting an upload: size-capped copy, zip safety checks, the format's validator, then a queued job."""

from __future__ import annotations

from typing import Any, BinaryIO

from sqlalchemy import select
from sqlalchemy.orm import Session

from omnieval.platform.jobs import enqueue
from omnieval.platform.models import Benchmark, Submission, User
from omnieval.platform.settings import Settings
from omnieval.platform.storage import UploadError, save_upload

__all__ = ["InvalidSubmission", "accept_upload"]


class InvalidSubmission(ValueError):
    """The archive is safe but not a valid submission; ``report`` says why, per task."""

    def __init__(self, message: str, report: dict[str, Any]) -> None:
        super().__init__(message)
        self.report = report


def _validate(path: Any, bench: Benchmark) -> dict[str, Any]:
    from omnieval.registry import load_plugins
    from omnieval.submission.base import validators

    load_plugins()
    try:
        report: dict[str, Any] = validators.get(bench.format)(path)
    except Exception as exc:  # the validator's own errors name the archive: show only the message kind
        raise UploadError(f"the archive could not be read as a {bench.format} submission") from exc
    ours = sorted(set(report.get("tasks", {})) & set(bench.tasks))
    if report.get("ok") and not ours:
        report = {**report, "ok": False, "errors": [f"no task of benchmark {bench.name!r} in the archive"]}
    return report


def accept_upload(
    session: Session, settings: Settings, user: User, *, benchmark: str, stream: BinaryIO, model: str
) -> Submission:
    bench = session.scalar(select(Benchmark).where(Benchmark.name == benchmark))
    if bench is None:
        raise UploadError(f"unknown benchmark {benchmark!r}")
    path = save_upload(stream, settings)
    report = _validate(path, bench)
    if not report.get("ok"):
        path.unlink(missing_ok=True)
        raise InvalidSubmission("the submission is not valid; see the per-task report", report)
    report.pop("file", None)
    row = Submission(user_id=user.id, benchmark_id=bench.id, upload=str(path), validation=report,
                     model_name=(model or "").strip()[:128] or f"{user.username}'s model")  # fmt: skip
    session.add(row)
    session.flush()
    enqueue(session, row)
    return row
