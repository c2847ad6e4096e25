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

__all__ = ["PCM16_RATE", "AudioOutput", "audio_of", "read_audio_stream"]

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


async def read_audio_stream(lines: Any, *, started: float) -> tuple[AudioAnswer, str, float]:
    """Join a stream's audio chunks and transcript: (answer, text content, seconds). ``complete`` is
    False when the stream ended before a ``finish_reason`` or ``[DONE]``: a cut answer."""
    chunks: list[bytes] = []
    transcript: list[str] = []
    content: list[str] = []
    first: float | None = None
    finished = False
    async for line in lines:
        event = _deltas(line)
        if event is None:
            continue
        if event.get("done"):
            finished = True
            break
        delta = event.get("delta") or {}
        audio = delta.get("audio") if isinstance(delta, dict) else None
        if isinstance(audio, dict):
            if isinstance(audio.get("data"), str) and audio["data"]:
                if first is None:
                    first = time.perf_counter() - started
                chunks.append(base64.b64decode(audio["data"]))
            if isinstance(audio.get("transcript"), str):
                transcript.append(audio["transcript"])
        if isinstance(delta, dict) and isinstance(delta.get("content"), str):
            content.append(delta["content"])
        if event.get("finish"):
            finished = True
    answer = AudioAnswer.of(
        b"".join(chunks),
        format="pcm16",
        sample_rate=PCM16_RATE,
        first_audio_s=first,
        complete=finished,
        transcript="".join(transcript) or None,
    )
    return answer, "".join(content), time.perf_counter() - started
