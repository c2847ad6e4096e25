"""Audio: formats, silence, very short clips, mixdown, resampling accuracy, bad files."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
import pytest
import soundfile
from media_factory import wav_bytes

from omnieval.errors import MediaError
from omnieval.media.processor import MediaProcessor
from omnieval.types import MediaPolicy, MediaRef


def ref_of(data: bytes, name: str = "audio_1") -> MediaRef:
    return MediaRef(kind="audio", name=name, data=data)


def sine(freq: float, rate: int, seconds: float, amp: float = 0.5) -> np.ndarray:
    t = np.arange(round(rate * seconds)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def test_silent_audio_stays_silent() -> None:
    out = MediaProcessor(MediaPolicy()).audio(ref_of(wav_bytes(np.zeros(16000, np.float32), 16000)))
    assert out.array.dtype == np.float32 and out.array.shape == (16000,)
    assert not out.array.any()
    assert out.applied["duration_s"] == 1.0 and out.applied["resampled"] is False


def test_tenth_of_a_second_is_resampled_to_policy_rate() -> None:
    out = MediaProcessor(MediaPolicy(audio_sample_rate=16000)).audio(
        ref_of(wav_bytes(sine(440, 44100, 0.1), 44100))
    )
    assert out.sample_rate == 16000
    assert abs(out.array.shape[0] - 1600) <= 1
    assert out.applied["original_sample_rate"] == 44100 and out.applied["resampled"] is True


def test_stereo_mixdown_averages_channels() -> None:
    s = sine(300, 16000, 0.5)
    stereo = np.stack([s, np.zeros_like(s)], axis=1)
    out = MediaProcessor(MediaPolicy()).audio(ref_of(wav_bytes(stereo, 16000, subtype="FLOAT")))
    assert out.array.ndim == 1 and out.channels == 1
    np.testing.assert_allclose(out.array, s / 2, atol=1e-6)
    opposite = np.stack([s, -s], axis=1)
    cancelled = MediaProcessor(MediaPolicy()).audio(ref_of(wav_bytes(opposite, 16000, subtype="FLOAT")))
    assert np.abs(cancelled.array).max() < 1e-6
    kept = MediaProcessor(MediaPolicy(audio_mono=False)).audio(
        ref_of(wav_bytes(stereo, 16000, subtype="FLOAT"))
    )
    assert kept.array.shape == (8000, 2) and kept.applied["channels"] == 2


@pytest.mark.parametrize(("rate_in", "rate_out"), [(44100, 16000), (8000, 24000), (48000, 22050)])
def test_resampling_preserves_a_sines_frequency_and_level(rate_in: int, rate_out: int) -> None:
    freq = 1000.0
    out = MediaProcessor(MediaPolicy(audio_sample_rate=rate_out)).audio(
        ref_of(wav_bytes(sine(freq, rate_in, 1.0), rate_in, subtype="FLOAT"))
    )
    x = out.array[rate_out // 10 : -rate_out // 10]  # skip the filter's edges
    spectrum = np.abs(np.fft.rfft(x * np.hanning(x.size)))
    peak_hz = np.argmax(spectrum) * rate_out / x.size
    assert abs(peak_hz - freq) <= rate_out / x.size
    rms = float(np.sqrt(np.mean(x.astype(np.float64) ** 2)))
    assert abs(rms - 0.5 / np.sqrt(2)) < 0.005


@pytest.mark.parametrize(
    ("fmt", "subtype"), [("FLAC", "PCM_16"), ("OGG", "VORBIS"), ("MP3", "MPEG_LAYER_III")]
)
def test_compressed_formats_decode(fmt: str, subtype: str) -> None:
    data = wav_bytes(sine(500, 16000, 1.0), 16000, fmt=fmt, subtype=subtype)
    out = MediaProcessor(MediaPolicy()).audio(ref_of(data))
    assert abs(out.duration_s - 1.0) < 0.1
    assert out.applied["format"] == fmt


def test_encodings_round_trip(tmp_path: Path) -> None:
    s = sine(440, 16000, 0.25)
    out = MediaProcessor(MediaPolicy(), cache_dir=tmp_path).audio(
        ref_of(wav_bytes(s, 16000, subtype="FLOAT"))
    )
    back, rate = soundfile.read(io.BytesIO(out.wav_bytes()), dtype="float32")
    assert rate == 16000 and soundfile.info(io.BytesIO(out.wav_bytes())).subtype == "PCM_16"
    np.testing.assert_allclose(back, s, atol=1 / 16000)
    assert base64.b64decode(out.base64()) == out.wav_bytes()
    assert out.data_url().startswith("data:audio/wav;base64,")
    assert soundfile.info(str(out.path())).frames == s.size


def test_bad_audio_names_the_file(tmp_path: Path) -> None:
    proc = MediaProcessor(MediaPolicy())
    full = wav_bytes(sine(440, 16000, 1.0), 16000)
    cut = tmp_path / "cut.wav"
    cut.write_bytes(full[: len(full) // 2])
    with pytest.raises(MediaError, match=r"cut\.wav: truncated audio: header declares 16000 frames"):
        proc.audio(MediaRef(kind="audio", name="a", path=str(cut)))
    flac = wav_bytes(sine(440, 16000, 1.0), 16000, fmt="FLAC")
    (tmp_path / "cut.flac").write_bytes(flac[: len(flac) // 2])
    with pytest.raises(MediaError, match=r"cut\.flac"):
        proc.audio(MediaRef(kind="audio", name="a", path=str(tmp_path / "cut.flac")))
    junk = tmp_path / "junk.mp3"
    junk.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(MediaError, match=r"junk\.mp3: unreadable or unsupported audio"):
        proc.audio(MediaRef(kind="audio", name="a", path=str(junk)))
    with pytest.raises(MediaError, match="no samples"):
        proc.audio(ref_of(wav_bytes(np.zeros(0, np.float32), 16000)))
