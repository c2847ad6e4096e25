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
from collections.abc import Callable, Iterator
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
        batch_outcomes: list[str] | None = None,
        tool_script: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None,
    ) -> None:
        self.answer = answer
        self.tool_script = tool_script
        """Answers a request that offers tools: the body → the content blocks (``text``, ``tool_use``)."""
        self.faults = list(faults or [])
        self.retry_after = retry_after
        self.thinking = thinking
        self.bodies: list[dict[str, Any]] = []
        """Every request body received (faulted ones too)."""
        self.port = 0
        self.batch_outcomes = list(batch_outcomes or [])
        """How successive Message Batches end: ``ended`` (default) or ``expired`` (the second half of the
        requests expire)."""
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_lines: dict[str, int] = {}
        """Batch requests received per custom id: more than one means a resubmitted request."""
        self.messages_calls = 0
        """Single ``/v1/messages`` calls answered (a batch run should need none)."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.bodies.append(body)
        self.messages_calls += 1
        if self.faults:
            status = self.faults.pop(0)
            kind = ERRORS.get(status, "api_error")
            headers = {"retry-after": f"{self.retry_after:g}"} if status == 429 else {}
            error = {"type": "error", "error": {"type": kind, "message": f"fake {kind} ({status})"}}
            return web.json_response(error, status=status, headers=headers)
        return web.json_response(self._message(body))

    def _message(self, body: dict[str, Any]) -> dict[str, Any]:
        if self.tool_script is not None and body.get("tools"):
            blocks = self.tool_script(body)
            used = any(b.get("type") == "tool_use" for b in blocks)
            return self._envelope(body, blocks, "tool_use" if used else "end_turn", None)
        text = self.answer if self.answer is not None else _last_user_text(body)
        stop_reason, stop_sequence = "end_turn", None
        for stop in body.get("stop_sequences") or ():
            if stop in text:
                text, stop_reason, stop_sequence = text.split(stop, 1)[0], "stop_sequence", stop
        content: list[dict[str, Any]] = []
        if (body.get("thinking") or {}).get("type") == "enabled":
            content.append({"type": "thinking", "thinking": self.thinking, "signature": "sig"})
        content.append({"type": "text", "text": text})
        return self._envelope(body, content, stop_reason, stop_sequence)

    def _envelope(
        self, body: dict[str, Any], content: list[dict[str, Any]], stop_reason: str, stop_sequence: str | None
    ) -> dict[str, Any]:
        return {
            "id": f"msg_{len(self.bodies)}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": stop_sequence,
            "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 2},
        }

    async def _create_batch(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        batch_id = f"msgbatch_{len(self.batches) + 1}"
        outcome = self.batch_outcomes.pop(0) if self.batch_outcomes else "ended"
        lines = []
        requests = body.get("requests") or []
        for i, item in enumerate(requests):
            self.batch_lines[item["custom_id"]] = self.batch_lines.get(item["custom_id"], 0) + 1
            if outcome == "expired" and i >= len(requests) // 2:
                result: dict[str, Any] = {"type": "expired"}
            else:
                result = {"type": "succeeded", "message": self._message(item["params"])}
            lines.append(json.dumps({"custom_id": item["custom_id"], "result": result}))
        self.batches[batch_id] = {"lines": lines}
        return web.json_response(self._batch(batch_id, "in_progress"))

    def _batch(self, batch_id: str, status: str) -> dict[str, Any]:
        ended = status == "ended"
        return {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0},
            "created_at": "2026-11-26T00:00:00Z",
            "expires_at": "2026-11-27T00:00:00Z",
            "ended_at": "2026-11-26T00:01:00Z" if ended else None,
            "cancel_initiated_at": None,
            "archived_at": None,
            "results_url": f"{self.url}/v1/messages/batches/{batch_id}/results" if ended else None,
        }

    async def _get_batch(self, request: web.Request) -> web.StreamResponse:
        batch_id = request.match_info["id"]
        if batch_id not in self.batches:
            return web.json_response(
                {"type": "error", "error": {"type": "not_found_error", "message": "no batch"}}, status=404
            )
        return web.json_response(self._batch(batch_id, "ended"))

    async def _results(self, request: web.Request) -> web.StreamResponse:
        lines = self.batches[request.match_info["id"]]["lines"]
        return web.Response(body=("\n".join(lines) + "\n").encode(), content_type="application/binary")

    @contextlib.contextmanager
    def in_thread(self) -> Iterator[FakeAnthropic]:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/messages", self._messages)
        app.router.add_post("/v1/messages/batches", self._create_batch)
        app.router.add_get("/v1/messages/batches/{id}", self._get_batch)
        app.router.add_get("/v1/messages/batches/{id}/results", self._results)
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
