"""What the API and the pages share: submissions, publication, review, boards. Roles are checked here."""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import zipfile
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from omnieval.platform.errors import Forbidden, NotFound
from omnieval.platform.services.policy import ladder_step, noisy_score, rounded
from omnieval.platform.settings import Policy
from omnieval.platform.storage.models import Benchmark, Submission, User
from omnieval.types.files import ResultsFile, results_model

__all__ = [
    "BOARDS",
    "board",
    "bump_board_version",
    "can_review",
    "get_submission",
    "publish",
    "review",
    "submission_view",
]

BOARDS = ("image", "audio", "video", "multi")
MODEL_INFO_KEYS = ("parameters", "license", "hardware", "versions")


def can_review(user: User) -> bool:
    return user.role in ("reviewer", "admin")


UNDER_REVIEW = ("requested", "approved", "rejected")
"""Publication states a reviewer may open: a private submission's results stay its owner's (and admins')."""


def _visible(row: Submission, user: User) -> bool:
    """A reviewer opens a submission (results, logs) only once its owner asked for publication: a flagged,
    never-published one stays private (the queue lists it with its flag, without its results)."""
    if row.user_id == user.id or user.role == "admin":
        return True
    return user.role == "reviewer" and row.publication in UNDER_REVIEW


def get_submission(session: Session, user: User, submission_id: int) -> Submission:
    """The submission if ``user`` owns it, administers, or reviews its publication request; otherwise
    NotFound (no existence leak)."""
    row = session.get(Submission, submission_id)
    if row is None or not _visible(row, user):
        raise NotFound(f"submission {submission_id} not found")
    return row


DEFAULT_SCORE_DIGITS = 3
"""Rounding of results scored before per-benchmark policies existed."""


RELEASED_TASK_KEYS = ("n", "n_scored", "ids", "version", "score_metric")
"""Per-task fields a submitter sees before approval, beside the noisy score (no metrics, intervals,
variants or breakdowns: each would carry the exact score)."""


def _noisy_tasks(row: Submission, *, key: bytes, noise: float) -> dict[str, tuple[float | None, int]]:
    """Per task of a scored submission: its score with the release noise, and its sample count."""
    results = stored_results(row)
    answers = row.fingerprint or {}
    out: dict[str, tuple[float | None, int]] = {}
    for name, block in (results.tasks if results is not None else {}).items():
        n, score = int(block.n or 0), block.score
        if score is not None:
            given = answers.get(name, {})
            score = noisy_score(float(score), n=n, key=key + name.encode(), answers=given, scale=noise)
        out[name] = (score, n)
    return out


def _released_scores(session: Session, row: Submission, *, key: bytes, policy: Policy) -> dict[str, Any]:
    """The task scores ``row``'s owner is shown: noisy, then through one ladder shared by the owner and every
    account on the owner's client network (their earlier shown submissions on this benchmark, oldest first;
    flagged ones were never shown). A new score is released only when it beats the best released to that
    related group by the ladder's step; otherwise the owner sees the best released to themselves (None when
    that is nothing yet). A per-account ladder let fresh accounts each read one new noisy score: 30 accounts
    (three hours of registrations from one /24) recovered 39 % of the answers against 25 % by chance
    (``benchmarks/oracle_attack.py``); one ladder per network bounds the readings by the networks."""
    related = Submission.user_id == row.user_id
    if row.client:
        related = or_(related, Submission.client == row.client)
    history = session.scalars(
        select(Submission)
        .where(
            related,
            Submission.benchmark_id == row.benchmark_id,
            Submission.id <= row.id,
            Submission.status == "scored",
            Submission.flag.is_(None),
        )
        .order_by(Submission.id)
    ).all()
    group: dict[str, float | None] = {}
    own: dict[str, float | None] = {}
    shown: dict[str, Any] = {}
    replay = [*(r for r in history if r.id != row.id), row]
    budgeted = _within_release_budget(session, replay, budget=policy.release_daily_budget)
    for earlier in replay:
        mine = earlier.user_id == row.user_id
        for name, (score, n) in _noisy_tasks(earlier, key=key, noise=policy.score_noise).items():
            if earlier.id not in budgeted:  # beyond the benchmark's daily budget: no new reading
                if earlier is row:
                    shown[name] = own.get(name)
                continue
            if score is None or n < policy.release_min_samples:
                if earlier is row:
                    shown[name] = None
                continue
            step = policy.score_ladder * 0.5 / max(n, 1) ** 0.5
            if step <= 0:  # no ladder: the noisy score itself
                own[name] = score if mine else own.get(name)
            elif (released := ladder_step(score, group.get(name), step=step)) != group.get(name):
                group[name] = released  # beat the group's best by a step (or the first score)
                if mine:
                    own[name] = released
            if earlier is row:
                shown[name] = own.get(name)
    return shown


