"""Runner: the only place where stages are wired together."""

from omnieval.runner.config import JudgeConfig, RetryPolicy, RunConfig
from omnieval.runner.reasoning import split_reasoning
from omnieval.runner.resolve import catalog, resolve_tasks, validate_task
from omnieval.runner.run import RunOutcome, run, run_async
from omnieval.runner.scoring import Scorer

__all__ = [
    "JudgeConfig",
    "RetryPolicy",
    "RunConfig",
    "RunOutcome",
    "Scorer",
    "catalog",
    "resolve_tasks",
    "run",
    "run_async",
    "split_reasoning",
    "validate_task",
]
