"""Synthetic media for the media tests and benchmarks, generated in code (numpy, soundfile, PyAV)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import soundfile

BITS = 13
"""Video frames carry their own index as 13 black/white 8×8 blocks, so tests can check that the
frame returned for a timestamp really is that frame (proves seeking lands correctly)."""
CODE_W, CODE_H = BITS * 8 + 8, 16


def frame_with_code(index: int) -> np.ndarray:
    arr = np.full((CODE_H, CODE_W, 3), 128, np.uint8)
    for bit in range(BITS):
        arr[4:12, bit * 8 : bit * 8 + 8] = 255 if (index >> bit) & 1 else 0
    return arr


def read_code(rgb: np.ndarray) -> int:
    """Recover the frame index from a decoded frame (block centres, thresholded)."""
    value = 0
    for bit in range(BITS):
        if rgb[8, bit * 8 + 4].mean() > 128:
            value |= 1 << bit
    return value


def write_video(
    path: Path, *, n_frames: int, fps: int = 10, gop: int = 10, fmt: str | None = None, codec: str = "mpeg4"
) -> Path:
    import av

    with av.open(str(path), "w", format=fmt) as container:
        stream = container.add_stream(codec, rate=fps)
        stream.width, stream.height, stream.pix_fmt = CODE_W, CODE_H, "yuv420p"
        stream.codec_context.gop_size = gop
        stream.codec_context.bit_rate = 4_000_000
        for i in range(n_frames):
            frame = av.VideoFrame.from_ndarray(frame_with_code(i), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def wav_bytes(signal: np.ndarray, rate: int, *, fmt: str = "WAV", subtype: str | None = "PCM_16") -> bytes:
    buf = io.BytesIO()
    soundfile.write(buf, signal, rate, format=fmt, subtype=subtype)
    return buf.getvalue()
