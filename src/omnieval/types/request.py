"""What the prompt stage hands to a backend."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import Field

from omnieval.types._base import Frozen
from omnieval.types.content import MediaRef, Message
from omnieval.types.task import GenerationConfig, MediaPolicy
from omnieval.types.tools import ToolSpec

__all__ = ["GenerationConfig", "Reasoning", "Request", "RequestKind"]

RequestKind = Literal["generate", "loglikelihood", "classify"]
"""``generate`` asks for text; ``loglikelihood`` asks for the log-probability of each choice;
``classify`` asks a classifier for the label of ``prompt`` (answered as text, probabilities in ``extra``)."""


class Reasoning(Frozen):
    """Typed reasoning controls (``--reasoning-effort``, ``--reasoning-budget``); each backend maps them to
    its provider's field and says how in :meth:`~omnieval.backends.Backend.reasoning_mapping`."""

    effort: Literal["low", "medium", "high"] | None = None
    budget_tokens: int | None = Field(default=None, ge=1)
    """Thinking tokens allowed (Anthropic / Gemini thinking budget); counted on top of ``max_tokens``."""

    def budget_or_from_effort(self, budgets: dict[str, int]) -> int | None:
        """The budget, or the provider's budget for the effort (``budgets``: effort → tokens)."""
        if self.budget_tokens is not None:
            return self.budget_tokens
        return budgets[self.effort] if self.effort else None

    def effort_or_from_budget(self) -> Literal["low", "medium", "high"] | None:
        """The effort, or one read off the budget (≤ 2,048 low, ≤ 8,192 medium, above: high)."""
        if self.effort is not None or self.budget_tokens is None:
            return self.effort
        return "low" if self.budget_tokens <= 2048 else "medium" if self.budget_tokens <= 8192 else "high"


class Request(Frozen):
    """A fully rendered model request for one sample."""

    task: str
    sample_id: str
    messages: tuple[Message, ...]
    """The chat conversation; the completion format flattens it (see ``prompt``)."""
    prompt: str | None = None
    """Plain-completion text, set when the task uses the completion format."""
    kind: RequestKind = "generate"
    continuations: tuple[str, ...] = ()
    """Choice texts to score for ``loglikelihood`` requests."""
    choices: tuple[str, ...] | None = None
    """Answer options (baselines use them)."""
    targets: tuple[str, ...] = ()
    """Gold answers as the model should write them; only baselines (oracle) may read these."""
    variant: str | None = None
    """Prompt variant id assigned to this sample."""
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    blind: bool = False
    """True when media were removed (blind control run)."""
    media_policy: MediaPolicy = Field(default_factory=MediaPolicy)
    """How this request's media must be prepared (task policy, overridden per model)."""
    language: str | None = None
    """The sample's language (``metadata.language``/``lang``), else the task's; a cascade's wrappers follow
    it."""
    reasoning: Reasoning | None = None
    """Reasoning controls of the run; ``None``: the provider's default (and no part of the fingerprint)."""
    tools: tuple[ToolSpec, ...] = ()
    """Tools the model may call (agent episodes); a backend without tool calling refuses such a task."""
    repeat: int | None = None
    """Which repeated answer this request asks for (``--repeats``); no part of the fingerprint (the
    generation seed already tells repeats apart). A replay file can answer each repeat its own way."""

    @property
    def media(self) -> tuple[MediaRef, ...]:
        """Every media reference in message order."""
        return tuple(m for msg in self.messages for m in msg.media)

    def fingerprint(self, *, backend: str, model: str) -> str:
        """Stable hash over backend, model, decoding, rendered text and media hashes."""
        left_out = {"task", "sample_id", "targets", "variant", "language", "repeat"} | (
            {"reasoning"} if self.reasoning is None else set()
        )
        if not self.tools:
            left_out.add("tools")
        body = self.model_dump(mode="json", exclude=left_out)
        for msg in body["messages"]:
            if not msg["tool_calls"]:  # a plain chat keeps the fingerprint it had before tool calling
                del msg["tool_calls"]
            if msg["tool_call_id"] is None:
                del msg["tool_call_id"]
            if isinstance(msg["content"], list):
                for part in msg["content"]:
                    if "media" in part:
                        media = part["media"]
                        part["media"] = {"kind": media["kind"], "id": media["sha256"] or media["path"]}
        payload = json.dumps({"b": backend, "m": model, "r": body}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode()).hexdigest()
