"""``openai/NAME``: any OpenAI-compatible server (vLLM, llama.cpp, ``transformers serve``, Ollama, OpenAI).

One pooled HTTP client per backend (``_openai_http``); no retries and no caching here (the runner
does both, driven by :class:`BackendError` flags). The hot path builds plain dicts and encodes JSON
itself because the harness budget is about half a millisecond of CPU per sample. Loglikelihood
requests (completion format) are scored with echoed prompt log-probs on /completions.

Before the first request the server is asked what it serves and takes (``_openai_server``); with
``endpoint=completions`` every prompt goes to /completions as the task's own plain text, never through
the server's chat template; ``--stream`` reads answers as they arrive and times them (``_openai_stream``).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field

from omnieval.backends._openai_audio import AudioOutput, AudioStreamReader, audio_of
from omnieval.backends._openai_http import make_poster
from omnieval.backends._openai_parse import (
    LABELS,
    html_page,
    http_error,
    loglikelihood_payload,
    loglikelihood_response,
    parse_retry_after,
    response_from,
)
from omnieval.backends._openai_server import ServerInfo, probe_server, served_match
from omnieval.backends._openai_stream import StreamReader
from omnieval.backends._transport import Poster, Reply, TransportFailure
from omnieval.backends._wire_json import request_body, response_json
from omnieval.backends.base import Backend, BackendOptions, optional_sampling, register_backend
from omnieval.errors import BackendError, ConfigError, MediaError
from omnieval.types import AudioPart, ImagePart, MediaPolicy, Message, Request, Response, TextPart
from omnieval.types._base import Frozen
from omnieval.types.content import plain_prompt
from omnieval.types.request import Reasoning

if TYPE_CHECKING:
    import httpx

__all__ = ["DEFAULT_BASE_URL", "OpenAIBackend", "OpenAIOptions", "parse_retry_after"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MediaFactory = Callable[[MediaPolicy, str | None], Any]
"""``(policy, cache_dir) -> MediaProcessor``; tests inject fakes, production uses ``omnieval.media``."""


def _default_media_factory(policy: MediaPolicy, cache_dir: str | None) -> Any:
    from omnieval.media.processor import processor_for

    return processor_for(policy, cache_dir)


class _MediaEncoder:
    """Turns media parts into OpenAI content parts and records what processing was applied."""

    def __init__(self, processor: Any, *, video_mode: str) -> None:
        self.processor = processor
        self.video_mode = video_mode
        self.applied: dict[str, Any] = {}

    def parts(self, part: Any) -> list[dict[str, Any]]:
        ref = part.media
        if isinstance(part, ImagePart):
            image = self.processor.image(ref)
            self.applied[ref.name] = dict(image.applied)
            return [{"type": "image_url", "image_url": {"url": image.data_url()}}]
        if isinstance(part, AudioPart):
            audio = self.processor.audio(ref)
            self.applied[ref.name] = dict(audio.applied)
            return [{"type": "input_audio", "input_audio": {"data": audio.base64(), "format": "wav"}}]
        video = self.processor.video(ref)
        self.applied[ref.name] = dict(video.applied)
        if self.video_mode == "file":
            return [{"type": "video_url", "video_url": {"url": video.data_url()}}]
        return [{"type": "image_url", "image_url": {"url": frame.data_url()}} for frame in video.frames]


def _tool_fields(msg: Message) -> dict[str, Any]:
    """An assistant turn's ``tool_calls`` and a tool result's ``tool_call_id`` in OpenAI's shape."""
    fields: dict[str, Any] = {}
    if msg.tool_calls:
        fields["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in msg.tool_calls
        ]
    if msg.tool_call_id is not None:
        fields["tool_call_id"] = msg.tool_call_id
    return fields


