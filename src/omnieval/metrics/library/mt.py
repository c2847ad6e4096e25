"""Corpus-style MT and ASR metrics at sentence level: BLEU, chrF (sacrebleu) and WER (jiwer)."""

from __future__ import annotations

import functools
from typing import Any

from omnieval.errors import MetricError
from omnieval.metrics.base import register_metric
from omnieval.metrics.library._common import prediction_text, target_texts
from omnieval.textkit import normalize_text
from omnieval.types import ScoringInput

__all__ = ["bleu", "chrf", "wer"]


@functools.lru_cache(maxsize=16)
def _bleu_scorer(tokenize: str) -> Any:
    from sacrebleu.metrics import BLEU

    try:
        return BLEU(effective_order=True, tokenize=tokenize)
    except Exception as exc:  # sacrebleu raises bare errors for unknown tokenizers
        raise MetricError(f"metric 'bleu': bad tokenize={tokenize!r}: {exc}") from exc


@functools.lru_cache(maxsize=16)
def _chrf_scorer(word_order: int) -> Any:
    from sacrebleu.metrics import CHRF

    return CHRF(word_order=word_order)


def _unit(score: float) -> float:
    return min(1.0, max(0.0, score / 100.0))


@register_metric("bleu")
def bleu(inp: ScoringInput, /, *, tokenize: str = "13a") -> float:
    """Sentence BLEU (sacrebleu, effective order) against all golds as references, scaled to [0, 1]."""
    refs = target_texts(inp, metric="bleu")
    return _unit(_bleu_scorer(tokenize).sentence_score(prediction_text(inp), refs).score)


@register_metric("chrf")
def chrf(inp: ScoringInput, /, *, word_order: int = 0) -> float:
    """Sentence chrF (``word_order=2`` gives chrF++) against all golds, scaled to [0, 1]."""
    if word_order < 0:
        raise MetricError(f"metric 'chrf': word_order must be >= 0, got {word_order}")
    refs = target_texts(inp, metric="chrf")
    return _unit(_chrf_scorer(word_order).sentence_score(prediction_text(inp), refs).score)


def _wer_one(reference: str, hypothesis: str) -> float:
    if not reference.split():
        return 0.0 if not hypothesis.split() else 1.0
    if not hypothesis.split():
        return 1.0
    import jiwer

    return min(1.0, float(jiwer.wer(reference, hypothesis)))


@register_metric("wer", higher_is_better=False)
def wer(inp: ScoringInput, /, *, normalize: bool = True) -> float:
    """Word error rate capped at 1 (lower is better), best gold; normalised text by default."""
    hyp = prediction_text(inp)
    hyp = normalize_text(hyp) if normalize else hyp.strip()
    best = 1.0
    for ref in target_texts(inp, metric="wer"):
        best = min(best, _wer_one(normalize_text(ref) if normalize else ref.strip(), hyp))
    return best
