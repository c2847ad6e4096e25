"""What a backend returns."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from omnieval.types._base import Frozen
from omnieval.types.audio import AudioAnswer
from omnieval.types.tools import ToolCall

__all__ = ["FinishReason", "Response", "StreamTiming", "Usage"]

FinishReason = Literal["stop", "length", "error", "content_filter", "other"]
"""Why generation ended; ``length`` makes the sample ``truncated``."""


class Usage(Frozen):
    """Token counts as the backend reports them."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    """Prompt tokens served from the provider's prompt cache (part of ``prompt_tokens``)."""
    reasoning_tokens: int | None = None
    """Reasoning ("thinking") tokens, counted separately (part of ``completion_tokens``)."""


class StreamTiming(Frozen):
    """How a streamed answer arrived (``--stream``): what a user of the server waits, measured in the run
    that scores it."""

    ttft_s: float | None = None
    """Seconds from sending the request to the first piece of answer; ``None``: no piece came."""
    output_tokens: int | None = None
    """Answer tokens: the server's usage count, else the streamed pieces counted."""
    tokens_per_s: float | None = None
    """Output tokens per second after the first one; ``None`` for fewer than two tokens."""


class Response(Frozen):
    """One model answer (or failure) for one request."""

    text: str = ""
    """The answer with reasoning stripped: what parsers see."""
    raw_text: str | None = None
    """The full text as the model produced it, when it differs from ``text``."""
    reasoning: str | None = None
    """Reasoning content (``<think>`` blocks or a separate reasoning field)."""
    finish_reason: FinishReason = "stop"
    usage: Usage = Usage()
    latency_s: float | None = None
    error: str | None = None
    """Set when the backend could not answer; the sample then ends in ``error``."""
    logprobs: tuple[float, ...] | None = None
    """Per-choice log-likelihoods for ``loglikelihood`` requests."""
    cached: bool = False
    """True when served from the response cache."""
    cost_usd: float | None = None
    """What this answer cost by the run's price table (0 for a cache hit; ``None``: no price known)."""
    media: dict[str, Any] = Field(default_factory=dict)
    """The media processing the backend actually applied (sizes, frames, sample rate)."""
    extra: dict[str, Any] = Field(default_factory=dict)
    tool_calls: tuple[ToolCall, ...] = ()
    """The tool calls the model made (chat tool calling); empty for a plain answer."""
    audio: AudioAnswer | None = None
    """A spoken answer (the run keeps the file, hears it, and scores the transcript as ``text``)."""
    stream: StreamTiming | None = None
    """Set for a streamed answer (``--stream``)."""

    @classmethod
    def from_text(cls, text: str, **kwargs: Any) -> Response:
        """Named constructor for baselines, replay and tests."""
        return cls(text=text, **kwargs)

    @classmethod
    def from_error(cls, message: str) -> Response:
        """A failed request."""
        return cls(text="", finish_reason="error", error=message)

    @property
    def ok(self) -> bool:
        return self.error is None
