"""The on-disk media cache: prepared artefacts keyed by content hash and the policy that made them.

Layout: ``<cache_dir>/<kind>/<sha[:2]>/<sha>-<policy key>/`` holding the artefact files and a
``meta.json`` written last, so an entry without ``meta.json`` is incomplete and ignored (a crash
mid-write never serves a half-written artefact). Writes go to a temporary name and are renamed
into place, so concurrent workers preparing the same media never see each other's partial files.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["PIPELINE_VERSION", "MediaCache", "policy_key"]

PIPELINE_VERSION = "1"
"""Bumped whenever a change to decoding, resizing or encoding changes the artefacts."""


def policy_key(kind: str, params: dict[str, Any]) -> str:
    """A short stable hash of the policy fields that affect one kind of artefact."""
    payload = json.dumps({"v": PIPELINE_VERSION, "k": kind, "p": params}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


class MediaCache:
    """Content-addressed directory entries; ``None`` root means caching is off."""

    def __init__(self, root: Path | None) -> None:
        self.root = Path(root) if root is not None else None

    @property
    def enabled(self) -> bool:
        return self.root is not None

    def entry_dir(self, kind: str, sha256: str, key: str) -> Path | None:
        """Where the entry for (kind, content, policy) lives, whether or not it exists yet."""
        if self.root is None:
            return None
        return self.root / kind / sha256[:2] / f"{sha256}-{key}"

    def load_meta(self, entry: Path | None) -> dict[str, Any] | None:
        """The entry's metadata when the entry is complete, else ``None`` (a miss)."""
        if entry is None:
            return None
        try:
            with open(entry / "meta.json", encoding="utf-8") as fh:
                meta: dict[str, Any] = json.load(fh)
        except (OSError, ValueError):
            return None
        return meta

    def store(self, entry: Path | None, files: dict[str, bytes], meta: dict[str, Any]) -> bool:
        """Write the artefact files, then ``meta.json``; returns False when caching is off or fails.

        A failure to write (full disk, read-only cache) is not an error for the sample: the
        artefact is still returned from memory, it just is not cached.
        """
        if entry is None:
            return False
        try:
            entry.mkdir(parents=True, exist_ok=True)
            for name, content in files.items():
                _atomic_write(entry / name, content)
            _atomic_write(entry / "meta.json", json.dumps(meta, sort_keys=True).encode())
        except OSError:
            shutil.rmtree(entry, ignore_errors=True)
            return False
        return True


def _atomic_write(target: Path, content: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
