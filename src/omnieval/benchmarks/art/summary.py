"""Mean over repeated runs (the paper averages five runs per model): % relevant, absolute and relative
accuracy per ART task and overall, from the runs' ``results.json`` files only."""

from __future__ import annotations

import statistics
from pathlib import Path

from omnieval.errors import SourceError, StoreError
from omnieval.types.files import ResultsFile, TaskResults, load_file

__all__ = ["KEYS", "summarize_runs"]

KEYS = ("art.relevant", "art.absolute_accuracy", "art.relative_accuracy")


def _results(run_dir: Path) -> dict[str, TaskResults]:
    path = run_dir / "results.json" if run_dir.is_dir() else run_dir
    try:
        data = load_file(path, ResultsFile)
    except StoreError as exc:
        raise SourceError(f"cannot read run results ({exc})", path=str(path)) from None
    tasks = {name: block for name, block in data.tasks.items() if name.startswith("art.")}
    if not tasks:
        raise SourceError("no art.* task in these results", path=str(path))
    return tasks


def summarize_runs(run_dirs: list[Path]) -> dict[str, dict[str, dict[str, float]]]:
    """``{task | "overall": {metric: {"mean", "std", "runs"}}}``; every run must hold the same tasks.

    "overall" pools the instances of all tasks in each run (counts by relevant/correct), as the paper's
    totals over 9,000 instances do, then averages over runs.
    """
    runs = [_results(d) for d in run_dirs]
    names = sorted(runs[0])
    for d, run in zip(run_dirs, runs, strict=True):
        if sorted(run) != names:
            raise SourceError(f"run holds tasks {sorted(run)}, the first run {names}", path=str(d))
    table: dict[str, dict[str, list[float]]] = {name: {k: [] for k in KEYS} for name in [*names, "overall"]}
    for run in runs:
        n = relevant = correct = 0.0
        for name in names:
            block = run[name]
            metrics = block.metrics
            size = block.n_scored if block.n_scored is not None else block.n  # absent: every sample scored
            for key in KEYS:
                table[name][key].append(float(metrics.get(key, 0.0)))
            n += size
            relevant += metrics.get("art.relevant", 0.0) * size
            correct += metrics.get("art.absolute_accuracy", 0.0) * size
        overall = table["overall"]
        overall["art.relevant"].append(relevant / n if n else 0.0)
        overall["art.absolute_accuracy"].append(correct / n if n else 0.0)
        overall["art.relative_accuracy"].append(correct / relevant if relevant else 0.0)
    return {
        name: {
            key: {"mean": statistics.fmean(v), "std": statistics.pstdev(v), "runs": float(len(v))}
            for key, v in metrics.items()
        }
        for name, metrics in table.items()
    }
