"""Spoken answers: keep the audio in the run folder by content hash, check it, hear it.

A response with ``audio`` becomes a text response whose text is the transcript, so parsers, metrics,
judges, re-scoring and reports treat it like any answer; the record keeps the file's path, format,
sample rate, duration, measures and the transcript (``SampleResult.audio``). The response cache stores
the audio itself, so a cache hit hears the same bytes again without synthesising anything, and the
transcript comes from the perception cache (by recogniser and content hash). Audio that fails a check
(:mod:`omnieval.media.spoken`) is an ``error`` with its cause, never a transcript of nothing.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omnieval.errors import MediaError
from omnieval.types import MediaRef, Request, Response, SpokenAudio

if TYPE_CHECKING:  # the recogniser's modules load with the first spoken answer, not with every run
    from omnieval.backends.cascade.backend import PerceptionCache
    from omnieval.backends.cascade.engines import Recognizer
    from omnieval.backends.cascade.spec import AsrStage

__all__ = ["AUDIO_DIR", "QUALITY_KEY", "Hearing", "hearing_stage"]

AUDIO_DIR = "audio"
"""Where a run keeps its spoken answers: ``OUTPUT/audio/SHA16.EXT``."""
QUALITY_KEY = "mos"
"""The metric that asks the hearing for a quality estimate (DNSMOS, extra ``speech-mos``)."""


def hearing_stage() -> AsrStage:
    """Whisper base, beam 5, one pass (no temperature fallback) and at most 12 tokens per second of audio:
    a recogniser looping on unintelligible speech (espeak-ng's Russian) stops early instead of taking
    minutes; intelligible speech needs about 5 tokens per second. As many CPU threads as cores, up to 4
    (threads are not part of the recogniser's identity: transcripts stay cached across machines)."""
    from omnieval.backends.cascade.spec import AsrStage

    threads = min(4, os.cpu_count() or 1)  # CTranslate2's default of 4 oversubscribes a 2-core machine
    return AsrStage(fallback=False, tokens_per_second=12.0, threads=threads)


@functools.lru_cache(maxsize=2)
def _loaded(stage: AsrStage, root: Path) -> Recognizer:
    """One loaded recogniser per stage and cache folder in a process: runs after the first (a sweep,
    a benchmark, the tests) do not load Whisper again."""
    from omnieval.backends.cascade.engines import recognizer

    return recognizer(stage, root=root)


def _failed(response: Response, why: str) -> Response:
    """The response as a counted error: nothing was heard, so nothing is scored."""
    return response.model_copy(update={"text": "", "error": why, "finish_reason": "error"})


class Hearing:
    """The run's speech recognition, loaded on the first spoken answer (a text run never loads it)."""

    def __init__(self, output: Path, *, stage: AsrStage | None = None, cache_dir: str | None = None) -> None:
        self.folder = output / AUDIO_DIR
        self.stage = stage or hearing_stage()
        self.cache_dir = cache_dir
        self._cache: PerceptionCache | None = None
        self._engine: Recognizer | None = None
        self._lock = threading.Lock()
        self.heard = 0
        """Clips recognised by the engine in this process (cache misses); tests and benchmarks read it."""
        self.recognition_s = 0.0
        self.audio_s = 0.0
        """Seconds spent recognising, and seconds of audio recognised (the recogniser's speed)."""

    def engine(self) -> Recognizer:
        from omnieval.backends.cascade.engines import cache_root

        with self._lock:
            if self._engine is None:
                self._engine = _loaded(self.stage, cache_root(self.cache_dir))
            return self._engine

    @property
    def cache(self) -> PerceptionCache:
        """Transcripts by recogniser and content hash (shared with the cascades' perception cache)."""
        from omnieval.backends.cascade.backend import PerceptionCache
        from omnieval.backends.cascade.engines import cache_root

        if self._cache is None:
            self._cache = PerceptionCache(cache_root(self.cache_dir) / "perception")
        return self._cache

    def describe(self) -> dict[str, Any] | None:
        """The recogniser's identity for the manifest (``None`` when nothing was spoken)."""
        if self._engine is None:
            return None
        return {**self._engine.identity, "language": "the sample's, else the task's (ru or en)"}

    async def hear(
        self, request: Request, response: Response, *, quality: bool = False
    ) -> tuple[Response, SpokenAudio | None]:
        """The response with the transcript as its text (or an error naming the audio's problem);
        ``quality``: also the DNSMOS estimate in the measures (the task scores ``mos``)."""
        if response.audio is None or response.error is not None:
            return response, None
        return await asyncio.to_thread(self._hear, request, response, quality)

    def _keep(self, data: bytes, extension: str) -> tuple[str, str]:
        sha = hashlib.sha256(data).hexdigest()
        rel = f"{AUDIO_DIR}/{sha[:16]}.{extension}"
        path = self.folder.parent / rel
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
        return rel, sha

    def _hear(self, request: Request, response: Response, quality: bool) -> tuple[Response, SpokenAudio]:
        from omnieval.backends.tts import spoken_language
        from omnieval.media.spoken import check_spoken, quality_estimate

        assert response.audio is not None
        answer = response.audio
        checked = check_spoken(answer, where=f"{request.task}/{request.sample_id}: response.audio")
        rel, sha = self._keep(checked.data, checked.extension)
        measures = dict(checked.measures)
        first = answer.first_audio_s if answer.first_audio_s is not None else response.latency_s
        if first is not None:
            measures["first_audio_s"] = round(first, 4)
        if response.latency_s is not None and checked.duration_s > 0:
            measures["real_time_factor"] = round(response.latency_s / checked.duration_s, 4)
        record = SpokenAudio(
            path=rel,
            sha256=sha,
            format=checked.extension,
            sample_rate=checked.sample_rate,
            channels=checked.channels,
            duration_s=checked.duration_s,
            problem=checked.problem,
            detail=checked.detail,
            measures=measures,
            provider_transcript=answer.transcript,
        )
        if checked.problem is not None or checked.samples is None:
            why = f"spoken answer {checked.problem}: {checked.detail} ({rel})"
            return _failed(response, why), record
        if quality:
            measures.update(quality_estimate(checked.samples))
        language = spoken_language(request.language)
        engine = self.engine()
        key = f"{engine.key}-{language}"
        text = self.cache.get(key, sha)
        if text is None:
            ref = MediaRef(kind="audio", name=rel, path=str(self.folder.parent / rel))
            try:
                text, spent = engine.recognise_timed(ref, language=language)
            except MediaError as exc:  # the recogniser's own decoder refused it: the sample says why
                why = f"spoken answer undecodable by the recogniser: {exc} ({rel})"
                record = record.model_copy(update={"problem": "undecodable", "detail": str(exc)})
                return response.model_copy(
                    update={"text": "", "error": why, "finish_reason": "error"}
                ), record
            self.cache.put(key, sha, text)
            measures["recognition_s"] = round(spent, 4)
            with self._lock:
                self.heard += 1
                self.recognition_s += spent
                self.audio_s += checked.duration_s
        if checked.duration_s > 0:
            measures["speaking_rate_cps"] = round(len(text.replace(" ", "")) / checked.duration_s, 3)
        record = record.model_copy(update={"transcript": text, "recogniser": key, "measures": measures})
        return response.model_copy(update={"text": text}), record
