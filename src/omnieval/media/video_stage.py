"""Video preparation under a policy, with the disk cache: sampled frames or the file passed through."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

from PIL import Image

from omnieval.media.cache import MediaCache, policy_key
from omnieval.media.image import encode_image, normalize_image
from omnieval.media.prepared import PreparedImage, PreparedVideo
from omnieval.media.sampling import SamplingMode
from omnieval.media.video import probe_video, sample_video
from omnieval.types import MediaPolicy, MediaRef

__all__ = ["prepare_video"]


def _source(ref: MediaRef) -> str | BinaryIO:
    if ref.data is not None:
        return io.BytesIO(ref.data)
    assert ref.path is not None  # fingerprint() has already rejected refs with neither
    return ref.path


def _passthrough(ref: MediaRef, applied: dict[str, Any], mime: str) -> PreparedVideo:
    return PreparedVideo(
        frames=(),
        applied=applied,
        source_path=Path(ref.path) if ref.data is None and ref.path else None,
        source_bytes=ref.data,
        mime=mime,
    )


def _file_mode(ref: MediaRef, cache: MediaCache) -> tuple[PreparedVideo, bool]:
    assert ref.sha256 is not None
    params = {"mode": "file"}
    entry = cache.entry_dir("video", ref.sha256, policy_key("video", params))
    meta = cache.load_meta(entry)
    if meta is not None:
        return _passthrough(ref, meta["applied"] | {"cache": "hit"}, meta["mime"]), True
    where = ref.describe()
    info = probe_video(_source(ref), where=where)
    record = {"kind": "video", "source": where, "sha256": ref.sha256, "mode": "file", **info.as_dict()}
    record["mime"] = info.mime
    stored = cache.store(entry, {}, {"applied": record, "mime": info.mime})
    return _passthrough(ref, record | {"cache": "miss" if stored else "off"}, info.mime), False


def _load_frames(entry: Path, meta: dict[str, Any]) -> PreparedVideo | None:
    frames = []
    try:
        for item in meta["frames"]:
            path = entry / item["file"]
            width, height = item["size"]
            frames.append(
                PreparedImage(
                    encoded=path.read_bytes(),
                    mime="image/jpeg",
                    width=width,
                    height=height,
                    applied={"kind": "video_frame", "timestamp": item["t"], "final_size": [width, height]},
                    file=path,
                    timestamp=item["t"],
                )
            )
    except (OSError, KeyError, ValueError, TypeError):
        return None
    return PreparedVideo(frames=tuple(frames), applied=meta["applied"] | {"cache": "hit"})


def prepare_video(
    ref: MediaRef, policy: MediaPolicy, cache: MediaCache, *, max_frames: int | None, sampling: SamplingMode
) -> tuple[PreparedVideo, bool]:
    """Returns the prepared video and whether it came from the cache. ``ref`` must be fingerprinted."""
    if policy.video_mode == "file":
        return _file_mode(ref, cache)
    assert ref.sha256 is not None
    resize = {"max_side": policy.image_max_side, "max_pixels": policy.image_max_pixels}
    cap = policy.video_max_frames if max_frames is None else max_frames
    params = {"mode": "frames", "fps": policy.video_fps, "max_frames": cap, "sampling": sampling, **resize}
    entry = cache.entry_dir("video", ref.sha256, policy_key("video", params))
    meta = cache.load_meta(entry)
    if meta is not None and entry is not None:
        loaded = _load_frames(entry, meta)
        if loaded is not None:
            return loaded, True

    def convert(frame: Any) -> Image.Image:
        return normalize_image(frame.to_image(), **resize)[0]

    where = ref.describe()
    pairs, stats = sample_video(
        _source(ref), where=where, target_fps=policy.video_fps, max_frames=cap, mode=sampling, convert=convert
    )
    frames: list[PreparedImage] = []
    files: dict[str, bytes] = {}
    items: list[dict[str, Any]] = []
    encoding = ""
    for i, (img, t) in enumerate(pairs):
        data, mime, encoding = encode_image(img, lossy=True)
        name = f"frame_{i:04d}.jpg"
        files[name] = data
        items.append({"file": name, "t": t, "size": list(img.size)})
        applied = {"kind": "video_frame", "timestamp": t, "final_size": list(img.size)}
        frames.append(PreparedImage(data, mime, img.width, img.height, applied, image=img, timestamp=t))
    record = {"kind": "video", "source": where, "sha256": ref.sha256, "mode": "frames", "sampling": sampling}
    record |= stats | {"frames_sampled": len(frames), "timestamps": [t for _, t in pairs], "policy": params}
    record |= {"final_size": items[0]["size"], "encoding": encoding}
    stored = cache.store(entry, files, {"frames": items, "applied": record})
    if stored and entry is not None:
        frames = [replace(f, file=entry / it["file"]) for f, it in zip(frames, items, strict=True)]
    return PreparedVideo(frames=tuple(frames), applied=record | {"cache": "miss" if stored else "off"}), False
