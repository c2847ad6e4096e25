"""A fault-injecting OpenAI-compatible server (aiohttp) for tests, benchmarks and users' CI.

Faults are drawn from a hash of ``(seed, prompt, attempt number)``, never from a shared random
stream, so the same prompts get the same faults whatever order concurrent requests arrive in.
Requests and successful answers are counted per prompt so tests can prove nothing was lost or
requested twice. Each arrival is logged with its time and the number of requests then in flight,
so tests can see, on the server's side, how a client paces itself (back-off after 429, Retry-After).
A misconfigured endpoint is simulated too: ``models`` (any other model name gets HTTP 404
``model 'x' not found``), ``api_key`` (HTTP 401 without it) and ``burst_429`` (the first N requests
get HTTP 429 whatever their prompt).

How the server answers beyond its faults is a :class:`FakeBehaviour`, given as a model (``behaviour=``) or
as its fields' keywords (``FakeOpenAI(server="llama.cpp", vision=False)``).
Real servers' dialects (``server``): ``llama.cpp`` answers ``/props`` (``modalities``, ``chat_template``)
and refuses images with its own HTTP 500 when it has no vision; ``vllm`` puts ``max_model_len`` on its
model cards; ``ollama`` answers ``/api/show`` with ``capabilities``. And servers that answer oddly:
``list_models=False`` (no ``/v1/models``), ``html_errors`` (error answers as HTML pages),
``cut_stream_after`` (a streamed answer's connection dropped after N pieces), ``leak`` (a chat template's
token at the end of every answer, as a base model behind a default template writes). ``stream: true``
requests get server-sent events, one piece per word.

Run it as ``python -m omnieval.testing.fake_openai --port 8000 --latency-ms 50
--faults 429:0.05,500:0.05,timeout:0.02,garbage:0.02``; it prints its URL on the first line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from aiohttp import web

from omnieval.types._base import Frozen

__all__ = [
    "FAULT_KINDS",
    "SERVERS",
    "Arrival",
    "FakeBehaviour",
    "FakeOpenAI",
    "ToolScript",
    "main",
    "parse_faults",
    "prompt_key",
]

ToolScript = Callable[[dict[str, Any]], dict[str, Any]]
"""A request body (with ``tools``) → the assistant message to answer with."""

Server = Literal["openai", "llama.cpp", "vllm", "ollama"]
SERVERS: tuple[Server, ...] = ("openai", "llama.cpp", "vllm", "ollama")
"""The dialects the fake speaks (``server=``)."""

FAULT_KINDS = ("429", "500", "timeout", "garbage", "reset")
"""``timeout`` hangs for ``hang_s``; ``garbage`` sends invalid JSON or JSON without ``choices``;
``reset`` drops the connection without an answer."""


def parse_faults(spec: str | None) -> dict[str, float]:
    """``"429:0.05,500:0.05"`` → ``{"429": 0.05, "500": 0.05}``; rates must sum to at most 1."""
    faults: dict[str, float] = {}
    for item in (spec or "").split(","):
        if not item.strip():
            continue
        kind, sep, rate = item.strip().partition(":")
        if not sep or kind not in FAULT_KINDS:
            raise ValueError(
                f"fault {item!r} must look like KIND:RATE with KIND one of {', '.join(FAULT_KINDS)}"
            )
        try:
            faults[kind] = float(rate)
        except ValueError:
            raise ValueError(f"fault {item!r}: rate {rate!r} is not a number") from None
        if not 0.0 <= faults[kind] <= 1.0:
            raise ValueError(f"fault {item!r}: rate must be within [0, 1]")
    if sum(faults.values()) > 1.0 + 1e-9:
        raise ValueError(f"fault rates {faults} sum to more than 1")
    return faults


def _part_text(part: Any) -> str:
    """Text parts as they are; media parts as ``<type:digest>`` so two images never share a key."""
    if not isinstance(part, dict):
        return ""
    if part.get("type", "text") == "text":
        return str(part.get("text", ""))
    digest = hashlib.blake2b(json.dumps(part, sort_keys=True).encode(), digest_size=4).hexdigest()
    return f"<{part.get('type')}:{digest}>"


def prompt_key(body: dict[str, Any]) -> str:
    """What identifies a sample: the last user message (chat) or the prompt (completions)."""
    if "prompt" in body:
        prompt = body["prompt"]
        return prompt if isinstance(prompt, str) else json.dumps(prompt, ensure_ascii=False)
    for msg in reversed(body.get("messages") or []):
        if isinstance(msg, dict) and msg.get("role") == "user":
            content = msg.get("content")
            if isinstance(content, list):
                return "".join(_part_text(p) for p in content)
            return str(content)
    return ""


def _uniform(seed: int, key: str, attempt: int) -> tuple[float, int]:
    digest = hashlib.blake2b(f"{seed}\x00{key}\x00{attempt}".encode(), digest_size=9).digest()
    return int.from_bytes(digest[:8], "big") / 2**64, digest[8]


class FakeBehaviour(Frozen):
    """How the fake answers, beyond its drawn faults: the real server it imitates, what that server can
    take and say, and the odd answers some servers give."""

    server: Server = "openai"
    """The dialect: ``llama.cpp`` answers ``/props``, ``vllm`` has ``max_model_len`` on its model cards,
    ``ollama`` answers ``/api/show``."""
    vision: bool = True
    """Takes images (llama.cpp refuses them with its own HTTP 500 without)."""
    audio: bool = True
    """Takes audio input."""
    chat_template: bool = True
    """The model has a chat template of its own (llama.cpp's ``/props`` says so)."""
    list_models: bool = True
    """Answers ``/v1/models``."""
    html_errors: bool = False
    """Error answers are HTML pages (a proxy or a web UI at the URL)."""
    cut_stream_after: int | None = None
    """A streamed answer's connection drops after this many pieces."""
    leak: str | None = None
    """A chat template's token at the end of every chat answer (a base model behind a default template)."""
    tool_script: ToolScript | None = None
    """Answers a request that offers tools: the body → the assistant message (``content`` and
    ``tool_calls`` as OpenAI writes them), so tests script right, wrong, malformed or endless calls."""
    audio_fault: str | None = None
    """A spoken answer's fault (``cut``: the stream stops midway; ``silent``): see fake_speech."""


@dataclass(frozen=True)
class Arrival:
    """One request as the server saw it arrive."""

    t: float
    """``time.monotonic()`` at arrival."""
    key: str
    attempt: int
    """0 for the first request of this prompt, 1 for its first retry, ..."""
    in_flight: int
    """Requests being handled at that moment, this one included."""


class FakeOpenAI:
    """The server; ``start()``/``close()`` in a running loop, or ``with server.in_thread():``.

    ``behaviour`` (or, instead, its fields as keywords: ``flags``) says how it answers beyond its faults."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        latency_ms: float = 0.0,
        faults: dict[str, float] | str | None = None,
        seed: int = 0,
        answers: dict[str, str] | None = None,
        answer_pattern: str | None = None,
        default_answer: str | None = None,
        reasoning: str | None = None,
        hang_s: float = 30.0,
        retry_after: float = 0.0,
        model: str = "fake",
        models: tuple[str, ...] | None = None,
        api_key: str | None = None,
        burst_429: int = 0,
        batch_outcomes: list[str] | None = None,
        batch_polls: int = 0,
        batch_fail_every: int = 0,
        behaviour: FakeBehaviour | None = None,
        **flags: Any,
    ) -> None:
        if behaviour is not None and flags:
            raise TypeError(f"give the fake's behaviour as a FakeBehaviour or as keywords, not both: {flags}")
        self.behaviour = behaviour or FakeBehaviour(**flags)
        self.host, self.port = host, port
        self.latency_s = latency_ms / 1000.0
        self.faults = parse_faults(faults) if isinstance(faults, str) or faults is None else dict(faults)
        self.seed = seed
        self.answers = dict(answers or {})
        self.answer_pattern = re.compile(answer_pattern) if answer_pattern else None
        self.default_answer = default_answer
        self.reasoning = reasoning
        self.hang_s, self.retry_after, self.model = hang_s, retry_after, model
        self.models = models
        """Model names served; None serves any name."""
        self.api_key = api_key
        self.burst_429 = burst_429
        self.arrivals: list[Arrival] = []
        self.in_flight = 0
        self.counts: Counter[str] = Counter()
        """Requests received per prompt key (every attempt)."""
        self.successes: Counter[str] = Counter()
        """Valid answers sent per prompt key: more than one means a duplicated request."""
        self.faults_served: Counter[str] = Counter()
        from omnieval.testing.fake_batches import FakeBatches

        self.batches = FakeBatches(
            self, outcomes=batch_outcomes, polls=batch_polls, fail_every=batch_fail_every
        )
        """The Batch API (``/v1/files``, ``/v1/batches``): its own state and counters."""
        self._runner: web.AppRunner | None = None
        self._thread_loop: asyncio.AbstractEventLoop | None = None

    @property
    def url(self) -> str:
        """Base URL including ``/v1``, as ``--base-url`` expects."""
        return f"http://{self.host}:{self.port}/v1"

    def answer_batch_line(self, body: dict[str, Any]) -> dict[str, Any]:
        """A Batch API line answered as ``/chat/completions`` would, counted as a valid answer sent."""
        key = prompt_key(body)
        self.successes[key] += 1
        return self._completion(body, self.answer_for(key), chat=True)

    def answer_for(self, key: str) -> str:
        """Scripted answer: exact map hit, then substring hit, then pattern capture, then default or echo."""
        if key in self.answers:
            return self.answers[key]
        for needle, answer in self.answers.items():
            if needle in key:
                return answer
        if self.answer_pattern is not None and (match := self.answer_pattern.search(key)):
            return match.group(1) if match.groups() else match.group(0)
        return key if self.default_answer is None else self.default_answer

    def _pick_fault(self, key: str, attempt: int) -> tuple[str | None, int]:
        if not self.faults:
            return None, 0
        u, extra = _uniform(self.seed, key, attempt)
        edge = 0.0
        for kind, rate in self.faults.items():
            edge += rate
            if u < edge:
                return kind, extra
        return None, extra

    async def _fault_response(self, kind: str, extra: int, request: web.Request) -> web.StreamResponse:
        self.faults_served[kind] += 1
        if kind == "429":
            headers = {"Retry-After": f"{self.retry_after:g}"}
            return web.json_response(
                {"error": {"message": "rate limit (injected)"}}, status=429, headers=headers
            )
        if kind == "500":
            return web.json_response({"error": {"message": "internal error (injected)"}}, status=500)
        if kind == "timeout":
            await asyncio.sleep(self.hang_s)
            return web.json_response({"error": {"message": "too late (injected)"}}, status=504)
        if kind == "reset":
            if request.transport is not None:
                request.transport.abort()
            return web.Response(status=500)
        body = (
            b'{"choices": [{"message": '
            if extra % 2 == 0
            else b'{"id": "garbage", "object": "chat.completion"}'
        )
        return web.Response(body=body, content_type="application/json")

    def _echo_choice(self, index: int, prompt: str) -> dict[str, Any]:
        """vLLM-style echo: whitespace-led word tokens, -0.01 for a word equal to the scripted answer
        (the whole prompt is the key), -1 for others; then one generated token."""
        answer = self.answer_for(prompt)
        tokens = [(m.start(), m.group()) for m in re.finditer(r"\s*\S+|\s+$", prompt)]
        logprobs = [None] + [-0.01 if t.strip() == answer else -1.0 for _, t in tokens[1:]]
        offsets = [off for off, _ in tokens] + [len(prompt)]
        lp = {
            "tokens": [t for _, t in tokens] + ["."],
            "token_logprobs": [*logprobs, -0.5],
            "text_offset": offsets,
        }
        return {"index": index, "text": prompt + ".", "logprobs": lp, "finish_reason": "length"}

    def _completion(self, body: dict[str, Any], answer: str, *, chat: bool) -> dict[str, Any]:
        if not chat and body.get("echo") and body.get("logprobs"):
            prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
            choices = [self._echo_choice(i, str(p)) for i, p in enumerate(prompts)]
            return {"id": "fake", "object": "text_completion", "model": self.model, "choices": choices}
        if self.behaviour.leak is not None and chat:  # a base model behind a default chat template
            answer += self.behaviour.leak
        words = answer.split(" ") if answer else []
        limit = body.get("max_tokens")
        finish = "stop"
        if isinstance(limit, int) and len(words) > limit:
            answer, finish = " ".join(words[:limit]), "length"
        usage = {"prompt_tokens": 1, "completion_tokens": min(len(words), limit or len(words) or 0)}
        message: dict[str, Any]
        choice: dict[str, Any]
        if chat and self.behaviour.tool_script is not None and body.get("tools"):
            message = {"role": "assistant", **self.behaviour.tool_script(body)}
            finish = "tool_calls" if message.get("tool_calls") else "stop"
            choice = {"index": 0, "message": message, "finish_reason": finish}
        elif chat:
            message = {"role": "assistant", "content": answer}
            if self.reasoning is not None:
                message["reasoning_content"] = self.reasoning
            choice = {"index": 0, "message": message, "finish_reason": finish}
        else:
            choice = {"index": 0, "text": answer, "finish_reason": finish}
        kind = "chat.completion" if chat else "text_completion"
        return {
            "id": "fake",
            "object": kind,
            "created": int(time.time()),
            "model": self.model,
            "choices": [choice],
            "usage": usage,
        }

    async def _handle(self, request: web.Request, *, chat: bool) -> web.StreamResponse:
        self.in_flight += 1
        try:
            return await self._answer(request, chat=chat)
        finally:
            self.in_flight -= 1

    def _error(self, status: int, message: str) -> web.StreamResponse:
        """An error answer: the OpenAI JSON shape, or an HTML page (``html_errors``) as proxies send."""
        if self.behaviour.html_errors:
            page = (
                f"<html><head><title>{status} {message}</title></head><body><h1>{message}</h1></body></html>"
            )
            return web.Response(status=status, text=page, content_type="text/html")
        return web.json_response({"error": {"code": status, "message": message}}, status=status)

    def _refusal(self, request: web.Request, body: dict[str, Any]) -> web.StreamResponse | None:
        """A misconfigured client's answer: wrong key (401), unknown model (404; llama.cpp answers any
        name with its one model), media the server cannot take (llama.cpp's HTTP 500), or a 429 burst."""
        if self.api_key is not None and request.headers.get("Authorization") != f"Bearer {self.api_key}":
            return self._error(401, "invalid API key")
        if (
            self.models is not None
            and body.get("model") not in self.models
            and self.behaviour.server != "llama.cpp"
        ):
            return self._error(404, f"model '{body.get('model')}' not found")
        kinds = {
            p.get("type")
            for m in body.get("messages") or ()
            if isinstance(m, dict) and isinstance(m.get("content"), list)
            for p in m["content"]
            if isinstance(p, dict)
        }
        if "image_url" in kinds and not self.behaviour.vision:
            return self._error(
                500,
                "image input is not supported - hint: if this is unexpected, you may need "
                "to provide the mmproj",
            )
        if "input_audio" in kinds and not self.behaviour.audio:
            return self._error(
                500,
                "audio input is not supported - hint: if this is unexpected, you may need "
                "to provide the mmproj",
            )
        if len(self.arrivals) <= self.burst_429:
            self.faults_served["429"] += 1
            headers = {"Retry-After": f"{self.retry_after:g}"}
            return web.json_response(
                {"error": {"message": "rate limit (burst)"}}, status=429, headers=headers
            )
        return None

    async def _answer(self, request: web.Request, *, chat: bool) -> web.StreamResponse:
        try:
            body = json.loads(await request.read())
        except ValueError:
            return web.json_response({"error": {"message": "request body is not JSON"}}, status=400)
        if not isinstance(body, dict) or ("messages" if chat else "prompt") not in body:
            field = "messages" if chat else "prompt"
            return web.json_response({"error": {"message": f"missing field {field!r}"}}, status=400)
        key = prompt_key(body)
        attempt = self.counts[key]
        self.counts[key] += 1
        self.arrivals.append(Arrival(time.monotonic(), key, attempt, self.in_flight))
        if self.latency_s > 0:
            await asyncio.sleep(self.latency_s)
        if (refused := self._refusal(request, body)) is not None:
            return refused
        kind, extra = self._pick_fault(key, attempt)
        if kind is not None:
            return await self._fault_response(kind, extra, request)
        if chat and isinstance(body.get("audio"), dict) and "audio" in (body.get("modalities") or ()):
            self.successes[key] += 1
            return await self._spoken(request, body, self.answer_for(key))
        payload = self._completion(body, self.answer_for(key), chat=chat)
        if body.get("stream"):
            return await self._stream(request, body, payload, key, chat=chat)
        self.successes[key] += 1
        return web.Response(
            body=json.dumps(payload, ensure_ascii=False).encode(), content_type="application/json"
        )

    async def _spoken(self, request: web.Request, body: dict[str, Any], answer: str) -> web.StreamResponse:
        """The answer spoken (``audio: {voice, format}``), whole or streamed as ``pcm16`` chunks."""
        from omnieval.testing.fake_speech import SpokenReply

        reply = SpokenReply.of(
            answer, fmt=str(body["audio"].get("format", "wav")), fault=self.behaviour.audio_fault
        )
        if not body.get("stream"):
            payload = self._completion(body, answer, chat=True)
            message = payload["choices"][0]["message"]
            message["content"] = None
            message["audio"] = {
                "id": "audio_fake",
                "data": reply.b64(),
                "transcript": answer,
                "expires_at": 0,
            }
            return web.json_response(payload)
        stream = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await stream.prepare(request)
        for event in reply.events(model=self.model):
            await stream.write(event)
            await asyncio.sleep(0)
        return stream

    async def _stream(
        self, request: web.Request, body: dict[str, Any], payload: dict[str, Any], key: str, *, chat: bool
    ) -> web.StreamResponse:
        """Server-sent events: one chunk per word, the finish reason, usage when asked for, ``[DONE]``;
        with ``cut_stream_after`` the connection drops after that many pieces."""
        choice = payload["choices"][0]
        text = choice["message"]["content"] if chat else choice["text"]
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        kind = "chat.completion.chunk" if chat else "text_completion"

        async def send(choices: list[dict[str, Any]], **extra: Any) -> None:
            chunk = {"id": "fake", "object": kind, "model": self.model, "choices": choices, **extra}
            await resp.write(b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n")

        pieces = [w if i == 0 else " " + w for i, w in enumerate(text.split(" "))] if text else []
        for i, piece in enumerate(pieces):
            if self.behaviour.cut_stream_after is not None and i >= self.behaviour.cut_stream_after:
                if request.transport is not None:
                    request.transport.abort()
                return resp
            delta: dict[str, Any] = {"delta": {"content": piece}} if chat else {"text": piece}
            await send([{"index": 0, **delta, "finish_reason": None}])
            await asyncio.sleep(0.002)
        end: dict[str, Any] = {"delta": {}} if chat else {"text": ""}
        await send([{"index": 0, **end, "finish_reason": choice["finish_reason"]}])
        if (body.get("stream_options") or {}).get("include_usage"):
            await send([], usage=payload["usage"])
        await resp.write(b"data: [DONE]\n\n")
        self.successes[key] += 1
        await resp.write_eof()
        return resp

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, chat=True)

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, chat=False)

    async def _models(self, request: web.Request) -> web.StreamResponse:
        """The models served: ``models`` (none listed when any name is served), as each server's card."""
        if not self.behaviour.list_models:
            return self._error(404, "Not Found")
        card: dict[str, Any] = {"object": "model", "owned_by": "fake"}
        if self.behaviour.server == "llama.cpp":
            card["owned_by"] = "llamacpp"
        elif self.behaviour.server == "vllm":
            card |= {"owned_by": "vllm", "max_model_len": 2048}
        elif self.behaviour.server == "ollama":
            card["owned_by"] = "library"
        return web.json_response({"object": "list", "data": [{"id": m, **card} for m in self.models or ()]})

    async def _props(self, request: web.Request) -> web.StreamResponse:
        """llama.cpp's ``/props``; a 404 from the others."""
        if self.behaviour.server != "llama.cpp":
            return self._error(404, "Not Found")
        chatml = (
            "{%- for message in messages -%}{{- '<|im_start|>' + message.role + '\\n' + message.content + "
            "'<|im_end|>\\n' -}}{%- endfor -%}"
        )
        template = (
            "{{ bos_token }}{% for m in messages %}<start_of_turn>{{ m.content }}<end_of_turn>{% endfor %}"
        )
        return web.json_response(  # as llama.cpp: ChatML is its fallback for a GGUF without a template
            {
                "modalities": {
                    "vision": self.behaviour.vision,
                    "video": self.behaviour.vision,
                    "audio": self.behaviour.audio,
                },
                "chat_template": template if self.behaviour.chat_template else chatml,
                "bos_token": "<bos>",
                "eos_token": "<eos>",
                "total_slots": 1,
            }
        )

    async def _show(self, request: web.Request) -> web.StreamResponse:
        """Ollama's ``/api/show``; a 404 from the others."""
        if self.behaviour.server != "ollama":
            return self._error(404, "Not Found")
        capabilities = [
            "completion",
            *(["vision"] if self.behaviour.vision else []),
            *(["audio"] if self.behaviour.audio else []),
        ]
        return web.json_response({"capabilities": capabilities, "details": {"format": "gguf"}})

    async def _stats(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.stats())

    async def _arrivals(self, request: web.Request) -> web.StreamResponse:
        """Every arrival as ``[time.monotonic(), requests in flight then]`` (a benchmark's load profile)."""
        return web.json_response([[a.t, a.in_flight] for a in self.arrivals])

    def stats(self) -> dict[str, Any]:
        """Counters as plain data (also served at ``GET /stats``)."""
        return {
            "requests": sum(self.counts.values()),
            "counts": dict(self.counts),
            "successes": dict(self.successes),
            "faults": dict(self.faults_served),
            # time.monotonic() of the first and last arrival (one clock for every process on Linux)
            "first_arrival": self.arrivals[0].t if self.arrivals else None,
            "last_arrival": self.arrivals[-1].t if self.arrivals else None,
        }

    async def start(self) -> str:
        """Bind and serve; returns the base URL (the port is filled in when 0 was asked)."""
        app = web.Application(client_max_size=256 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/completions", self._completions)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/props", self._props)
        app.router.add_post("/api/show", self._show)
        app.router.add_get("/stats", self._stats)
        app.router.add_get("/arrivals", self._arrivals)
        self.batches.routes(app)
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, backlog=1024)
        await site.start()
        server = getattr(site, "_server", None)
        if server is not None and server.sockets:
            self.port = server.sockets[0].getsockname()[1]
        return self.url

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @contextlib.contextmanager
    def in_thread(self) -> Iterator[FakeOpenAI]:
        """Serve from a background thread (for tests that run the CLI as a subprocess)."""
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        failure: list[BaseException] = []

        def serve() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.start())
            except BaseException as exc:  # reported to the caller below
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self.close())
            loop.close()

        thread = threading.Thread(target=serve, name="fake-openai", daemon=True)
        thread.start()
        ready.wait(30)
        if failure:
            raise failure[0]
        try:
            yield self
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)


