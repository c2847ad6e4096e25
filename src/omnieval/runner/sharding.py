"""Which of ``N`` shares of a task's samples each sample belongs to (``--shard I/N``).

Each sample (a dialogue's steps together, under its chain id) is ordered by a stable hash of
``(task, id)`` — blake2b, the same on every machine and Python, never :func:`hash` — and dealt out in
that order, so the ``N`` shares of a task differ by at most one sample and together hold every sample
once. The shares depend only on the selected ids (``--limit`` and ``--sample-ids`` first), so a merge can
tell which shard a missing sample belonged to.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from omnieval.types import Sample

__all__ = ["share_of", "shares"]


def _unit(sample: Sample) -> str:
    """What is dealt out: a sample, or a whole dialogue (its steps must see each other's answers)."""
    return f"chain\x00{sample.chain}" if sample.chain is not None else f"sample\x00{sample.id}"


def _order(task: str, unit: str) -> bytes:
    return hashlib.blake2b(f"{task}\x00{unit}".encode(), digest_size=16).digest()


def shares(task: str, samples: Iterable[Sample], *, count: int) -> dict[str, int]:
    """Sample id → its share (``0 ≤ share < count``) of ``task``'s selected ``samples``."""
    units: dict[str, list[str]] = {}
    for sample in samples:
        units.setdefault(_unit(sample), []).append(sample.id)
    dealt = sorted(units, key=lambda unit: _order(task, unit))
    offset = int.from_bytes(_order(task, "offset")[:4], "big") % count  # small tasks fill other shards too
    return {
        sample_id: (rank + offset) % count for rank, unit in enumerate(dealt) for sample_id in units[unit]
    }


def share_of(task: str, samples: Iterable[Sample], *, index: int, count: int) -> set[str]:
    """The ids of share ``index`` of ``count``."""
    return {sample_id for sample_id, share in shares(task, samples, count=count).items() if share == index}
