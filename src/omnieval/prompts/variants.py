"""Even, seeded assignment of prompt variants to samples."""

from __future__ import annotations

import random
from functools import lru_cache

__all__ = ["variant_index"]


@lru_cache(maxsize=4096)
def _block_permutation(n: int, seed: int, block: int) -> tuple[int, ...]:
    order = list(range(n))
    random.Random(f"{seed}:{block}").shuffle(order)
    return tuple(order)


def variant_index(position: int, *, n_variants: int, seed: int) -> int:
    """Variant for the sample at ``position`` in its task.

    Each consecutive block of ``n_variants`` samples gets every variant exactly once, in a seeded
    order: counts differ by at most one, and the assignment never depends on ``--limit``.
    """
    if n_variants <= 1:
        return 0
    block, offset = divmod(position, n_variants)
    return _block_permutation(n_variants, seed, block)[offset]
