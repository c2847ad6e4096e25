"""The agent block of a task's results: episode ends, tool-call validity, steps and tokens to success."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from omnieval.types.results import AgentSummary

__all__ = ["AgentAccumulator"]

_INVALID = ("unknown_tool", "bad_arguments")
"""Calls the model got wrong (a tool that raised or hung is the tool's failure, not the model's)."""


class AgentAccumulator:
    """Reads each record's ``episode`` (as the plain dict of its line)."""

    def __init__(self) -> None:
        self.ends: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self.steps: list[int] = []
        self.success_steps: list[int] = []
        self.success_tokens: list[int] = []
        self.successes = 0
        self.cost: float | None = None

    def __bool__(self) -> bool:
        return bool(self.steps)

    def add(self, record: dict[str, Any]) -> None:
        episode = record.get("episode")
        if not isinstance(episode, dict):
            return
        steps = episode.get("steps") or []
        self.ends[str(episode.get("end"))] += 1
        self.steps.append(len(steps))
        for step in steps:
            for outcome in step.get("outcomes") or ():
                self.calls[str(outcome.get("state"))] += 1
        if episode.get("cost_usd") is not None:
            self.cost = (self.cost or 0.0) + float(episode["cost_usd"])
        if record.get("state") == "ok" and float(record.get("score") or 0.0) >= 1.0:
            self.successes += 1
            self.success_steps.append(len(steps))
            self.success_tokens.append(int(episode.get("tokens") or 0))

    def summary(self) -> AgentSummary:
        total = sum(self.calls.values())
        invalid = sum(self.calls[s] for s in _INVALID)
        return AgentSummary(
            episodes=len(self.steps),
            success_rate=self.successes / len(self.steps),
            ends=dict(sorted(self.ends.items())),
            tool_calls=total,
            call_states=dict(sorted(self.calls.items())),
            valid_call_rate=(total - invalid) / total if total else None,
            mean_steps=math.fsum(self.steps) / len(self.steps),
            steps_to_success=_mean(self.success_steps),
            tokens_to_success=_mean(self.success_tokens),
            cost_usd=self.cost,
        )


def _mean(values: list[int]) -> float | None:
    return math.fsum(values) / len(values) if values else None