def _build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m omnieval.testing.fake_openai", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port (printed on the first line)")
    ap.add_argument("--latency-ms", type=float, default=0.0)
    ap.add_argument("--faults", default="", help=f"KIND:RATE,... with KIND in {', '.join(FAULT_KINDS)}")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--answers", type=Path, help="JSON object: prompt substring -> answer")
    ap.add_argument("--answer-pattern", help="regex whose first group, found in the prompt, is the answer")
    ap.add_argument("--default-answer", help="answer when nothing matches (default: echo the prompt)")
    ap.add_argument("--reasoning", help="also send this as reasoning_content")
    ap.add_argument("--hang-s", type=float, default=30.0, help="how long a 'timeout' fault hangs")
    ap.add_argument("--retry-after", type=float, default=0.0, help="Retry-After seconds sent with 429")
    ap.add_argument("--models", help="comma-separated model names served; others get HTTP 404")
    ap.add_argument("--api-key", help="require this bearer key (HTTP 401 otherwise)")
    ap.add_argument("--burst-429", type=int, default=0, help="answer the first N requests with HTTP 429")
    return ap


def main(argv: list[str] | None = None) -> None:
    """Serve until interrupted."""
    args = _build_parser().parse_args(argv)
    answers = json.loads(args.answers.read_text(encoding="utf-8")) if args.answers else None
    server = FakeOpenAI(
        host=args.host,
        port=args.port,
        latency_ms=args.latency_ms,
        faults=args.faults,
        seed=args.seed,
        answers=answers,
        answer_pattern=args.answer_pattern,
        default_answer=args.default_answer,
        reasoning=args.reasoning,
        hang_s=args.hang_s,
        retry_after=args.retry_after,
        models=tuple(args.models.split(",")) if args.models else None,
        api_key=args.api_key,
        burst_429=args.burst_429,
    )

    async def serve() -> None:
        print(await server.start(), flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await server.close()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


if __name__ == "__main__":
    main()
