"""Audio decoding (libsndfile via soundfile), mono mixdown and resampling (soxr).

A file whose header promises more frames than the data holds is reported as truncated rather
than silently shortened, because a clipped answer audio changes what the model hears.
"""

from __future__ import annotations

from typing import Any, BinaryIO

import numpy as np

from omnieval.errors import ConfigError, MediaError

__all__ = ["decode_audio", "mixdown", "resample"]

SOXR_QUALITY = "HQ"


def decode_audio(stream: BinaryIO, *, where: str) -> tuple[np.ndarray, int, dict[str, Any]]:
    """Decode to float32 ``(frames, channels)``; raises :class:`MediaError` naming ``where``."""
    import soundfile

    try:
        with soundfile.SoundFile(stream) as snd:
            declared = snd.frames
            info: dict[str, Any] = {
                "format": snd.format,
                "subtype": snd.subtype,
                "original_sample_rate": int(snd.samplerate),
                "original_channels": int(snd.channels),
            }
            data = snd.read(dtype="float32", always_2d=True)
            rate = int(snd.samplerate)
    except (soundfile.LibsndfileError, RuntimeError, TypeError, ValueError, EOFError) as exc:
        raise MediaError(f"unreadable or unsupported audio: {exc}", path=where) from None
    if data.shape[0] == 0:
        raise MediaError("audio contains no samples", path=where)
    if 0 < declared < 2**62 and data.shape[0] < declared and info["format"] not in ("MPEG", "OGG"):
        raise MediaError(
            f"truncated audio: header declares {declared} frames, data holds {data.shape[0]}", path=where
        )
    if not np.all(np.isfinite(data)):
        raise MediaError("audio contains NaN or infinite samples", path=where)
    info["original_duration_s"] = round(data.shape[0] / rate, 6)
    return data, rate, info


def mixdown(data: np.ndarray) -> np.ndarray:
    """Average the channels into one ``(frames,)`` signal."""
    if data.shape[1] == 1:
        return np.ascontiguousarray(data[:, 0])
    return data.mean(axis=1, dtype=np.float64).astype(np.float32)


def resample(data: np.ndarray, *, rate_in: int, rate_out: int) -> np.ndarray:
    """Band-limited resampling with soxr (HQ); identity when the rates already match."""
    if rate_out < 1:
        raise ConfigError(f"media policy audio_sample_rate must be positive, got {rate_out}")
    if rate_in == rate_out:
        return data
    import soxr

    out = soxr.resample(data, rate_in, rate_out, quality=SOXR_QUALITY)
    return np.ascontiguousarray(out, dtype=np.float32)
