"""Token-overlap metrics written for Cyrillic: SQuAD token F1 and ROUGE-L on Unicode word tokens."""

from __future__ import annotations

from collections import Counter

from omnieval.metrics.base import register_metric
from omnieval.metrics.library._common import prediction_text, target_texts
from omnieval.textkit import tokens
from omnieval.types import ScoringInput

__all__ = ["lcs_length", "rouge_l", "token_f1"]

MAX_TOKENS = 2000
"""ROUGE-L's LCS is quadratic; longer texts are cut to their first this many tokens."""


def _f1(common: int, n_pred: int, n_gold: int) -> float:
    if n_pred == 0 or n_gold == 0:
        return 1.0 if n_pred == n_gold else 0.0
    if common == 0:
        return 0.0
    precision, recall = common / n_pred, common / n_gold
    return 2 * precision * recall / (precision + recall)


@register_metric("token_f1")
def token_f1(inp: ScoringInput, /) -> float:
    """SQuAD-style token F1 (case, punctuation, ё→е and English articles ignored), max over golds."""
    pred = tokens(prediction_text(inp), drop_articles=True)
    pred_counts = Counter(pred)
    best = 0.0
    for gold_text in target_texts(inp, metric="token_f1"):
        gold = tokens(gold_text, drop_articles=True)
        common = sum((pred_counts & Counter(gold)).values())
        best = max(best, _f1(common, len(pred), len(gold)))
    return best


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence of two token lists (O(len(a)·len(b)) time)."""
    if len(a) < len(b):
        a, b = b, a
    previous = [0] * (len(b) + 1)
    for token in a:
        current = [0]
        for j, other in enumerate(b):
            current.append(previous[j] + 1 if token == other else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


@register_metric("rouge_l")
def rouge_l(inp: ScoringInput, /) -> float:
    """ROUGE-L F1 over Unicode word tokens (keeps Cyrillic, unlike ``rouge-score``), max over golds."""
    pred = tokens(prediction_text(inp))[:MAX_TOKENS]
    best = 0.0
    for gold_text in target_texts(inp, metric="rouge_l"):
        gold = tokens(gold_text)[:MAX_TOKENS]
        best = max(best, _f1(lcs_length(pred, gold), len(pred), len(gold)))
    return best
