"""The scoring queue, kept in the database: leased rows, reclaimed after a crash, committed once.

A worker claims a job with one conditional UPDATE (queued, or running with an expired lease), which
sets a fresh claim id and lease. Results are committed in one transaction that also finishes the job,
and only while that claim still holds and the submission is not yet scored: a job whose worker died is
scored again from scratch by the next claimant, and no job is ever scored twice.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
import uuid
import zipfile
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from omnieval.errors import SubmissionError
from omnieval.platform.services.policy import filler_tasks, near_identical
from omnieval.platform.settings import Policy, Settings
from omnieval.platform.storage.db import Database
from omnieval.platform.storage.models import Benchmark, Job, Submission

__all__ = ["Worker", "claim_next", "enqueue", "run_one"]

log = logging.getLogger("omnieval.platform.jobs")


def _count(result: Any) -> int:
    """Rows an UPDATE matched (the claim and commit guards)."""
    return int(result.rowcount)


def enqueue(session: Session, submission: Submission) -> None:
    session.add(Job(submission_id=submission.id))


def claim_next(db: Database, *, lease_s: float) -> tuple[int, str] | None:
    """Claim the oldest available job: ``(job id, claim id)``, or None when nothing is due."""
    now = time.time()
    due = or_(Job.state == "queued", (Job.state == "running") & (Job.lease_until < now))
    with db.session() as session:
        candidates = session.scalars(select(Job.id).where(due).order_by(Job.id).limit(5)).all()
        for job_id in candidates:
            claim = uuid.uuid4().hex
            taken = _count(
                session.execute(
                    update(Job)
                    .where(Job.id == job_id, due)
                    .values(
                        state="running", claim=claim, lease_until=now + lease_s, attempts=Job.attempts + 1
                    )
                )
            )
            if taken == 1:
                submission_id = session.scalar(select(Job.submission_id).where(Job.id == job_id))
                session.execute(
                    update(Submission).where(Submission.id == submission_id).values(status="scoring")
                )
                return job_id, claim
    return None


class _ClaimLost(Exception):
    """The lease expired and another worker owns the job now, or the submission is already scored."""


def _finish(
    db: Database,
    job_id: int,
    claim: str,
    *,
    results: dict[str, Any] | None,
    error: str | None,
    probe: tuple[dict[str, Any], Policy] | None = None,
    scoring_s: float | None = None,
) -> bool:
    """Commit the outcome only if the claim still holds and the submission is unscored.

    ``probe`` (the answers' fingerprint and the benchmark's policy) is stored and checked with the result.
    """
    try:
        _commit_outcome(db, job_id, claim, results=results, error=error, probe=probe, scoring_s=scoring_s)
    except _ClaimLost:
        log.warning("job %s: claim lost before commit; the new claimant scores it", job_id)
        return False
    return True


def _probe_flag(session: Session, row: Submission, fp: dict[str, Any], policy: Policy) -> str | None:
    """Why ``row`` looks like a probe: filler answers; near-identical answer sets from the same user or
    client network this week; or one near-identical to another account's recent submission (any network)."""
    filled = filler_tasks(fp, share=policy.filler_share)
    if filled:
        return f"possible answer probing: filler answers (one answer for most samples) in {', '.join(filled)}"
    related = Submission.user_id == row.user_id
    if row.client:
        related = or_(related, Submission.client == row.client)
    earlier = _recent(session, row, related, limit=PROBE_LOOKBACK)
    close = [o.id for o in earlier if near_identical(fp, o.fingerprint or {}, max_diff=policy.probe_max_diff)]
    if len(close) >= policy.probe_min_matches:
        accounts = len({o.user_id for o in earlier if o.id in close} | {row.user_id})
        return (
            f"possible answer probing: near-identical to {len(close)} earlier submissions "
            f"({', '.join(map(str, sorted(close)))}) from {accounts} related account(s)"
        )
    if policy.probe_cross_lookback <= 0 or sum(map(len, fp.values())) < policy.probe_cross_min_answers:
        return None
    others = _recent(session, row, Submission.user_id != row.user_id, limit=policy.probe_cross_lookback)
    crossed = [o for o in others if near_identical(fp, o.fingerprint or {}, max_diff=policy.probe_max_diff)]
    if not crossed:
        return None
    return (
        f"possible answer probing: near-identical to {len(crossed)} recent submission(s) "
        f"({', '.join(str(o.id) for o in sorted(crossed, key=lambda o: o.id))}) "
        f"of {len({o.user_id for o in crossed})} other account(s), any network"
    )


