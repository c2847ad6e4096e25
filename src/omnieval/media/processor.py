"""The media stage's front door: prepare a reference under a policy, once, with a disk cache.

Every artefact is keyed by (content sha256, the policy fields that shape it, pipeline version),
so a second run, or a second model with the same policy, reads prepared media from disk instead
of decoding again. Each prepared object's ``applied`` dict records what was done and whether it
came from the cache (``cache``: ``hit`` / ``miss`` / ``off``).
"""

from __future__ import annotations

import asyncio
import functools
import io
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from omnieval.errors import MediaError
from omnieval.media.audio import decode_audio, mixdown, resample
from omnieval.media.cache import MediaCache, policy_key
from omnieval.media.hashing import fingerprint, open_media, read_media
from omnieval.media.image import can_pass_through, decode_image, encode_image, is_lossy, normalize_image
from omnieval.media.prepared import PreparedAudio, PreparedImage, PreparedVideo
from omnieval.media.sampling import SamplingMode
from omnieval.media.video_stage import prepare_video
from omnieval.types import MediaPolicy, MediaRef

__all__ = ["MediaProcessor", "MediaStats", "processor_for"]

_EXT = {"image/png": "png", "image/jpeg": "jpg"}


@dataclass
class MediaStats:
    """Counters a run reports: how much media work was done and how much the cache saved."""

    hits: int = 0
    misses: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"hits": self.hits, "misses": self.misses, "seconds": round(self.seconds, 6)}


