"""A report's video preview keeps its source's timing (it played 0.125 s at 128 fps: every frame at 0)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from omnieval.reports.playable import playable_video


def _clip(path: Path, *, seconds: float, fps: int, audio: bool) -> Path:
    """An MPEG-4 Part 2 clip (browsers do not play it: the report makes an H.264 preview)."""
    import av

    with av.open(str(path), "w", format="mp4") as out:
        video = out.add_stream("mpeg4", rate=fps)
        video.width, video.height, video.pix_fmt = 64, 48, "yuv420p"
        sound = out.add_stream("aac", rate=16000) if audio else None
        for i in range(round(seconds * fps)):
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), i * 9 % 256, np.uint8), format="rgb24")
            frame.pts = i
            out.mux(video.encode(frame))
        out.mux(video.encode(None))
        if sound is not None:
            tone = (0.2 * np.sin(2 * np.pi * 440 * np.arange(round(seconds * 16000)) / 16000)).astype(
                np.float32
            )
            for start in range(0, tone.size, 1024):
                chunk = av.AudioFrame.from_ndarray(
                    tone[None, start : start + 1024], format="fltp", layout="mono"
                )
                chunk.sample_rate, chunk.pts = 16000, start
                out.mux(sound.encode(chunk))
            out.mux(sound.encode(None))
    return path


def _video_seconds(data: bytes, tmp: Path) -> tuple[float, float]:
    import av

    tmp.write_bytes(data)
    with av.open(str(tmp)) as container:
        stream = container.streams.video[0]
        times = [frame.time for frame in container.decode(stream)]
        return float(stream.duration * stream.time_base), max(times) - min(times)


@pytest.mark.parametrize(("seconds", "fps", "audio"), [(2.0, 10, True), (1.5, 8, False), (3.0, 25, False)])
def test_a_preview_lasts_as_long_as_its_source(tmp_path: Path, seconds: float, fps: int, audio: bool) -> None:
    source = _clip(tmp_path / "clip.mp4", seconds=seconds, fps=fps, audio=audio)
    preview = playable_video(source)
    assert preview is not None and preview[1] == ".mp4"
    duration, span = _video_seconds(preview[0], tmp_path / "preview.mp4")
    assert abs(duration - seconds) <= 0.05 * seconds, duration
    assert abs(span - (seconds - 1 / fps)) <= 0.05 * seconds, span  # the frames spread over the clip
