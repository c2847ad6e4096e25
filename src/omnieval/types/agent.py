"""Tool calls and agent episodes: what a multi-step (tool-using) sample records, step by step.

An episode is the whole trace of one agent sample: every model turn with its tool calls, each call's
outcome (a counted state with its cause), the images the tools showed, tokens, time and cost, how the
episode ended and the environment's final state. Re-scoring and re-judging read the final state from
here, so neither the model nor the tools run again.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from omnieval.types._base import Frozen
from omnieval.types.response import Usage
from omnieval.types.tools import ToolCall, ToolSpec

__all__ = [
    "CALL_STATES",
    "END_STATES",
    "AgentSpec",
    "CallState",
    "EndState",
    "Episode",
    "EpisodeStep",
    "ToolCall",
    "ToolOutcome",
    "ToolSpec",
]


CallState = Literal["ok", "unknown_tool", "bad_arguments", "tool_error", "tool_timeout"]
"""How one tool call went; every state but ``ok`` is an invalid or failed call, counted."""
CALL_STATES: tuple[CallState, ...] = ("ok", "unknown_tool", "bad_arguments", "tool_error", "tool_timeout")

EndState = Literal[
    "submitted", "final_answer", "step_limit", "token_limit", "time_limit", "cost_limit", "model_error"
]
"""Why an episode ended: the submit tool, an answer without tool calls, a limit, or a failed model call."""
END_STATES: tuple[EndState, ...] = (
    "submitted",
    "final_answer",
    "step_limit",
    "token_limit",
    "time_limit",
    "cost_limit",
    "model_error",
)


class ToolOutcome(Frozen):
    """The result of one tool call: its state, the text given back, the images shown (PNG files, relative
    to the run folder: ``episodes/…``)."""

    call_id: str
    name: str
    state: CallState
    output: str = ""
    images: tuple[str, ...] = ()
    cause: str | None = None
    """Why the call failed (unknown tool, the schema error, the exception, the timeout)."""
    latency_s: float = 0.0


class EpisodeStep(Frozen):
    """One model turn and the tool calls it made."""

    index: int
    text: str = ""
    reasoning: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    outcomes: tuple[ToolOutcome, ...] = ()
    usage: Usage = Usage()
    latency_s: float | None = None
    cost_usd: float | None = None
    finish_reason: str = "stop"
    error: str | None = None
    """Set when the model call itself failed (the episode then ends in ``model_error``)."""


class Episode(Frozen):
    """The whole trace of one agent sample."""

    environment: str
    """The registered tool environment (its name) that ran the tools."""
    steps: tuple[EpisodeStep, ...] = ()
    end: EndState
    end_reason: str = ""
    """The cause, naming the step (``step 8: step limit 8 reached``)."""
    answer: str | None = None
    """The submitted or final answer."""
    final_state: dict[str, Any] = Field(default_factory=dict)
    """The environment's state at the end (JSON): what final-state graders inspect."""
    tokens: int = 0
    time_s: float = 0.0
    cost_usd: float | None = None

    @property
    def calls(self) -> tuple[ToolOutcome, ...]:
        return tuple(o for s in self.steps for o in s.outcomes)


class AgentSpec(Frozen):
    """A task's tools and limits (``agent:`` in a task file): the runner runs an episode per sample."""

    environment: str
    """Registered tool environment (``omnieval.agent_envs`` entry point)."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Keyword options of the environment (which tools it offers)."""
    max_steps: int = Field(default=8, ge=1)
    """Model turns allowed; the episode ends in ``step_limit`` after the last."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Prompt + completion tokens allowed over the whole episode."""
    max_time_s: float | None = Field(default=None, gt=0)
    """Wall-clock seconds allowed over the whole episode (model and tools)."""
    max_cost_usd: float | None = Field(default=None, gt=0)
    """Cost allowed over the whole episode (needs a priced model)."""
    tool_timeout_s: float = Field(default=5.0, gt=0)
    """Seconds one tool call may run; then ``tool_timeout`` (the episode goes on)."""
    submit_tool: str = "submit"
    """The tool whose call ends the episode with its ``answer`` argument."""
