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


def _wav_declared_frames(head: bytes) -> int | None:
    """Frames a RIFF/WAVE header declares in its ``data`` chunk (None when unknown or streamed).

    libsndfile silently shortens a WAV whose data chunk is cut off, so the header is read here.
    """
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    pos, block_align = 12, 0
    while pos + 8 <= len(head):
        chunk, size = head[pos : pos + 4], int.from_bytes(head[pos + 4 : pos + 8], "little")
        if chunk == b"fmt " and pos + 22 <= len(head):
            block_align = int.from_bytes(head[pos + 20 : pos + 22], "little")
        if chunk == b"data":
            streamed = size in (0, 0xFFFFFFFF)
            return None if streamed or block_align == 0 else size // block_align
        pos += 8 + size + (size & 1)
    return None


def _clean(exc: BaseException) -> str:
    """libsndfile messages start with the repr of the stream object, which says nothing."""
    msg = str(exc)
    return msg.split(">: ", 1)[1] if msg.startswith("Error opening <") and ">: " in msg else msg


def decode_audio(stream: BinaryIO, *, where: str) -> tuple[np.ndarray, int, dict[str, Any]]:
    """Decode to float32 ``(frames, channels)``; raises :class:`MediaError` naming ``where``."""
    import soundfile

    head = stream.read(4096)
    stream.seek(0)
    try:
        with soundfile.SoundFile(stream) as snd:
            declared = _wav_declared_frames(head) if snd.format == "WAV" else snd.frames
            info: dict[str, Any] = {
                "format": snd.format,
                "subtype": snd.subtype,
                "original_sample_rate": int(snd.samplerate),
                "original_channels": int(snd.channels),
            }
            data = snd.read(dtype="float32", always_2d=True)
            rate = int(snd.samplerate)
    except (soundfile.LibsndfileError, RuntimeError, TypeError, ValueError, EOFError) as exc:
        raise MediaError(f"unreadable or unsupported audio: {_clean(exc)}", path=where) from None
    if data.shape[0] == 0:
        raise MediaError("audio contains no samples", path=where)
    # MP3 frame counts are estimates unless the file has a Xing header: allow 2 % slack there
    slack = 0.98 if info["format"] == "MP3" else 1.0
    if declared and 0 < declared < 2**62 and data.shape[0] < declared * slack and info["format"] != "OGG":
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
