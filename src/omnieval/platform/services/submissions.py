"""Accepting an upload: size-capped copy, zip safety checks, the format's validator, then a queued job."""

from __future__ import annotations

import hashlib
import ipaddress
import time
from pathlib import Path
from typing import Any, BinaryIO

from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from omnieval.platform.errors import DuplicateUpload, InvalidSubmission, QuotaExceeded, UploadError
from omnieval.platform.services.jobs import enqueue
from omnieval.platform.settings import Settings
from omnieval.platform.storage.files import answers_sha256, save_upload
from omnieval.platform.storage.models import Benchmark, Submission, User

__all__ = ["accept_upload", "client_digest", "client_network", "settings_network"]

DAY_S = 86400.0


NETWORK_LOCK = 0x6E6574  # the high bits of the advisory lock that counts one network's uploads on PostgreSQL


def client_network(host: str, *, ipv4_prefix: int = 24, ipv6_prefix: int = 48) -> str:
    """``host``'s network (``192.0.2.0/24``, ``2001:db8::/48``); a name that is not an address as it is.
    The prefixes are ``Settings.ipv4_network_prefix`` and ``Settings.ipv6_network_prefix``."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    prefix = ipv4_prefix if address.version == 4 else ipv6_prefix
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


def settings_network(settings: Settings, host: str) -> str:
    """``host``'s network as every per-client limit counts it, with the server's prefixes."""
    return client_network(
        host, ipv4_prefix=settings.ipv4_network_prefix, ipv6_prefix=settings.ipv6_network_prefix
    )


def client_digest(host: str) -> str:
    """The client's address as stored: a SHA-256, enough to relate accounts, not to read the address."""
    return hashlib.sha256(f"client\0{host}".encode()).hexdigest()


def _lock_account(session: Session, user: User) -> None:
    """Hold the user's row lock (PostgreSQL) or the write lock (SQLite) until the commit: concurrent uploads
    of one account count and insert one at a time, so the daily cap cannot be overrun by a race."""
    session.execute(
        update(User)
        .where(User.id == user.id)
        .values(approved=User.approved)
        .execution_options(synchronize_session=False)
    )


def _lock_network(session: Session, client: str, bench: Benchmark) -> None:
    """Hold a lock on (``client``'s network, ``bench``) until the commit, so concurrent uploads of different
    accounts on one network count and insert one at a time: the network's daily cap cannot be overrun by a
    race. PostgreSQL: a transaction-scoped advisory lock, taken after the account's row lock (always in that
    order, so no two uploads wait on each other in a cycle). SQLite: the account lock already took the
    database's write lock, which serialises every writer."""
    if session.get_bind().dialect.name != "postgresql":
        return
    digest = hashlib.sha256(f"network cap\0{client_digest(client)}\0{bench.id}".encode()).digest()
    low = int.from_bytes(digest[:5], "big")  # 40 bits under the 24 of NETWORK_LOCK: a signed 64-bit key
    session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": (NETWORK_LOCK << 40) | low})


def _check_daily_cap(
    session: Session, settings: Settings, user: User, bench: Benchmark, client: str | None
) -> None:
    policy = settings.policy.merged(bench.policy)
    since = time.time() - DAY_S
    recent = (Submission.benchmark_id == bench.id) & (Submission.created_at > since)
    used = session.scalar(select(func.count(Submission.id)).where(recent, Submission.user_id == user.id))
    if (used or 0) >= policy.daily_cap:
        raise QuotaExceeded(
            f"daily limit reached: at most {policy.daily_cap} submissions to {bench.name!r} per 24 hours"
        )
    if client and policy.network_daily_cap > 0:
        network = session.scalar(
            select(func.count(Submission.id)).where(recent, Submission.client == client_digest(client))
        )
        if (network or 0) >= policy.network_daily_cap:
            raise QuotaExceeded(
                f"daily limit of your network reached: at most {policy.network_daily_cap} submissions to "
                f"{bench.name!r} per 24 hours from one network (IPv4 /{settings.ipv4_network_prefix}, IPv6 "
                f"/{settings.ipv6_network_prefix}), all accounts together"
            )


def _earlier_identical(session: Session, user: User, bench: Benchmark, digest: str) -> int | None:
    return session.scalar(
        select(Submission.id)
        .where(
            Submission.content_sha256 == digest,
            Submission.user_id == user.id,
            Submission.benchmark_id == bench.id,
        )
        .order_by(Submission.id)
        .limit(1)
    )


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


def _short(report: dict[str, Any]) -> dict[str, Any]:
    """A refused upload's report without the per-task error lists: the top level lists the first errors of
    every file (at most 50, and their count), so the answer stays a few KiB whatever the archive."""
    tasks = {
        name: {k: v for k, v in block.items() if k != "errors"} if isinstance(block, dict) else block
        for name, block in report.get("tasks", {}).items()
    }
    return {**report, "tasks": tasks}


def accept_upload(
    session: Session,
    settings: Settings,
    user: User,
    *,
    benchmark: str,
    stream: BinaryIO,
    model: str,
    client: str | None = None,
) -> Submission:
    """Store, check and queue an upload; ``client`` (the client's address) relates accounts for the probe
    detector."""
    if not benchmark.strip():
        raise UploadError("the benchmark field is empty: name one of the platform's benchmarks")
    bench = session.scalar(select(Benchmark).where(Benchmark.name == benchmark))
    if bench is None:
        raise UploadError(f"unknown benchmark {benchmark!r}")
    _check_daily_cap(session, settings, user, bench, client)  # early, lock-free: most refusals cost nothing
    path = save_upload(stream, settings)
    try:
        digest = answers_sha256(path)
        earlier = _earlier_identical(session, user, bench, digest)
        if earlier is not None and settings.policy.merged(bench.policy).duplicate_uploads == "refuse":
            raise DuplicateUpload(
                f"this zip holds the same answer files as your submission {earlier} to {bench.name!r}: "
                "it would get the same scores (change the answers to submit again)",
                earlier=earlier,
            )
        row = _queue(session, settings, user, bench, path, model=model, client=client)
        row.content_sha256, row.duplicate_of = digest, earlier
        return row
    except BaseException:  # refused, or the transaction failed: nothing is kept for it
        path.unlink(missing_ok=True)
        raise


def _queue(
    session: Session,
    settings: Settings,
    user: User,
    bench: Benchmark,
    path: Path,
    *,
    model: str,
    client: str | None,
) -> Submission:
    report = _validate(path, bench)
    if not report.get("ok"):
        raise InvalidSubmission("the submission is not valid; see the per-task report", _short(report))
    report.pop("file", None)
    _lock_account(session, user)  # validated without any lock; counted and inserted under it
    if client:
        _lock_network(session, client, bench)
    _check_daily_cap(session, settings, user, bench, client)
    row = Submission(
        user_id=user.id,
        benchmark_id=bench.id,
        upload=str(path),
        validation=report,
        model_name=(model or "").strip()[:128] or f"{user.username}'s model",
        client=client_digest(client) if client else None,
    )
    session.add(row)
    session.flush()
    enqueue(session, row)
    return row
