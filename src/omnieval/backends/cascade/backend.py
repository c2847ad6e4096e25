"""``cascade/...``: audio → transcript, image → recognised text, in place, then a text model answers.

This is ART's cascade protocol ("Whisper + Qwen"): the whole audio prompt is transcribed and the text
model answers from the transcript and the task's text. Each media part is replaced where it stood by
``[Аудио: …]`` / ``[Audio: …]`` or ``[Текст на изображении: …]`` / ``[Text in image: …]``. What each
stage recognised is returned in ``Response.extra["cascade"]`` (recorded per sample as
``intermediates``) and cached by stage identity and media hash, so a re-run or a second text model
behind the same stages recognises nothing again.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from omnieval.backends.base import (
    Backend,
    BackendOptions,
    backends,
    batch_of_one,
    create_backend,
    register_backend,
)
from omnieval.backends.cascade.engines import Recognizer, cache_root, recognizer
from omnieval.backends.cascade.spec import parse_cascade
from omnieval.backends.tts import check_engine, synthesize
from omnieval.errors import BackendError, MediaError
from omnieval.media.hashing import fingerprint
from omnieval.types import AudioAnswer, AudioPart, ImagePart, Message, Request, Response, TextPart

__all__ = ["WRAPPERS", "CascadeBackend", "PerceptionCache"]

WRAPPERS = {
    "ru": {"audio": "[Аудио: {text}]", "image": "[Текст на изображении: {text}]"},
    "en": {"audio": "[Audio: {text}]", "image": "[Text in image: {text}]"},
}
"""How recognised text stands in for the media part (documented in docs/running/cascades.md)."""


class PerceptionCache:
    """Recognised text per (stage key, media sha256): one small JSON file each, written atomically."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, stage: str, sha: str) -> Path:
        return self.root / stage / sha[:2] / f"{sha}.json"

    def get(self, stage: str, sha: str) -> str | None:
        try:
            return str(json.loads(self._path(stage, sha).read_text(encoding="utf-8"))["text"])
        except (OSError, ValueError, KeyError):
            return None

    def put(self, stage: str, sha: str, text: str) -> None:
        path = self._path(stage, sha)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
        tmp.write_text(json.dumps({"text": text}, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)


def _language(request: Request, wrap: str) -> str:
    if wrap != "auto":
        return wrap
    return "ru" if (request.language or "ru").lower().startswith("ru") else "en"


@register_backend("cascade")
class CascadeBackend(Backend):
    """Perception stages (faster-whisper, Tesseract) in front of any text backend."""

    prefers_batches: ClassVar[bool] = True

    def __init__(self, model: str, *, options: BackendOptions, llm: Backend | None = None) -> None:
        """``llm``: the text model already loaded (the demo shares one Gemma between runs); default: built
        from the spec."""
        self.cascade = parse_cascade(model, providers=set(backends.names()))
        super().__init__(model, options=options)
        self.cache = PerceptionCache(cache_root(self.cascade.cache_dir) / "perception")
        self._engines: dict[str, Recognizer] = {}
        self._lock = threading.Lock()
        for kind, stage in (("audio", self.cascade.asr), ("image", self.cascade.ocr)):
            if stage is not None:  # a missing program, language pack or model fails here, before any request
                self.engine(kind)
        if self.cascade.tts is not None:  # a missing engine fails here, before any request
            check_engine(self.cascade.tts)
        self.llm = llm or create_backend(self.cascade.llm, options=options)
        self.prefers_batches = self.llm.prefers_batches  # type: ignore[misc]
        self.recognised = 0
        """Media recognised by an engine in this process (cache misses); tests and benchmarks read it."""

    @classmethod
    def option_model(cls, name: str) -> type[BaseModel] | None:
        """``--backend-opt`` keys are the text model's."""
        spec = parse_cascade(name, providers=set(backends.names()))
        provider, _, inner = spec.llm.partition("/")
        return backends.get(provider).option_model(inner)

    @classmethod
    def accepts_for(cls, name: str, *, options: BackendOptions) -> frozenset[str]:
        """Text (what the text model reads) plus what the stages turn into text."""
        spec = parse_cascade(name, providers=set(backends.names()))
        stages = {"audio"} if spec.asr else set()
        stages |= {"image"} if spec.ocr else set()
        return frozenset({"text", *stages})

    def engine(self, kind: str) -> Recognizer:
        """The stage for ``audio`` or ``image``, loaded on first use (in a worker thread)."""
        with self._lock:
            if kind not in self._engines:
                stage = self.cascade.asr if kind == "audio" else self.cascade.ocr
                assert stage is not None  # the capability check skipped media no stage covers
                self._engines[kind] = recognizer(stage, root=cache_root(self.cascade.cache_dir))
            return self._engines[kind]

    def describe(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "kind": "cascade",
            "modalities": sorted(self.accepts()),
            "wrap": self.cascade.wrap,
            **({"tts": self.cascade.tts} if self.cascade.tts else {}),
            "stages": [engine.identity for engine in self._engines.values()],
            "llm": self.llm.describe(),
        }

    def max_connections(self) -> int:
        return self.llm.max_connections()

    def endpoint(self) -> str:
        return self.llm.endpoint()

    def identity(self) -> str:
        return self.llm.identity()

    def _recognise(self, part: AudioPart | ImagePart) -> dict[str, Any]:
        ref = fingerprint(part.media)
        kind = part.media.kind
        engine = self.engine(kind)
        assert ref.sha256 is not None
        started = time.perf_counter()
        text = self.cache.get(engine.key, ref.sha256)
        cached = text is not None
        if text is None:
            text = engine.recognise(ref, language=None)
            self.cache.put(engine.key, ref.sha256, text)
            with self._lock:
                self.recognised += 1
        return {
            "kind": kind,
            "name": ref.name,
            "source": ref.describe(),
            "sha256": ref.sha256,
            "stage": engine.identity["engine"],
            "text": text,
            "cached": cached,
            "seconds": round(time.perf_counter() - started, 4),
        }

    def convert(self, request: Request) -> tuple[Request, list[dict[str, Any]]]:
        """The text-only request and what each stage recognised; raises MediaError on undecodable media."""
        wrappers = WRAPPERS[_language(request, self.cascade.wrap)]
        records: list[dict[str, Any]] = []
        messages = []
        for msg in request.messages:
            if isinstance(msg.content, str):
                messages.append(msg)
                continue
            pieces: list[str] = []
            for part in msg.content:
                if isinstance(part, TextPart):
                    pieces.append(part.text)
                elif isinstance(part, AudioPart | ImagePart):
                    record = self._recognise(part)
                    records.append(record)
                    pieces.append(wrappers[part.media.kind].format(text=record["text"]))
                else:
                    raise MediaError(
                        f"the cascade has no stage for {part.type} (it takes {sorted(self.accepts())})",
                        path=part.media.describe(),
                    )
            messages.append(Message(role=msg.role, content="".join(pieces)))
        prompt = "\n\n".join(m.text for m in messages) if request.prompt is not None else None
        return request.model_copy(update={"messages": tuple(messages), "prompt": prompt}), records

    def _convert_all(
        self, requests: Sequence[Request]
    ) -> list[tuple[Request, list[dict[str, Any]]] | Response]:
        out: list[tuple[Request, list[dict[str, Any]]] | Response] = []
        for request in requests:
            try:
                out.append(self.convert(request))
            except MediaError as exc:  # this sample is an error naming the file; the batch goes on
                out.append(Response.from_error(f"cascade could not recognise the media: {exc}"))
        return out

    async def generate(self, request: Request) -> Response:
        return await batch_of_one(self, request)

    async def generate_many(self, requests: Sequence[Request]) -> list[Response | BaseException]:
        converted = await asyncio.to_thread(self._convert_all, requests)
        ready = [c for c in converted if not isinstance(c, Response)]
        answers = iter(await self.llm.generate_many([r for r, _ in ready]) if ready else [])
        out: list[Response | BaseException] = []
        for item in converted:
            if isinstance(item, Response):
                out.append(item)
                continue
            answer = next(answers)
            if isinstance(answer, Response):
                answer = answer.model_copy(update={"extra": {**answer.extra, "cascade": item[1]}})
            out.append(answer)
        if self.cascade.tts is not None:
            return list(
                await asyncio.gather(*(self._spoken(r, a) for r, a in zip(requests, out, strict=True)))
            )
        return out

    async def _spoken(self, request: Request, answer: Response | BaseException) -> Response | BaseException:
        """The text model's answer read aloud by the cascade's speech engine (its text kept as the
        provider's transcript); an error or an empty answer stays as it is."""
        if not isinstance(answer, Response) or answer.error is not None or not answer.text.strip():
            return answer
        assert self.cascade.tts is not None
        started = time.perf_counter()
        try:
            wav = await asyncio.to_thread(
                synthesize, answer.text, engine=self.cascade.tts, language=_language(request, "auto")
            )
        except BackendError as exc:
            return Response.from_error(str(exc))
        latency = (answer.latency_s or 0.0) + time.perf_counter() - started
        audio = AudioAnswer.of(wav, format="wav", transcript=answer.text)
        return answer.model_copy(update={"text": "", "audio": audio, "latency_s": latency})

    async def aclose(self) -> None:
        await self.llm.aclose()
