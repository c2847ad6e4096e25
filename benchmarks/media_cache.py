"""Benchmark: a second run over the same media with the disk cache vs the first run.

Run: ``.venv/bin/python benchmarks/media_cache.py [--images 40] [--audio 12] [--videos 4]``

A synthetic media set (photo-sized JPEG and PNG images, stereo 44.1 kHz audio in WAV and FLAC,
30 fps H.264 videos) is prepared twice with the same policy and cache directory, each time by a
fresh :class:`MediaProcessor` with the fingerprint memo cleared, as a new run in a new process
would. The first run decodes, resizes, resamples, samples frames and encodes; the second should
only hash the files and read the cached artefacts. Target: second run <= 10 % of the first.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile
from PIL import Image

from omnieval.media import clear_fingerprint_memo
from omnieval.media.processor import MediaProcessor
from omnieval.types import MediaPolicy, MediaRef


def make_images(folder: Path, n: int, rng: np.random.Generator) -> list[MediaRef]:
    refs = []
    yy, xx = np.mgrid[0:1200, 0:1600]
    for i in range(n):
        base = ((xx * (i + 1) + yy * 3) % 256).astype(np.uint8)
        noise = rng.integers(0, 32, base.shape, dtype=np.uint8)
        rgb = np.stack([base, base // 2 + noise, 255 - base], axis=2)
        path = folder / (f"img{i}.jpg" if i % 2 else f"img{i}.png")
        Image.fromarray(rgb).save(path)
        refs.append(MediaRef(kind="image", name=f"image_{i}", path=str(path)))
    return refs


def make_audio(folder: Path, n: int, rng: np.random.Generator) -> list[MediaRef]:
    refs = []
    t = np.arange(44100 * 10) / 44100
    for i in range(n):
        left = 0.3 * np.sin(2 * np.pi * (200 + 50 * i) * t) + 0.01 * rng.standard_normal(t.size)
        stereo = np.stack([left, np.roll(left, 100)], axis=1).astype(np.float32)
        path = folder / (f"clip{i}.flac" if i % 2 else f"clip{i}.wav")
        soundfile.write(path, stereo, 44100)
        refs.append(MediaRef(kind="audio", name=f"audio_{i}", path=str(path)))
    return refs


def make_videos(folder: Path, n: int) -> list[MediaRef]:
    import av

    refs = []
    base = np.add.outer(np.arange(240), np.arange(320)).astype(np.uint8)
    for i in range(n):
        path = folder / f"video{i}.mp4"
        with av.open(str(path), "w") as container:
            stream = container.add_stream("libx264", rate=30, options={"preset": "ultrafast", "g": "60"})
            stream.width, stream.height, stream.pix_fmt = 320, 240, "yuv420p"
            for k in range(30 * 30):
                shifted = np.roll(base, k * (i + 1), axis=1)
                rgb = np.stack([shifted, shifted, 255 - shifted], axis=2)
                for packet in stream.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")):
                    container.mux(packet)
            for packet in stream.encode():
                container.mux(packet)
        refs.append(MediaRef(kind="video", name=f"video_{i}", path=str(path)))
    return refs


def run_once(refs: list[MediaRef], policy: MediaPolicy, cache_dir: Path) -> tuple[float, dict[str, int]]:
    """Prepare every ref as a fresh run would; returns the wall time and the cache states seen."""
    clear_fingerprint_memo()  # a new process has no fingerprint memo
    proc = MediaProcessor(policy, cache_dir=cache_dir)
    states: dict[str, int] = {}
    started = time.perf_counter()
    for ref in refs:
        prepared = proc.prepare(ref)
        if ref.kind == "image":
            prepared.data_url()  # what an API backend sends
        state = prepared.applied["cache"]
        states[state] = states.get(state, 0) + 1
    return time.perf_counter() - started, states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=40)
    parser.add_argument("--audio", type=int, default=12)
    parser.add_argument("--videos", type=int, default=4)
    args = parser.parse_args()
    policy = MediaPolicy(image_max_side=1000, audio_sample_rate=16000, video_fps=1.0, video_max_frames=16)
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        refs = (
            make_images(root, args.images, rng)
            + make_audio(root, args.audio, rng)
            + make_videos(root, args.videos)
        )
        cache = root / "cache"
        first, states1 = run_once(refs, policy, cache)
        second, states2 = run_once(refs, policy, cache)
    ratio = second / first
    print(
        f"media set: {args.images} images (1600x1200), {args.audio} audio (10 s stereo), {args.videos} "
        "videos (30 s)"
    )
    print(f"first run  {first * 1000:9.1f} ms  {states1}")
    print(f"second run {second * 1000:9.1f} ms  {states2}")
    print(f"second / first = {ratio:.3f} (target <= 0.10): {'PASS' if ratio <= 0.10 else 'FAIL'}")


if __name__ == "__main__":
    main()
