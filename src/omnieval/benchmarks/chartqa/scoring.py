"""ChartQA relaxed accuracy, reproducing lmms-eval's ``relaxed_correctness`` (quirks included).

Parity rules (lmms-eval ``tasks/chartqa/utils.py``):

- a number is whatever Python's ``float()`` accepts (so ``" 12\\n"``, ``"1e3"``, ``"nan"`` and
  ``"1_000"`` are numbers, ``"1,000"`` and ``"$12"`` are not); a trailing ``%`` divides by 100;
- numeric comparison only when the *prediction* parses and the *target* parses to a non-zero number:
  then within 5 % relative change;
- otherwise case-insensitive string equality on the raw strings (a target of ``0`` is therefore
  compared as text: ``"0.0"`` does not match ``"0"``; a trailing space or period fails).

``strict=True`` fixes what is a bug rather than a convention: surrounding whitespace and a final
period are stripped, thousands separators (``1,234``) are read, and a zero target is compared as
a number (exact equality).
"""

from __future__ import annotations

import re

__all__ = ["MAX_RELATIVE_CHANGE", "relaxed_correct"]

MAX_RELATIVE_CHANGE = 0.05
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?%?$")


def _as_number(text: str, *, strict: bool) -> float | None:
    if strict and _THOUSANDS.match(text):
        text = text.replace(",", "")
    try:
        if text.endswith("%"):
            return float(text.rstrip("%")) / 100.0
        return float(text)
    except ValueError:
        return None


def _tidy(text: str) -> str:
    text = text.strip()
    return text[:-1].rstrip() if text.endswith(".") else text


def relaxed_correct(prediction: str, target: str, *, strict: bool = False) -> bool:
    """Whether ``prediction`` is right under ChartQA's relaxed accuracy (5 % for numbers)."""
    if strict:
        prediction, target = _tidy(prediction), _tidy(target)
    predicted = _as_number(prediction, strict=strict)
    expected = _as_number(target, strict=strict)
    if predicted is not None and expected:
        return abs(predicted - expected) / abs(expected) <= MAX_RELATIVE_CHANGE
    if strict and predicted is not None and expected is not None:
        return predicted == expected
    return prediction.lower() == target.lower()
