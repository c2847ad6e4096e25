"""String-match metrics: exact match (with MERA's ANSWER rule) and containment."""

from __future__ import annotations

from omnieval.metrics.base import register_metric
from omnieval.metrics.library._common import prediction_text, target_texts
from omnieval.textkit import normalize_text
from omnieval.textkit.marker import with_marker_tail
from omnieval.types import ScoringInput

__all__ = ["contains", "exact_match"]


def _clean(text: str, normalize: bool) -> str:
    return normalize_text(text) if normalize else text.strip()


@register_metric("exact_match")
def exact_match(inp: ScoringInput, /, *, normalize: bool = True, answer_marker: bool = False) -> float:
    """1 if the prediction equals any gold answer (normalised: NFKC, case, punctuation, spaces, ё→е).

    With ``answer_marker`` the score is the max of the whole answer's EM and the EM of the text
    after the last ANSWER/ОТВЕТ marker (MERA's rule).
    """
    text = prediction_text(inp)
    golds = {_clean(t, normalize) for t in target_texts(inp, metric="exact_match")}
    candidates = with_marker_tail(text) if answer_marker else [text]
    return 1.0 if any(_clean(c, normalize) in golds for c in candidates) else 0.0


@register_metric("contains")
def contains(inp: ScoringInput, /, *, normalize: bool = True, whole_words: bool = True) -> float:
    """1 if any gold answer occurs inside the response (whole words by default)."""
    text = _clean(prediction_text(inp), normalize)
    pad = " " if whole_words else ""
    hay = f"{pad}{text}{pad}"
    for gold in target_texts(inp, metric="contains"):
        needle = _clean(gold, normalize)
        if needle and f"{pad}{needle}{pad}" in hay:
            return 1.0
    return 0.0
