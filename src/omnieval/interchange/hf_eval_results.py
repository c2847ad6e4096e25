"""The Hub's ``.eval_results/*.yaml`` files and a model-card ``model-index`` block, from a run's results.json.

Entries are built with huggingface_hub's own types (``EvalResultEntry`` → ``eval_result_entries_to_yaml``;
``EvalResult`` → ``eval_results_to_model_index``), so the files follow the schema that library reads back.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from omnieval.errors import StoreError
from omnieval.types.files import checked_json

__all__ = ["DATASET_KEYS", "write_hf_eval_results"]

DATASET_KEYS = ("hf_dataset", "hub_dataset", "dataset_id")
"""Task ``metadata`` keys that name the task's Hub dataset; without one the id is ``omnieval/TASK``."""


def _results(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "results.json"
    if not path.exists():
        raise StoreError(f"{path} does not exist: not a finished omnieval run directory")
    return checked_json(path, "results")


def _dataset_id(task: str, block: dict[str, Any]) -> str:
    meta = block.get("metadata") or {}
    return next((str(meta[k]) for k in DATASET_KEYS if meta.get(k)), f"omnieval/{task}")


def _notes(block: dict[str, Any], version: str) -> str:
    return (
        f"evaluation_framework: omnieval {version}; metric: {block.get('score_metric')}; "
        f"n: {block.get('n')}; states: {block.get('states')}"
    )


def write_hf_eval_results(
    run_dir: Path, *, model_id: str, output: Path, source_url: str | None = None
) -> list[Path]:
    """One ``OUTPUT/.eval_results/TASK.yaml`` per task and ``OUTPUT/model-index.yaml``; the paths written."""
    import yaml
    from huggingface_hub import EvalResult, EvalResultEntry, eval_result_entries_to_yaml
    from huggingface_hub.repocard_data import eval_results_to_model_index

    results = _results(run_dir)
    version = str(results.get("omnieval_version", ""))
    date = dt.datetime.fromtimestamp((run_dir / "results.json").stat().st_mtime, dt.UTC).isoformat()
    folder = output / ".eval_results"
    folder.mkdir(parents=True, exist_ok=True)
    written, card = [], []
    for task, block in (results.get("tasks") or {}).items():
        entry = EvalResultEntry(
            dataset_id=_dataset_id(task, block),
            task_id=task,
            value=float(block["score"]),
            date=date,
            source_url=source_url,
            source_name="omnieval" if source_url else None,
            notes=_notes(block, version),
        )
        path = folder / f"{task.replace('/', '__')}.yaml"
        path.write_text(
            yaml.safe_dump(eval_result_entries_to_yaml([entry]), allow_unicode=True, sort_keys=False),
            encoding="utf-8",
        )
        written.append(path)
        card.append(
            EvalResult(
                task_type="text-generation",
                dataset_type=_dataset_id(task, block),
                dataset_name=task,
                metric_type=str(block.get("score_metric") or "score"),
                metric_value=float(block["score"]),
                task_name=task,
                source_name="omnieval" if source_url else None,
                source_url=source_url,
            )
        )
    index = output / "model-index.yaml"
    block = {"model-index": eval_results_to_model_index(model_id, card)}
    index.write_text(yaml.safe_dump(block, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return [*written, index]