DAY_S = 24 * 3600.0


def _within_release_budget(session: Session, rows: list[Submission], *, budget: int) -> set[int]:
    """The ids among ``rows`` (one benchmark's) that were among the first ``budget`` scored, unflagged
    submissions of that benchmark in the 24 hours up to their own upload (``Policy.release_daily_budget``)."""
    if budget <= 0 or not rows:
        return {r.id for r in rows}
    since = min(r.created_at for r in rows) - DAY_S
    counted = session.execute(
        select(Submission.id, Submission.created_at)
        .where(
            Submission.benchmark_id == rows[0].benchmark_id,
            Submission.status == "scored",
            Submission.flag.is_(None),
            Submission.created_at > since,
            Submission.id <= max(r.id for r in rows),
        )
        .order_by(Submission.id)
    ).all()
    ids, ats = [i for i, _ in counted], [at for _, at in counted]
    in_order = all(a <= b for a, b in itertools.pairwise(ats))  # ids are given in upload order

    def before(row: Submission) -> int:
        end, since = bisect.bisect_left(ids, row.id), row.created_at - DAY_S
        if in_order:
            return end - bisect.bisect_right(ats, since, 0, end)
        return sum(1 for at in ats[:end] if at > since)

    return {row.id for row in rows if before(row) < budget}


def released_results(session: Session, row: Submission, *, key: bytes, policy: Policy) -> dict[str, Any]:
    """What a submitter sees before approval: each task's score through the release policy (noise, then
    the ladder: ``Policy.score_noise``, ``Policy.score_ladder``) and nothing that carries the exact score;
    after approval (or with both off) the rounded results themselves."""
    shown = shown_results(row)
    off = policy.score_noise <= 0 and policy.score_ladder <= 0
    if not shown or off or row.publication == "approved":
        return shown
    scores = _released_scores(session, row, key=key, policy=policy)
    digits = int(shown.get("score_digits") or DEFAULT_SCORE_DIGITS)
    tasks = {
        name: {k: block[k] for k in RELEASED_TASK_KEYS if k in block}
        | {"score": rounded(scores.get(name), digits=digits)}
        for name, block in shown.get("tasks", {}).items()
    }
    keep = ("schema_version", "model", "score_digits", "not_attempted")
    release = {"noise_se": policy.score_noise, "ladder_se": policy.score_ladder}
    return {k: shown[k] for k in keep if k in shown} | {"tasks": tasks, "release": release}


def shown_results(row: Submission) -> dict[str, Any]:
    """The stored results with every number rounded to the precision the benchmark's policy set at scoring
    (a prober learns nothing from the fourth decimal): read through their model, dumped with the keys the
    document holds (``{}`` before scoring)."""
    results = stored_results(row)
    if results is None:
        return {}
    digits = results.score_digits if results.score_digits is not None else DEFAULT_SCORE_DIGITS
    return rounded(results.document(), digits=digits)


def stored_results(row: Submission) -> ResultsFile | None:
    """A scored submission's results through their model (``None`` before scoring); a stored document that
    does not validate names the submission."""
    if not row.results:
        return None
    return results_model(row.results, source=f"submission {row.id} (stored results)")


def _policy(bench: Benchmark | None, policy: Policy) -> Policy:
    return policy.merged(bench.policy if bench else None)


HELD = "flagged as a possible answer probe: its scores are shown once a reviewer has approved it"


def submission_view(session: Session, row: Submission, *, release: tuple[bytes, Policy]) -> dict[str, Any]:
    """What the API and the pages show of a submission. A flagged one's scores are withheld until a
    reviewer approves it: a probe must not learn from the upload that tripped the detector."""
    bench = session.get(Benchmark, row.benchmark_id)
    held = row.flag is not None and row.publication != "approved"
    policy = _policy(bench, release[1])
    return {
        "id": row.id,
        "benchmark": bench.name if bench else None,
        "model": row.model_name,
        "status": row.status,
        "results": {} if held else released_results(session, row, key=release[0], policy=policy),
        "held": HELD if held else None,
        "validation": row.validation,
        "error": row.error,
        "publication": row.publication,
        "boards": row.boards,
        "model_info": row.model_info,
        "review_comment": row.review_comment,
        "created_at": row.created_at,
        "duplicate_of": row.duplicate_of,
        "scoring_s": row.scoring_s,
    }


MAX_MODEL_INFO_BYTES = 4096
"""Model information is shown to every reader of the boards: a few lines, not a payload."""


