"""Reading OpenAI-style response bodies: answers, finish reasons, usage, errors, prompt log-probs.

Every problem becomes a :class:`BackendError` naming the request and the missing field, retryable
when a second try may go better (a garbled body) and not when it cannot (a server without logprobs).
"""

from __future__ import annotations

import email.utils
import html
import json
import re
from datetime import UTC, datetime
from typing import Any

from omnieval.backends._transport import Reply
from omnieval.backends.breaker import unsupported_feature
from omnieval.errors import BackendError
from omnieval.types import FinishReason, Request, Response, Usage
from omnieval.types.tools import ToolCall

__all__ = [
    "FINISH",
    "LABELS",
    "bad_field",
    "html_page",
    "http_error",
    "loglikelihood_payload",
    "loglikelihood_response",
    "parse_retry_after",
    "response_from",
    "server_message",
    "text_of",
    "usage_of",
]

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""A loglikelihood answer is the letter of the most likely continuation (as the hf backend answers)."""
FINISH: dict[Any, FinishReason] = {
    None: "stop",
    "stop": "stop",
    "eos": "stop",
    "end_turn": "stop",
    "length": "length",
    "max_tokens": "length",
    "content_filter": "content_filter",
    "tool_calls": "stop",
}


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta seconds or an HTTP date); None when absent or unusable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def html_page(content: bytes) -> str | None:
    """An HTML page's gist (its title, else its text) when ``content`` is one (a proxy's or a web UI's
    page, not an API answer); None otherwise."""
    head = content[:512].lstrip().lower()
    if not (head.startswith(b"<!doctype html") or head.startswith(b"<html") or b"<body" in head):
        return None
    text = content[:20000].decode("utf-8", "replace")
    title = _TITLE.search(text)
    gist = title.group(1) if title else _TAG.sub(" ", text)
    return "HTML page: " + (" ".join(html.unescape(gist).split())[:200] or "(no text)")


def server_message(reply: Reply) -> str:
    """The error text a server put in its body, whatever its dialect (an HTML page by its title)."""
    try:
        body = json.loads(reply.content)
    except ValueError:
        page = html_page(reply.content)
        if page is not None:
            return page
        return reply.content[:300].decode("utf-8", "replace").strip() or "(empty body)"
    if isinstance(body, dict):
        err = body.get("error", body.get("detail", body.get("message")))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err is not None:
            return str(err)[:500]
    return str(body)[:300]


def http_error(reply: Reply, where: str, *, url: str | None = None) -> BackendError:
    """Map an HTTP status to the runner's retry vocabulary."""
    status = reply.status
    message = server_message(reply)
    retry_after = parse_retry_after(reply.retry_after)
    facts: dict[str, Any] = {
        "status": status,
        "url": url,
        "server_message": message,
        "retry_after": retry_after,
    }
    if status == 429:
        return BackendError(
            f"{where}: rate limited (HTTP 429): {message}", retryable=True, rate_limited=True, **facts
        )
    if unsupported_feature(message):  # the same answer however often it is asked
        return BackendError(
            f"{where}: HTTP {status}: {message} (the server cannot do this: not retried)",
            retryable=False,
            **facts,
        )
    retryable = status >= 500 or status in (408, 409)
    return BackendError(f"{where}: HTTP {status}: {message}", retryable=retryable, **facts)


def bad_field(where: str, field: str, problem: str) -> BackendError:
    return BackendError(f"{where}: response field {field!r} {problem}", retryable=True)


