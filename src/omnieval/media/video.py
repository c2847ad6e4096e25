"""Streaming video frame sampling with PyAV.

Only the frames needed are decoded: the sampler walks forward through the stream and seeks to
the keyframe before a target whenever the target lies further ahead than the keyframe spacing
observed so far, so a long video costs about (frames kept × keyframe interval) decodes, never the
whole stream. Decoded frames are converted (and shrunk) one at a time; nothing but the kept,
resized frames is held in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, TypeVar

from omnieval.errors import MediaError
from omnieval.media.sampling import SamplingMode, plan_frame_indices

__all__ = ["VideoInfo", "probe_video", "sample_video"]

T = TypeVar("T")
MIN_SEEK_FRAMES = 8
_MIME = {"mp4": "video/mp4", "webm": "video/webm", "matroska": "video/x-matroska", "avi": "video/x-msvideo"}
"""By priority: FFmpeg names one demuxer for MP4 and QuickTime ("mov,mp4,..."); MP4 is what APIs take."""


@dataclass(frozen=True)
class VideoInfo:
    """What the container says about its first video stream."""

    n_frames: int
    fps: float
    duration_s: float
    width: int
    height: int
    codec: str
    container: str

    @property
    def mime(self) -> str:
        names = set(self.container.split(","))
        return next((mime for name, mime in _MIME.items() if name in names), "video/mp4")

    def as_dict(self) -> dict[str, Any]:
        return {
            "original_frames": self.n_frames,
            "original_fps": round(self.fps, 6),
            "duration_s": round(self.duration_s, 6),
            "original_size": [self.width, self.height],
            "codec": self.codec,
            "container": self.container,
        }


def _open(source: str | BinaryIO, where: str) -> Any:
    import av

    try:
        return av.open(source, mode="r")
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise MediaError(
            f"cannot open video (corrupt, truncated or unsupported): {reason}", path=where
        ) from None


def _count_packets(container: Any, stream: Any) -> int:
    """Frame count by demuxing (no decoding), for containers that do not record it."""
    count = sum(1 for packet in container.demux(stream) if packet.size)
    container.seek(0)
    return count


def _info(container: Any, where: str) -> tuple[Any, VideoInfo]:
    if not container.streams.video:
        raise MediaError("file has no video stream", path=where)
    stream = container.streams.video[0]
    rate = stream.average_rate or stream.guessed_rate or stream.base_rate
    fps = float(rate) if rate else 0.0
    if fps <= 0:
        raise MediaError("cannot determine the video frame rate", path=where)
    if stream.duration and stream.time_base:
        duration = float(stream.duration * stream.time_base)
    elif container.duration:
        duration = container.duration / 1_000_000
    else:
        duration = 0.0
    n_frames = int(stream.frames or round(duration * fps) or _count_packets(container, stream))
    if not duration:
        duration = n_frames / fps
    ctx = stream.codec_context
    info = VideoInfo(n_frames, fps, duration, ctx.width, ctx.height, ctx.name, container.format.name)
    return stream, info


def probe_video(source: str | BinaryIO, *, where: str) -> VideoInfo:
    """Read the container metadata and decode the first frame (proves the codec is usable)."""
    import av

    with _open(source, where) as container:
        stream, info = _info(container, where)
        try:
            next(iter(container.decode(stream)))
        except StopIteration:
            raise MediaError("video stream holds no decodable frames", path=where) from None
        except av.error.FFmpegError as exc:
            raise MediaError(f"cannot decode video: {exc}", path=where) from None
    return info


@dataclass
class _Cursor:
    """Decoding state: where we are, and what we have learned about keyframe spacing."""

    frames: Iterator[Any] | None = None
    last_pts: int | None = None
    last_key: int | None = None
    gop: int = 0
    decoded: int = 0
    seeks: int = 0
    previous: Any = None

    def threshold(self, frame_pts: int) -> int:
        """Seek only past the longest keyframe spacing seen, and never for a few frames.

        A seek costs a decoder flush plus a keyframe decode, several P-frames' worth, so gaps
        under ``MIN_SEEK_FRAMES`` are always decoded through.
        """
        run = self.last_pts - self.last_key if self.last_pts is not None and self.last_key is not None else 0
        return max(self.gop, run, MIN_SEEK_FRAMES * frame_pts)

    def note(self, frame: Any) -> None:
        self.decoded += 1
        if frame.key_frame:
            if self.last_key is not None and frame.pts > self.last_key:
                self.gop = max(self.gop, frame.pts - self.last_key)
            self.last_key = frame.pts
        self.last_pts = frame.pts
        self.previous = frame


def _seek(container: Any, stream: Any, cur: _Cursor, target: int) -> None:
    import av

    try:
        container.seek(target, stream=stream, backward=True, any_frame=False)
    except av.error.FFmpegError:
        return  # unseekable input: keep decoding forward from where we are
    cur.frames = container.decode(stream)
    cur.seeks += 1
    cur.last_key = None
    cur.last_pts = None


def _advance(cur: _Cursor, target: int, half: int) -> Any:
    """Decode forward to the first frame at or after ``target`` (within half a frame)."""
    assert cur.frames is not None
    for frame in cur.frames:
        if frame.pts is None:
            continue
        if cur.last_key is None and frame.key_frame:
            # just seeked: the keyframe before ``target`` is here, so the next one is past it
            cur.gop = max(cur.gop, target - frame.pts)
        cur.note(frame)
        if frame.pts >= target - half:
            return frame
    return None


def _targets(stream: Any, info: VideoInfo, indices: list[int]) -> tuple[list[int], int, int]:
    tb = stream.time_base
    start = int(stream.start_time or 0)
    frame_pts = max(1, round(1 / (info.fps * tb)))
    return [start + round(i / (info.fps * tb)) for i in indices], frame_pts, start


def sample_video(
    source: str | BinaryIO,
    *,
    where: str,
    target_fps: float,
    max_frames: int,
    mode: SamplingMode = "fps",
    convert: Callable[[Any], T],
) -> tuple[list[tuple[T, float]], dict[str, Any]]:
    """Decode only the planned frames; returns ``(converted frame, seconds)`` pairs and stats."""
    import av

    with _open(source, where) as container:
        stream, info = _info(container, where)
        indices = plan_frame_indices(
            info.n_frames, source_fps=info.fps, target_fps=target_fps, max_frames=max_frames, mode=mode
        )
        targets, frame_pts, start = _targets(stream, info, indices)
        out: list[tuple[T, float]] = []
        kept_pts = None
        cur = _Cursor(frames=container.decode(stream))
        try:
            for target in targets:
                if cur.last_pts is not None and target - cur.last_pts > cur.threshold(frame_pts):
                    _seek(container, stream, cur, target)
                frame = _advance(cur, target, frame_pts // 2)
                if frame is None:
                    frame = _tail_frame(cur, target, frame_pts, where, info)
                    if frame is None or (out and frame.pts == kept_pts):
                        break
                kept_pts = frame.pts
                out.append((convert(frame), round(float((frame.pts - start) * stream.time_base), 6)))
        except av.error.FFmpegError as exc:
            raise MediaError(f"corrupt video stream: {exc}", path=where) from None
    if not out:
        raise MediaError("video stream holds no decodable frames", path=where)
    stats = info.as_dict() | {
        "decoded_frames": cur.decoded,
        "seeks": cur.seeks,
        "planned_frames": len(indices),
    }
    return out, stats


def _tail_frame(cur: _Cursor, target: int, frame_pts: int, where: str, info: VideoInfo) -> Any:
    """At end of stream: the last frame when the target is just past it, else a truncation error.

    Container frame counts are often one or two frames generous, which is not an error; a stream
    that stops well before the declared duration is.
    """
    last = cur.previous
    if last is not None and target - last.pts <= 2 * frame_pts:
        return last
    end = "" if last is None else f"; decoding stopped at pts {last.pts}, target was {target}"
    raise MediaError(
        f"truncated video: the container declares {info.n_frames} frames / {info.duration_s:.2f} s{end}",
        path=where,
    )