def check_model_info(model_info: dict[str, Any]) -> None:
    size = len(json.dumps(model_info, ensure_ascii=False).encode())
    if size > MAX_MODEL_INFO_BYTES:
        raise ValueError(f"model_info is {size} bytes as JSON; at most {MAX_MODEL_INFO_BYTES} are allowed")


def publish(
    session: Session, user: User, submission_id: int, *, boards: list[str], model_info: dict[str, Any]
) -> Submission:
    row = get_submission(session, user, submission_id)
    if row.user_id != user.id:
        raise NotFound(f"submission {submission_id} not found")
    bad = sorted(set(boards) - set(BOARDS))
    if bad or not boards:
        raise ValueError(f"boards must be a non-empty subset of {list(BOARDS)}; unknown: {bad}")
    check_model_info(model_info)
    if row.status != "scored":
        raise ValueError(
            f"submission {submission_id} is {row.status}: only scored submissions can be published"
        )
    row.boards, row.model_info, row.publication = sorted(set(boards)), model_info, "requested"
    bump_board_version(session, row.benchmark_id)  # re-publishing takes an approved row off the boards
    return row


def review(session: Session, user: User, submission_id: int, *, decision: str, comment: str) -> Submission:
    if not can_review(user):
        raise Forbidden("only reviewers and admins review submissions")
    row = get_submission(session, user, submission_id)
    if decision not in ("approve", "reject"):
        raise ValueError("decision must be 'approve' or 'reject'")
    if row.publication not in ("requested", "approved", "rejected"):
        raise ValueError(f"submission {submission_id} has no publication request")
    if row.user_id == user.id:
        raise Forbidden("a reviewer cannot review their own submission: another reviewer must decide")
    row.publication = "approved" if decision == "approve" else "rejected"
    row.review_comment, row.reviewer_id = comment, user.id
    bump_board_version(session, row.benchmark_id)
    return row


LOG_READ_CAP = 1_000_000
"""Most bytes of one log file shown to a reviewer (the rest is cut, and the answer says so)."""


def _log_archive(session: Session, user: User, submission_id: int) -> Submission:
    if not can_review(user):
        raise Forbidden("only reviewers and admins read submission logs")
    return get_submission(session, user, submission_id)


def log_files(session: Session, user: User, submission_id: int) -> list[dict[str, Any]]:
    """Names and sizes inside the submission's ``logs_public.zip`` (read in memory, never extracted)."""
    row = _log_archive(session, user, submission_id)
    return list(_log_index(row.upload))


@functools.lru_cache(maxsize=128)
def _log_index(upload: str) -> tuple[dict[str, Any], ...]:
    """The listing, read once per process and upload (uploads never change; their entries are bounded at
    upload time by ``Settings.max_log_entries``)."""
    try:
        with (
            zipfile.ZipFile(upload) as zf,
            zf.open("logs_public.zip") as inner,
            zipfile.ZipFile(inner) as logs,
        ):
            return tuple(
                {"name": i.filename, "size": i.file_size} for i in logs.infolist() if not i.is_dir()
            )[:500]
    except (KeyError, OSError, zipfile.BadZipFile):
        return ()


def log_text(session: Session, user: User, submission_id: int, name: str) -> str:
    """One log file's text for the reviewer (UTF-8, invalid bytes replaced, cut at ``LOG_READ_CAP``)."""
    row = _log_archive(session, user, submission_id)
    try:
        with (
            zipfile.ZipFile(row.upload) as zf,
            zf.open("logs_public.zip") as inner,
            zipfile.ZipFile(inner) as logs,
            logs.open(name) as member,
        ):  # an exact member name: nothing is written or resolved on disk
            data = member.read(LOG_READ_CAP + 1)
    except KeyError:
        raise NotFound(f"no log file {name!r} in submission {submission_id}") from None
    except (OSError, zipfile.BadZipFile, RuntimeError):
        raise NotFound(f"submission {submission_id} has no readable logs_public.zip") from None
    text = data[:LOG_READ_CAP].decode("utf-8", errors="replace")
    return text + (f"\n[... cut at {LOG_READ_CAP} bytes]" if len(data) > LOG_READ_CAP else "")


def review_queue(session: Session) -> list[Submission]:
    """Publication requests, and submissions the probe detector flagged."""
    waiting = or_(Submission.publication == "requested", Submission.flag.is_not(None))
    return list(session.scalars(select(Submission).where(waiting).order_by(Submission.id)))


def _approved(session: Session, bench: Benchmark, board_name: str) -> dict[str, Submission]:
    rows = session.scalars(
        select(Submission)
        .where(Submission.benchmark_id == bench.id, Submission.publication == "approved")
        .order_by(Submission.id)
    ).all()
    return {str(r.id): r for r in rows if board_name in r.boards}


