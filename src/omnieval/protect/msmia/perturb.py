"""Text neighbours: masking with a fill model, deletion, duplication and swap of random words."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["KINDS", "Filler", "perturb"]

KINDS = ("mask", "delete", "duplicate", "swap")
Filler = Callable[[list[str], list[int]], list[str]]
"""``(words, masked positions) -> words`` with those positions re-predicted by a fill model."""


def _positions(rng: np.random.Generator, n_words: int, share: float) -> list[int]:
    count = max(1, round(n_words * share))
    return sorted(rng.choice(n_words, size=min(count, n_words), replace=False).tolist())


def _one(
    words: list[str], kind: str, rng: np.random.Generator, share: float, fill: Filler | None
) -> list[str]:
    picked = _positions(rng, len(words), share)
    if kind == "delete":
        kept = [w for i, w in enumerate(words) if i not in set(picked)]
        return kept or words[:1]
    if kind == "duplicate":
        return [x for i, w in enumerate(words) for x in ((w, w) if i in set(picked) else (w,))]
    if kind == "swap":
        out = list(words)
        for i in picked:
            j = int(rng.integers(len(words)))
            out[i], out[j] = out[j], out[i]
        return out
    if fill is None:
        raise ValueError("mask perturbation needs a fill model")
    return fill(list(words), picked)


def perturb(
    text: str, *, k_per_kind: int = 6, seed: int = 0, share: float = 0.15, fill: Filler | None = None
) -> list[tuple[str, str]]:
    """``(kind, neighbour)`` pairs: ``k_per_kind`` of each kind (masking only when ``fill`` is given).

    A neighbour identical to the text (e.g. a swap of equal words) is kept: dropping it would change K
    per item and bias the per-item mean.
    """
    words = text.split()
    if not words:
        return []
    rng = np.random.default_rng(seed)
    kinds = [k for k in KINDS if k != "mask" or fill is not None]
    return [
        (kind, " ".join(_one(words, kind, rng, share, fill))) for kind in kinds for _ in range(k_per_kind)
    ]


def masked_lm_filler(model_path: str, *, device: str = "cpu") -> Filler:
    """A filler from a local masked-LM folder (BERT-style): each masked word becomes the top prediction."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_path, local_files_only=True)
    model = AutoModelForMaskedLM.from_pretrained(model_path, local_files_only=True).to(device).eval()

    def fill(words: list[str], positions: list[int]) -> list[str]:
        masked = [tokenizer.mask_token if i in set(positions) else w for i, w in enumerate(words)]
        enc = tokenizer(" ".join(masked), return_tensors="pt", truncation=True).to(device)
        with torch.inference_mode():
            logits = model(**enc).logits[0]
        slots = (enc["input_ids"][0] == tokenizer.mask_token_id).nonzero().flatten().tolist()
        guesses = [str(tokenizer.decode([int(logits[s].argmax())])).strip() or "_" for s in slots]
        out, it = list(words), iter(guesses)
        for i in positions:
            out[i] = next(it, words[i])
        return out

    return fill
