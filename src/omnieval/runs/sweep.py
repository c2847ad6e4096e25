"""Many models on the same tasks: one run directory each and ``leaderboard.json`` over them."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from omnieval.executors import ExecutorOptions
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.types.files import ResultsFile

__all__ = ["run_sweep", "write_leaderboard"]


def _run_model(config: RunConfig, how: ExecutorOptions, progress: Any, *, judges: Any = None) -> ResultsFile:
    _, results = evaluate_config(config, executor=how, progress=progress, judges=judges)
    return results.model_copy(update={"run_dir": str(config.output)})


def run_sweep(
    configs: list[tuple[str, RunConfig]], how: ExecutorOptions, *, models_at_once: int | None, quiet: bool
) -> list[Any]:
    """On Ray several models at once (each with its share of the cluster); locally one after another."""
    from omnieval.executors.sweep_runner import plan_runs, run_models, shared_gates, shared_judges

    started = False
    resources = None
    if how.kind == "ray":
        import ray

        from omnieval.executors.ray_executor import connect

        started = connect(how)
        resources = ray.cluster_resources()
    try:
        with shared_judges(configs, how, resources=resources) as (judges, free):
            runs, at_once = plan_runs(configs, how, models_at_once=models_at_once, resources=free)
            with shared_gates(runs):
                run_model = functools.partial(_run_model, judges=judges)
                return run_models(runs, models_at_once=at_once, run_model=run_model, quiet=quiet)
    finally:
        if started:
            import ray

            ray.shutdown()


def _typed_run(run: Any) -> ResultsFile | None:
    """A sweep run's results (``None`` for a model that failed)."""
    return run.results if isinstance(run.results, ResultsFile) else None


def write_leaderboard(
    output: Path, runs: list[Any], *, scheme: str | None, options: dict[str, Any]
) -> dict[str, Any]:
    """leaderboard.json: a row per model (failed ones too, with their status), their run directories,
    the failures' errors and any scheme's board over the finished models."""
    from omnieval.executors.sweep import board
    from omnieval.store import write_json
    from omnieval.types.files import LEADERBOARD_SCHEMA_VERSION

    finished = [r.results for r in runs if r.results is not None]
    table = board([(r.name, _typed_run(r), r.config.model, r.status) for r in runs])
    extra = {}
    if scheme is not None and finished:
        from omnieval.aggregate.schemes import build_board

        extra = {scheme: build_board(scheme, finished, options)}
    document = {
        "schema_version": LEADERBOARD_SCHEMA_VERSION,
        **table,
        "runs": {r.name: str(r.config.output) for r in runs},
        "failed": {r.name: r.error for r in runs if r.status != "finished"},
        "schemes": extra,
    }
    write_json(output / "leaderboard.json", document)
    return document
