"""Executors: where a run's samples are computed — here (the runner) or sharded over a Ray cluster."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omnieval.executors.options import ExecutorOptions
    from omnieval.hooks import HookDispatcher
    from omnieval.runner import RunConfig, RunOutcome
    from omnieval.runner.progress import Progress
    from omnieval.sources import Task
    from omnieval.types import Sample

__all__ = ["ExecutorOptions", "execute"]


def __getattr__(name: str) -> Any:
    """``ExecutorOptions`` imported on first use: the coordinator actors (``gate``, ``actors``) import this
    package in their own processes, and each second of imports there delays a run's start on the cluster."""
    if name == "ExecutorOptions":
        from omnieval.executors.options import ExecutorOptions

        return ExecutorOptions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def execute(
    config: RunConfig,
    *,
    executor: ExecutorOptions | None = None,
    progress: Progress | None = None,
    judges: Any = None,
    hooks: HookDispatcher | None = None,
    on_first_record: Callable[[Sequence[Task]], None] | None = None,
    on_sample: Callable[[Task, Sample], None] | None = None,
) -> RunOutcome:
    """Run (or resume) ``config`` with the chosen executor; both write the same run directory.

    ``progress``: a display shared by several runs (a sweep); only the Ray executor reports into it.
    ``judges``: on Ray, judge gates and pools a sweep started for all its models (a ``JudgesOnCluster``).
    ``hooks``: receives each finished record; on Ray, the records the shards wrote, read back once they
    finish.
    ``on_first_record``: called once when this process starts waiting on the model: here, with the tasks,
    as the first sample is recorded; on Ray, with none, before the shards are sent.
    ``on_sample``: sees each sample a run here reads (never called on Ray: the workers read them).
    """
    from omnieval.hooks import NO_HOOKS
    from omnieval.runner import run

    hooks = NO_HOOKS if hooks is None else hooks
    if executor is None or executor.kind == "local":
        return run(config, hooks=hooks, on_first_record=on_first_record, on_sample=on_sample)
    if on_first_record is not None:
        on_first_record(())  # the tasks are resolved on the workers
    from omnieval.executors.ray_executor import run_on_ray

    outcome = run_on_ray(config, executor, progress=progress, judges=judges)
    if hooks:
        _replay(config, outcome, hooks)
    return outcome


def _replay(config: RunConfig, outcome: RunOutcome, hooks: HookDispatcher) -> None:
    """Records written on the cluster this time (the last ``n`` of each task) and each task's end, to the
    hooks."""
    from omnieval.store import iter_records

    fresh = {task: sum(states.values()) for task, states in outcome.states.items()}
    records = list(iter_records(config.output / "samples.jsonl"))
    for task, n in fresh.items():
        mine = [r for r in records if r.get("task") == task]
        for record in mine[len(mine) - n :]:
            hooks.record(record)
        hooks.task_finished(task, outcome.states[task])
