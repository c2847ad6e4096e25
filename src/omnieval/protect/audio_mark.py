"""An offline keyed audio mark (spread spectrum) that needs no model weights.

Method (documented in docs/benchmarks/protect.md): a keyed noise pattern, band-limited to 300–3,400 Hz and
generated at 16 kHz, is tiled over the signal and added at ``snr_db`` below the signal's local
loudness (a 50 ms envelope), so silence stays silent. Detection resamples to 16 kHz and whitens the
recording in the short-time spectrum (every bin of every 32 ms frame scaled to unit magnitude, so the
loud harmonics of speech or music no longer drown the flat mark), then correlates with the key's
pattern block by block; the score is calibrated against unused keys on the same recording. It survives
resampling, lossy re-encoding and moderate added noise at 32 dB SNR; cropping the start shifts the tiling
and is out of scope.
"""

from __future__ import annotations

import numpy as np
from scipy import signal

from omnieval.media.audio import resample
from omnieval.protect.detection import DEFAULT_THRESHOLD, Detection, calibrated_z, cosine, to_detection
from omnieval.protect.keys import keyed_rng, null_rngs

__all__ = ["DEFAULT_SNR_DB", "audio_z", "detect_audio", "embed_audio"]

DEFAULT_SNR_DB = 32.0
"""Mark level below the signal: inaudible on speech and music (≥ 30 dB) yet detected after resampling,
MP3/Opus re-encoding and 15 dB added noise on 3-second clips (tests/protect/test_audio_mark.py)."""

_PURPOSE = "audio"
_RATE = 16_000
_BLOCK = _RATE  # one-second tiles
_BAND = (300.0, 3_400.0)
_ENV_FRAME = 800  # 50 ms at 16 kHz
_STFT_FRAME = 512  # 32 ms at 16 kHz: short enough to follow speech, long enough to resolve its harmonics
_N_NULL = 48


def _bandpass(x: np.ndarray, rate: int) -> np.ndarray:
    spectrum = np.fft.rfft(x)
    freqs = np.fft.rfftfreq(x.shape[0], 1.0 / rate)
    spectrum[(freqs < _BAND[0]) | (freqs > _BAND[1])] = 0
    return np.fft.irfft(spectrum, n=x.shape[0])


def _whitened(x: np.ndarray) -> np.ndarray:
    """``x`` with every in-band short-time spectral bin scaled to unit magnitude and the rest removed.

    The host's loud, coloured components are the detector's noise; flattening them frame by frame (phase-only,
    as in phase correlation) leaves the flat mark's share of every bin equal and lifts z about fivefold at 30
    dB.
    """
    freqs, _, spec = signal.stft(x, fs=_RATE, nperseg=_STFT_FRAME)
    magnitude = np.abs(spec)
    spec = spec / (magnitude + 1e-3 * float(magnitude.mean()) + 1e-12)
    spec[(freqs < _BAND[0]) | (freqs > _BAND[1])] = 0
    out = signal.istft(spec, fs=_RATE, nperseg=_STFT_FRAME)[1][: x.shape[0]]
    return np.pad(out, (0, x.shape[0] - out.shape[0]))


def _pattern(rng: np.random.Generator) -> np.ndarray:
    tile = _bandpass(rng.standard_normal(_BLOCK), _RATE)
    return tile / (np.sqrt(np.mean(tile**2)) or 1.0)


def _envelope(x: np.ndarray, frame: int) -> np.ndarray:
    """Per-sample loudness: RMS over ``frame``-long windows, linearly interpolated."""
    n = x.shape[0]
    n_frames = max(1, -(-n // frame))
    padded = np.pad(x, (0, n_frames * frame - n))
    rms = np.sqrt(np.mean(padded.reshape(n_frames, frame) ** 2, axis=1))
    centres = np.arange(n_frames) * frame + frame / 2
    return np.interp(np.arange(n), centres, rms)


def _tiled(tile: np.ndarray, n: int) -> np.ndarray:
    return np.tile(tile, -(-n // tile.shape[0]))[:n]


def embed_audio(data: np.ndarray, rate: int, *, key: str, snr_db: float = DEFAULT_SNR_DB) -> np.ndarray:
    """``data`` (frames, channels) float32 with the mark for ``key`` added to every channel."""
    mono = data.mean(axis=1).astype(np.float64)
    mark16 = _tiled(_pattern(keyed_rng(key, purpose=_PURPOSE)), -(-mono.shape[0] * _RATE // rate))
    mark = resample(mark16.astype(np.float32), rate_in=_RATE, rate_out=rate).astype(np.float64)
    mark = np.pad(mark, (0, max(0, mono.shape[0] - mark.shape[0])))[: mono.shape[0]]
    gain = _envelope(mono, max(1, rate * _ENV_FRAME // _RATE)) * 10 ** (-snr_db / 20)
    marked = data.astype(np.float64) + (gain * mark)[:, None]
    return np.clip(marked, -1.0, 1.0).astype(np.float32)


def audio_z(data: np.ndarray, rate: int, *, key: str) -> float:
    """The calibrated detection score of ``key`` on a recording (about N(0, 1) when unmarked)."""
    mono = resample(data.mean(axis=1).astype(np.float32), rate_in=rate, rate_out=_RATE).astype(np.float64)
    whitened = _whitened(mono)
    n_blocks = max(1, whitened.shape[0] // _BLOCK)
    blocks = np.pad(whitened, (0, max(0, n_blocks * _BLOCK - whitened.shape[0])))[: n_blocks * _BLOCK]
    folded = blocks.reshape(n_blocks, _BLOCK).sum(axis=0)  # every tile adds up coherently

    def statistic(pattern: np.ndarray) -> float:
        return cosine(folded, pattern)

    nulls = [_pattern(rng) for rng in null_rngs(key, purpose=_PURPOSE, n=_N_NULL)]
    return calibrated_z(statistic, _pattern(keyed_rng(key, purpose=_PURPOSE)), nulls)


def detect_audio(data: np.ndarray, rate: int, *, key: str, threshold: float = DEFAULT_THRESHOLD) -> Detection:
    """Whether a recording carries the mark of ``key``."""
    return to_detection(audio_z(data, rate, key=key), threshold=threshold)
