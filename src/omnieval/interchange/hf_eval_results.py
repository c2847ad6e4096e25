"""The Hub's ``.eval_results/*.yaml`` files and a model-card ``model-index`` block, from a run's results.json.

Entries are built with huggingface_hub's own types (``EvalResultEntry`` → ``eval_result_entries_to_yaml``;
``EvalResult`` → ``eval_results_to_model_index``), so the files follow the schema that library reads back.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from omnieval.errors import StoreError
from omnieval.types.files import ResultsFile, TaskResults, load_file

__all__ = ["DATASET_KEYS", "exported_score", "write_hf_eval_results"]

DATASET_KEYS = ("hf_dataset", "hub_dataset", "dataset_id")
"""Task ``metadata`` keys that name the task's Hub dataset; without one the id is ``omnieval/TASK``."""


def _results(run_dir: Path) -> ResultsFile:
    path = run_dir / "results.json"
    if not path.exists():
        raise StoreError(f"{path} does not exist: not a finished omnieval run directory")
    results: ResultsFile = load_file(path, ResultsFile)
    return results


def exported_score(task: str, block: TaskResults, *, run_dir: Path) -> float:
    """The task's score for another tool's format, which needs a number: a task with no scored sample (hidden
    answers, or every judge call failed; results.json then says ``scored: false``) is an error naming it,
    never exported as the 0 it carries."""
    if block.score is None or not block.scored:
        raise StoreError(
            f"{run_dir / 'results.json'}: task {task!r} has no score (no sample was scored: hidden answers, "
            "or no judge verdict): leave it out of the run to export the others"
        )
    return block.score


def _dataset_id(task: str, block: TaskResults) -> str:
    meta = block.metadata
    return next((str(meta[k]) for k in DATASET_KEYS if meta.get(k)), f"omnieval/{task}")


def _notes(block: TaskResults, version: str) -> str:
    return (
        f"evaluation_framework: omnieval {version}; metric: {block.score_metric}; "
        f"n: {block.n}; states: {block.states}"
    )


def write_hf_eval_results(
    run_dir: Path, *, model_id: str, output: Path, source_url: str | None = None
) -> list[Path]:
    """One ``OUTPUT/.eval_results/TASK.yaml`` per task and ``OUTPUT/model-index.yaml``; the paths written."""
    import yaml
    from huggingface_hub import EvalResult, EvalResultEntry, eval_result_entries_to_yaml
    from huggingface_hub.repocard_data import eval_results_to_model_index

    results = _results(run_dir)
    version = results.omnieval_version or ""
    date = dt.datetime.fromtimestamp((run_dir / "results.json").stat().st_mtime, dt.UTC).isoformat()
    folder = output / ".eval_results"
    folder.mkdir(parents=True, exist_ok=True)
    written, card = [], []
    for task, block in results.tasks.items():
        entry = EvalResultEntry(
            dataset_id=_dataset_id(task, block),
            task_id=task,
            value=exported_score(task, block, run_dir=run_dir),
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
                metric_type=str(block.score_metric or "score"),
                metric_value=exported_score(task, block, run_dir=run_dir),
                task_name=task,
                source_name="omnieval" if source_url else None,
                source_url=source_url,
            )
        )
    index = output / "model-index.yaml"
    model_index = {"model-index": eval_results_to_model_index(model_id, card)}
    index.write_text(yaml.safe_dump(model_index, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return [*written, index]
