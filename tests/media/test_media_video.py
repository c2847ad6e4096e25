"""Video: frame sampling rule, seeking correctness, long videos, file mode, bad files."""

from __future__ import annotations

import base64
import itertools
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from media_factory import CODE_H, CODE_W, read_code

from omnieval.errors import MediaError
from omnieval.media import plan_frame_indices
from omnieval.media.processor import MediaProcessor
from omnieval.types import MediaPolicy, MediaRef


def vref(path: Path) -> MediaRef:
    return MediaRef(kind="video", name="video", path=str(path))


def codes(video: object) -> list[int]:
    return [read_code(np.asarray(f.pil())) for f in video.frames]  # type: ignore[attr-defined]


def test_one_frame_video(make_video: Callable[..., Path]) -> None:
    out = MediaProcessor(MediaPolicy()).video(vref(make_video(n_frames=1)))
    assert len(out.frames) == 1 and out.timestamps == (0.0,)
    assert codes(out) == [0]
    assert out.applied["frames_sampled"] == 1 and out.applied["original_frames"] == 1


def test_one_frame_per_second_within_budget(make_video: Callable[..., Path]) -> None:
    out = MediaProcessor(MediaPolicy(video_fps=1.0, video_max_frames=16)).video(vref(make_video(n_frames=35)))
    assert out.timestamps == (0.0, 1.0, 2.0, 3.0)
    assert codes(out) == [0, 10, 20, 30]
    assert (out.frames[0].width, out.frames[0].height) == (CODE_W, CODE_H)


def test_budget_fallback_is_uniform_over_duration(make_video: Callable[..., Path]) -> None:
    # 60 s at 10 fps, 8 frames: gap = max(ceil(10/1), ceil(600/8)) = 75 frames
    out = MediaProcessor(MediaPolicy(video_max_frames=8)).video(vref(make_video(n_frames=600, gop=12)))
    assert codes(out) == [0, 75, 150, 225, 300, 375, 450, 525]
    assert out.timestamps == (0.0, 7.5, 15.0, 22.5, 30.0, 37.5, 45.0, 52.5)
    assert out.applied["decoded_frames"] < 8 * 12 + 8


def test_frame_cap_override_and_uniform_mode(make_video: Callable[..., Path]) -> None:
    path = make_video(n_frames=40)
    proc = MediaProcessor(MediaPolicy(video_fps=0.1, video_max_frames=16))
    assert codes(proc.video(vref(path))) == [0]  # 1 frame per 10 s on a 4 s clip
    assert codes(proc.video(vref(path), max_frames=4, sampling="uniform")) == [0, 10, 20, 30]


def test_sampling_rule_matches_mega_bench() -> None:
    # gap = max(ceil(fps), ceil(frames / budget)) at 1 frame per second
    assert plan_frame_indices(300, source_fps=30, target_fps=1, max_frames=16) == list(range(0, 300, 30))
    assert plan_frame_indices(3000, source_fps=30, target_fps=1, max_frames=16) == list(range(0, 3000, 188))
    assert plan_frame_indices(100, source_fps=29.97, target_fps=2, max_frames=64) == list(range(0, 100, 15))
    assert plan_frame_indices(0, source_fps=30, target_fps=1, max_frames=4) == []
    assert len(plan_frame_indices(10**6, source_fps=30, target_fps=1, max_frames=56)) <= 56


def test_ten_minute_video_is_sampled_without_decoding_it_whole(long_video: Path) -> None:
    started = time.perf_counter()
    out = MediaProcessor(MediaPolicy(video_max_frames=16)).video(vref(long_video))
    elapsed = time.perf_counter() - started
    expected = list(range(0, 6000, 375))  # gap = max(10, ceil(6000 / 16)) = 375
    assert codes(out) == expected
    assert out.timestamps == tuple(i / 10 for i in expected)
    assert out.applied["original_frames"] == 6000 and out.applied["duration_s"] == pytest.approx(600, abs=0.2)
    # at most one keyframe interval (20 frames) per kept frame, never the 6000-frame stream
    assert out.applied["decoded_frames"] <= 16 * 21
    assert out.applied["seeks"] >= 1
    assert elapsed < 5.0


