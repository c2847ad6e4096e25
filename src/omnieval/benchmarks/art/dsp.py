"""Audio operations for ART, numpy only: levels, fades, truncation, overlays, the 8 transformations.

Decisions the paper leaves open (art_audio.md §2.6-2.7, §10.5), fixed here and recorded per segment:
- 16 kHz mono, 16-bit PCM. Level = RMS in dBFS; every recording is normalised to -20 dBFS *before* a
  transformation, so "louder"/"quieter" survive (a peak above full scale is clipped and counted).
- Short sounds and tunes are truncated to at most 5 s with a 0.5 s fade-out; every clip gets 10 ms
  edge fades (no clicks).
- Transformations: higher/lower = ±4 semitones (duration kept), louder/quieter = ±6 dB,
  slowed down/sped up = tempo ×1/1.5 and ×1.5 (pitch kept, phase vocoder), reversed = time-reversed,
  truncated = the first half with a 0.3 s fade-out. Pitch and tempo changes are re-levelled to the
  input's level (the phase vocoder loses ~3 dB), so only louder/quieter change the level.
- Background overlays: the background, normalised to -20 dBFS, is attenuated by 20 dB (-40 dBFS),
  looped under the speech, starts 0.6 s before it and ends 0.6 s after it, with 0.3 s fades.
"""

from __future__ import annotations

import io
import wave
from typing import Any

import numpy as np

__all__ = [
    "BACKGROUND_GAIN_DB",
    "LEVEL_DBFS",
    "MAX_CLIP_S",
    "RATE",
    "TRANSFORMS",
    "apply_transform",
    "edge_fades",
    "fade",
    "normalize",
    "overlay",
    "resample",
    "rms_dbfs",
    "silence",
    "truncate",
    "wav_bytes",
]

RATE = 16000
LEVEL_DBFS = -20.0
MAX_CLIP_S = 5.0
TRUNCATE_FADE_S = 0.5
EDGE_FADE_S = 0.01
BACKGROUND_GAIN_DB = -20.0
BACKGROUND_LEAD_S = 0.6
BACKGROUND_FADE_S = 0.3
SEMITONES = 4.0
GAIN_DB = 6.0
TEMPO = 1.5
TRANSFORMS: dict[str, dict[str, Any]] = {
    "higher": {"semitones": SEMITONES},
    "lower": {"semitones": -SEMITONES},
    "louder": {"gain_db": GAIN_DB},
    "quieter": {"gain_db": -GAIN_DB},
    "reversed": {},
    "slowed down": {"tempo": 1 / TEMPO},
    "sped up": {"tempo": TEMPO},
    "truncated": {"keep": 0.5, "fade_out_s": 0.3},
}


def rms_dbfs(x: np.ndarray) -> float:
    """RMS level in dBFS (full-scale sine = -3 dBFS); -inf for silence."""
    rms = float(np.sqrt(np.mean(np.square(x, dtype=np.float64)))) if x.size else 0.0
    return 20 * np.log10(rms) if rms > 0 else float("-inf")


def normalize(x: np.ndarray, target_dbfs: float = LEVEL_DBFS) -> np.ndarray:
    level = rms_dbfs(x)
    if not np.isfinite(level):
        return x.astype(np.float64)
    return x.astype(np.float64) * 10 ** ((target_dbfs - level) / 20)


def silence(seconds: float) -> np.ndarray:
    return np.zeros(round(seconds * RATE))


def fade(x: np.ndarray, *, fade_in_s: float = 0.0, fade_out_s: float = 0.0) -> np.ndarray:
    """Half-cosine fades at the start and end."""
    y = x.astype(np.float64).copy()
    for seconds, at_start in ((fade_in_s, True), (fade_out_s, False)):
        n = min(round(seconds * RATE), y.size)
        if n > 0:
            ramp = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, n))
            if at_start:
                y[:n] *= ramp
            else:
                y[-n:] *= ramp[::-1]
    return y


def edge_fades(x: np.ndarray) -> np.ndarray:
    return fade(x, fade_in_s=EDGE_FADE_S, fade_out_s=EDGE_FADE_S)


