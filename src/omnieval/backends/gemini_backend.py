"""``gemini/MODEL``: Gemini through Google's official ``google-genai`` SDK (optional extra ``gemini``).

Text, images, audio and video parts (inline, after the task's media policy), the system instruction,
stop sequences, the seed, and a thinking budget (``thinkingConfig``; thought parts are kept as the
response's ``reasoning``, never scored). The SDK does not retry: the runner retries, backs off on 429
(honouring ``retry-after``) and 5xx, and feeds its circuit breaker as for ``openai/``; a provider error
is recorded with Google's error body as written. ``--base-url`` points the SDK elsewhere (the tests' fake).

Media above ``INLINE_LIMIT`` bytes in one request would need the Files API, which is not implemented
yet: such a request fails with a clear, non-retryable error.
"""

from __future__ import annotations

import base64
import json
import os
import time
from typing import Any

from omnieval.backends._openai_parse import parse_retry_after
from omnieval.backends.base import Backend, BackendOptions, register_backend
from omnieval.errors import BackendError, ConfigError, MediaError
from omnieval.types import AudioPart, FinishReason, ImagePart, MediaPolicy, Request, Response, TextPart, Usage
from omnieval.types.request import Reasoning

__all__ = ["EFFORT_BUDGET", "INLINE_LIMIT", "GeminiBackend"]

INLINE_LIMIT = 20 * 1024 * 1024
"""Gemini's limit on a request's inline data (bytes)."""
EFFORT_BUDGET = {"low": 1024, "medium": 8192, "high": 24576}
"""``thinkingBudget`` for ``--reasoning-effort`` when no ``--reasoning-budget`` is given."""
RETRYABLE = frozenset({408, 429, 500, 502, 503, 504})
STOPS: dict[str, FinishReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
}


def thinking_budget(reasoning: Reasoning | None) -> int | None:
    return reasoning.budget_or_from_effort(EFFORT_BUDGET) if reasoning is not None else None


