"""Score an uploaded submission on the hidden answers with the engine's own scorers and aggregation.

Only aggregates leave this module: per-sample records (which carry the targets) are never stored or shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omnieval.platform.services.benchmarks import load_tasks
from omnieval.platform.services.policy import fingerprint
from omnieval.platform.settings import Settings
from omnieval.platform.storage.models import Benchmark
from omnieval.sources import Task
from omnieval.types import Response
from omnieval.types.results import TaskResults

__all__ = ["PUBLIC_TASK_KEYS", "score_submission"]

PUBLIC_TASK_KEYS = (
    "score",
    "n",
    "n_scored",
    "states",
    "metrics",
    "score_metric",
    "ci95",
    "by_variant",
    "parse_fallbacks",
    "truncated_scoring",
    "version",
    "metric_versions",
    "modalities",
)
"""The per-task result fields a submitter sees (no example reasons: they may quote the gold answer)."""

MISSING = "no answer for this id in the submission"


def _id_key(sample_id: str) -> str:
    text = sample_id.strip()
    return str(int(text)) if text.lstrip("-").isdigit() else text


def _task_records(task: Task, answers: dict[str, str]) -> list[dict[str, Any]]:
    from omnieval.runner import Scorer

    scorer = Scorer.for_task(task.spec)
    records = []
    for sample in task.iter_samples():
        text = answers.get(_id_key(sample.id))
        response = Response(text=text or "", error=MISSING if text is None else None)
        records.append(scorer.score(sample, response).model_dump(mode="json"))
    return records


def _task_breakdowns(tasks: dict[str, TaskResults]) -> list[dict[str, Any]]:
    """The report's capability breakdowns over tasks (modality, skills, answer format: catalogue labels).

    Only task-level groups: sample-level ones come from the hidden samples' metadata, whose labels could
    name an answer (a group label is shown verbatim), so they are never computed here.
    """
    from omnieval.reports.taxonomy import task_dimensions

    return task_dimensions(tasks)


def _attempted(task: Task, given: dict[str, str] | None, *, require_complete: bool) -> bool:
    """Whether ``task`` is scored: answered at all, and (by default) every one of its samples answered.

    A task scored on a part of its samples would tell a prober the hidden answers of that part.
    """
    if given is None:
        return False
    return not require_complete or all(_id_key(s.id) in given for s in task.iter_samples())


def score_submission(
    archive: Path, benchmark: Benchmark, settings: Settings, *, model: str
) -> tuple[dict[str, Any], dict[str, dict[str, str]]]:
    """``results.json``-shaped aggregates for the tasks the submission attempts (others are not attempted),
    and the answers' fingerprint for the probe detector."""
    from omnieval.aggregate import compute_results, settle_records
    from omnieval.registry import load_plugins
    from omnieval.submission.base import readers

    load_plugins()
    policy = settings.policy.merged(benchmark.policy)
    answers = readers.get(benchmark.format)(archive)
    every = load_tasks(settings, benchmark)
    tasks = [t for t in every if _attempted(t, answers.get(t.name), require_complete=policy.require_complete)]
    records: list[dict[str, Any]] = []
    coverage: dict[str, dict[str, int]] = {}
    for task in tasks:
        given = answers[task.name]
        task_records = _task_records(task, given)
        known = {_id_key(s.id) for s in task.iter_samples()}
        coverage[task.name] = {
            "answered": len(known & set(given)),
            "missing": len(known - set(given)),
            "unknown": len(set(given) - known),
        }
        records.extend(task_records)
    for index, fields in settle_records(tasks, records).items():  # task-level parse steps (MMMU's guesses)
        records[index] = records[index] | fields
    typed = compute_results(tasks, records, model=model)
    results = typed.document()
    results["breakdowns"] = _task_breakdowns(typed.tasks)
    results["tasks"] = {
        name: {k: block[k] for k in PUBLIC_TASK_KEYS if k in block} | {"ids": coverage[name]}
        for name, block in results["tasks"].items()
    }
    scored = {t.name for t in tasks}
    results["score_digits"] = policy.score_digits  # what the submitter is shown (submission_view rounds)
    results["not_attempted"] = sorted(t.name for t in every if t.name in answers and t.name not in scored)
    known_ids = {t.name: {_id_key(s.id) for s in t.iter_samples()} for t in every}
    kept = {
        name: {i: a for i, a in given.items() if i in known_ids[name]}
        for name, given in answers.items()
        if name in known_ids
    }
    return results, fingerprint(kept)  # unknown ids are counted (``ids.unknown``), never stored
