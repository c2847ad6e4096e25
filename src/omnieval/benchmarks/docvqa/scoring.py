"""ANLS as the RRC DocVQA/InfographicVQA evaluation script computes it (threshold 0.5).

Per question: for every ground-truth answer, the normalised Levenshtein distance between the
lower-cased, whitespace-collapsed answer and prediction; the question scores ``1 - min(distance)``,
or 0 below the threshold. The task score is the mean over questions.

Parity quirk (RRC script; lmms-eval's ``anls`` copies it): the distance is taken between the
*normalised* strings but divided by the length of the *raw* strings (``len(s.upper())``), so
surrounding or doubled whitespace in the prediction lowers the distance ratio, and a character
whose upper case is longer (``ß`` → ``SS``) lengthens the denominator. ``strict=True`` divides by
the normalised lengths.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz.distance import Levenshtein

__all__ = ["ANLS_THRESHOLD", "anls"]

ANLS_THRESHOLD = 0.5


def _normalise(text: str) -> str:
    return " ".join(text.strip().lower().split())


def anls(
    prediction: str, answers: Sequence[str], *, threshold: float = ANLS_THRESHOLD, strict: bool = False
) -> float:
    """The ANLS of one prediction against its ground-truth answers (at least one)."""
    if not answers:
        raise ValueError("ANLS needs at least one ground-truth answer")
    predicted = _normalise(prediction)
    best = 1.0
    for answer in answers:
        expected = _normalise(answer)
        distance = Levenshtein.distance(expected, predicted)
        if strict:
            length = max(len(expected), len(predicted))
        else:
            length = max(len(answer.upper()), len(prediction.upper()))
        best = min(best, 0.0 if length == 0 else distance / length)
    score = 1.0 - best
    return 0.0 if score < threshold else score
