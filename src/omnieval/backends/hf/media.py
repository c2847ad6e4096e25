"""Media for local backends: PIL images, audio arrays and video frames in request order.

Decoding, resizing, frame sampling and caching are the media stage's (``omnieval.media``); this
module only asks for the encodings in-process models take and collects the ``applied`` records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omnieval.errors import BackendError, MediaError
from omnieval.types import MediaRef, Request

__all__ = ["PreparedMedia", "prepare_media"]


@dataclass
class PreparedMedia:
    """Decoded media of one request, by kind, each list in message order."""

    images: list[Any] = field(default_factory=list)
    audios: list[Any] = field(default_factory=list)
    """1-D float32 numpy arrays at ``sample_rate``."""
    videos: list[list[Any]] = field(default_factory=list)
    """Each video as a list of PIL frames."""
    sample_rate: int = 16000
    applied: dict[str, Any] = field(default_factory=dict)
    """Per placeholder name: what was done (sizes, frames, sample rate)."""


def prepare_media(
    request: Request, *, cache_dir: str | None, sample_rate: int | None = None
) -> PreparedMedia:
    """Decode every media reference of ``request``; a bad file raises a non-retryable BackendError.

    ``sample_rate`` (the model's feature extractor rate) overrides the policy's, and videos are
    always sampled to frames: in-process models take pixels, not files.
    """
    from omnieval.media.processor import processor_for  # lazy: keeps PIL/numpy out of start-up

    update: dict[str, Any] = {"video_mode": "frames"}
    if sample_rate is not None:
        update["audio_sample_rate"] = int(sample_rate)
    policy = request.media_policy.model_copy(update=update)
    out = PreparedMedia(sample_rate=policy.audio_sample_rate)
    if not request.media:
        return out
    loader = processor_for(policy, cache_dir)
    for ref in request.media:
        try:
            _add(out, ref, loader)
        except (MediaError, OSError, ValueError, RuntimeError) as exc:
            raise BackendError(
                f"sample {request.sample_id!r}: cannot prepare {ref.kind} {ref.describe()}: {exc}",
                retryable=False,
            ) from exc
    return out


def _add(out: PreparedMedia, ref: MediaRef, loader: Any) -> None:
    key = ref.name if ref.name not in out.applied else f"{ref.name}#{len(out.applied)}"
    if ref.kind == "image":
        img = loader.image(ref)
        out.images.append(img.pil())
        out.applied[key] = dict(img.applied)
    elif ref.kind == "audio":
        aud = loader.audio(ref)
        arr = aud.array if aud.array.ndim == 1 else aud.array.mean(axis=1)
        out.audios.append(arr.astype("float32"))
        out.applied[key] = dict(aud.applied)
    else:
        vid = loader.video(ref)
        out.videos.append([f.pil() for f in vid.frames])
        out.applied[key] = dict(vid.applied)
