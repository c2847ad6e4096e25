"""Media made in the tests: textured images, speech (espeak-ng when present) and a short video."""

from __future__ import annotations

import io
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import av
import numpy as np
import pytest
from PIL import Image

from omnieval.media.audio import resample

Audio = tuple[np.ndarray, int]
SENTENCES = (
    ("Сколько раз прозвучал звонок в этой записи?", "ru"),
    ("Was the second sound louder than the first one?", "en"),
    ("Повторите последнее слово, которое вы услышали.", "ru"),
)


def textured_image(seed: int, size: tuple[int, int] = (640, 480)) -> Image.Image:
    """Smooth shapes, gradients and sensor-like noise: closer to a photo than pure noise."""
    rng = np.random.default_rng(seed)
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w] / max(w, h)
    base = 110 + 60 * np.sin(xx * rng.uniform(2, 9) + rng.uniform(0, 6)) * np.cos(yy * rng.uniform(2, 9))
    rgb = np.stack([base * rng.uniform(0.6, 1.2) for _ in range(3)], axis=-1)
    for _ in range(6):
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(20, 120)
        rgb[(xx * max(w, h) - cx) ** 2 + (yy * max(w, h) - cy) ** 2 < r**2] = rng.uniform(0, 255, 3)
    rgb += rng.normal(0, 4, rgb.shape)
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGB")


def speech(path: Path, text: str, *, voice: str = "ru") -> tuple[np.ndarray, int]:
    """Speech from espeak-ng when installed, else a voiced-like harmonic signal with pauses."""
    import soundfile

    if shutil.which("espeak-ng"):
        subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True, capture_output=True)
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
        return data, rate
    rate = 16_000
    t = np.arange(rate * 4) / rate
    f0 = 120 + 30 * np.sin(2 * np.pi * 0.7 * t)
    voiced = sum(np.sin(2 * np.pi * k * np.cumsum(f0) / rate) / k for k in range(1, 12))
    gate = (np.sin(2 * np.pi * 1.3 * t) > -0.3).astype(float)
    data = (0.2 * voiced * gate).astype(np.float32)[:, None]
    soundfile.write(str(path), data, rate)
    return data, rate


def music(seed: int, *, rate: int = 44_100, seconds: float = 3.0) -> tuple[np.ndarray, int]:
    """Music-like audio: six decaying harmonic notes (tonal, so most of its energy sits in a few bins)."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(rate * seconds)) / rate
    x = np.zeros_like(t)
    for n in range(6):
        onset, f0 = n * seconds / 6, 110 * 2 ** (int(rng.integers(0, 24)) / 12)
        envelope = np.exp(-3 * (t - onset)) * (t >= onset)
        x += sum(envelope * np.sin(2 * np.pi * f0 * k * t) / k for k in range(1, 8))
    return (0.3 * x / np.abs(x).max()).astype(np.float32)[:, None], rate


def audio_clips(folder: Path) -> list[Audio]:
    """Three spoken sentences (Russian and English) and three 3-second music-like clips."""
    spoken = [speech(folder / f"{i}.wav", text, voice=voice) for i, (text, voice) in enumerate(SENTENCES)]
    return spoken + [music(seed) for seed in range(3)]


def _to_16k(data: np.ndarray, rate: int) -> Audio:
    return resample(data[:, 0], rate_in=rate, rate_out=16_000)[:, None].astype(np.float32), 16_000


def _reencode(data: np.ndarray, rate: int, *, container: str, codec: str, bit_rate: int) -> Audio:
    """A lossy round trip through PyAV (ffmpeg's encoders), decoded back to float at the same rate."""
    buf = io.BytesIO()
    with av.open(buf, "w", format=container) as out:
        stream = out.add_stream(codec, rate=rate)
        stream.bit_rate, stream.layout = bit_rate, "mono"
        frame = av.AudioFrame.from_ndarray(data[:, 0][None, :], format="flt", layout="mono")
        frame.rate = rate
        converter = av.AudioResampler(format=stream.format.name, layout="mono", rate=rate)
        for chunk in [*converter.resample(frame), *converter.resample(None), None]:
            out.mux(stream.encode(chunk))
    buf.seek(0)
    with av.open(buf) as src:
        converter = av.AudioResampler(format="flt", layout="mono", rate=rate)
        decoded = [f.to_ndarray().reshape(-1) for raw in src.decode(audio=0) for f in converter.resample(raw)]
    return np.concatenate(decoded)[:, None], rate


def _noise(data: np.ndarray, rate: int, *, snr_db: float = 15.0) -> Audio:
    rng = np.random.default_rng(int(data.shape[0]))
    level = float(np.sqrt(np.mean(data**2))) * 10 ** (-snr_db / 20)
    return (data + rng.normal(0, level, data.shape)).astype(np.float32), rate


ATTACKS: dict[str, Callable[[np.ndarray, int], Audio]] = {
    "resample to 16 kHz": _to_16k,
    "MP3 64 kbit/s": lambda d, r: _reencode(d, r, container="mp3", codec="libmp3lame", bit_rate=64_000),
    "Ogg Opus 32 kbit/s": lambda d, r: _reencode(
        *_to_16k(d, r), container="ogg", codec="libopus", bit_rate=32_000
    ),
    "noise at 15 dB": _noise,
}


@pytest.fixture
def media_dir(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    (root / "images" / "val").mkdir(parents=True)
    textured_image(1).save(root / "images" / "a.png")
    textured_image(2).save(root / "images" / "val" / "b.jpg", quality=92)
    (root / "audio").mkdir()
    speech(root / "audio" / "q1.wav", "Сколько раз прозвучал звонок в этой записи?")
    (root / "meta.jsonl").write_text('{"id": 1, "answer": "A"}\n', encoding="utf-8")
    return root
