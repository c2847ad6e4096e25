"""The processor's conveniences for the runner: dispatch, several media per sample, async."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from media_factory import wav_bytes
from PIL import Image

from omnieval.errors import MediaError
from omnieval.media.prepared import PreparedAudio, PreparedImage, PreparedVideo
from omnieval.media.processor import MediaProcessor
from omnieval.types import MediaPolicy, MediaRef


def png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (4, 4), (0, 128, 255)).save(buf, format="PNG")
    return buf.getvalue()


def test_prepare_many_keeps_placeholder_order(make_video: Callable[..., Path]) -> None:
    refs = [
        MediaRef(kind="audio", name="audio_2", data=wav_bytes(np.zeros(800, np.float32), 8000)),
        MediaRef(kind="audio", name="audio_1", data=wav_bytes(np.ones(1600, np.float32) * 0.5, 8000)),
        MediaRef(kind="image", name="image", data=png()),
        MediaRef(kind="video", name="video", path=str(make_video(n_frames=5))),
    ]
    out = MediaProcessor(MediaPolicy()).prepare_many(refs)
    assert list(out) == ["audio_2", "audio_1", "image", "video"]
    assert isinstance(out["audio_2"], PreparedAudio) and out["audio_2"].duration_s == pytest.approx(0.1)
    assert isinstance(out["audio_1"], PreparedAudio) and out["audio_1"].duration_s == pytest.approx(0.2)
    assert isinstance(out["image"], PreparedImage) and isinstance(out["video"], PreparedVideo)
    with pytest.raises(MediaError, match="two media share the placeholder name 'image'"):
        MediaProcessor(MediaPolicy()).prepare_many([refs[2], refs[2]])


async def test_aprepare_runs_off_the_event_loop() -> None:
    out = await MediaProcessor(MediaPolicy()).aprepare(MediaRef(kind="image", name="image", data=png()))
    assert isinstance(out, PreparedImage) and out.pil().getpixel((0, 0)) == (0, 128, 255)


def test_file_mode_bytes_property(make_video: Callable[..., Path]) -> None:
    path = make_video(n_frames=3)
    out = MediaProcessor(MediaPolicy(video_mode="file")).video(
        MediaRef(kind="video", name="v", path=str(path))
    )
    assert out.bytes == path.read_bytes() and out.mime == "video/mp4"
    frames = MediaProcessor(MediaPolicy()).video(MediaRef(kind="video", name="v", path=str(path)))
    with pytest.raises(ValueError, match="frames only"):
        frames.path()


def test_applied_records_are_plain_json(make_video: Callable[..., Path], tmp_path: Path) -> None:
    import json

    refs = [
        MediaRef(kind="image", name="image", data=png()),
        MediaRef(kind="audio", name="audio_1", data=wav_bytes(np.zeros(800, np.float32), 8000)),
        MediaRef(kind="video", name="video", path=str(make_video(n_frames=5))),
    ]
    for policy in (MediaPolicy(), MediaPolicy(video_mode="file")):
        for cache_dir in (None, tmp_path):
            for prepared in MediaProcessor(policy, cache_dir=cache_dir).prepare_many(refs).values():
                assert json.loads(json.dumps(prepared.applied)) == prepared.applied
                assert prepared.applied["sha256"] and prepared.applied["source"]


def test_importing_the_media_stage_loads_no_heavy_decoder() -> None:
    import subprocess
    import sys

    code = (
        "import sys, omnieval.media; print(sorted(m for m in ('av', 'soundfile', 'soxr', 'torch') if m "
        "in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
