"""``gemini/MODEL``: Gemini through Google's official ``google-genai`` SDK (optional extra ``gemini``).

Text, images, audio and video parts (after the task's media policy), the system instruction, stop
sequences, the seed, and a thinking budget (``thinkingConfig``; thought parts are kept as the response's
``reasoning``, never scored). The SDK does not retry: the runner retries, backs off on 429 (honouring
``retry-after`` or Google's ``RetryInfo.retryDelay``) and 5xx, and feeds its circuit breaker as for
``openai/``; a provider error is recorded with Google's error body as written. ``--base-url`` points the
SDK elsewhere (the tests' fake).

Media travel inline while the request stays under ``inline_limit_mb`` (20 MB, Google's request limit,
counted as base64); above it the largest parts go through the Files API. Each upload is cached by the
content's sha256 for the backend's life, or until an hour before Google deletes it (concurrent requests
with the same media wait for one upload), and a file still ``PROCESSING`` (video) is polled until
``ACTIVE``.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import re
import time
from typing import Any

from pydantic import Field

from omnieval.backends._openai_parse import parse_retry_after
from omnieval.backends._transport import connection_kind
from omnieval.backends.base import Backend, BackendOptions, register_backend
from omnieval.errors import BackendError, ConfigError, MediaError
from omnieval.types import (
    AudioAnswer,
    AudioPart,
    FinishReason,
    ImagePart,
    MediaPolicy,
    Request,
    Response,
    TextPart,
    Usage,
)
from omnieval.types._base import Frozen
from omnieval.types.request import Reasoning
from omnieval.types.tools import ToolCall

__all__ = ["EFFORT_BUDGET", "GeminiBackend", "GeminiOptions", "to_upload"]

EFFORT_BUDGET = {"low": 1024, "medium": 8192, "high": 24576}
"""``thinkingBudget`` for ``--reasoning-effort`` when no ``--reasoning-budget`` is given."""
EXPIRY_MARGIN_S = 3600.0
"""A cached upload this close to its ``expirationTime`` is not reused (a request may wait and retry)."""
RETRYABLE = frozenset({408, 429, 500, 502, 503, 504})
STOPS: dict[str, FinishReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
}


class GeminiOptions(Frozen):
    """``--backend-opt`` keys of the gemini backend."""

    inline_limit_mb: float = Field(default=20.0, gt=0)
    """Largest request (media as base64 included) sent inline; larger media go through the Files API."""
    api_version: str = "v1beta"
    """The API version in every path: v1beta has thinking and the Files API (the SDK's default may differ)."""
    file_poll_s: float = Field(default=1.0, gt=0)
    """How often an uploaded file still PROCESSING (video) is checked until it is ACTIVE."""
    file_wait_s: float = Field(default=600.0, gt=0)
    """How long an upload may stay PROCESSING before the request fails (retryable)."""
    speech_voice: str | None = None
    """Answer by voice: ``responseModalities: ["AUDIO"]`` with this prebuilt voice (``Kore``, ``Puck``...);
    the run hears the audio (docs/running/spoken-answers.md)."""


def to_upload(sizes: list[int], *, text_bytes: int, limit: int) -> set[int]:
    """Which media parts (by index into ``sizes``, their base64 sizes) go through the Files API: the
    largest first, until the rest of the request fits inline."""
    total = text_bytes + sum(sizes)
    chosen: set[int] = set()
    for index in sorted(range(len(sizes)), key=lambda i: sizes[i], reverse=True):
        if total <= limit:
            break
        chosen.add(index)
        total -= sizes[index]
    return chosen


@register_backend("gemini")
class GeminiBackend(Backend):
    """``generateContent`` over the ``google-genai`` SDK."""

    modalities = frozenset({"text", "image", "audio", "video"})
    extra_options = GeminiOptions
    effort_budget = EFFORT_BUDGET
    tool_calling = True

    def __init__(self, model: str, *, options: BackendOptions) -> None:
        super().__init__(model, options=options)
        from google import genai
        from google.genai import types

        key = options.api_key or os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
        if not key and not options.base_url:
            raise ConfigError("gemini backend: set GEMINI_API_KEY (or --api-key), or pass --base-url")
        self.opts = self.settings if isinstance(self.settings, GeminiOptions) else GeminiOptions()
        self.base_url = options.base_url or "https://generativelanguage.googleapis.com"
        http = types.HttpOptions(
            base_url=options.base_url,
            api_version=self.opts.api_version,
            timeout=int(options.timeout_s * 1000),
            retry_options=types.HttpRetryOptions(attempts=1),  # the runner retries, once, not the SDK too
        )
        self._client = genai.Client(api_key=key or "unused", http_options=http)
        self._processors: dict[MediaPolicy, Any] = {}
        self._uploads: dict[str, tuple[Any, asyncio.Task[Any]]] = {}
        """In-flight uploads by content sha256, with the event loop their task runs on."""
        self._active: dict[str, Any] = {}
        """ACTIVE files by content sha256 (kept for the backend's life)."""
        self._processing: dict[str, Any] = {}
        """Uploaded files whose polling failed retryably, by content sha256: the retry polls again."""
        self.uploaded = 0
        """Files API uploads made (the same content is uploaded once)."""

    def _processor(self, policy: MediaPolicy) -> Any:
        from omnieval.media.processor import processor_for

        if policy not in self._processors:
            self._processors[policy] = processor_for(policy, self.options.media_cache_dir)
        return self._processors[policy]

    def _media(self, part: Any, policy: MediaPolicy, applied: dict[str, Any]) -> list[Any]:
        """Inline parts (``mime_type`` and bytes) for one media part; the prepared bytes as they are, never
        through base64 (a video file may be hundreds of MB)."""
        from google.genai import types

        processor = self._processor(policy)
        ref = part.media
        if isinstance(part, ImagePart):
            item = processor.image(ref)
            blobs = [(item.bytes, item.mime)]
        elif isinstance(part, AudioPart):
            item = processor.audio(ref)
            blobs = [(item.wav_bytes(), "audio/wav")]
        else:
            item = processor.video(ref)
            blobs = (
                [(item.bytes, item.mime)]
                if policy.video_mode == "file"
                else [(f.bytes, f.mime) for f in item.frames]
            )
        applied[ref.name] = dict(item.applied)
        return [types.Part.from_bytes(data=data, mime_type=mime) for data, mime in blobs]

    def body(
        self, request: Request, *, names: dict[int, str] | None = None
    ) -> tuple[list[Any], Any, dict[str, Any]]:
        """Contents, generation config and the media processing applied; ``names`` (when given) gets
        each media part's medium name by the part's ``id``."""
        from google.genai import types

        system: list[str] = []
        contents: list[Any] = []
        applied: dict[str, Any] = {}
        called: dict[str, str] = {}
        """Tool names by call id: a Gemini function response names its function."""
        for msg in request.messages:
            content = msg.content
            if msg.role == "system":
                system.append(
                    content if isinstance(content, str) else "".join(getattr(p, "text", "") for p in content)
                )
                continue
            if msg.role == "tool":
                name = called.get(msg.tool_call_id or "", "")
                answer = types.FunctionResponse(id=msg.tool_call_id, name=name, response={"result": msg.text})
                _append(contents, types.Content(role="user", parts=[types.Part(function_response=answer)]))
                continue
            parts: list[Any] = []
            pieces = content if not isinstance(content, str) else (TextPart(text=content),) if content else ()
            for p in pieces:
                if isinstance(p, TextPart):
                    parts.append(types.Part(text=p.text))
                    continue
                try:
                    media = self._media(p, request.media_policy, applied)
                except MediaError as exc:
                    raise BackendError(f"{self.spec}: {exc}", retryable=False) from exc
                parts.extend(media)
                if names is not None:
                    names.update((id(m), p.media.name) for m in media)
            for call in msg.tool_calls:
                called[call.id] = call.name
                function = types.FunctionCall(id=call.id, name=call.name, args=call.input())
                parts.append(types.Part(function_call=function))
            _append(contents, types.Content(role="model" if msg.role == "assistant" else "user", parts=parts))
        gen = request.generation
        budget = self.thinking_budget(request.reasoning)
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
            tools=[
                types.Tool(
                    function_declarations=[
                        types.FunctionDeclaration(
                            name=t.name, description=t.description, parameters_json_schema=t.parameters
                        )
                        for t in request.tools
                    ]
                )
            ]
            if request.tools
            else None,
            **_speech_config(self.opts.speech_voice),
        )
        return contents, config, applied

    async def generate(self, request: Request) -> Response:
        if request.kind != "generate":
            raise BackendError(f"{self.spec}: only generate requests are supported (got {request.kind})")
        names: dict[int, str] = {}
        contents, config, applied = self.body(request, names=names)
        where = f"{self.spec} task {request.task!r} sample {request.sample_id!r} ({self.base_url})"
        started = time.perf_counter()
        for name, file in await self._place_media(contents, config, names, where):
            applied[name].setdefault("files_api", []).append(file)
        result = await self._guard(
            self._client.aio.models.generate_content(model=self.model, contents=contents, config=config),
            where=where,
        )
        response = _response(result, latency=time.perf_counter() - started, media=applied)
        if self.opts.speech_voice is not None and response.error is None:
            response = response.model_copy(update={"audio": _audio_of(result, where=where)})
        return response

    async def _guard(self, call: Any, *, where: str) -> Any:
        """Await an SDK call, its failures in the runner's vocabulary (Google's body kept as written)."""
        from google.genai import errors

        try:
            return await call
        except errors.APIError as exc:
            raise _status_error(exc, where) from None
        except BackendError:
            raise
        except TimeoutError:
            raise BackendError(
                f"{where}: no answer within {self.options.timeout_s:g} s",
                retryable=True,
                transport="timeout",
                url=self.base_url,
            ) from None
        except Exception as exc:  # aiohttp/httpx failures (or the SDK's upload protocol's ValueError)
            transport = connection_kind(exc) if _is_transport(exc) else None
            what = "connection failed" if transport else "the SDK failed"
            raise BackendError(
                f"{where}: {what}: {type(exc).__name__}: {exc}",
                retryable=True,
                transport=transport,
                url=self.base_url,
            ) from None

    async def _place_media(
        self, contents: list[Any], config: Any, names: dict[int, str], where: str
    ) -> list[tuple[str, str]]:
        """Above the inline limit, the largest media parts are replaced by uploaded ``file_data`` parts
        (several uploaded at once). Returns (medium name, file name) for each uploaded part."""
        from google.genai import types

        media = [(c, i) for c in contents for i, p in enumerate(c.parts) if p.inline_data is not None]
        if not media:
            return []
        sizes = [_base64_size(len(c.parts[i].inline_data.data)) for c, i in media]
        text = len(json.dumps([[p.text or "" for p in c.parts] for c in contents]).encode())
        text += len(str(config.system_instruction or "").encode())
        chosen = sorted(to_upload(sizes, text_bytes=text, limit=int(self.opts.inline_limit_mb * 1_000_000)))
        blobs = [media[index][0].parts[media[index][1]].inline_data for index in chosen]
        files = await asyncio.gather(*(self._uploaded(b.data, b.mime_type, where) for b in blobs))
        placed = []
        for index, blob, file in zip(chosen, blobs, files, strict=True):
            content, at = media[index]
            placed.append((names.get(id(content.parts[at]), "?"), str(file.name)))
            content.parts[at] = types.Part.from_uri(
                file_uri=file.uri, mime_type=file.mime_type or blob.mime_type
            )
        return placed

    async def _uploaded(self, data: bytes, mime: str, where: str) -> Any:
        """One upload per content hash for the backend's life; concurrent requests with the same bytes
        wait for the same one, and a failed upload is tried again by the next request (its error is this
        request's error)."""
        key = hashlib.sha256(data).hexdigest()
        if key in self._active and not _expiring(self._active[key]):
            return self._active[key]
        loop = asyncio.get_running_loop()
        entry = self._uploads.get(key)
        if entry is None or entry[0] is not loop:  # a task belongs to its event loop
            entry = self._uploads[key] = (loop, asyncio.ensure_future(self._upload(data, mime, key, where)))
        task = entry[1]
        try:
            file = await asyncio.shield(task)
        finally:  # done, failed or not: the next request starts from _active or a fresh upload
            if task.done() and self._uploads.get(key) is entry:
                del self._uploads[key]
        self._active[key] = file
        return file

    async def _upload(self, data: bytes, mime: str, key: str, where: str) -> Any:
        """Upload (unless an earlier try uploaded the bytes and only its polling failed), then wait for
        ACTIVE. A file whose polling failed retryably (429, 5xx, still PROCESSING) is kept, so the
        runner's retry polls it again rather than uploading the bytes twice."""
        from google.genai import types

        files = self._client.aio.files
        at = f"{where}: Files API upload of {len(data):,} bytes ({mime})"
        file = self._processing.pop(key, None)
        if file is None:
            config = types.UploadFileConfig(mime_type=mime, display_name=f"omnieval-{key[:16]}")
            file = await self._guard(files.upload(file=io.BytesIO(data), config=config), where=at)
            self.uploaded += 1
        try:
            return await self._until_active(file, at)
        except BackendError as exc:
            if exc.retryable:
                self._processing[key] = file
            raise

    async def _until_active(self, file: Any, at: str) -> Any:
        """Poll a file still PROCESSING (video) every ``file_poll_s`` for up to ``file_wait_s``."""
        files = self._client.aio.files
        deadline = time.monotonic() + self.opts.file_wait_s
        while _state(file) == "PROCESSING":
            if time.monotonic() > deadline:
                raise BackendError(
                    f"{at}: {file.name} still PROCESSING after {self.opts.file_wait_s:g} s", retryable=True
                )
            await asyncio.sleep(self.opts.file_poll_s)
            file = await self._guard(files.get(name=file.name), where=f"{at}: polling {file.name}")
        if _state(file) == "FAILED":
            raise BackendError(f"{at}: the Files API could not process {file.name}: {file.error}")
        return file

    def reasoning_mapping(self, reasoning: Reasoning | None) -> dict[str, Any]:
        return self.budget_mapping(
            reasoning, lambda budget: {"thinkingConfig": {"thinkingBudget": budget, "includeThoughts": True}}
        )

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "base_url": self.base_url,
            "timeout_s": self.options.timeout_s,
            "api_version": self.opts.api_version,
            "inline_limit_mb": self.opts.inline_limit_mb,
            "media": "inline while the request (media as base64) is under inline_limit_mb; above it the "
            "largest parts go through the Files API, uploaded once per content sha256",
            "file_poll_s": self.opts.file_poll_s,
            "file_wait_s": self.opts.file_wait_s,
        }


