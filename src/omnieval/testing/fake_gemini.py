"""A local fake of the Gemini API's ``models/{model}:generateContent`` for tests (the ``google-genai``
SDK pointed at it with ``--base-url``). It answers ``answer`` (or the last user text), adds a thought
part when ``thinkingConfig`` asks for thoughts, and scripts faults: ``faults`` lists HTTP statuses served
to the first requests in order, with Google's error body (``429`` carries ``retry-after``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from aiohttp import web

from omnieval.testing._serve import serve_in_thread

__all__ = ["FakeGemini"]

STATUSES = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


class FakeGemini:
    """``with FakeGemini(...).in_thread() as server:`` then ``--base-url server.url``."""

    def __init__(
        self, *, answer: str | None = None, faults: list[int] | None = None, retry_after: float = 0.0
    ) -> None:
        self.answer = answer
        self.faults = list(faults or [])
        self.retry_after = retry_after
        self.requests: list[tuple[str, dict[str, Any]]] = []
        """(path, body) of every request received."""
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _generate(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append((request.path, body))
        if not request.path.endswith(":generateContent"):
            return web.json_response(
                {"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}, status=404
            )
        if self.faults:
            code = self.faults.pop(0)
            headers = {"retry-after": f"{self.retry_after:g}"} if code == 429 else {}
            error = {
                "error": {
                    "code": code,
                    "message": f"fake {STATUSES.get(code, 'UNKNOWN')}",
                    "status": STATUSES.get(code, "UNKNOWN"),
                }
            }
            return web.json_response(error, status=code, headers=headers)
        text = self.answer if self.answer is not None else _last_user_text(body)
        parts: list[dict[str, Any]] = []
        thinking = (body.get("generationConfig") or {}).get("thinkingConfig") or {}
        if thinking.get("include_thoughts") or thinking.get("includeThoughts"):
            parts.append({"text": "Thinking it over.", "thought": True})
        parts.append({"text": text})
        return web.json_response(
            {
                "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
                "usageMetadata": {
                    "promptTokenCount": 9,
                    "candidatesTokenCount": 3,
                    "thoughtsTokenCount": 4 if len(parts) > 1 else 0,
                },
            }
        )

    @contextlib.contextmanager
    def in_thread(self) -> Iterator[FakeGemini]:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/{tail:.*}", self._generate)
        with serve_in_thread(app) as port:
            self.port = port
            yield self


def _last_user_text(body: dict[str, Any]) -> str:
    for content in reversed(body.get("contents") or []):
        if content.get("role") == "user":
            return "".join(p.get("text", "") for p in content.get("parts") or [])
    return ""
