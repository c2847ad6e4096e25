"""Spoken answers: the audio a backend returns, and what a run recorded about it.

A backend that answers by voice puts the encoded file in :class:`AudioAnswer` (base64, so the response
cache keeps it like text). The run keeps the file in its folder by content hash, checks it, hears it
with speech recognition and records :class:`SpokenAudio` in the sample's record; the transcript is the
sample's ``response``, which parsers, metrics and judges read like any text answer.
"""

from __future__ import annotations

import base64
from typing import Literal

from pydantic import Field

from omnieval.types._base import Frozen

__all__ = ["AUDIO_PROBLEMS", "AudioAnswer", "AudioProblem", "SpokenAudio"]

AudioProblem = Literal["empty", "undecodable", "silent", "clipped", "wrong_sample_rate", "stream_cut"]
"""Why a spoken answer was not heard: the sample ends in ``error`` with this cause, never scored."""
AUDIO_PROBLEMS: tuple[AudioProblem, ...] = (
    "empty",
    "undecodable",
    "silent",
    "clipped",
    "wrong_sample_rate",
    "stream_cut",
)


class AudioAnswer(Frozen):
    """Audio a backend answered with (one file; a stream is joined before it is returned)."""

    data_b64: str
    """The encoded file (``format``), base64."""
    format: str = "wav"
    """``wav``, ``flac``, ``mp3``, ``ogg``, or ``pcm16`` (raw little-endian mono at ``sample_rate``)."""
    sample_rate: int | None = None
    """The rate the provider declared (required for ``pcm16``; checked against a file's header)."""
    first_audio_s: float | None = None
    """Seconds from the request to the first audio chunk (streamed answers)."""
    complete: bool = True
    """False when the stream ended before the provider said it was done (a cut answer)."""
    transcript: str | None = None
    """The provider's own transcript of its audio (recorded, never scored: the run hears the audio)."""

    @classmethod
    def of(cls, data: bytes, **kwargs: object) -> AudioAnswer:
        """From the raw file bytes."""
        return cls(data_b64=base64.b64encode(data).decode("ascii"), **kwargs)  # type: ignore[arg-type]

    @property
    def data(self) -> bytes:
        return base64.b64decode(self.data_b64)


class SpokenAudio(Frozen):
    """What the run kept and heard of one spoken answer (``SampleResult.audio``)."""

    path: str
    """The file under the run folder, named by content hash (``audio/SHA16.wav``)."""
    sha256: str
    format: str
    sample_rate: int = 0
    channels: int = 0
    duration_s: float = 0.0
    transcript: str | None = None
    """What speech recognition heard (``None`` when the audio was not heard: see ``problem``)."""
    problem: AudioProblem | None = None
    detail: str | None = None
    """The measured cause of ``problem`` (peak level, clipped share, declared vs actual rate)."""
    recogniser: str | None = None
    """The recogniser's key (its identity is in the manifest's ``speech_recognition``)."""
    measures: dict[str, float] = Field(default_factory=dict)
    """``leading_silence_s``, ``peak_dbfs``, ``speaking_rate_cps`` (characters of transcript per second),
    ``real_time_factor`` (answer latency / duration), ``first_audio_s``, ``recognition_s`` (seconds the
    recogniser took; absent when the transcript came from the cache)."""
    provider_transcript: str | None = None