def _append(contents: list[Any], content: Any) -> None:
    """Add a turn, joining it to the last when both have the same role (tool results, then the images
    they showed, are one user turn)."""
    if contents and contents[-1].role == content.role:
        contents[-1].parts.extend(content.parts)
    else:
        contents.append(content)


def _expiring(file: Any) -> bool:
    """Google deletes an uploaded file after 48 h: one that expires within the hour is uploaded again."""
    expires = getattr(file, "expiration_time", None)
    return expires is not None and expires.timestamp() < time.time() + EXPIRY_MARGIN_S


def _is_transport(exc: BaseException) -> bool:
    """No HTTP answer came: an OS-level error or the HTTP client's own (aiohttp, httpx)."""
    return isinstance(exc, OSError) or type(exc).__module__.split(".")[0] in {"aiohttp", "httpx"}


def _base64_size(raw: int) -> int:
    return 4 * ((raw + 2) // 3)


def _state(file: Any) -> str:
    state = file.state
    return str(getattr(state, "value", state) or "ACTIVE")


def _status_error(exc: Any, where: str) -> BackendError:
    status = int(exc.code or 0)
    body = exc.details if exc.details is not None else exc.message
    text = json.dumps(body, ensure_ascii=False) if not isinstance(body, str) else body
    response = getattr(exc, "response", None)
    retry_after = parse_retry_after(response.headers.get("retry-after")) if response is not None else None
    if retry_after is None:
        retry_after = _retry_delay(exc.details)
    return BackendError(
        f"{where}: HTTP {status}: {text[:1000]}",
        retryable=status in RETRYABLE,
        retry_after=retry_after,
        rate_limited=status == 429,
        status=status,
        server_message=exc.message,
    )


def _retry_delay(body: Any) -> float | None:
    """Google's back-off hint: a 429's ``google.rpc.RetryInfo`` detail (``"retryDelay": "37s"``), which
    the Gemini API sends in the body rather than as a ``retry-after`` header."""
    details = body.get("error", {}).get("details") if isinstance(body, dict) else None
    for detail in details if isinstance(details, list) else []:
        delay = detail.get("retryDelay") if isinstance(detail, dict) else None
        if isinstance(delay, str) and delay.endswith("s"):
            try:
                return max(0.0, float(delay[:-1]))
            except ValueError:
                return None
    return None


def _speech_config(voice: str | None) -> dict[str, Any]:
    """The generation config's audio answer fields (none without a voice)."""
    if voice is None:
        return {}
    from google.genai import types

    prebuilt = types.PrebuiltVoiceConfig(voice_name=voice)
    speech = types.SpeechConfig(voice_config=types.VoiceConfig(prebuilt_voice_config=prebuilt))
    return {"response_modalities": ["AUDIO"], "speech_config": speech}


def _audio_of(result: Any, *, where: str) -> AudioAnswer:
    """The spoken answer: raw 16-bit PCM (``audio/L16;rate=24000``, ``audio/pcm``) or a file."""
    candidate = (result.candidates or [None])[0]
    parts = (candidate.content.parts or []) if candidate is not None and candidate.content is not None else []
    blobs = [p.inline_data for p in parts if p.inline_data is not None and (p.inline_data.data is not None)]
    if not blobs:
        raise BackendError(
            f"{where}: asked for audio (speech_voice), but the answer has no inline audio", retryable=True
        )
    mime = (blobs[0].mime_type or "").lower()
    data = b"".join(b.data for b in blobs)
    if mime.startswith(("audio/l16", "audio/pcm")):
        rate = re.search(r"rate=(\d+)", mime)
        return AudioAnswer.of(data, format="pcm16", sample_rate=int(rate.group(1)) if rate else 24000)
    return AudioAnswer.of(data, format=mime.removeprefix("audio/").removeprefix("x-") or "wav")


def _response(result: Any, *, latency: float, media: dict[str, Any]) -> Response:
    candidate = (result.candidates or [None])[0]
    parts = (candidate.content.parts or []) if candidate is not None and candidate.content is not None else []
    text = "".join(p.text or "" for p in parts if not p.thought)
    calls = tuple(
        ToolCall(
            id=p.function_call.id or f"call_{i}",
            name=p.function_call.name or "",
            arguments=json.dumps(p.function_call.args or {}, ensure_ascii=False),
        )
        for i, p in enumerate(parts)
        if p.function_call is not None
    )
    thoughts = "".join(p.text or "" for p in parts if p.thought) or None
    reason = getattr(getattr(candidate, "finish_reason", None), "value", None) or "STOP"
    extra: dict[str, Any] = {}
    if candidate is None:  # the prompt was blocked: no answer, and the record says why
        feedback = result.prompt_feedback
        block = getattr(getattr(feedback, "block_reason", None), "value", None)
        reason, extra = ("SAFETY", {"block_reason": str(block)}) if block else ("OTHER", {})
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
        tool_calls=calls,
        reasoning=thoughts,
        finish_reason=STOPS.get(str(reason), "other"),
        usage=usage,
        latency_s=latency,
        media=media,
        extra=extra,
    )
