"""Content hashes for media references: the identity every media cache key is built on."""

from __future__ import annotations

import hashlib
import io
import os
import threading
from typing import BinaryIO

from omnieval.errors import MediaError
from omnieval.types import MediaRef

__all__ = ["clear_fingerprint_memo", "file_sha256", "fingerprint", "open_media", "read_media"]

_CHUNK = 1 << 20
_REMOTE = ("http://", "https://", "s3://", "gs://", "hf://")
_MEMO_MAX = 200_000
_memo: dict[tuple[str, int, int, int], str] = {}
_memo_lock = threading.Lock()


def _stat_key(path: str) -> tuple[str, int, int, int]:
    st = os.stat(path)
    return (path, st.st_size, st.st_mtime_ns, st.st_ino)


def file_sha256(path: str | os.PathLike[str]) -> str:
    """A file's sha256 hex digest, read in chunks (never loaded whole)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def fingerprint(ref: MediaRef) -> MediaRef:
    """Return ``ref`` with ``sha256`` filled in.

    Files are hashed in chunks (never loaded whole) and the digest is memoised per
    (path, size, mtime, inode), so the same demo image referenced by every sample is hashed once
    per process. A ref that already carries a hash is returned unchanged.
    """
    if ref.sha256:
        return ref
    if ref.data is not None:
        return ref.model_copy(update={"sha256": hashlib.sha256(ref.data).hexdigest()})
    if not ref.path:
        raise MediaError(f"{ref.kind} {ref.name!r} has neither a path nor embedded bytes")
    if ref.path.startswith(_REMOTE):
        raise MediaError("remote URLs are not fetched during a run; download the media first", path=ref.path)
    try:
        key = _stat_key(ref.path)
        with _memo_lock:
            known = _memo.get(key)
        if known is None:
            known = file_sha256(ref.path)
            with _memo_lock:
                if len(_memo) >= _MEMO_MAX:
                    _memo.clear()
                _memo[key] = known
    except FileNotFoundError:
        raise MediaError("file not found", path=ref.path) from None
    except IsADirectoryError:
        raise MediaError("is a directory, not a media file", path=ref.path) from None
    except OSError as exc:
        raise MediaError(f"cannot read: {exc.strerror or exc}", path=ref.path) from None
    return ref.model_copy(update={"sha256": known})


def clear_fingerprint_memo() -> None:
    """Forget memoised file hashes (benchmarks simulating a fresh process; tests)."""
    with _memo_lock:
        _memo.clear()


def open_media(ref: MediaRef) -> BinaryIO:
    """A binary stream over the media (the file itself, or the embedded bytes)."""
    if ref.data is not None:
        return io.BytesIO(ref.data)
    if not ref.path:
        raise MediaError(f"{ref.kind} {ref.name!r} has neither a path nor embedded bytes")
    try:
        return open(ref.path, "rb")
    except FileNotFoundError:
        raise MediaError("file not found", path=ref.path) from None
    except OSError as exc:
        raise MediaError(f"cannot read: {exc.strerror or exc}", path=ref.path) from None


def read_media(ref: MediaRef) -> bytes:
    """All bytes of the media; only for formats whose decoders need them in memory anyway."""
    with open_media(ref) as fh:
        return fh.read()
