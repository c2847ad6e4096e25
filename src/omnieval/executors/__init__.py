"""Executors: where a run's samples are computed — here (the runner) or sharded over a Ray cluster."""

from __future__ import annotations

from typing import Any

from omnieval.executors.options import ExecutorOptions
from omnieval.runner import RunConfig, RunOutcome, run
from omnieval.runner.progress import Progress

__all__ = ["ExecutorOptions", "execute"]


def execute(config: RunConfig, *, executor: ExecutorOptions | None = None, progress: Progress | None = None,
            judges: Any = None) -> RunOutcome:  # fmt: skip
    """Run (or resume) ``config`` with the chosen executor; both write the same run directory.

    ``progress``: a display shared by several runs (a sweep); only the Ray executor reports into it.
    ``judges``: on Ray, judge gates and pools a sweep started for all its models (a ``JudgesOnCluster``).
    """
    if executor is None or executor.kind == "local":
        return run(config)
    from omnieval.executors.ray_executor import run_on_ray

    return run_on_ray(config, executor, progress=progress, judges=judges)
