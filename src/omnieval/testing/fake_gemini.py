"""A local fake of the Gemini API's ``models/{model}:generateContent`` for tests (the ``google-genai``
SDK pointed at it with ``--base-url``). It answers ``answer`` (or the last user text), adds a thought
part when ``thinkingConfig`` asks for thoughts, and scripts faults: ``faults`` lists HTTP statuses served
to the first requests in order, with Google's error body (``429`` carries ``RetryInfo.retryDelay`` and
``retry-after``, ``503`` says the model is overloaded).

It also speaks the Files API as the SDK uses it: the resumable upload (``POST /upload/VERSION/files``
answers an upload URL; chunks go there with ``X-Goog-Upload-Command``, the last one ``finalize``) and
``GET /VERSION/files/ID``. An uploaded file stays ``PROCESSING`` for ``processing_polls`` reads, and
``upload_faults`` and ``poll_faults`` script statuses for upload starts and ``files.get`` as ``faults``
does for generateContent."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
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
        self,
        *,
        answer: str | None = None,
        faults: list[int] | None = None,
        retry_after: float = 0.0,
        upload_faults: list[int] | None = None,
        processing_polls: int = 0,
        fail_processing: bool = False,
        poll_faults: list[int] | None = None,
        retry_delay_only: bool = False,
        expire_s: float = 48 * 3600,
        block_reason: str | None = None,
        tool_script: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None,
        audio_fault: str | None = None,
    ) -> None:
        self.answer = answer
        self.tool_script = tool_script
        """Answers a request that offers tools: the body → the model's parts (``text``, ``functionCall``)."""
        self.faults = list(faults or [])
        self.upload_faults = list(upload_faults or [])
        self.poll_faults = list(poll_faults or [])
        self.retry_after = retry_after
        self.retry_delay_only = retry_delay_only
        self.expire_s = expire_s
        self.block_reason = block_reason
        self.audio_fault = audio_fault
        """A spoken answer's fault (``silent``): see fake_speech."""
        """When set, every prompt is blocked: no candidate, ``promptFeedback.blockReason``."""
        """An uploaded file's ``expirationTime``: this long after its upload started (Google: 48 h)."""
        self.processing_polls = processing_polls
        self.fail_processing = fail_processing
        self.requests: list[tuple[str, dict[str, Any]]] = []
        """(path, body) of every request received (uploads' bodies: their size and headers)."""
        self.files: dict[str, dict[str, Any]] = {}
        """Uploaded files by id: ``mime``, ``data``, ``polls`` left while PROCESSING."""
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
            return self._error(self.faults.pop(0))
        if self.block_reason:
            usage = {"promptTokenCount": 9, "totalTokenCount": 9}
            return web.json_response(
                {"promptFeedback": {"blockReason": self.block_reason}, "usageMetadata": usage}
            )
        if self.tool_script is not None and body.get("tools"):
            return web.json_response(
                {
                    "candidates": [
                        {
                            "content": {"role": "model", "parts": self.tool_script(body)},
                            "finishReason": "STOP",
                        }
                    ],
                    "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 3},
                }
            )
        text = self.answer if self.answer is not None else _last_user_text(body)
        parts: list[dict[str, Any]] = []
        thinking = (body.get("generationConfig") or {}).get("thinkingConfig") or {}
        if thinking.get("include_thoughts") or thinking.get("includeThoughts"):
            parts.append({"text": "Thinking it over.", "thought": True})
        if "AUDIO" in ((body.get("generationConfig") or {}).get("responseModalities") or ()):
            parts = [_spoken_part(text, fault=self.audio_fault)]
        else:
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

    def _error(self, code: int) -> web.Response:
        """Google's error body; a 429 carries its delay as Google does (a ``RetryInfo`` detail) and, unless
        ``retry_delay_only``, as a ``retry-after`` header too; a 503 is Google's "overloaded"."""
        headers = (
            {"retry-after": f"{self.retry_after:g}"} if code == 429 and not self.retry_delay_only else {}
        )
        message = {503: "The model is overloaded. Please try again later."}.get(code, "")
        error: dict[str, Any] = {
            "code": code,
            "message": message or f"fake {STATUSES.get(code, 'UNKNOWN')}",
            "status": STATUSES.get(code, "UNKNOWN"),
        }
        if code == 429:
            error["details"] = [
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{self.retry_after:g}s"}
            ]
        return web.json_response({"error": error}, status=code, headers=headers)

    async def _upload_start(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.requests.append((request.path, body))
        if self.upload_faults:
            return self._error(self.upload_faults.pop(0))
        fid = f"f{len(self.files)}"
        mime = (body.get("file") or {}).get("mimeType") or request.headers.get(
            "X-Goog-Upload-Header-Content-Type"
        )
        expires = datetime.now(UTC) + timedelta(seconds=self.expire_s)
        self.files[fid] = {"mime": mime, "data": b"", "polls": self.processing_polls, "expires": expires}
        return web.json_response({}, headers={"X-Goog-Upload-URL": f"{self.url}/upload-session/{fid}"})

    async def _upload_chunk(self, request: web.Request) -> web.Response:
        fid = request.match_info["fid"]
        data = await request.read()
        command = request.headers.get("X-Goog-Upload-Command", "")
        self.requests.append((request.path, {"size": len(data), "command": command}))
        self.files[fid]["data"] += data
        if "finalize" not in command:
            return web.json_response({}, headers={"X-Goog-Upload-Status": "active"})
        return web.json_response({"file": self._file(fid)}, headers={"X-Goog-Upload-Status": "final"})

    async def _get_file(self, request: web.Request) -> web.Response:
        fid = request.match_info["fid"]
        self.requests.append((request.path, {}))
        if self.poll_faults:
            return self._error(self.poll_faults.pop(0))
        if fid not in self.files:
            return self._error(404)
        self.files[fid]["polls"] = max(0, self.files[fid]["polls"] - 1)
        return web.json_response(self._file(fid))

    def _file(self, fid: str) -> dict[str, Any]:
        entry = self.files[fid]
        state = "PROCESSING" if entry["polls"] else "FAILED" if self.fail_processing else "ACTIVE"
        file: dict[str, Any] = {
            "name": f"files/{fid}",
            "uri": f"{self.url}/v1beta/files/{fid}",
            "mimeType": entry["mime"],
            "sizeBytes": str(len(entry["data"])),
            "state": state,
            "expirationTime": entry["expires"].isoformat().replace("+00:00", "Z"),
        }
        if state == "FAILED":
            file["error"] = {"code": 400, "message": "fake: the file could not be processed"}
        return file

    @contextlib.contextmanager
    def in_thread(self) -> Iterator[FakeGemini]:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/upload/{version}/files", self._upload_start)
        app.router.add_post("/upload-session/{fid}", self._upload_chunk)
        app.router.add_get("/{version}/files/{fid}", self._get_file)
        app.router.add_post("/{tail:.*}", self._generate)
        with serve_in_thread(app) as port:
            self.port = port
            yield self


def _spoken_part(text: str, *, fault: str | None) -> dict[str, Any]:
    """The answer spoken, as Gemini sends audio: raw 24 kHz 16-bit PCM inline."""
    from omnieval.testing.fake_speech import SpokenReply

    reply = SpokenReply.of(text, fmt="pcm16", fault=fault)
    return {"inlineData": {"mimeType": "audio/L16;codec=pcm;rate=24000", "data": reply.b64()}}


def _last_user_text(body: dict[str, Any]) -> str:
    for content in reversed(body.get("contents") or []):
        if content.get("role") == "user":
            return "".join(p.get("text", "") for p in content.get("parts") or [])
    return ""
