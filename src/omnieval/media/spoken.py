"""Checking a spoken answer before it is heard: decodable, not empty, not silent, not clipped, at the
rate the provider declared, and complete. A failed check is the sample's cause of ``error``; a
recogniser's transcript of silence would otherwise be scored as if the model had said nothing wrong.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from omnieval.errors import ConfigError, MediaError
from omnieval.types import AudioAnswer, AudioProblem

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "ASR_RATE",
    "CLIPPED_SHARE",
    "MIN_RATE",
    "SILENT_PEAK",
    "CheckedAudio",
    "check_spoken",
    "pcm16_wav",
    "quality_estimate",
]

ASR_RATE = 16000
"""What speech recognition reads: 16 kHz mono float32."""
SILENT_PEAK = 10 ** (-50 / 20)
"""Peak below -50 dBFS: silence (or noise floor), nothing to hear."""
CLIPPED_SHARE = 0.01
"""More than 1 % of the samples at full scale (|x| ≥ 0.999): clipped."""
MIN_RATE = 8000
"""Below telephone rate speech is not intelligible to a recogniser: a wrong sample rate."""
_EXTENSIONS = {"wav": "wav", "pcm16": "wav", "flac": "flac", "mp3": "mp3", "ogg": "ogg", "opus": "ogg"}


def pcm16_wav(pcm: bytes, *, sample_rate: int, channels: int = 1) -> bytes:
    """Raw little-endian 16-bit PCM wrapped in a WAV header (how a stream of ``pcm16`` chunks is kept)."""
    size = len(pcm) - len(pcm) % (2 * channels)
    header = b"RIFF" + struct.pack("<I", 36 + size) + b"WAVEfmt "
    header += struct.pack(
        "<IHHIIHH", 16, 1, channels, sample_rate, sample_rate * 2 * channels, 2 * channels, 16
    )
    return header + b"data" + struct.pack("<I", size) + pcm[:size]


@dataclass
class CheckedAudio:
    """The file as kept (``data``, ``extension``), what it holds, and its problem if any."""

    data: bytes
    extension: str
    sample_rate: int = 0
    channels: int = 0
    duration_s: float = 0.0
    problem: AudioProblem | None = None
    detail: str | None = None
    samples: np.ndarray | None = None
    """16 kHz mono float32 for the recogniser (``None`` when there is a problem)."""
    measures: dict[str, float] = field(default_factory=dict)


def _file(answer: AudioAnswer) -> tuple[bytes, str]:
    raw = answer.data
    if answer.format == "pcm16":
        if answer.sample_rate is None:
            raise MediaError("a pcm16 spoken answer needs the provider's sample_rate", path="response.audio")
        return pcm16_wav(raw, sample_rate=answer.sample_rate), "wav"
    return raw, _EXTENSIONS.get(answer.format, answer.format)


def _leading_silence(mono: np.ndarray, rate: int, peak: float) -> float:
    """Seconds before the first 10 ms frame whose peak reaches 10 % of the clip's peak."""
    import numpy as np

    frame = max(1, rate // 100)
    n = mono.size // frame
    if n == 0:
        return 0.0
    peaks = np.abs(mono[: n * frame]).reshape(n, frame).max(axis=1)
    loud = np.flatnonzero(peaks >= 0.1 * peak)
    return round(float(loud[0] * frame / rate) if loud.size else 0.0, 3)


def check_spoken(answer: AudioAnswer, *, where: str) -> CheckedAudio:
    """Decode and check ``answer``; a problem is returned (with its measured cause), never raised."""
    import numpy as np

    from omnieval.media.audio import decode_audio, mixdown, resample

    data, ext = _file(answer)
    out = CheckedAudio(data, ext)
    if not answer.data:
        out.problem, out.detail = "empty", "the answer holds no audio bytes"
        return out
    try:
        frames, rate, info = decode_audio(io.BytesIO(data), where=where)
    except MediaError as exc:
        empty = "no samples" in str(exc)
        out.problem, out.detail = ("empty" if empty else "undecodable"), str(exc)
        return out
    mono = mixdown(frames)
    peak = float(np.max(np.abs(mono)))
    out.sample_rate, out.channels = rate, int(info["original_channels"])
    out.duration_s = round(mono.size / rate, 3)
    out.measures = {
        "peak_dbfs": round(20 * float(np.log10(max(peak, 1e-9))), 2),
        "leading_silence_s": _leading_silence(mono, rate, peak),
    }
    clipped = float(np.mean(np.abs(mono) >= 0.999))
    if not answer.complete:
        out.problem, out.detail = "stream_cut", "the stream ended before the provider finished the answer"
    elif answer.sample_rate is not None and answer.format != "pcm16" and answer.sample_rate != rate:
        out.problem = "wrong_sample_rate"
        out.detail = f"the provider declared {answer.sample_rate} Hz, the file is {rate} Hz"
    elif rate < MIN_RATE:
        out.problem, out.detail = "wrong_sample_rate", f"{rate} Hz is below {MIN_RATE} Hz"
    elif peak < SILENT_PEAK:
        out.problem, out.detail = "silent", f"peak {out.measures['peak_dbfs']} dBFS is below -50 dBFS"
    elif clipped > CLIPPED_SHARE:
        out.problem, out.detail = "clipped", f"{clipped:.1%} of the samples are at full scale"
    else:
        out.samples = resample(mono, rate_in=rate, rate_out=ASR_RATE)
    return out


def quality_estimate(samples: np.ndarray) -> dict[str, float]:
    """DNSMOS (Microsoft's non-intrusive P.835 and P.808 predictors, ONNX files shipped inside the
    ``speechmos`` wheel, so nothing is downloaded at run time) of 16 kHz mono speech: ``dnsmos_ovrl``,
    ``dnsmos_sig``, ``dnsmos_bak`` and ``dnsmos_p808``, each on the 1–5 opinion scale."""
    try:
        from speechmos import dnsmos
    except ImportError:
        raise ConfigError(
            "metric 'mos' needs the DNSMOS predictor: pip install speechmos librosa onnxruntime "
            "(omnieval extra 'speech-mos')"
        ) from None
    got = dnsmos.run(samples.astype("float32"), ASR_RATE)
    return {f"dnsmos_{name}": round(float(got[f"{name}_mos"]), 3) for name in ("ovrl", "sig", "bak", "p808")}
