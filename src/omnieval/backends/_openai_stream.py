"""A streamed answer (``--stream``), read as its server-sent events arrive: the text, and when it came.

Each ``data:`` line is one chunk of the answer (``choices[0].delta.content`` from chat,
``choices[0].text`` from completions); the last ones carry ``finish_reason`` and, where the server gives
it, ``usage``; ``data: [DONE]`` ends the stream. A stream that stops before either end mark was cut
midway: a retryable error, never a short answer scored as if whole.
"""

from __future__ import annotations

import json
import time
from typing import Any

from omnieval.backends._openai_parse import FINISH, bad_field, text_of, usage_of
from omnieval.backends.breaker import unsupported_feature
from omnieval.errors import BackendError
from omnieval.types import FinishReason, Response, StreamTiming, Usage

__all__ = ["StreamReader"]


class StreamReader:
    """Collects one streamed answer; :meth:`line` is called with each line as it arrives."""

    def __init__(self, *, chat: bool, started: float) -> None:
        self.chat = chat
        self.started = started
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.pieces = 0
        self.first: float | None = None
        self.last: float | None = None
        self.finish: Any = None
        self.finished = False
        """A ``finish_reason`` came."""
        self.done = False
        """``data: [DONE]`` came."""
        self.usage: Usage | None = None
        self.error: str | None = None
        self.garbled = 0

    def line(self, raw: bytes) -> None:
        if not raw.startswith(b"data:"):
            return  # blank separators, comments, ``event:`` lines
        data = raw[5:].strip()
        if data == b"[DONE]":
            self.done = True
            return
        try:
            chunk = json.loads(data)
        except ValueError:
            self.garbled += 1
            return
        if not isinstance(chunk, dict):
            self.garbled += 1
            return
        if "error" in chunk:
            err = chunk["error"]
            self.error = str(err.get("message", err) if isinstance(err, dict) else err)[:500]
            return
        if isinstance(chunk.get("usage"), dict):
            self.usage = usage_of(chunk)
        choices = chunk.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            self._choice(choices[0])

    def _choice(self, choice: dict[str, Any]) -> None:
        if self.chat:
            found = choice.get("delta")
            delta: dict[str, Any] = found if isinstance(found, dict) else {}
            piece = text_of(delta.get("content"), "stream", "choices[0].delta.content")
            thought = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(thought, str) and thought:
                self.reasoning.append(thought)
                self._arrived()
        else:
            piece = text_of(choice.get("text"), "stream", "choices[0].text")
        if piece:
            self.text.append(piece)
            self.pieces += 1
            self._arrived()
        if choice.get("finish_reason") is not None:
            self.finish, self.finished = choice["finish_reason"], True

    def _arrived(self) -> None:
        now = time.perf_counter()
        if self.first is None:
            self.first = now
        self.last = now

    def response(self, *, where: str, latency: float, media: dict[str, Any]) -> Response:
        """The whole answer, or a BackendError naming what went wrong with the stream."""
        if self.error is not None:
            raise BackendError(
                f"{where}: the server sent an error in the stream: {self.error}",
                retryable=not unsupported_feature(self.error),
                server_message=self.error,
            )
        if not (self.done or self.finished):
            got = f"{self.pieces} piece(s) of answer" + (
                f" and {self.garbled} unreadable line(s)" if self.garbled else ""
            )
            raise BackendError(
                f"{where}: the stream was cut midway (after {got}, no finish_reason and no [DONE])",
                retryable=True,
            )
        if self.garbled and not self.pieces:
            raise bad_field(where, "stream", f"had {self.garbled} unreadable line(s) and no answer")
        usage = self.usage or Usage()
        tokens = usage.completion_tokens if usage.completion_tokens is not None else self.pieces
        rate = None
        if self.first is not None and self.last is not None and tokens >= 2 and self.last > self.first:
            rate = (tokens - 1) / (self.last - self.first)
        finish: FinishReason = FINISH.get(self.finish, "other")
        return Response(
            text="".join(self.text),
            reasoning="".join(self.reasoning) or None,
            finish_reason=finish,
            usage=usage,
            latency_s=latency,
            media=media,
            stream=StreamTiming(
                ttft_s=None if self.first is None else self.first - self.started,
                output_tokens=tokens,
                tokens_per_s=rate,
            ),
        )
