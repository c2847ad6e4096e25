"""Small, deterministic media for the miniature datasets: images, WAV audio, MP4 video."""

from __future__ import annotations

import io
from pathlib import Path

__all__ = ["make_audio", "make_image", "make_video"]

_COLORS = ((220, 40, 40), (40, 160, 60), (40, 80, 220), (230, 200, 30), (150, 60, 180))


def make_image(seed: int, *, size: int = 64) -> bytes:
    """A PNG with a coloured square and circle whose colours and places depend on ``seed``."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (size, size), (245, 245, 245))
    draw = ImageDraw.Draw(img)
    a, b = _COLORS[seed % len(_COLORS)], _COLORS[(seed + 2) % len(_COLORS)]
    off = (seed * 7) % (size // 2)
    draw.rectangle((off, off, off + size // 3, off + size // 3), fill=a)
    draw.ellipse((size // 2, size // 4, size // 2 + size // 3, size // 4 + size // 3), fill=b)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def make_audio(seed: int, *, seconds: float = 0.5, rate: int = 16000) -> bytes:
    """A WAV tone (mono, 16 kHz) whose pitch depends on ``seed``."""
    import numpy as np
    import soundfile as sf

    t = np.arange(int(seconds * rate), dtype=np.float32) / rate
    wave = 0.3 * np.sin(2 * np.pi * (220.0 + 55.0 * (seed % 12)) * t)
    buf = io.BytesIO()
    sf.write(buf, wave.astype(np.float32), rate, format="WAV", subtype="PCM_16")
    return buf.getvalue()


def make_video(path: Path, seed: int, *, frames: int = 8, fps: int = 4, size: int = 64) -> Path:
    """An MP4 (mpeg4) clip of a square moving across the frame; written to ``path``."""
    import av
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    color = np.array(_COLORS[seed % len(_COLORS)], dtype=np.uint8)
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("mpeg4", rate=fps)
        stream.width = stream.height = size
        stream.pix_fmt = "yuv420p"
        for i in range(frames):
            frame = np.full((size, size, 3), 240, dtype=np.uint8)
            x = (i * size // frames) % (size - 16)
            frame[24:40, x : x + 16] = color
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path