def first_choice(data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise BackendError(
            f"{where}: response body is {type(data).__name__}, expected a JSON object", retryable=True
        )
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise bad_field(where, "choices", "is missing or empty")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise bad_field(where, "choices[0]", "is not an object")
    return choice


def text_of(content: Any, where: str, field: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    raise bad_field(where, field, f"is {type(content).__name__}, expected text")


def usage_of(data: dict[str, Any]) -> Usage:
    usage = data.get("usage")
    if not isinstance(usage, dict):
        return Usage()
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens")
    return Usage(
        prompt_tokens=prompt if isinstance(prompt, int) else None,
        completion_tokens=completion if isinstance(completion, int) else None,
        cached_tokens=cached if isinstance(cached, int) else None,
        reasoning_tokens=reasoning if isinstance(reasoning, int) else None,
    )


def tool_calls_of(value: Any, where: str) -> tuple[ToolCall, ...]:
    """``message.tool_calls`` as typed calls; arguments stay the raw text the model wrote (a malformed
    one is the agent loop's counted ``bad_arguments``, not a transport error)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise bad_field(where, "choices[0].message.tool_calls", "is not a list")
    calls = []
    for i, call in enumerate(value):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise bad_field(where, f"choices[0].message.tool_calls[{i}].function.name", "is missing")
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments if arguments is not None else {}, ensure_ascii=False)
        call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"call_{i}"
        calls.append(ToolCall(id=call_id, name=function["name"], arguments=arguments))
    return tuple(calls)


def response_from(data: Any, *, chat: bool, where: str, latency: float, media: dict[str, Any]) -> Response:
    """Build the Response from a parsed body; a missing field is a retryable error naming it."""
    choice = first_choice(data, where)
    reasoning: str | None = None
    calls: tuple[ToolCall, ...] = ()
    if chat:
        message = choice.get("message")
        if not isinstance(message, dict):
            raise bad_field(where, "choices[0].message", "is missing or not an object")
        text = text_of(message.get("content"), where, "choices[0].message.content")
        reasoning = message.get("reasoning_content") or message.get("reasoning") or None
        if reasoning is not None and not isinstance(reasoning, str):
            reasoning = str(reasoning)
        calls = tool_calls_of(message.get("tool_calls"), where)
    else:
        if "text" not in choice:
            raise bad_field(where, "choices[0].text", "is missing")
        text = text_of(choice["text"], where, "choices[0].text")
    finish: FinishReason = FINISH.get(choice.get("finish_reason"), "other")
    return Response(
        text=text,
        tool_calls=calls,
        reasoning=reasoning,
        finish_reason=finish,
        usage=usage_of(data),
        latency_s=latency,
        media=media,
    )


def loglikelihood_payload(model: str, request: Request, *, max_tokens_key: str) -> dict[str, Any]:
    """One /completions call scoring every ``prompt + continuation`` with echoed prompt log-probs."""
    prompt = request.prompt or ""
    return {
        "model": model,
        "prompt": [prompt + c for c in request.continuations],
        "echo": True,
        "logprobs": 1,
        max_tokens_key: 1,
        "temperature": 0.0,
    }


def _continuation_logprob(choice: Any, *, start: int, end: int, where: str, field: str) -> float:
    logprobs = choice.get("logprobs") if isinstance(choice, dict) else None
    if not isinstance(logprobs, dict) or not isinstance(logprobs.get("token_logprobs"), list):
        raise BackendError(
            f"{where}: response field {field + '.logprobs.token_logprobs'!r} is missing; loglikelihood needs "
            "a "
            "server that echoes prompt log-probs on /completions (vLLM does)",
            retryable=False,
        )
    offsets = logprobs.get("text_offset")
    if not isinstance(offsets, list) or len(offsets) != len(logprobs["token_logprobs"]):
        raise bad_field(
            where, f"{field}.logprobs.text_offset", "is missing or not aligned with token_logprobs"
        )
    picked = [lp for lp, off in zip(logprobs["token_logprobs"], offsets, strict=True) if start <= off < end]
    if not picked or any(not isinstance(lp, int | float) for lp in picked):
        raise bad_field(where, f"{field}.logprobs", f"has no usable log-probs for characters {start}-{end}")
    return float(sum(picked))


def loglikelihood_response(data: Any, request: Request, *, where: str, latency: float) -> Response:
    """Sum each continuation's token log-probs (tokens starting inside it) and answer the best letter."""
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        raise bad_field(where, "choices", "is missing")
    choices = sorted(data["choices"], key=lambda c: c.get("index", 0) if isinstance(c, dict) else 0)
    if len(choices) != len(request.continuations):
        raise bad_field(
            where, "choices", f"has {len(choices)} entries for {len(request.continuations)} prompts"
        )
    start = len(request.prompt or "")
    scores = tuple(
        _continuation_logprob(choice, start=start, end=start + len(cont), where=where, field=f"choices[{i}]")
        for i, (choice, cont) in enumerate(zip(choices, request.continuations, strict=True))
    )
    best = max(range(len(scores)), key=scores.__getitem__)
    return Response(text=LABELS[best], logprobs=scores, latency_s=latency, usage=usage_of(data))
