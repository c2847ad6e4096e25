"""Log-likelihood of each choice given the prompt (multiple choice by loglikelihood, as in lm-eval)."""

from __future__ import annotations

import time
from typing import Any

from omnieval.backends.hf.loading import Loaded
from omnieval.errors import BackendError
from omnieval.types import Response, Usage

__all__ = ["LABELS", "conditioned_nll", "continuation_ids", "score_choices"]

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""The answer text is the label of the most likely choice."""


def continuation_ids(
    tokenizer: Any, prompt: str, continuation: str, *, special: bool
) -> tuple[list[int], list[int]]:
    """(context ids, continuation ids); tokenised jointly when that keeps the context a prefix."""
    ctx = list(tokenizer(prompt, add_special_tokens=special)["input_ids"])
    full = list(tokenizer(prompt + continuation, add_special_tokens=special)["input_ids"])
    if full[: len(ctx)] == ctx and len(full) > len(ctx):
        return ctx, full[len(ctx) :]
    return ctx, list(tokenizer(continuation, add_special_tokens=False)["input_ids"])


def _sum_logprobs(loaded: Loaded, pairs: list[tuple[list[int], list[int]]]) -> list[float]:
    """One forward pass over right-padded ``context + continuation`` rows."""
    import torch

    pad = loaded.tokenizer.pad_token_id or 0
    width = max(len(c) + len(k) for c, k in pairs)
    ids = torch.full((len(pairs), width), pad, dtype=torch.long)
    mask = torch.zeros((len(pairs), width), dtype=torch.long)
    for i, (c, k) in enumerate(pairs):
        row = c + k
        ids[i, : len(row)] = torch.tensor(row)
        mask[i, : len(row)] = 1
    with torch.inference_mode():
        logits = loaded.model(input_ids=ids.to(loaded.device), attention_mask=mask.to(loaded.device)).logits
    logp = torch.log_softmax(logits.float(), dim=-1).cpu()
    out = []
    for i, (c, k) in enumerate(pairs):
        pos = torch.arange(len(c) - 1, len(c) + len(k) - 1)
        out.append(float(logp[i, pos, torch.tensor(k)].sum()))
    return out


def score_choices(
    loaded: Loaded, *, prompt: str, continuations: tuple[str, ...], sample_id: str, chunk: int = 8
) -> Response:
    """Score every continuation; answer with the label of the highest total log-probability."""
    if not continuations:
        raise BackendError(
            f"sample {sample_id!r}: loglikelihood request without continuations", retryable=False
        )
    if len(continuations) > len(LABELS):
        raise BackendError(f"sample {sample_id!r}: {len(continuations)} choices exceed {len(LABELS)} labels")
    bos = getattr(loaded.tokenizer, "bos_token", None)
    special = not (bos and prompt.startswith(bos))
    pairs = [continuation_ids(loaded.tokenizer, prompt, c, special=special) for c in continuations]
    if any(not c for c, _ in pairs):
        raise BackendError(
            f"sample {sample_id!r}: empty prompt cannot condition a loglikelihood", retryable=False
        )
    started = time.perf_counter()
    scores: list[float] = []
    for start in range(0, len(pairs), max(1, chunk)):
        scores.extend(_sum_logprobs(loaded, pairs[start : start + chunk]))
    best = max(range(len(scores)), key=scores.__getitem__)
    norm = [s / max(1, len(c)) for s, c in zip(scores, continuations, strict=True)]
    return Response(
        text=LABELS[best],
        logprobs=tuple(scores),
        latency_s=time.perf_counter() - started,
        usage=Usage(prompt_tokens=len(pairs[0][0]), completion_tokens=0),
        extra={"logprobs_per_char": norm, "continuation_tokens": [len(k) for _, k in pairs]},
    )


def conditioned_nll(loaded: Loaded, *, prompt: str, text: str, encode: Any, sample_id: str) -> float:
    """Mean negative log-likelihood per token of ``text`` right after ``prompt`` (media already in it).

    ``encode(full_text)`` returns the model inputs for ``prompt + text`` with the request's media, so
    image, audio and video tokens condition the loss exactly as they condition generation; the text's
    tokens are the last ones of the row.
    """
    import torch

    bos = getattr(loaded.tokenizer, "bos_token", None)
    special = not (bos and prompt.startswith(bos))
    _, cont = continuation_ids(loaded.tokenizer, prompt, text, special=special)
    if not cont:
        raise BackendError(f"sample {sample_id!r}: empty text has no loss", retryable=False)
    enc = encode(prompt + text)
    with torch.inference_mode():
        logits = loaded.model(**enc).logits[0]
    ids = enc["input_ids"][0]
    n = min(len(cont), ids.shape[0] - 1)
    logp = torch.log_softmax(logits[-n - 1 : -1].float(), dim=-1)
    return float(-logp[torch.arange(n), ids[-n:]].mean())
