"""``anthropic/MODEL``: Claude through Anthropic's official SDK (optional extra ``anthropic``).

Text and base64 images, the system prompt, stop sequences and extended thinking with a token budget
(the thinking text is kept as the response's ``reasoning``, never scored). The SDK's own retries are
off: the runner retries, backs off on 429 (honouring ``retry-after``) and 529 (overloaded), and feeds
its circuit breaker, exactly as for ``openai/``; provider error bodies are shown as the provider wrote
them. ``--base-url`` points the SDK elsewhere (the tests' fake server).
"""

from __future__ import annotations

import os
import time
from typing import Any, cast

from omnieval.backends._transport import connection_kind
from omnieval.backends.anthropic_messages import message_response, status_error
from omnieval.backends.base import Backend, BackendOptions, register_backend
from omnieval.errors import BackendError, ConfigError, MediaError
from omnieval.types import ImagePart, MediaPolicy, Request, Response, TextPart
from omnieval.types.request import Reasoning

__all__ = ["EFFORT_BUDGET", "AnthropicBackend"]

EFFORT_BUDGET = {"low": 1024, "medium": 4096, "high": 16384}
"""Thinking budget for ``--reasoning-effort`` when no ``--reasoning-budget`` is given."""


def _append(messages: list[dict[str, Any]], role: str, parts: list[dict[str, Any]]) -> None:
    """Add a turn; the Messages API wants roles to alternate, so a turn of the same role as the last
    (tool results, then the images they showed) joins it."""
    if messages and messages[-1]["role"] == role:
        messages[-1]["content"].extend(parts)
    else:
        messages.append({"role": role, "content": parts})


@register_backend("anthropic")
class AnthropicBackend(Backend):
    """Claude's Messages API over the ``anthropic`` SDK."""

    modalities = frozenset({"text", "image"})
    batch_api = "anthropic"
    effort_budget = EFFORT_BUDGET
    tool_calling = True

    def __init__(self, model: str, *, options: BackendOptions) -> None:
        super().__init__(model, options=options)
        import anthropic

        key = options.api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key and not options.base_url:
            raise ConfigError("anthropic backend: set ANTHROPIC_API_KEY (or --api-key), or pass --base-url")
        self.base_url = options.base_url or "https://api.anthropic.com"
        self.client = anthropic.AsyncAnthropic(
            api_key=key or "unused", base_url=options.base_url, max_retries=0, timeout=options.timeout_s
        )
        self._processors: dict[MediaPolicy, Any] = {}

    def _image(self, part: ImagePart, policy: MediaPolicy, applied: dict[str, Any]) -> dict[str, Any]:
        from omnieval.media.processor import processor_for

        processor = self._processors.get(policy) or self._processors.setdefault(
            policy, processor_for(policy, self.options.media_cache_dir)
        )
        try:
            image = processor.image(part.media)
        except MediaError as exc:
            raise BackendError(f"{self.spec}: {exc}", retryable=False) from exc
        applied[part.media.name] = dict(image.applied)
        header, _, data = image.data_url().partition(",")
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": header[5:].split(";")[0], "data": data},
        }

    def body(self, request: Request) -> tuple[dict[str, Any], dict[str, Any]]:
        """The Messages API arguments and the media processing applied."""
        system: list[str] = []
        messages: list[dict[str, Any]] = []
        applied: dict[str, Any] = {}
        for msg in request.messages:
            content = msg.content
            if msg.role == "system":
                system.append(
                    content if isinstance(content, str) else "".join(getattr(p, "text", "") for p in content)
                )
                continue
            if msg.role == "tool":  # a tool's result goes back in a user turn, as a tool_result block
                block = {"type": "tool_result", "tool_use_id": msg.tool_call_id, "content": msg.text}
                _append(messages, "user", [block])
                continue
            if isinstance(content, str):
                parts: list[dict[str, Any]] = [{"type": "text", "text": content}] if content else []
            else:
                parts = [
                    {"type": "text", "text": p.text}
                    if isinstance(p, TextPart)
                    else self._image(cast(ImagePart, p), request.media_policy, applied)
                    for p in content
                ]
            parts += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.input()} for c in msg.tool_calls
            ]
            _append(messages, msg.role, parts)
        gen = request.generation
        budget = self.thinking_budget(request.reasoning)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": gen.max_tokens + (budget or 0),
        }
        if system:
            kwargs["system"] = "\n\n".join(system)
        if request.tools:
            kwargs["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in request.tools
            ]
        if gen.stop:
            kwargs["stop_sequences"] = list(gen.stop)
        if budget:  # extended thinking requires the default temperature
            kwargs["thinking"] = {"type": "enabled", "budget_tokens": budget}
        else:
            kwargs["temperature"] = gen.temperature
            if gen.top_p is not None:
                kwargs["top_p"] = gen.top_p
        return kwargs, applied

    async def generate(self, request: Request) -> Response:
        import anthropic

        if request.kind != "generate":
            raise BackendError(f"{self.spec}: only generate requests are supported (got {request.kind})")
        kwargs, applied = self.body(request)
        where = (
            f"{self.spec} task {request.task!r} sample {request.sample_id!r} ({self.base_url}/v1/messages)"
        )
        started = time.perf_counter()
        sampling = {k: kwargs.pop(k) for k in ("temperature", "top_p") if k in kwargs}
        try:  # sampling fields go as extra body fields: newer SDKs no longer list them, the API takes them
            message = await self.client.messages.create(**kwargs, extra_body=sampling or None)
        except anthropic.APIStatusError as exc:
            raise status_error(exc, where) from None
        except anthropic.APITimeoutError:
            raise BackendError(
                f"{where}: no answer within {self.options.timeout_s:g} s", retryable=True, transport="timeout"
            ) from None
        except anthropic.APIConnectionError as exc:  # refused / DNS / TLS trip the breaker, a reset does not
            raise BackendError(
                f"{where}: connection failed: {exc}",
                retryable=True,
                transport=connection_kind(exc),
                url=self.base_url,
            ) from None
        return message_response(message, latency=time.perf_counter() - started, media=applied)

    def reasoning_mapping(self, reasoning: Reasoning | None) -> dict[str, Any]:
        mapping = self.budget_mapping(
            reasoning, lambda budget: {"thinking": {"type": "enabled", "budget_tokens": budget}}
        )
        note = (
            "max_tokens is raised by the budget; temperature is left at the API default (thinking "
            "requires it)"
        )
        return {**mapping, "note": note} if mapping else {}

    def batch_client(self) -> Any:
        """Message Batches (``--batch``)."""
        from omnieval.backends.anthropic_batch import AnthropicBatchClient

        return AnthropicBatchClient(self)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "base_url": self.base_url, "timeout_s": self.options.timeout_s}

    async def aclose(self) -> None:
        await self.client.close()