def truncate(x: np.ndarray, max_s: float = MAX_CLIP_S) -> tuple[np.ndarray, bool]:
    """At most ``max_s`` seconds; a cut clip fades out over its last 0.5 s."""
    limit = round(max_s * RATE)
    if x.size <= limit:
        return x, False
    return fade(x[:limit], fade_out_s=TRUNCATE_FADE_S), True


def resample(x: np.ndarray, in_rate: float, out_rate: float) -> np.ndarray:
    import soxr

    if in_rate == out_rate:
        return x.astype(np.float64)
    return np.asarray(soxr.resample(x.astype(np.float64), in_rate, out_rate, quality="HQ"), dtype=np.float64)


def _stretch(x: np.ndarray, tempo: float, *, n_fft: int = 1024, hop: int = 256) -> np.ndarray:
    """Phase-vocoder time stretch: ``tempo`` > 1 is faster (shorter), pitch unchanged."""
    window = np.hanning(n_fft)
    padded = np.concatenate([np.zeros(n_fft), x, np.zeros(n_fft)])
    n_frames = 1 + (padded.size - n_fft) // hop
    frames = np.stack([padded[i * hop : i * hop + n_fft] * window for i in range(n_frames)])
    spec = np.fft.rfft(frames, axis=1)
    steps = np.arange(0, n_frames - 1, tempo)
    expected = 2 * np.pi * hop * np.arange(spec.shape[1]) / n_fft
    phase = np.angle(spec[0])
    out = np.zeros(n_fft + hop * steps.size)
    norm = np.zeros_like(out)
    for k, step in enumerate(steps):
        i = int(step)
        frac = step - i
        mag = (1 - frac) * np.abs(spec[i]) + frac * np.abs(spec[i + 1])
        frame = np.fft.irfft(mag * np.exp(1j * phase), n=n_fft) * window
        out[k * hop : k * hop + n_fft] += frame
        norm[k * hop : k * hop + n_fft] += window**2
        delta = np.angle(spec[i + 1]) - np.angle(spec[i]) - expected
        delta -= 2 * np.pi * np.round(delta / (2 * np.pi))
        phase = phase + expected + delta
    out /= np.maximum(norm, 1e-3)
    start = round(n_fft / tempo)
    return out[start : start + round(x.size / tempo)]


def apply_transform(x: np.ndarray, name: str) -> np.ndarray:
    """One of the 8 ATD transformations (parameters in :data:`TRANSFORMS`)."""
    params = TRANSFORMS[name]
    if "semitones" in params:
        factor = 2 ** (params["semitones"] / 12)
        longer = _stretch(x, 1 / factor)
        y = resample(longer, RATE * factor, RATE)
        y = y[: x.size] if y.size >= x.size else np.concatenate([y, np.zeros(x.size - y.size)])
        return normalize(y, rms_dbfs(x))
    if "gain_db" in params:
        return x * 10 ** (params["gain_db"] / 20)
    if "tempo" in params:
        return normalize(_stretch(x, params["tempo"]), rms_dbfs(x))
    if name == "reversed":
        return x[::-1].copy()
    keep = max(1, round(x.size * params["keep"]))
    return fade(x[:keep], fade_out_s=params["fade_out_s"])


def overlay(speech: np.ndarray, background: np.ndarray) -> tuple[np.ndarray, float]:
    """Speech over a looped background at -20 dB with fades; returns (mix, speech start in seconds)."""
    lead = round(BACKGROUND_LEAD_S * RATE)
    total = speech.size + 2 * lead
    reps = -(-total // max(background.size, 1))
    bed = np.tile(normalize(background), reps)[:total] * 10 ** (BACKGROUND_GAIN_DB / 20)
    bed = fade(bed, fade_in_s=BACKGROUND_FADE_S, fade_out_s=BACKGROUND_FADE_S)
    bed[lead : lead + speech.size] += speech
    return bed, BACKGROUND_LEAD_S


def wav_bytes(x: np.ndarray) -> tuple[bytes, int]:
    """16-bit PCM mono WAV (stdlib writer: byte-identical for identical samples); also the clipped count."""
    clipped = int(np.count_nonzero(np.abs(x) > 1.0))
    pcm = np.round(np.clip(x, -1.0, 1.0) * 32767).astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())
    return buf.getvalue(), clipped
