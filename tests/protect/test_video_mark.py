"""A visible mark on every frame of a video, re-encoded at the source's settings."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np

from omnieval.protect.files import MarkSettings, mark_tree
from omnieval.protect.visible import Overlay


def _write_video(path: Path, *, frames: int = 12, size: tuple[int, int] = (160, 120)) -> None:
    import av

    with av.open(str(path), "w") as out:
        stream = out.add_stream("mpeg4", rate=Fraction(12))
        stream.width, stream.height, stream.pix_fmt = size[0], size[1], "yuv420p"
        for i in range(frames):
            arr = np.full((size[1], size[0], 3), 30 + 10 * i, np.uint8)
            frame = av.VideoFrame.from_ndarray(arr, format="rgb24")
            out.mux(stream.encode(frame))
        out.mux(stream.encode(None))


def _frames(path: Path) -> list[np.ndarray]:
    import av

    with av.open(str(path)) as inp:
        return [f.to_ndarray(format="rgb24") for f in inp.decode(video=0)]


def test_every_frame_marked_at_source_settings(tmp_path: Path) -> None:
    import av

    src = tmp_path / "in"
    src.mkdir()
    _write_video(src / "clip.mp4")
    settings = MarkSettings(
        kind="video", key=None, overlay=Overlay(text="MERA", position="top-left", opacity=1.0, scale=0.5)
    )
    report = mark_tree(src, tmp_path / "out", settings)
    assert report["marked"] == 1
    before, after = _frames(src / "clip.mp4"), _frames(tmp_path / "out" / "clip.mp4")
    assert len(after) == len(before) == 12
    assert after[0].shape == before[0].shape
    for a, b in zip(before, after, strict=True):
        corner = np.abs(a[:40, :80].astype(int) - b[:40, :80].astype(int)).max()
        elsewhere = np.abs(a[80:, 100:].astype(int) - b[80:, 100:].astype(int)).mean()
        assert corner > 60 and elsewhere < 6
    with av.open(str(tmp_path / "out" / "clip.mp4")) as out:
        stream = out.streams.video[0]
        assert stream.codec_context.name == "mpeg4" and stream.average_rate == 12


def test_key_only_marks_every_frame_invisibly(tmp_path: Path) -> None:
    """--kind video --key K (no --text): the invisible image mark on every frame, found in the decoded
    frames."""
    import av

    from omnieval.protect import detect_image
    from tests.protect.conftest import textured_image

    src = tmp_path / "in"
    src.mkdir()
    with av.open(str(src / "clip.mp4"), "w") as out:
        stream = out.add_stream("mpeg4", rate=Fraction(8))
        stream.width, stream.height, stream.pix_fmt, stream.bit_rate = 320, 240, "yuv420p", 2_000_000
        for i in range(6):
            out.mux(stream.encode(av.VideoFrame.from_image(textured_image(20 + i % 2, (320, 240)))))
        out.mux(stream.encode(None))
    report = mark_tree(src, tmp_path / "out", MarkSettings(kind="video", key="V", overlay=None))
    assert report["marked"] == 1
    from PIL import Image

    after = [Image.fromarray(f) for f in _frames(tmp_path / "out" / "clip.mp4")]
    assert len(after) == 6
    assert all(detect_image(f, key="V").detected for f in after)
    assert not any(detect_image(Image.fromarray(f), key="V").detected for f in _frames(src / "clip.mp4"))
    assert not any(detect_image(f, key="W").detected for f in after)
