"""MARKER's distractor mining (article §3.2): nearest options by embedding, sampled, then LLM-checked.

1. Embed every option text: each item's answer plus any ``options`` the items carry (the pool).
2. For each item take the ``k`` options nearest to its correct answer (cosine; the answer itself and
   texts equal to it after normalisation are excluded).
3. Draw ``n_main`` main and ``n_spare`` spare distractors at random from those k (random inside the
   top-k lowers the embedder's bias; the article's k ≈ 20, 4 main + 4 spare).
4. Optionally an LLM checks each item (see :mod:`omnieval.benchmarks.marker.validation`) and bad
   main options are swapped for good spares.

Every draw uses ``random.Random(f"{seed}:{item id}")``, so a run is reproducible from (embedder, k,
seed), which the output records.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omnieval.backends.embeddings import Embedder
from omnieval.errors import ConfigError, SourceError
from omnieval.textkit import normalize_text

__all__ = ["Item", "MinedItem", "load_items", "mine", "option_pool"]


@dataclass(frozen=True)
class Item:
    """A question with its correct answer; ``options`` only add texts to the candidate pool."""

    id: str
    question: str
    answer: str
    options: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MinedItem:
    """An item with its sampled distractors and the top-k neighbours they came from."""

    item: Item
    main: tuple[str, ...]
    spares: tuple[str, ...]
    neighbours: tuple[tuple[str, float], ...]


def load_items(path: Path) -> list[Item]:
    """Items from JSONL (``id``, ``question``, ``answer``, optional ``options`` list); errors name row and
    field."""
    from omnieval.sources.readers import read_rows

    items, seen = [], set()
    if not path.is_file():
        raise SourceError("items file not found", path=str(path))
    for index, row in read_rows("jsonl", path=path):
        sample = str(row.get("id", f"row {index + 1}"))
        for key in ("id", "question", "answer"):
            if not isinstance(row.get(key), str | int) or str(row[key]).strip() == "":
                raise SourceError(
                    f"item {index + 1}: required field missing or empty",
                    path=str(path),
                    sample_id=sample,
                    field=key,
                )
        options = row.get("options", [])
        if not isinstance(options, list):
            raise SourceError(
                f"item {index + 1}: options must be a list", path=str(path), sample_id=sample, field="options"
            )
        if sample in seen:
            raise SourceError(f"item {index + 1}: duplicate id", path=str(path), sample_id=sample, field="id")
        seen.add(sample)
        rest = {k: v for k, v in row.items() if k not in ("id", "question", "answer", "options")}
        items.append(
            Item(sample, str(row["question"]), str(row["answer"]), tuple(str(o) for o in options), rest)
        )
    if not items:
        raise SourceError("no items", path=str(path))
    return items


def option_pool(items: list[Item]) -> list[str]:
    """Every distinct option text (answers first, then extra options), deduplicated after normalisation."""
    pool, keys = [], set()
    for text in [i.answer for i in items] + [o for i in items for o in i.options]:
        key = normalize_text(text)
        if key and key not in keys:
            keys.add(key)
            pool.append(text)
    return pool


def mine(
    items: list[Item], embedder: Embedder, *, k: int = 20, n_main: int = 4, n_spare: int = 4, seed: int = 0
) -> list[MinedItem]:
    """Sample main and spare distractors from each answer's ``k`` nearest pool options."""
    import numpy as np

    if k < 1 or n_main < 1 or n_spare < 0:
        raise ConfigError(
            f"distractor mining needs k >= 1, n_main >= 1, n_spare >= 0 (got {k=}, {n_main=}, {n_spare=})"
        )
    pool = option_pool(items)
    vectors = np.asarray(embedder.embed(pool), dtype="float64")
    row_of = {normalize_text(text): i for i, text in enumerate(pool)}
    mined = []
    for item in items:
        anchor = row_of[normalize_text(item.answer)]
        sims = vectors @ vectors[anchor]
        order = [int(j) for j in np.argsort(-sims, kind="stable") if j != anchor][:k]
        rng = random.Random(f"{seed}:{item.id}")
        picks = rng.sample(order, min(len(order), n_main + n_spare))
        mined.append(
            MinedItem(
                item=item,
                main=tuple(pool[j] for j in picks[:n_main]),
                spares=tuple(pool[j] for j in picks[n_main:]),
                neighbours=tuple((pool[j], round(float(sims[j]), 6)) for j in order),
            )
        )
    return mined
