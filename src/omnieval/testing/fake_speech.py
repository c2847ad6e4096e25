"""Spoken answers for the fake servers: the answer text read by Festival (Russian) or espeak-ng, or a
generated tone where neither is installed, encoded as the client asked (``wav`` or 24 kHz ``pcm16``),
whole or as server-sent events. Faults: ``cut`` (the stream stops midway, no finish), ``silent``."""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

__all__ = ["AUDIO_FAULTS", "SpokenReply", "speech_samples"]

AUDIO_FAULTS = ("cut", "silent")
_RATE = 16000
_PCM_RATE = 24000


def speech_samples(text: str) -> tuple[np.ndarray, int]:
    """``text`` spoken (float32 mono, rate): Festival for Russian, espeak-ng otherwise, else a tone."""
    from omnieval.backends.tts import synthesize
    from omnieval.media.audio import decode_audio, mixdown

    russian = bool(re.search("[а-яё]", text, re.IGNORECASE))
    engine = "festival" if russian and shutil.which("text2wave") else "espeak"
    if shutil.which("text2wave" if engine == "festival" else "espeak-ng") is None:
        t = np.arange(int(0.6 * _RATE)) / _RATE
        return (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32), _RATE
    wav = synthesize(text, engine=engine, language="ru" if russian else "en")
    data, rate, _ = decode_audio(io.BytesIO(wav), where="fake speech")
    return mixdown(data), rate


@dataclass(frozen=True)
class SpokenReply:
    """One spoken answer as the fake sends it."""

    text: str
    data: bytes
    """The encoded answer (a WAV file, or raw 24 kHz pcm16)."""
    fmt: str
    fault: str | None = None

    @classmethod
    def of(cls, text: str, *, fmt: str, fault: str | None = None) -> SpokenReply:
        import soundfile

        from omnieval.media.audio import resample

        samples, rate = speech_samples(text)
        if fault == "silent":
            samples = np.zeros_like(samples)
        if fmt == "pcm16":
            pcm = resample(samples, rate_in=rate, rate_out=_PCM_RATE)
            data = (np.clip(pcm, -1, 1) * 32767).astype("<i2").tobytes()
        else:
            buf = io.BytesIO()
            soundfile.write(buf, samples, rate, format="WAV", subtype="PCM_16")
            data = buf.getvalue()
        return cls(text, data, fmt, fault)

    def b64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def events(self, *, model: str, chunk: int = 9600) -> Iterator[bytes]:
        """Server-sent events as OpenAI streams audio: the transcript, then ``pcm16`` chunks (0.2 s each),
        then the finish and ``[DONE]`` (left out when the fault is ``cut``, which stops halfway)."""

        def event(delta: dict[str, object], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            body = {"id": "fake", "object": "chat.completion.chunk", "model": model, "choices": [choice]}
            return f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode()

        yield event({"role": "assistant", "audio": {"id": "audio_fake", "transcript": self.text}})
        pieces = [self.data[i : i + chunk] for i in range(0, len(self.data), chunk)]
        if self.fault == "cut":
            pieces = pieces[: max(1, len(pieces) // 2)]
        for piece in pieces:
            yield event({"audio": {"data": base64.b64encode(piece).decode("ascii")}})
        if self.fault == "cut":
            return
        yield event({}, finish="stop")
        yield b"data: [DONE]\n\n"
