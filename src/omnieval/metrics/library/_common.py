"""Small helpers shared by the library metrics."""

from __future__ import annotations

from typing import Any

from omnieval.errors import MetricError
from omnieval.types import ScoringInput

__all__ = ["as_text", "prediction_text", "target_texts"]


def as_text(value: Any) -> str:
    """A value as answer text: integral floats lose their ``.0``, ``None`` is empty."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else str(value)


def prediction_text(inp: ScoringInput) -> str:
    """The parser's prediction as text, or the raw response when nothing was extracted."""
    return as_text(inp.prediction) if inp.prediction is not None else inp.response


def target_texts(inp: ScoringInput, *, metric: str) -> list[str]:
    """The gold answers as text; a sample without any is a caller error, not a zero."""
    texts = [as_text(t) for t in inp.targets if t is not None]
    if not texts:
        raise MetricError(f"metric {metric!r}: the sample has no gold targets to compare against")
    return texts