def _recent(session: Session, row: Submission, which: Any, *, limit: int) -> list[Submission]:
    """The newest ``limit`` fingerprinted submissions of ``row``'s benchmark this week matching ``which``
    (bounded: the detector never reads more fingerprints than that, whatever the benchmark's traffic)."""
    return list(
        session.scalars(
            select(Submission)
            .where(
                which,
                Submission.benchmark_id == row.benchmark_id,
                Submission.id != row.id,
                Submission.fingerprint.is_not(None),
                Submission.created_at > row.created_at - PROBE_WINDOW_S,
            )
            .order_by(Submission.id.desc())
            .limit(limit)
        ).all()
    )


PROBE_WINDOW_S = 7 * 86400.0
PROBE_LOOKBACK = 100


def _commit_outcome(
    db: Database,
    job_id: int,
    claim: str,
    *,
    results: dict[str, Any] | None,
    error: str | None,
    probe: tuple[dict[str, Any], Policy] | None = None,
    scoring_s: float | None = None,
) -> None:
    flag = _flag_of(db, job_id, probe) if probe is not None and not error else None
    with db.session() as session:  # the write transaction: a few UPDATEs, no computing while it holds
        held = _count(
            session.execute(
                update(Job)
                .where(Job.id == job_id, Job.claim == claim, Job.state == "running")
                .values(state="failed" if error else "done", lease_until=0.0)
            )
        )
        if held != 1:
            raise _ClaimLost
        submission_id = session.scalar(select(Job.submission_id).where(Job.id == job_id))
        values: dict[str, Any] = (
            {"status": "failed", "error": error}
            if error
            else {
                "status": "scored",
                "results": results,
                "times_scored": Submission.times_scored + 1,
                "scoring_s": scoring_s,
            }
        )
        if flag is not None:
            values |= {"fingerprint": flag[0], "flag": flag[1]}
        done = _count(
            session.execute(
                update(Submission)
                .where(Submission.id == submission_id, Submission.status != "scored")
                .values(**values)
            )
        )
        if done != 1:
            raise _ClaimLost


def _flag_of(
    db: Database, job_id: int, probe: tuple[dict[str, Any], Policy]
) -> tuple[dict[str, Any], str | None]:
    """The fingerprint and the probe detector's verdict, computed in a read-only transaction before the
    commit's write transaction (on SQLite the write lock is held from the first UPDATE to the commit)."""
    with db.session() as session:
        row = session.scalar(
            select(Submission).join(Job, Job.submission_id == Submission.id).where(Job.id == job_id)
        )
        return probe[0], _probe_flag(session, row, *probe) if row is not None else None


ARCHIVE_FAULTS: tuple[type[BaseException], ...] = (
    ValueError,
    KeyError,
    TypeError,
    zipfile.BadZipFile,
    SubmissionError,
)
"""Errors that are the archive's own fault: the job fails at once. Anything else (a plugin missing, the disk,
the database) is the server's and the job is retried, up to ``Settings.max_attempts``."""


def _release(db: Database, job_id: int, claim: str, *, delay_s: float) -> None:
    """Hand a job back for a retry after ``delay_s``: its lease moves to a claim nobody holds."""
    with db.session() as session:
        held = _count(
            session.execute(
                update(Job)
                .where(Job.id == job_id, Job.claim == claim, Job.state == "running")
                .values(claim=uuid.uuid4().hex, lease_until=time.time() + delay_s)
            )
        )
        if held == 1:
            submission_id = session.scalar(select(Job.submission_id).where(Job.id == job_id))
            session.execute(
                update(Submission)
                .where(Submission.id == submission_id, Submission.status != "scored")
                .values(status="queued")
            )