class MediaProcessor:
    """Prepares images, audio and video under one :class:`MediaPolicy` (thread-safe)."""

    def __init__(self, policy: MediaPolicy, *, cache_dir: Path | str | None = None) -> None:
        self.policy = policy
        self.cache = MediaCache(Path(cache_dir) if cache_dir is not None else None)
        self.stats = MediaStats()
        self._lock = threading.Lock()

    def _count(self, hit: bool, started: float) -> None:
        with self._lock:
            if hit:
                self.stats.hits += 1
            else:
                self.stats.misses += 1
            self.stats.seconds += time.perf_counter() - started

    def _miss_state(self, stored: bool) -> str:
        return "miss" if stored else "off"

    def prepare(self, ref: MediaRef) -> PreparedImage | PreparedAudio | PreparedVideo:
        """Dispatch on ``ref.kind``."""
        if ref.kind == "image":
            return self.image(ref)
        if ref.kind == "audio":
            return self.audio(ref)
        return self.video(ref)

    async def aprepare(self, ref: MediaRef) -> PreparedImage | PreparedAudio | PreparedVideo:
        """:meth:`prepare` in a worker thread, so decoding never blocks the runner's event loop."""
        return await asyncio.to_thread(self.prepare, ref)

    def prepare_many(
        self, refs: Iterable[MediaRef]
    ) -> dict[str, PreparedImage | PreparedAudio | PreparedVideo]:
        """Prepare several refs, keyed by placeholder name in the given order (``<audio_1>``, ``<audio_2>``).

        A repeated name is an error: placeholders must identify their media.
        """
        out: dict[str, PreparedImage | PreparedAudio | PreparedVideo] = {}
        for ref in refs:
            if ref.name in out:
                raise MediaError(f"two media share the placeholder name {ref.name!r}", path=ref.describe())
            out[ref.name] = self.prepare(ref)
        return out

    # images -----------------------------------------------------------------------------------

    def _image_params(self) -> dict[str, Any]:
        return {"max_side": self.policy.image_max_side, "max_pixels": self.policy.image_max_pixels}

    def image(self, ref: MediaRef) -> PreparedImage:
        """Decode, orient, flatten to RGB, resize and encode one image (or read it from the cache)."""
        started = time.perf_counter()
        ref = fingerprint(ref)
        assert ref.sha256 is not None
        params = self._image_params()
        entry = self.cache.entry_dir("image", ref.sha256, policy_key("image", params))
        cached = _load_image(self.cache, entry)
        if cached is not None:
            self._count(True, started)
            return cached
        where = ref.describe()
        raw = read_media(ref)
        img, info = decode_image(io.BytesIO(raw), where=where, **params)
        img, applied = normalize_image(img, **params)
        mime = can_pass_through(info, applied)
        if mime is not None:
            data, encoding = raw, "original"
        else:
            data, mime, encoding = encode_image(img, lossy=is_lossy(info))
        record = {"kind": "image", "source": where, "sha256": ref.sha256, **info, **applied}
        record |= {"encoding": encoding, "mime": mime, "bytes": len(data), "policy": params}
        name = f"image.{_EXT[mime]}"
        meta = {"file": name, "mime": mime, "size": list(img.size), "applied": record}
        stored = self.cache.store(entry, {name: data}, meta)
        self._count(False, started)
        return PreparedImage(
            encoded=data,
            mime=mime,
            width=img.width,
            height=img.height,
            applied=record | {"cache": self._miss_state(stored)},
            file=entry / name if stored and entry is not None else None,
            image=img,
        )

    # audio ------------------------------------------------------------------------------------

    def audio(self, ref: MediaRef) -> PreparedAudio:
        """Decode, mix down (policy ``audio_mono``) and resample to ``audio_sample_rate``."""
        started = time.perf_counter()
        ref = fingerprint(ref)
        assert ref.sha256 is not None
        rate = self.policy.audio_sample_rate
        params = {"sample_rate": rate, "mono": self.policy.audio_mono}
        entry = self.cache.entry_dir("audio", ref.sha256, policy_key("audio", params))
        meta = self.cache.load_meta(entry)
        if meta is not None and entry is not None:
            try:
                array = np.load(entry / "audio.npy", allow_pickle=False)
            except (OSError, ValueError):
                meta = None
            else:
                self._count(True, started)
                return PreparedAudio(
                    array=array, sample_rate=rate, applied=meta["applied"] | {"cache": "hit"}
                )
        where = ref.describe()
        with open_media(ref) as fh:
            data, rate_in, info = decode_audio(fh, where=where)
        signal = mixdown(data) if self.policy.audio_mono else data
        signal = resample(signal, rate_in=rate_in, rate_out=rate)
        record = {"kind": "audio", "source": where, "sha256": ref.sha256, **info, "policy": params}
        record |= {
            "sample_rate": rate,
            "channels": 1 if signal.ndim == 1 else int(signal.shape[1]),
            "resampled": rate_in != rate,
            "duration_s": round(signal.shape[0] / rate, 6),
        }
        buf = io.BytesIO()
        np.save(buf, signal, allow_pickle=False)
        stored = self.cache.store(entry, {"audio.npy": buf.getvalue()}, {"applied": record})
        self._count(False, started)
        return PreparedAudio(
            array=signal, sample_rate=rate, applied=record | {"cache": self._miss_state(stored)}
        )

    # video ------------------------------------------------------------------------------------

    def video(
        self, ref: MediaRef, *, max_frames: int | None = None, sampling: SamplingMode = "fps"
    ) -> PreparedVideo:
        """Sample frames (``video_mode=frames``) or check and pass the file through (``file``).

        ``max_frames`` overrides the policy cap, e.g. with a budget from :func:`plan_media_budget`;
        ``sampling="uniform"`` spreads the frames over the duration (MEGA-Bench demo videos).
        """
        started = time.perf_counter()
        ref = fingerprint(ref)
        video, hit = prepare_video(ref, self.policy, self.cache, max_frames=max_frames, sampling=sampling)
        self._count(hit, started)
        return video


def _load_image(cache: MediaCache, entry: Path | None) -> PreparedImage | None:
    meta = cache.load_meta(entry)
    if meta is None or entry is None:
        return None
    try:
        data = (entry / meta["file"]).read_bytes()
        width, height = meta["size"]
        return PreparedImage(
            encoded=data,
            mime=meta["mime"],
            width=width,
            height=height,
            applied=meta["applied"] | {"cache": "hit"},
            file=entry / meta["file"],
        )
    except (OSError, KeyError, ValueError, TypeError):
        return None


@functools.lru_cache(maxsize=64)
def _processor_for(policy: MediaPolicy, cache_dir: str | None) -> MediaProcessor:
    return MediaProcessor(policy, cache_dir=cache_dir)


def processor_for(policy: MediaPolicy, cache_dir: Path | str | None = None) -> MediaProcessor:
    """One shared processor per (policy, cache directory), so stats and memos are shared too."""
    if not isinstance(policy, MediaPolicy):
        raise MediaError(f"processor_for needs a MediaPolicy, got {type(policy).__name__}")
    return _processor_for(policy, str(cache_dir) if cache_dir is not None else None)