_BOARD_CACHE: dict[tuple[Any, ...], dict[str, Any]] = {}
_BOARD_CACHE_SIZE = 256


def bump_board_version(session: Session, benchmark_id: int) -> None:
    """Invalidate the benchmark's cached boards in every server process (an atomic increment, committed with
    the change that caused it)."""
    session.execute(
        update(Benchmark)
        .where(Benchmark.id == benchmark_id)
        .values(board_version=Benchmark.board_version + 1)
    )


def _board_input(row: Submission, key: str) -> ResultsFile:
    """An approved submission's results as its scheme reads them, entered under ``key`` (its id)."""
    results = stored_results(row)
    if results is None:  # publication needs a scored submission: a row without results is a broken store
        raise ValueError(f"submission {row.id} is approved but holds no results")
    return results.model_copy(update={"model": key})


def _computed_board(session: Session, bench: Benchmark, board_name: str) -> dict[str, Any]:
    """The scheme's board for the approved set, cached per database and board version.

    The version is read from the database before the approved rows, so an entry never holds an older state
    than its version; publication, review and re-registering bump it, and results never change after scoring.
    """
    from omnieval.aggregate import schemes
    from omnieval.registry import load_plugins

    version = session.scalar(select(Benchmark.board_version).where(Benchmark.id == bench.id))
    database = str(session.get_bind().engine.url)  # several apps may share a process (tests, tools)
    key = (database, bench.id, version, board_name)
    cached = _BOARD_CACHE.get(key)
    if cached is not None:
        return cached
    load_plugins()
    subs = _approved(session, bench, board_name)
    scheme = schemes.get(bench.scheme)([_board_input(r, key) for key, r in subs.items()])
    part = scheme["boards"][board_name]
    out = {
        "title": scheme.get("title"),
        "rows": [_public_row(row, subs[str(row["model"])]) for row in part["rows"]],
        "human_baseline": part["human_baseline"],
    }
    if len(_BOARD_CACHE) >= _BOARD_CACHE_SIZE:
        _BOARD_CACHE.clear()
    _BOARD_CACHE[key] = out
    return out


def board(
    session: Session,
    benchmark: str,
    board_name: str,
    *,
    sort: str | None = None,
    order: str = "desc",
    query: str | None = None,
) -> dict[str, Any]:
    """A public board computed by the benchmark's leaderboard scheme (the code of ``omnieval leaderboard``).

    Each submission enters the scheme under its id (names may repeat); rows then get the model's name.
    """
    bench = session.scalar(select(Benchmark).where(Benchmark.name == benchmark))
    if bench is None or board_name not in BOARDS:
        raise NotFound(f"no board {benchmark}/{board_name}")
    part = _computed_board(session, bench, board_name)
    rows = [dict(r) for r in part["rows"]]
    if query:
        rows = [r for r in rows if query.lower() in str(r["model"]).lower()]
    if sort and rows:
        columns = _sortable(rows)
        if sort not in columns:
            raise ValueError(f"sort must be one of {columns}")
        rows.sort(key=lambda r: (r[sort] is None, isinstance(r[sort], str), r[sort]), reverse=order != "asc")
    hb = part["human_baseline"]
    human = dict(hb) if isinstance(hb, dict) else {"model": "Human Baseline", "total": hb}
    return {
        "benchmark": benchmark,
        "board": board_name,
        "title": part["title"],
        "rows": rows,
        "human_baseline": {**human, "human": True},
    }


def _sortable(rows: list[dict[str, Any]]) -> list[str]:
    """Columns holding only numbers, text or nothing (model information is a mapping: not an order)."""
    plain = (int, float, str, type(None))
    return sorted(k for k in rows[0] if all(isinstance(r.get(k), plain) for r in rows))


def _public_row(row: dict[str, Any], sub: Submission) -> dict[str, Any]:
    out = {**row, "model": sub.model_name, "submission": sub.id, "model_info": sub.model_info}
    if "total" not in out and "score" in out:
        out["total"] = out["score"]
    return out


def model_page(session: Session, submission_id: int) -> dict[str, Any]:
    """The public page of one approved submission: per-task scores and model information, never outputs."""
    row = session.get(Submission, submission_id)
    if row is None or row.publication != "approved":
        raise NotFound(f"no published model {submission_id}")
    bench = session.get(Benchmark, row.benchmark_id)
    stored = stored_results(row)
    tasks = {n: {"score": b.score, "n": b.n} for n, b in (stored.tasks if stored else {}).items()}
    return {
        "submission": row.id,
        "benchmark": bench.name if bench else None,
        "model": row.model_name,
        "boards": row.boards,
        "model_info": row.model_info,
        "tasks": tasks,
    }
