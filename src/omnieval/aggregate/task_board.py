"""``omnieval leaderboard RUN... --scheme tasks``: every task's score per model, then each task's
breakdowns (MMMU by subject, MMBench by ability, Video-MME by duration) as boards of their own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from omnieval.aggregate.schemes import register_scheme, typed_results
from omnieval.textkit.ordering import natural_key
from omnieval.types.files import ResultsFile

__all__ = ["tasks_scheme"]


def _label(result: ResultsFile) -> str:
    return result.model or result.run_dir or "?"


@register_scheme("tasks")
def tasks_scheme(
    results: Sequence[Mapping[str, Any] | ResultsFile], /, *, task: str | None = None
) -> dict[str, Any]:
    """One row per run with each task's score (``None``: not run or not scored); a board per task and
    breakdown key, one row per value with each run's score; ``task`` keeps only tasks whose name starts
    with it."""
    typed = [typed_results(r) for r in results]
    names = sorted({n for r in typed for n in r.tasks if task is None or n.startswith(task)}, key=natural_key)
    rows = [
        {"model": _label(r), **{n: (r.tasks[n].score if n in r.tasks else None) for n in names}}
        for r in typed
    ]
    boards: dict[str, Any] = {}
    for name in names:
        keys = dict.fromkeys(k for r in typed if name in r.tasks for k in r.tasks[name].breakdowns)
        for key in keys:
            values = sorted(
                {v for r in typed if name in r.tasks for v in r.tasks[name].breakdowns.get(key, {})},
                key=natural_key,
            )
            ran = [r for r in typed if name in r.tasks]
            boards[f"{name} by {key}"] = {
                "rows": [
                    {key: value, **{_label(r): _cell(r, name, key, value) for r in ran}} for value in values
                ]
            }
    return {"scheme": "tasks", "title": "tasks", "rows": rows, "boards": boards}


def _cell(result: ResultsFile, name: str, key: str, value: str) -> float | None:
    cell = result.tasks[name].breakdowns.get(key, {}).get(value)
    return None if cell is None else cell.score