def _score_detached(upload: Path, bench: dict[str, Any], settings: Settings, model: str) -> Any:
    """Score in a child process (picklable arguments: the benchmark as plain fields)."""
    from omnieval.platform.services.scoring import score_submission

    return score_submission(upload, Benchmark(**bench), settings, model=model)


def run_one(db: Database, settings: Settings, *, pool: Executor | None = None) -> bool:
    """Claim and score one job; False when the queue had nothing due.

    With ``pool`` (a process pool) the scoring runs there: CPU-heavy scoring then never holds this
    process's GIL while its request threads serve readers. No database lock is held while scoring.
    """
    from omnieval.platform.services.scoring import score_submission

    claimed = claim_next(db, lease_s=settings.lease_s)
    if claimed is None:
        return False
    job_id, claim = claimed
    with db.session() as session:
        submission = session.scalar(
            select(Submission).join(Job, Job.submission_id == Submission.id).where(Job.id == job_id)
        )
        assert submission is not None
        benchmark = session.get(Benchmark, submission.benchmark_id)
        upload, model = Path(submission.upload), submission.model_name
        attempts = session.scalar(select(Job.attempts).where(Job.id == job_id)) or 1
    policy = settings.policy.merged(benchmark.policy if benchmark else None)
    results = error = probe = None
    started = time.perf_counter()
    try:
        if pool is not None and benchmark is not None:
            fields = {k: getattr(benchmark, k) for k in ("id", "name", "format", "scheme", "tasks", "policy")}
            results, fp = pool.submit(_score_detached, upload, fields, settings, model).result()
        else:
            results, fp = score_submission(upload, benchmark, settings, model=model)  # type: ignore[arg-type]
        probe = (fp, policy)
    except ARCHIVE_FAULTS as exc:  # a bad archive fails its own job, never the worker
        log.warning("job %s: scoring failed (%s)", job_id, type(exc).__name__)
        error = f"scoring failed: {type(exc).__name__}"
    except Exception as exc:  # the server's fault: try again later, and fail only when it keeps failing
        log.exception("job %s: internal error on attempt %s", job_id, attempts)
        if attempts < settings.max_attempts:
            _release(db, job_id, claim, delay_s=settings.retry_s)
            return True
        error = f"scoring failed after {attempts} attempts: {type(exc).__name__}"
    scoring_s = time.perf_counter() - started
    if settings.hold_s:
        time.sleep(settings.hold_s)
    _finish(db, job_id, claim, results=results, error=error, probe=probe, scoring_s=scoring_s)
    return True


def _start_child(increment: int, parent: int) -> None:
    """The scoring child yields the CPU to the server's request threads (``Settings.scoring_nice``) and
    ends when the server does, however it ends (SIGTERM, kill -9): it watches for a new parent."""
    os.nice(increment)
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()


PARENT_CHECK_S = 0.5


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(1)  # orphaned: the job stays leased and the next server's worker scores it again


class Worker:
    """A daemon thread that scores jobs until stopped."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self.db, self.settings = db, settings
        self._pool: ProcessPoolExecutor | None = None
        self._child: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="omnieval-scoring", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop scoring now: the child is killed mid-job (its lease lets the next worker score it again)."""
        self._stop.set()
        if self._child is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._child, signal.SIGKILL)
        self._thread.join(timeout=5)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def _scoring_pool(self) -> ProcessPoolExecutor | None:
        """One spawned child for scoring (``Settings.scoring_process``), made again if it died."""
        if not self.settings.scoring_process:
            return None
        if self._pool is None or getattr(self._pool, "_broken", False):
            self._pool = ProcessPoolExecutor(
                1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_child,
                initargs=(self.settings.scoring_nice, os.getpid()),
            )
            self._child = self._pool.submit(os.getpid).result()
        return self._pool

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                busy = run_one(self.db, self.settings, pool=self._scoring_pool())
            except Exception:  # the database was briefly unavailable: try again
                log.exception("scoring worker: retrying after an error")
                busy = False
            if not busy:
                self._stop.wait(self.settings.poll_s)
