"""Per-item MSMIA features: the loss gap and embedding gap between a text and each of its neighbours."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from omnieval.protect.msmia.perturb import Filler, perturb
from omnieval.types import Message, Request, Sample
from omnieval.types._base import Frozen
from omnieval.types.content import AudioPart, ImagePart, TextPart, VideoPart

__all__ = ["EmbedFn", "ItemFeatures", "LossFn", "extract_features", "media_request"]

LossFn = Callable[[Request, Sequence[str]], list[float]]
"""``(request carrying the item's media, texts) -> mean per-token loss of each text``."""
EmbedFn = Callable[[Sequence[str]], np.ndarray]
"""``texts -> (n, d)`` embeddings: an ``omnieval.backends.embeddings`` embedder's ``embed``."""

_PARTS: dict[str, Any] = {"image": ImagePart, "audio": AudioPart, "video": VideoPart}


class ItemFeatures(Frozen):
    """One item's features for one model: ``delta_loss[k]`` = L − L'_k, ``delta_embedding[k]`` = e − e'_k."""

    task: str
    sample_id: str
    loss: float
    delta_loss: tuple[float, ...]
    delta_embedding: tuple[tuple[float, ...], ...]
    kinds: tuple[str, ...]

    def matrix(self) -> np.ndarray:
        """``(K, 1 + d)`` rows of [ΔL, Δe] for the detector."""
        return np.column_stack([np.asarray(self.delta_loss), np.asarray(self.delta_embedding)])


def media_request(task: str, sample: Sample) -> Request:
    """A user turn holding only the item's media: the text is then scored as the answer to it."""
    parts = tuple(_PARTS[ref.kind](media=ref) for ref in sample.media)
    content: tuple[Any, ...] = parts or (TextPart(text=""),)
    return Request(task=task, sample_id=sample.id, messages=(Message(role="user", content=content),))


def extract_features(
    items: Iterable[tuple[str, Sample, str]],
    *,
    losses: LossFn,
    embed: EmbedFn,
    k_per_kind: int = 6,
    seed: int = 0,
    fill: Filler | None = None,
) -> list[ItemFeatures]:
    """Features for ``(task, sample, text)`` items; neighbours are seeded per item, so two models see the
    same."""
    out = []
    for index, (task, sample, text) in enumerate(items):
        neighbours = perturb(text, k_per_kind=k_per_kind, seed=seed * 1_000_003 + index, fill=fill)
        if not neighbours:
            continue
        texts = [text, *(n for _, n in neighbours)]
        loss = losses(media_request(task, sample), texts)
        vectors = embed(texts)
        out.append(
            ItemFeatures(
                task=task,
                sample_id=sample.id,
                loss=loss[0],
                delta_loss=tuple(loss[0] - v for v in loss[1:]),
                delta_embedding=tuple(tuple(float(x) for x in vectors[0] - v) for v in vectors[1:]),
                kinds=tuple(kind for kind, _ in neighbours),
            )
        )
    return out