@register_backend("gemini")
class GeminiBackend(Backend):
    """``generateContent`` over the ``google-genai`` SDK."""

    modalities = frozenset({"text", "image", "audio", "video"})

    def __init__(self, model: str, *, options: BackendOptions) -> None:
        super().__init__(model, options=options)
        from google import genai
        from google.genai import types

        key = options.api_key or os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
        if not key and not options.base_url:
            raise ConfigError("gemini backend: set GEMINI_API_KEY (or --api-key), or pass --base-url")
        self.base_url = options.base_url or "https://generativelanguage.googleapis.com"
        http = (
            types.HttpOptions(base_url=options.base_url, timeout=int(options.timeout_s * 1000))
            if options.base_url
            else types.HttpOptions(timeout=int(options.timeout_s * 1000))
        )
        self._client = genai.Client(api_key=key or "unused", http_options=http)
        self._processors: dict[MediaPolicy, Any] = {}

    def _processor(self, policy: MediaPolicy) -> Any:
        from omnieval.media import processor_for  # type: ignore[attr-defined]

        if policy not in self._processors:
            self._processors[policy] = processor_for(policy, self.options.media_cache_dir)
        return self._processors[policy]

    def _media(self, part: Any, policy: MediaPolicy, applied: dict[str, Any]) -> list[Any]:
        """Inline parts (``mime_type`` and bytes) for one media part."""
        from google.genai import types

        processor = self._processor(policy)
        ref = part.media
        if isinstance(part, ImagePart):
            item = processor.image(ref)
            urls = [item.data_url()]
        elif isinstance(part, AudioPart):
            item = processor.audio(ref)
            applied[ref.name] = dict(item.applied)
            return [types.Part.from_bytes(data=base64.b64decode(item.base64()), mime_type="audio/wav")]
        else:
            item = processor.video(ref)
            urls = [item.data_url()] if policy.video_mode == "file" else [f.data_url() for f in item.frames]
        applied[ref.name] = dict(item.applied)
        out = []
        for url in urls:
            header, _, data = url.partition(",")
            out.append(types.Part.from_bytes(data=base64.b64decode(data), mime_type=header[5:].split(";")[0]))
        return out

    def body(self, request: Request) -> tuple[list[Any], Any, dict[str, Any]]:
        """Contents, generation config and the media processing applied."""
        from google.genai import types

        system: list[str] = []
        contents: list[Any] = []
        applied: dict[str, Any] = {}
        size = 0
        for msg in request.messages:
            content = msg.content
            if msg.role == "system":
                system.append(
                    content if isinstance(content, str) else "".join(getattr(p, "text", "") for p in content)
                )
                continue
            parts: list[Any] = []
            for p in (TextPart(text=content),) if isinstance(content, str) else content:
                if isinstance(p, TextPart):
                    parts.append(types.Part(text=p.text))
                    continue
                try:
                    media = self._media(p, request.media_policy, applied)
                except MediaError as exc:
                    raise BackendError(f"{self.spec}: {exc}", retryable=False) from exc
                size += sum(len(m.inline_data.data) for m in media if m.inline_data is not None)
                parts.extend(media)
            contents.append(types.Content(role="model" if msg.role == "assistant" else "user", parts=parts))
        if size > INLINE_LIMIT:
            raise BackendError(
                f"{self.spec} sample {request.sample_id!r}: {size:,} bytes of media exceed the inline "
                f"limit ({INLINE_LIMIT:,}); the Files API is not supported yet (lower the media policy)"
            )
        gen = request.generation
        budget = thinking_budget(request.reasoning)
        config = types.GenerateContentConfig(
            temperature=gen.temperature,
            max_output_tokens=gen.max_tokens,
            top_p=gen.top_p,
            seed=gen.seed,
            stop_sequences=list(gen.stop) or None,
            system_instruction="\n\n".join(system) or None,
            thinking_config=types.ThinkingConfig(thinking_budget=budget, include_thoughts=True)
            if budget
            else None,
        )
        return contents, config, applied

    async def generate(self, request: Request) -> Response:
        from google.genai import errors

        if request.kind != "generate":
            raise BackendError(f"{self.spec}: only generate requests are supported (got {request.kind})")
        contents, config, applied = self.body(request)
        where = f"{self.spec} task {request.task!r} sample {request.sample_id!r} ({self.base_url})"
        started = time.perf_counter()
        try:
            result = await self._client.aio.models.generate_content(
                model=self.model, contents=contents, config=config
            )
        except errors.APIError as exc:
            raise _status_error(exc, where) from None
        except Exception as exc:  # httpx transport failures surface as their own types
            raise BackendError(
                f"{where}: connection failed: {type(exc).__name__}: {exc}",
                retryable=True,
                transport="connection",
                url=self.base_url,
            ) from None
        return _response(result, latency=time.perf_counter() - started, media=applied)

    def reasoning_mapping(self, reasoning: Reasoning | None) -> dict[str, Any]:
        budget = thinking_budget(reasoning)
        if budget is None:
            return {}
        return {
            "sent": {"thinkingConfig": {"thinkingBudget": budget, "includeThoughts": True}},
            "how": "--reasoning-budget"
            if reasoning and reasoning.budget_tokens
            else f"effort → budget {EFFORT_BUDGET}",
        }

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "base_url": self.base_url, "timeout_s": self.options.timeout_s}


def _status_error(exc: Any, where: str) -> BackendError:
    status = int(exc.code or 0)
    body = exc.details if exc.details is not None else exc.message
    text = json.dumps(body, ensure_ascii=False) if not isinstance(body, str) else body
    response = getattr(exc, "response", None)
    retry_after = parse_retry_after(response.headers.get("retry-after")) if response is not None else None
    return BackendError(
        f"{where}: HTTP {status}: {text[:1000]}",
        retryable=status in RETRYABLE,
        retry_after=retry_after,
        rate_limited=status == 429,
        status=status,
        server_message=exc.message,
    )


def _response(result: Any, *, latency: float, media: dict[str, Any]) -> Response:
    candidate = (result.candidates or [None])[0]
    parts = (candidate.content.parts or []) if candidate is not None and candidate.content is not None else []
    text = "".join(p.text or "" for p in parts if not p.thought)
    thoughts = "".join(p.text or "" for p in parts if p.thought) or None
    reason = getattr(getattr(candidate, "finish_reason", None), "value", None) or "STOP"
    meta = result.usage_metadata
    usage = Usage()
    if meta is not None:
        thought = meta.thoughts_token_count or 0
        usage = Usage(
            prompt_tokens=meta.prompt_token_count,
            completion_tokens=(meta.candidates_token_count or 0) + thought,
            cached_tokens=meta.cached_content_token_count,
            reasoning_tokens=thought or None,
        )
    return Response(
        text=text,
        reasoning=thoughts,
        finish_reason=STOPS.get(str(reason), "other"),
        usage=usage,
        latency_s=latency,
        media=media,
    )
