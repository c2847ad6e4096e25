"""Marking every frame of a video and re-encoding it at the source's settings where possible."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from PIL import Image

from omnieval.errors import MediaError

__all__ = ["mark_video"]

FrameFn = Callable[[Image.Image], Image.Image]


def _encoder_name(codec: str) -> str:
    """The encoder for a decoder name (h264 decodes, libx264 encodes); falls back to mpeg4."""
    import av

    for name in (
        {"h264": "libx264", "hevc": "libx265", "vp9": "libvpx-vp9", "vp8": "libvpx"}.get(codec, codec),
        "mpeg4",
    ):
        try:
            av.codec.Codec(name, "w")
            return name
        except (av.codec.codec.UnknownCodecError, ValueError):  # type: ignore[attr-defined]
            continue
    return "mpeg4"


def _output_stream(out: Any, src: Any) -> Any:
    ctx = src.codec_context
    rate = src.average_rate or src.guessed_rate or Fraction(25)
    stream = out.add_stream(_encoder_name(ctx.name), rate=rate)
    stream.width, stream.height = ctx.width, ctx.height
    stream.pix_fmt = ctx.pix_fmt if ctx.pix_fmt in ("yuv420p", "yuv444p", "yuv422p") else "yuv420p"
    if ctx.bit_rate:
        stream.bit_rate = ctx.bit_rate
    stream.time_base = src.time_base
    return stream


def mark_video(source: Path, target: Path, *, frame_fn: FrameFn) -> dict[str, Any]:
    """Apply ``frame_fn`` to every frame; audio streams are copied unchanged. Returns what was done."""
    import av

    try:
        inp = av.open(str(source))
    except (av.error.FFmpegError, OSError) as exc:  # type: ignore[attr-defined]
        raise MediaError(f"unreadable video: {exc}", path=str(source)) from None
    with inp:
        if not inp.streams.video:
            raise MediaError("file has no video stream", path=str(source))
        src = inp.streams.video[0]
        with av.open(str(target), "w", format=inp.format.name.split(",")[0]) as out:
            dst = _output_stream(out, src)
            audio = {s.index: out.add_stream_from_template(s) for s in inp.streams.audio}
            n = 0
            for packet in inp.demux(src, *inp.streams.audio):
                if packet.stream.index in audio:
                    if packet.dts is not None:
                        packet.stream = audio[packet.stream.index]
                        out.mux(packet)
                    continue
                for frame in packet.decode():
                    assert isinstance(frame, av.VideoFrame)  # the packet came from the video stream
                    marked = av.VideoFrame.from_image(frame_fn(frame.to_image()))
                    marked.pts, marked.time_base = frame.pts, frame.time_base
                    out.mux(dst.encode(marked.reformat(format=dst.pix_fmt)))
                    n += 1
            out.mux(dst.encode(None))
    return {"frames": n, "encoder": dst.codec_context.name, "pix_fmt": dst.pix_fmt}