def test_video_from_embedded_bytes_and_resize(make_video: Callable[..., Path]) -> None:
    data = make_video(n_frames=12).read_bytes()
    proc = MediaProcessor(MediaPolicy(image_max_side=56))
    out = proc.video(MediaRef(kind="video", name="clip", data=data))
    assert (out.frames[0].width, out.frames[0].height) == (56, 8)
    assert out.applied["final_size"] == [56, 8] and out.frames[0].mime == "image/jpeg"


def test_file_mode_passes_the_video_through(make_video: Callable[..., Path]) -> None:
    path = make_video(n_frames=20)
    out = MediaProcessor(MediaPolicy(video_mode="file")).video(vref(path))
    assert out.frames == () and out.path() == path
    assert base64.b64decode(out.data_url().split(",", 1)[1]) == path.read_bytes()
    assert out.data_url().startswith("data:video/mp4;base64,")
    assert out.applied["mode"] == "file" and out.applied["duration_s"] == pytest.approx(2.0, abs=0.15)
    embedded = MediaProcessor(MediaPolicy(video_mode="file")).video(
        MediaRef(kind="video", name="v", data=path.read_bytes())
    )
    assert embedded.path().read_bytes() == path.read_bytes()


def test_bad_videos_name_the_file(make_video: Callable[..., Path], tmp_path: Path) -> None:
    proc = MediaProcessor(MediaPolicy())
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(200))
    with pytest.raises(MediaError, match=r"junk\.mp4: cannot open video"):
        proc.video(vref(junk))
    raw = make_video(n_frames=100).read_bytes()
    (tmp_path / "cut.mp4").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(MediaError, match=r"cut\.mp4"):
        proc.video(vref(tmp_path / "cut.mp4"))
    mkv = make_video("clip.mkv", n_frames=300, fmt="matroska").read_bytes()
    (tmp_path / "cut.mkv").write_bytes(mkv[: len(mkv) // 2])
    with pytest.raises(MediaError, match=r"cut\.mkv: truncated video"):
        proc.video(vref(tmp_path / "cut.mkv"))


def test_audio_only_file_is_not_a_video(tmp_path: Path) -> None:
    from media_factory import wav_bytes

    wav = tmp_path / "speech.wav"
    wav.write_bytes(wav_bytes(np.zeros(1600, np.float32), 16000))
    with pytest.raises(MediaError, match=r"speech\.wav: file has no video stream"):
        MediaProcessor(MediaPolicy()).video(vref(wav))


@pytest.mark.parametrize(
    ("codec", "fmt", "name"),
    [
        ("libx264", None, "b_frames.mp4"),
        ("libx264", "matroska", "b_frames.mkv"),
        ("libvpx-vp9", "webm", "vp9.webm"),
    ],
)
def test_seeking_lands_on_the_right_frame_across_codecs(
    make_video: Callable[..., Path], codec: str, fmt: str | None, name: str
) -> None:
    path = make_video(name, n_frames=400, gop=30, codec=codec, fmt=fmt)
    out = MediaProcessor(MediaPolicy(video_max_frames=8)).video(vref(path))
    assert codes(out) == list(range(0, 400, 50))  # gap = max(10, ceil(400 / 8)) = 50
    assert out.applied["seeks"] >= 1 and out.applied["decoded_frames"] < 400 // 2


@given(
    n=st.integers(1, 100_000),
    src=st.floats(1, 120),
    target=st.floats(0.05, 60),
    cap=st.integers(1, 512),
)
def test_sampling_rule_invariants(n: int, src: float, target: float, cap: int) -> None:
    idx = plan_frame_indices(n, source_fps=src, target_fps=target, max_frames=cap)
    assert idx[0] == 0 and len(idx) <= cap and idx[-1] < n
    gaps = {b - a for a, b in itertools.pairwise(idx)}
    assert len(gaps) <= 1  # evenly spaced
    if gaps:
        gap = gaps.pop()
        assert gap / src >= 1 / target - 1e-6  # never denser than the target rate
        rate_gap = max(1, math.ceil(src / target - 1e-9))
        budget_gap = math.ceil(n / cap)  # MEGA-Bench: the budget sets the gap when it is wider
        assert gap == max(rate_gap, budget_gap)
