"""Media for the report that play in any browser and travel with the run folder.

Audio and video files are copied into ``report_samples/media/`` under their content hash (so a run
folder that is moved or copied still shows them, with no link into a cache or a dataset folder).
A video whose codec or container a browser will not play (e.g. the demo's MPEG-4 Part 2 ``.mp4``) gets
an H.264/AAC MP4 preview made with PyAV instead; H.264, VP8, VP9 and AV1 in MP4/WebM are copied as
they are. Files over ``MAX_COPY_BYTES`` stay linked by relative path (said in the viewer's label).
"""

from __future__ import annotations

import hashlib
import io
from fractions import Fraction
from pathlib import Path

__all__ = ["MAX_COPY_BYTES", "PLAYABLE_VIDEO", "playable_video", "source_digest"]

MAX_COPY_BYTES = 50_000_000
"""Larger media files are linked, not copied (a report should not double a video dataset)."""
PLAYABLE_VIDEO = {"h264", "vp8", "vp9", "av1"}
"""Video codecs Chromium and Firefox play in MP4/WebM."""
_PLAYABLE_AUDIO = {"aac", "mp3", "opus", "vorbis", "flac"}


def source_digest(path: Path) -> str:
    digest = hashlib.sha1()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()[:20]


def _plays_as_is(path: Path) -> bool:
    import av

    try:
        with av.open(str(path)) as container:
            fmt = container.format.name
            video = [s.codec_context.name for s in container.streams.video]
            audio = [s.codec_context.name for s in container.streams.audio]
    except (av.error.FFmpegError, OSError, ValueError):
        return True  # not decodable here: leave the file as it is (the viewer still offers it)
    container_ok = any(name in fmt for name in ("mp4", "webm", "matroska"))
    return (
        container_ok and all(v in PLAYABLE_VIDEO for v in video) and all(a in _PLAYABLE_AUDIO for a in audio)
    )


class _FrameClock:
    """Timestamps of the preview's frames in ticks of one frame: where the source shows each frame (a
    frame without a time comes one tick after the last). Frames left without a timestamp were all put at
    time 0: a 2 s clip previewed as 0.125 s at 128 fps."""

    def __init__(self, rate: Fraction) -> None:
        self.rate = rate
        self.time_base = 1 / rate
        self._start: float | None = None
        self._next = 0

    def pts(self, seconds: float | None) -> int:
        if seconds is not None and self._start is None:
            self._start = seconds
        wanted = self._next if seconds is None else round((seconds - (self._start or 0.0)) * self.rate)
        pts = max(self._next, wanted)  # strictly increasing, as the encoder requires
        self._next = pts + 1
        return pts


def playable_video(path: Path) -> tuple[bytes, str] | None:
    """An H.264/AAC MP4 preview of ``path`` when browsers cannot play it as is; None when they can."""
    if _plays_as_is(path):
        return None
    import av

    out = io.BytesIO()
    with av.open(str(path)) as src, av.open(out, "w", format="mp4") as dst:
        vin = src.streams.video[0]
        rate = vin.average_rate or 25
        vout = dst.add_stream("libx264", rate=rate)
        vout.width, vout.height = vin.codec_context.width // 2 * 2, vin.codec_context.height // 2 * 2
        vout.pix_fmt = "yuv420p"
        vout.options = {"preset": "veryfast", "crf": "28"}
        ain = src.streams.audio[0] if src.streams.audio else None
        aout = dst.add_stream("aac", rate=48000) if ain is not None else None
        streams = [s for s in (vin, ain) if s is not None]
        clock = _FrameClock(Fraction(rate))
        for packet in src.demux(*streams):
            for frame in packet.decode():
                if isinstance(frame, av.VideoFrame):
                    image = frame.reformat(width=vout.width, height=vout.height, format="yuv420p")
                    image.pts, image.time_base = clock.pts(frame.time), clock.time_base
                    dst.mux(vout.encode(image))
                elif isinstance(frame, av.AudioFrame) and aout is not None:
                    frame.pts = None
                    dst.mux(aout.encode(frame))
        dst.mux(vout.encode(None))
        if aout is not None:
            dst.mux(aout.encode(None))
    return out.getvalue(), ".mp4"
