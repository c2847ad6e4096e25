"""Tool environments: a state the task sets up per sample, the tools over it, and its grader."""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from omnieval.agent.tools import Tool
from omnieval.registry import Registry
from omnieval.types import Sample

__all__ = ["Environment", "environments", "register_environment"]


class Environment:
    """One sample's world: ``state`` (plain JSON data) changed only by the tools, inspected by
    :meth:`grade` at the end. Subclasses build their tools in ``tools()``; everything is deterministic
    (a seed comes with the sample), so an episode replays to the same state."""

    name: ClassVar[str] = ""

    def __init__(self, sample: Sample, **options: Any) -> None:
        self.sample = sample
        self.options = options
        self.state: dict[str, Any] = {"answer": None}

    def tools(self) -> list[Tool]:
        return []

    def submit(self, answer: str) -> None:
        """The submit tool: the answer joins the state (graders read it there)."""
        self.state["answer"] = answer

    def tool_timed_out(self, name: str) -> None:
        """A tool gave no result in time (its thread is abandoned); a server-backed environment stops
        its server here."""

    def close(self) -> None:
        """Release what the environment holds (a tool server process); called once the episode ended."""

    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy(self.state)

    @classmethod
    def grade(cls, final_state: dict[str, Any], metadata: dict[str, Any]) -> float:
        """Success in [0, 1] from the final state and the sample's metadata (its goal)."""
        goal = metadata.get("goal", {})
        return float(str(final_state.get("answer")).strip() == str(goal.get("answer")).strip())


environments: Registry[type[Environment]] = Registry("agent environment", group="omnieval.agent_envs")


def register_environment(name: str) -> Any:
    """Register an :class:`Environment` subclass under ``name`` (``agent.environment`` in a task)."""

    def decorate(cls: type[Environment]) -> type[Environment]:
        cls.name = name
        environments.add(name, cls)
        return cls

    return decorate