def messages_json(messages: tuple[Message, ...], encoder: _MediaEncoder | None) -> list[dict[str, Any]]:
    """Chat messages as OpenAI JSON; all-text part lists collapse to a string for text-only servers."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        content = msg.content
        if msg.tool_calls or msg.tool_call_id is not None:
            out.append({"role": msg.role, "content": msg.text, **_tool_fields(msg)})
        elif isinstance(content, str):
            out.append({"role": msg.role, "content": content})
        elif all(isinstance(p, TextPart) for p in content):
            out.append({"role": msg.role, "content": "".join(p.text for p in content)})  # type: ignore[union-attr]
        else:
            if encoder is None:
                raise BackendError("media parts need a media encoder")
            parts: list[dict[str, Any]] = []
            for p in content:
                if isinstance(p, TextPart):
                    parts.append({"type": "text", "text": p.text})
                else:
                    parts.extend(encoder.parts(p))
            out.append({"role": msg.role, "content": parts})
    return out


def _resolve_base_url(options: BackendOptions) -> str:
    url = (options.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"--base-url must be an http(s) URL such as http://localhost:8000/v1, got {url!r}")
    return url if parts.path not in ("", "/") else f"{url}/v1"


class OpenAIOptions(Frozen):
    """``--backend-opt`` keys of the openai backend."""

    extra_body: dict[str, Any] = Field(default_factory=dict)
    """JSON object merged into every request body (e.g. chat_template_kwargs)."""
    http_client: Literal["auto", "raw", "aiohttp", "httpx"] = "auto"
    """auto (aiohttp), raw (minimal asyncio client for http://, less CPU per request), aiohttp or httpx."""
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    """max_completion_tokens for newer OpenAI models."""
    audio: AudioOutput | None = None
    """Ask for a spoken answer (``modalities: ["text", "audio"]``): ``{"voice": ..., "format": ...,
    "stream": false}`` (docs/running/spoken-answers.md)."""
    endpoint: Literal["chat", "completions"] = "chat"
    """chat (/chat/completions: the server's chat template) or completions (/completions: the task's own
    prompt as plain text, for base models and servers without the model's template; text only)."""
    check_model: bool = True
    """Refuse a model name the server's /v1/models does not list (false: send the name anyway)."""


@register_backend("openai")
class OpenAIBackend(Backend):
    """Chat (or plain completions when ``request.prompt`` is set) over an OpenAI-compatible HTTP API."""

    modalities = frozenset({"text", "image", "audio", "video"})
    extra_options = OpenAIOptions
    batch_api = "openai"
    tool_calling = True
    streams = True

    @classmethod
    def accepts_for(cls, name: str, *, options: BackendOptions) -> frozenset[str]:
        """Text only through /completions (a plain prompt carries no media)."""
        if options.extra.get("endpoint") == "completions":
            return frozenset({"text"})
        return cls.modalities

    def __init__(
        self,
        model: str,
        *,
        options: BackendOptions,
        transport: httpx.AsyncBaseTransport | None = None,
        media_factory: MediaFactory | None = None,
    ) -> None:
        super().__init__(model, options=options)
        self.base_url = _resolve_base_url(options)
        self.api_key = options.api_key or os.environ.get("OPENAI_API_KEY")
        if not self.api_key and self.base_url == DEFAULT_BASE_URL:
            raise ConfigError(
                "openai backend: set OPENAI_API_KEY (or the api_key option), or pass --base-url"
            )
        settings = OpenAIOptions.model_validate(options.extra)
        self._extra_body, self._max_tokens_key = settings.extra_body, settings.max_tokens_field
        self._audio = settings.audio
        if self._audio is not None and self._audio.stream and self._audio.format != "pcm16":
            raise ConfigError("openai backend: a streamed spoken answer needs audio format pcm16")
        self._completions_only = settings.endpoint == "completions"
        self._check_model = settings.check_model
        self.server: ServerInfo | None = None
        """What the server said about itself (after :meth:`preflight`)."""
        self._transport = transport
        self._media_factory = media_factory or _default_media_factory
        self._processors: dict[MediaPolicy, Any] = {}
        self._poster: Poster | None = None
        self._poster_loop: asyncio.AbstractEventLoop | None = None

    def _headers(self) -> dict[str, str]:
        headers = {"content-type": "application/json"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        return headers

    def _http(self) -> Poster:
        """The pooled client of the running event loop (a second ``asyncio.run`` gets a new one)."""
        loop = asyncio.get_running_loop()
        if self._poster is None or self._poster_loop is not loop:
            self._poster_loop = loop
            self._poster = make_poster(
                self.base_url,
                headers=self._headers(),
                timeout_s=self.options.timeout_s,
                limit=self.max_connections(),
                transport=self._transport,
                client=self.options.extra.get("http_client"),
                stream=self.options.stream or (self._audio is not None and self._audio.stream),
            )
        return self._poster

    async def preflight(self) -> list[str]:
        """Ask the server once (``/v1/models``, ``/props``, ``/api/show``); refuse a model it does not
        serve. Returns what the user should know before the run (a model without a chat template)."""
        if self.server is None:
            self.server = await probe_server(
                self.base_url,
                self.model,
                headers=self._headers(),
                timeout_s=self.options.timeout_s,
                transport=self._transport,
                ask_root=self.base_url != DEFAULT_BASE_URL,
            )
        served = self.server.models
        if self._check_model and served and not served_match(self.model, served):
            listed = ", ".join(served[:20]) + (f" and {len(served) - 20} more" if len(served) > 20 else "")
            raise ConfigError(
                f"the server at {self.base_url} does not serve model {self.model!r}; it serves: {listed}. "
                f"Run with --model openai/{served[0]}, or --backend-opt check_model=false to send the name "
                "anyway"
            )
        if self.server.chat_template is False and not self._completions_only:
            return [
                f"the model served by {self.server.kind or 'the server'} at {self.base_url} has no chat "
                "template of its own: the server will wrap prompts in a default chat template the model was "
                "not trained with. For a base model use --backend-opt endpoint=completions (the task's own "
                "prompt as plain text)"
            ]
        return []

    def accepts(self) -> frozenset[str]:
        return super().accepts() - frozenset(self.declined())

    def declined(self) -> dict[str, str]:
        return dict(self.server.declined) if self.server is not None else {}

    def fingerprint_name(self) -> str:
        """Chat answers keep the plain provider (caches stay valid); completions answers differ."""
        return f"{self.provider}:completions" if self._completions_only else self.provider

    def _where(self, request: Request, path: str) -> str:
        return f"{self.spec} task {request.task!r} sample {request.sample_id!r} ({self.base_url}{path})"

    def _payload(self, request: Request, key: str, value: Any) -> dict[str, Any]:
        gen = request.generation
        payload: dict[str, Any] = {
            "model": self.model,
            key: value,
            "temperature": gen.temperature,
            self._max_tokens_key: gen.max_tokens,
            **optional_sampling(gen),
        }
        if request.reasoning is not None:
            payload["reasoning_effort"] = request.reasoning.effort_or_from_budget()
        if self._audio is not None and key == "messages":
            payload["modalities"] = ["text", "audio"]
            payload["audio"] = {"voice": self._audio.voice, "format": self._audio.format}
            if self._audio.stream:
                payload["stream"] = True
        if self._extra_body:
            payload.update(self._extra_body)
        return payload

    def reasoning_mapping(self, reasoning: Reasoning | None) -> dict[str, Any]:
        if reasoning is None:
            return {}
        how = (
            "--reasoning-effort"
            if reasoning.effort
            else "read off --reasoning-budget: ≤2048 low, ≤8192 medium, else high"
        )
        return {
            "sent": {"reasoning_effort": reasoning.effort_or_from_budget()},
            "how": how,
            "note": "OpenAI has no token budget; reasoning_content in answers is kept as `reasoning`, never "
            "scored",
        }

    def _encode_messages(self, request: Request) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Runs in a worker thread when media are present: decoding and resizing are CPU-bound."""
        policy = request.media_policy
        processor = self._processors.get(policy)
        if processor is None:
            processor = self._processors[policy] = self._media_factory(policy, self.options.media_cache_dir)
        encoder = _MediaEncoder(processor, video_mode=policy.video_mode)
        try:
            return messages_json(request.messages, encoder), encoder.applied
        except MediaError as exc:
            raise BackendError(f"{self._where(request, '')}: {exc}", retryable=False) from exc

    async def _post(
        self,
        request: Request,
        path: str,
        payload: dict[str, Any],
        reader: StreamReader | AudioStreamReader | None = None,
    ) -> tuple[Any, float]:
        """The parsed answer and its latency; with ``reader`` the answer is streamed into it instead
        (the returned body is then None)."""
        body = request_body(payload)
        start = time.perf_counter()
        try:
            if reader is None:
                reply = await self._http().post(path, body)
            else:
                reader.started = start
                reply = await self._http().post_stream(path, body, reader.line)
        except TransportFailure as exc:
            if reader is not None and reader.pieces and exc.kind != "timeout":
                exc = TransportFailure(exc.kind, f"{exc} (the stream was cut after {reader.pieces} piece(s))")
            where, url = self._where(request, path), self.base_url + path
            if exc.kind == "timeout":
                raise BackendError(
                    f"{where}: no answer within {self.options.timeout_s:g} s ({exc})",
                    retryable=True,
                    transport="timeout",
                    url=url,
                ) from None
            if exc.kind == "url":
                raise BackendError(f"{where}: bad URL: {exc}", transport="url", url=url) from None
            raise BackendError(
                f"{where}: connection failed: {exc}", retryable=True, transport=exc.kind, url=url
            ) from None
        latency = time.perf_counter() - start
        if not 200 <= reply.status < 300:
            raise http_error(reply, self._where(request, path), url=self.base_url + path)
        if reader is not None:
            return None, latency
        try:
            return response_json(reply.content), latency
        except ValueError:
            raise self._not_json(request, path, reply) from None

    def _not_json(self, request: Request, path: str, reply: Reply) -> BackendError:
        """An HTML page is a wrong URL (a web UI or a proxy), the same on every try; other text may be a
        garbled answer worth a second try."""
        where = self._where(request, path)
        page = html_page(reply.content)
        if page is not None:
            return BackendError(
                f"{where}: the answer is an {page}, not an API answer: check --base-url (it usually ends in "
                "/v1)",
                url=self.base_url + path,
            )
        snippet = reply.content[:120].decode("utf-8", "replace")
        return BackendError(f"{where}: response body is not valid JSON: {snippet!r}", retryable=True)

    async def generate(self, request: Request) -> Response:
        if request.kind == "loglikelihood":
            return await self._loglikelihood(request)
        path, chat, payload, media = await self.call_body(request)
        if chat and self._audio is not None and self._audio.stream:
            return await self._streamed(request, path, payload, media)
        if self.options.stream and self._audio is None:
            reader = StreamReader(chat=chat, started=time.perf_counter())
            payload |= {"stream": True, "stream_options": {"include_usage": True}}
            _, latency = await self._post(request, path, payload, reader)
            return reader.response(where=self._where(request, path), latency=latency, media=media)
        data, latency = await self._post(request, path, payload)
        where = self._where(request, path)
        response = response_from(data, chat=chat, where=where, latency=latency, media=media)
        if chat and self._audio is not None:
            audio = audio_of(data["choices"][0]["message"], options=self._audio, where=where)
            response = response.model_copy(update={"audio": audio})
        return response

    async def _streamed(
        self, request: Request, path: str, payload: dict[str, Any], media: dict[str, Any]
    ) -> Response:
        """A streamed spoken answer, read chunk by chunk through the shared client (time to first audio
        measured); a stream cut before its end is an answer marked incomplete."""
        reader = AudioStreamReader()
        _, latency = await self._post(request, path, payload, reader)
        audio, text = reader.answer()
        return Response(text=text, latency_s=latency, media=media, audio=audio)

    async def call_body(self, request: Request) -> tuple[str, bool, dict[str, Any], dict[str, Any]]:
        """The path, chat flag, JSON body and applied media of a generate request (also a batch line's
        body)."""
        media: dict[str, Any] = {}
        if request.prompt is not None or self._completions_only:
            if request.media:
                raise BackendError(
                    f"{self._where(request, '')}: a plain completion prompt cannot carry media; use chat"
                )
            prompt = self._plain(request)
            path, chat, payload = "/completions", False, self._payload(request, "prompt", prompt)
        else:
            if any(not isinstance(m.content, str) and m.media for m in request.messages):
                messages, media = await asyncio.to_thread(self._encode_messages, request)
            else:
                messages = messages_json(request.messages, None)
            path, chat, payload = "/chat/completions", True, self._payload(request, "messages", messages)
            if request.tools:
                payload["tools"] = [t.function() for t in request.tools]
                payload["parallel_tool_calls"] = True
        return path, chat, payload, media

    def batch_client(self) -> Any:
        """The Batch API client (``--batch``): JSONL upload, batch creation, polling, result download."""
        from omnieval.backends.openai_batch import OpenAIBatchClient

        return OpenAIBatchClient(self)

    def _plain(self, request: Request) -> str:
        """The task's completion prompt, or its chat turns as plain text (``endpoint=completions``)."""
        return request.prompt if request.prompt is not None else plain_prompt(request.messages)

    async def _loglikelihood(self, request: Request) -> Response:
        where = self._where(request, "/completions")
        if request.prompt is None and not self._completions_only:
            raise BackendError(
                f"{where}: loglikelihood over an API needs the task's completion prompt format, or "
                "--backend-opt endpoint=completions"
            )
        if request.prompt is None:
            request = request.model_copy(update={"prompt": self._plain(request)})
        if not 0 < len(request.continuations) <= len(LABELS):
            raise BackendError(f"{where}: loglikelihood needs 1-{len(LABELS)} continuations")
        payload = loglikelihood_payload(self.model, request, max_tokens_key=self._max_tokens_key)
        data, latency = await self._post(request, "/completions", payload)
        return loglikelihood_response(data, request, where=where, latency=latency)

    def describe(self) -> dict[str, Any]:
        out = {
            **super().describe(),
            "base_url": self.base_url,
            "endpoint": "completions" if self._completions_only else "chat",
            "concurrency": self.options.concurrency,
            "timeout_s": self.options.timeout_s,
            "stream": self.options.stream,
        }
        if self.server is not None:
            out["server"] = self.server.describe()
        return out

    async def aclose(self) -> None:
        if self._poster is not None:
            await self._poster.aclose()
            self._poster = None
