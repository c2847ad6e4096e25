"""What the media stage hands to backends: prepared media with every encoding a backend may need.

These are runtime artefacts holding pixels and sample arrays, so they are frozen dataclasses
rather than pydantic models; their ``applied`` dict is the plain-JSON record of what was done,
which the runner logs per sample.
"""

from __future__ import annotations

import base64
import builtins
import hashlib
import io
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

__all__ = ["PreparedAudio", "PreparedImage", "PreparedVideo"]

_spill_lock = threading.Lock()
_spill_dir: Path | None = None

_EXT = {"image/png": ".png", "image/jpeg": ".jpg", "audio/wav": ".wav", "video/mp4": ".mp4"}


def _spill(content: builtins.bytes, mime: str) -> Path:
    """Write bytes to a per-process temporary directory, named by content hash (used without a cache)."""
    global _spill_dir
    with _spill_lock:
        if _spill_dir is None:
            _spill_dir = Path(tempfile.mkdtemp(prefix="omnieval-media-"))
    target = _spill_dir / (hashlib.sha256(content).hexdigest()[:32] + _EXT.get(mime, ".bin"))
    if not target.exists():
        tmp = target.with_suffix(target.suffix + f".{threading.get_ident()}.tmp")
        tmp.write_bytes(content)
        tmp.replace(target)
    return target


def _data_url(content: builtins.bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(content).decode('ascii')}"


@dataclass(frozen=True, eq=False)
class PreparedImage:
    """An RGB image after the policy: encoded bytes plus, when decoded in this process, the pixels."""

    encoded: builtins.bytes
    mime: str
    """``image/png`` or ``image/jpeg``."""
    width: int
    height: int
    applied: dict[str, Any]
    file: Path | None = None
    """The cached file holding ``encoded``, when a cache directory is in use."""
    image: Image.Image | None = field(default=None, repr=False)
    timestamp: float | None = None
    """Seconds from the start of the video, for video frames."""

    @property
    def bytes(self) -> builtins.bytes:
        return self.encoded

    def pil(self) -> Image.Image:
        """An RGB PIL image (a copy: callers may modify it freely)."""
        if self.image is not None:
            return self.image.copy()
        img = Image.open(io.BytesIO(self.encoded))
        return img.convert("RGB")

    def data_url(self) -> str:
        """``data:image/...;base64,...`` as OpenAI-style APIs take it."""
        return _data_url(self.encoded, self.mime)

    def base64(self) -> str:
        return base64.b64encode(self.encoded).decode("ascii")

    def path(self) -> Path:
        """A file holding the encoded image (the cache file, or a temporary one)."""
        return self.file if self.file is not None else _spill(self.encoded, self.mime)


@dataclass(frozen=True, eq=False)
class PreparedAudio:
    """Decoded audio at the policy's rate: float32 samples, ``(n,)`` mono or ``(n, channels)``."""

    array: np.ndarray = field(repr=False)
    sample_rate: int
    applied: dict[str, Any]

    @property
    def channels(self) -> int:
        return 1 if self.array.ndim == 1 else int(self.array.shape[1])

    @property
    def duration_s(self) -> float:
        return float(self.array.shape[0]) / self.sample_rate

    def wav_bytes(self) -> builtins.bytes:
        """16-bit PCM WAV, the format every audio API accepts."""
        import soundfile

        buf = io.BytesIO()
        soundfile.write(buf, self.array, self.sample_rate, format="WAV", subtype="PCM_16")
        return buf.getvalue()

    def base64(self) -> str:
        """Base64 of :meth:`wav_bytes` (OpenAI ``input_audio.data``)."""
        return base64.b64encode(self.wav_bytes()).decode("ascii")

    def data_url(self) -> str:
        return _data_url(self.wav_bytes(), "audio/wav")

    def path(self) -> Path:
        """A WAV file with the prepared audio (temporary, named by content)."""
        return _spill(self.wav_bytes(), "audio/wav")


@dataclass(frozen=True, eq=False)
class PreparedVideo:
    """Sampled frames (``video_mode=frames``) or the untouched file (``video_mode=file``)."""

    frames: tuple[PreparedImage, ...]
    applied: dict[str, Any]
    source_path: Path | None = None
    source_bytes: builtins.bytes | None = field(default=None, repr=False)
    mime: str = "video/mp4"

    @property
    def timestamps(self) -> tuple[float, ...]:
        return tuple(f.timestamp or 0.0 for f in self.frames)

    def path(self) -> Path:
        """The original video file (file mode); embedded bytes are written to a temporary file."""
        if self.source_path is not None:
            return self.source_path
        if self.source_bytes is None:
            raise ValueError("this prepared video holds frames only; use .frames")
        return _spill(self.source_bytes, self.mime)

    @property
    def bytes(self) -> builtins.bytes:
        """The original video bytes (file mode)."""
        if self.source_bytes is not None:
            return self.source_bytes
        return self.path().read_bytes()

    def data_url(self) -> str:
        """``data:video/mp4;base64,...`` for backends that take whole videos."""
        return _data_url(self.bytes, self.mime)
