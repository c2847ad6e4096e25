"""OCRBench's scoring loop (``OCRBench/example.py`` of Yuliang-Liu/MultimodalOCR), as functions.

A question scores 1 when any ground-truth answer, normalised, is a *substring* of the normalised
prediction, else 0. Normalisation: lower-case, strip, newlines to spaces — except for the HME100k
handwritten-formula questions, which keep case and drop every space. The script reports the sum per
question type and a final score out of 1,000 (the task score here is that sum over the number of
questions, i.e. the final score / 1,000 on the full set).

Parity quirks, reproduced: an empty ground-truth answer matches every prediction; a short answer
matches inside a longer wrong one (``"1"`` in ``"10"``); full-width characters are compared as they
are. ``strict=True`` folds full-width ASCII and the ideographic space to ASCII first (lmms-eval's
later fix).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["FORMULA_DATASET", "QUESTION_TYPES", "RECOGNITION_TYPES", "ocrbench_hit"]

FORMULA_DATASET = "HME100k"
RECOGNITION_TYPES = (
    "Regular Text Recognition",
    "Irregular Text Recognition",
    "Artistic Text Recognition",
    "Handwriting Recognition",
    "Digit String Recognition",
    "Non-Semantic Text Recognition",
)
QUESTION_TYPES = (
    *RECOGNITION_TYPES,
    "Scene Text-centric VQA",
    "Doc-oriented VQA",
    "Key Information Extraction",
    "Handwritten Mathematical Expression Recognition",
)
_FULLWIDTH_OFFSET = 0xFEE0


def _fold_fullwidth(text: str) -> str:
    return "".join(
        chr(ord(c) - _FULLWIDTH_OFFSET) if 0xFF01 <= ord(c) <= 0xFF5E else " " if c == "\u3000" else c
        for c in text
    )


def _normal(text: str, *, formula: bool) -> str:
    if formula:
        return text.strip().replace("\n", " ").replace(" ", "")
    return text.lower().strip().replace("\n", " ")


def ocrbench_hit(prediction: str, answers: Sequence[str], *, dataset: str, strict: bool = False) -> float:
    """1.0 when a normalised answer occurs in the normalised prediction, else 0.0."""
    formula = dataset == FORMULA_DATASET
    if strict and not formula:
        prediction, answers = _fold_fullwidth(prediction), [_fold_fullwidth(a) for a in answers]
    predicted = _normal(prediction, formula=formula)
    return 1.0 if any(_normal(answer, formula=formula) in predicted for answer in answers) else 0.0
