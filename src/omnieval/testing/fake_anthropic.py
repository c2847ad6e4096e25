"""A local fake of Anthropic's Messages API (``POST /v1/messages``) for tests: the ``anthropic`` SDK
pointed at it with ``--base-url``. It answers ``answer`` (or the echo of the last user text), returns
a thinking block when the request enables thinking, honours ``stop_sequences`` and scripts faults:
``faults`` is a list of HTTP statuses served to the first requests in order (``429`` carries a
``retry-after``, ``529`` is Anthropic's ``overloaded_error``, ``400`` an ``invalid_request_error``),
each with Anthropic's own error body.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

from aiohttp import web

from omnieval.testing._serve import serve_in_thread

__all__ = ["FakeAnthropic"]

ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


class FakeAnthropic:
    """``with FakeAnthropic(...).in_thread() as server:`` then ``--base-url server.url``."""

    def __init__(
        self,
        *,
        answer: str | None = None,
        faults: list[int] | None = None,
        retry_after: float = 0.0,
        thinking: str = "Let me think step by step.",
    ) -> None:
        self.answer = answer
        self.faults = list(faults or [])
        self.retry_after = retry_after
        self.thinking = thinking
        self.bodies: list[dict[str, Any]] = []
        """Every request body received (faulted ones too)."""
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.bodies.append(body)
        if self.faults:
            status = self.faults.pop(0)
            kind = ERRORS.get(status, "api_error")
            headers = {"retry-after": f"{self.retry_after:g}"} if status == 429 else {}
            error = {"type": "error", "error": {"type": kind, "message": f"fake {kind} ({status})"}}
            return web.json_response(error, status=status, headers=headers)
        text = self.answer if self.answer is not None else _last_user_text(body)
        stop_reason, stop_sequence = "end_turn", None
        for stop in body.get("stop_sequences") or ():
            if stop in text:
                text, stop_reason, stop_sequence = text.split(stop, 1)[0], "stop_sequence", stop
        content: list[dict[str, Any]] = []
        if (body.get("thinking") or {}).get("type") == "enabled":
            content.append({"type": "thinking", "thinking": self.thinking, "signature": "sig"})
        content.append({"type": "text", "text": text})
        return web.json_response(
            {
                "id": f"msg_{len(self.bodies)}",
                "type": "message",
                "role": "assistant",
                "model": body.get("model"),
                "content": content,
                "stop_reason": stop_reason,
                "stop_sequence": stop_sequence,
                "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 2},
            }
        )

    @contextlib.contextmanager
    def in_thread(self) -> Iterator[FakeAnthropic]:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/messages", self._messages)
        with serve_in_thread(app) as port:
            self.port = port
            yield self


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message["content"]
            if isinstance(content, str):
                return content
            return "".join(p.get("text", "") for p in content if p.get("type") == "text")
    return json.dumps(body)[:50]
