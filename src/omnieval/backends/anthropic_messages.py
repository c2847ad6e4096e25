"""Anthropic SDK results in omnieval's terms: an HTTP error as a :class:`BackendError` (retryable or
not, with its ``retry-after``) and a message as a :class:`Response`; shared by the backend
(``anthropic_backend``) and its Message Batches client (``anthropic_batch``)."""

from __future__ import annotations

import json
from typing import Any

from omnieval.backends._openai_parse import parse_retry_after
from omnieval.errors import BackendError
from omnieval.types import FinishReason, Response, Usage
from omnieval.types.tools import ToolCall

__all__ = ["RETRYABLE", "STOPS", "message_response", "status_error"]

RETRYABLE = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
STOPS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "refusal": "content_filter",
    "tool_use": "stop",
    "pause_turn": "other",
}


def status_error(exc: Any, where: str) -> BackendError:
    status = exc.status_code
    body = exc.body if exc.body is not None else exc.message
    text = json.dumps(body, ensure_ascii=False) if not isinstance(body, str) else body
    message = (body.get("error") or {}).get("message") if isinstance(body, dict) else None
    return BackendError(
        f"{where}: HTTP {status}: {text[:1000]}",
        retryable=status in RETRYABLE,
        retry_after=parse_retry_after(exc.response.headers.get("retry-after")),
        rate_limited=status == 429,
        status=status,
        server_message=message,
    )


def message_response(message: Any, *, latency: float, media: dict[str, Any]) -> Response:
    text = "".join(b.text for b in message.content if b.type == "text")
    calls = tuple(
        ToolCall(id=b.id, name=b.name, arguments=json.dumps(b.input, ensure_ascii=False))
        for b in message.content
        if b.type == "tool_use"
    )
    thinking = "".join(getattr(b, "thinking", "") for b in message.content if b.type == "thinking") or None
    usage = message.usage
    cached = getattr(usage, "cache_read_input_tokens", None) or 0
    created = getattr(usage, "cache_creation_input_tokens", None) or 0
    return Response(
        text=text,
        tool_calls=calls,
        reasoning=thinking,
        finish_reason=STOPS.get(str(message.stop_reason), "other"),
        usage=Usage(
            prompt_tokens=usage.input_tokens + cached + created,
            completion_tokens=usage.output_tokens,
            cached_tokens=cached or None,
        ),
        latency_s=latency,
        media=media,
    )
