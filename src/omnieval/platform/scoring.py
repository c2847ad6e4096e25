"""Score an uploaded submission on the hidden answers with the engine's own scorers and aggregation.

Only aggregates leave this module: per-sample records (which carry the targets) are never stored or shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omnieval.platform.benchmarks import load_tasks
from omnieval.platform.models import Benchmark
from omnieval.platform.settings import Settings
from omnieval.sources import Task
from omnieval.types import Response

__all__ = ["PUBLIC_TASK_KEYS", "score_submission"]

PUBLIC_TASK_KEYS = (
    "score", "n", "n_scored", "states", "metrics", "score_metric", "ci95", "by_variant", "parse_fallbacks",
    "truncated_scoring", "version", "metric_versions", "modalities",
)  # fmt: skip
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


def _task_breakdowns(tasks: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's capability breakdowns over tasks (modality, skills, answer format: catalogue labels).

    Only task-level groups: sample-level ones come from the hidden samples' metadata, whose labels could
    name an answer (a group label is shown verbatim), so they are never computed here.
    """
    from omnieval.reports.taxonomy import task_dimensions

    return task_dimensions(tasks)


def score_submission(archive: Path, benchmark: Benchmark, settings: Settings, *, model: str) -> dict[str, Any]:
    """``results.json``-shaped aggregates for the tasks the submission answers (others are not attempted)."""
    from omnieval.aggregate import compute_results
    from omnieval.registry import load_plugins
    from omnieval.submission.base import readers

    load_plugins()
    answers = readers.get(benchmark.format)(archive)
    tasks = [t for t in load_tasks(settings, benchmark) if t.name in answers]
    records: list[dict[str, Any]] = []
    coverage: dict[str, dict[str, int]] = {}
    for task in tasks:
        given = answers[task.name]
        task_records = _task_records(task, given)
        known = {_id_key(s.id) for s in task.iter_samples()}
        coverage[task.name] = {
            "answered": len(known & set(given)), "missing": len(known - set(given)), "unknown": len(set(given) - known),
        }  # fmt: skip
        records.extend(task_records)
    results = compute_results(tasks, records, model=model)
    results["breakdowns"] = _task_breakdowns(results["tasks"])
    results["tasks"] = {
        name: {k: block[k] for k in PUBLIC_TASK_KEYS if k in block} | {"ids": coverage[name]}
        for name, block in results["tasks"].items()
    }
    return results
