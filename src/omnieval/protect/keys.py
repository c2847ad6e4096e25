"""Keys → random generators: the same key always gives the same mark, another key an unrelated one."""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["keyed_rng", "null_rngs"]


def keyed_rng(key: str, *, purpose: str) -> np.random.Generator:
    """A generator seeded from ``sha256(purpose, key)``; ``purpose`` separates image from audio marks."""
    digest = hashlib.sha256(f"omnieval-protect/{purpose}/{key}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def null_rngs(key: str, *, purpose: str, n: int) -> list[np.random.Generator]:
    """``n`` generators for keys that were *not* used: the detector's empirical null distribution."""
    return [keyed_rng(f"{key}\x00null{i}", purpose=purpose) for i in range(n)]
