"""Spoken answers from an OpenAI-compatible chat API: ``modalities: ["text", "audio"]`` and
``audio: {voice, format}``, whole or streamed (server-sent events whose deltas carry base64 ``pcm16``
chunks and the transcript). The answer becomes an :class:`~omnieval.types.AudioAnswer`; the run hears it.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any, Literal

from omnieval.errors import BackendError
from omnieval.types import AudioAnswer
from omnieval.types._base import Frozen

__all__ = ["PCM16_RATE", "AudioOutput", "AudioStreamReader", "audio_of"]

PCM16_RATE = 24000
"""OpenAI's ``pcm16``: 24 kHz, 16-bit little-endian mono."""


class AudioOutput(Frozen):
    """``--backend-opt audio='{"voice": "alloy", "format": "wav"}'``: ask for a spoken answer."""

    voice: str = "alloy"
    format: Literal["wav", "mp3", "flac", "opus", "pcm16"] = "wav"
    stream: bool = False
    """Stream the answer (the format must then be ``pcm16``): time to first audio is measured."""


def audio_of(message: dict[str, Any], *, options: AudioOutput, where: str) -> AudioAnswer:
    """The spoken answer in a whole (not streamed) chat message; a missing one is an error naming it."""
    audio = message.get("audio")
    if not isinstance(audio, dict) or not isinstance(audio.get("data"), str):
        raise BackendError(
            f"{where}: asked for audio, but choices[0].message.audio.data is missing", retryable=True
        )
    try:
        raw = base64.b64decode(audio["data"], validate=True)
    except ValueError:
        raise BackendError(f"{where}: choices[0].message.audio.data is not base64", retryable=True) from None
    rate = PCM16_RATE if options.format == "pcm16" else None
    transcript = audio.get("transcript") if isinstance(audio.get("transcript"), str) else None
    return AudioAnswer.of(raw, format=options.format, sample_rate=rate, transcript=transcript)


def _deltas(line: str) -> dict[str, Any] | None:
    if not line.startswith("data:"):
        return None
    data = line[5:].strip()
    if not data or data == "[DONE]":
        return {"done": True}
    try:
        event = json.loads(data)
    except ValueError:
        return None
    choices = event.get("choices") if isinstance(event, dict) else None
    if not choices or not isinstance(choices[0], dict):
        return {}
    return {"delta": choices[0].get("delta") or {}, "finish": choices[0].get("finish_reason")}


class AudioStreamReader:
    """Collects one streamed spoken answer (its audio chunks, transcript and text) from the lines the
    backend's client hands to :meth:`line`; the backend sets ``started`` when it sends the request."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.pieces = 0
        """Audio chunks so far (named as the text reader's, for the failure message of a cut stream)."""
        self.chunks: list[bytes] = []
        self.transcript: list[str] = []
        self.content: list[str] = []
        self.first: float | None = None
        self.finished = False
        self.done = False
        """``data: [DONE]`` (or an empty ``data:``) came: later lines are not read."""

    def line(self, raw: bytes) -> None:
        if self.done:
            return
        event = _deltas(raw.decode("utf-8", "replace"))
        if event is None:
            return
        if event.get("done"):
            self.done = self.finished = True
            return
        delta = event.get("delta") or {}
        audio = delta.get("audio") if isinstance(delta, dict) else None
        if isinstance(audio, dict):
            if isinstance(audio.get("data"), str) and audio["data"]:
                if self.first is None:
                    self.first = time.perf_counter() - self.started
                self.chunks.append(base64.b64decode(audio["data"]))
                self.pieces += 1
            if isinstance(audio.get("transcript"), str):
                self.transcript.append(audio["transcript"])
        if isinstance(delta, dict) and isinstance(delta.get("content"), str):
            self.content.append(delta["content"])
        if event.get("finish"):
            self.finished = True

    def answer(self) -> tuple[AudioAnswer, str]:
        """The joined spoken answer and the text content; ``complete`` is False when the stream ended
        before a ``finish_reason`` or ``[DONE]``: a cut answer."""
        answer = AudioAnswer.of(
            b"".join(self.chunks),
            format="pcm16",
            sample_rate=PCM16_RATE,
            first_audio_s=self.first,
            complete=self.finished,
            transcript="".join(self.transcript) or None,
        )
        return answer, "".join(self.content)
