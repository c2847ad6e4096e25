"""Multi-step tasks: typed tools over a deterministic state, the agent loop, final-state grading.

A task with ``agent:`` names a registered tool environment (:func:`register_environment`); the runner
builds one per sample and repeat, runs :func:`run_episode` (model → tool calls → results → model until
the submit tool, a final answer or a limit) and records the :class:`~omnieval.types.agent.Episode`.
The ``final_state`` metric grades the environment's final state, so scoring never replays the tools.
"""

from omnieval.agent.environment import Environment, environments, register_environment
from omnieval.agent.loop import run_episode
from omnieval.agent.tools import Tool, ToolResult, tool

__all__ = [
    "Environment",
    "Tool",
    "ToolResult",
    "environments",
    "register_environment",
    "run_episode",
    "tool",
]
