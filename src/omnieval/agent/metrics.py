"""``final_state``: an agent episode graded by its environment from the state it ended in."""

from __future__ import annotations

from omnieval.agent.environment import environments
from omnieval.errors import MetricError
from omnieval.metrics import register_metric
from omnieval.types import ScoringInput

__all__ = ["final_state"]


@register_metric("final_state")
def final_state(inp: ScoringInput, /) -> float:
    """1 when the environment's grader accepts the episode's final state (never a string match of the
    answer text alone); re-scoring reads the recorded state, so no tool runs again."""
    if inp.episode is None:
        raise MetricError("metric 'final_state' needs an agent episode (a task with 'agent:')")
    env = environments.get(inp.episode.environment)
    return float(env.grade(inp.episode.final_state, inp.metadata))
