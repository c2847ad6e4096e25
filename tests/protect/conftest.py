"""Media made in the tests: textured images, speech (espeak-ng when present) and a short video."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image


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
