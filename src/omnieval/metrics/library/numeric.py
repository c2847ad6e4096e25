"""Numeric answers compared within tolerance, however the number was written."""

from __future__ import annotations

import functools
import math

from omnieval.errors import MetricError
from omnieval.metrics.base import register_metric
from omnieval.metrics.library._common import as_text
from omnieval.textkit import answer_region, find_numbers, parse_number
from omnieval.types import ScoringInput

__all__ = ["numeric_match"]


@functools.lru_cache(maxsize=4096)
def _target_values(text: str) -> tuple[float, ...] | None:
    number = parse_number(text)
    return None if number is None else number.candidates()


def _gold_values(target: object) -> tuple[float, ...]:
    if isinstance(target, int | float) and not isinstance(target, bool):
        return (float(target),)
    values = _target_values(as_text(target))
    if values is None:
        raise MetricError(f"metric 'numeric_match': gold target {target!r} is not a single number")
    return values


def _predicted_values(inp: ScoringInput) -> tuple[float, ...]:
    pred = inp.prediction
    if isinstance(pred, int | float) and not isinstance(pred, bool):
        return (float(pred),) if math.isfinite(pred) else ()
    region, _ = answer_region(as_text(pred) if pred is not None else inp.response)
    numbers = find_numbers(region)
    return numbers[-1].candidates() if numbers else ()


@register_metric("numeric_match")
def numeric_match(inp: ScoringInput, /, *, rel_tol: float = 1e-6, abs_tol: float = 1e-9) -> float:
    """1 if the predicted number equals a gold number within ``rel_tol``/``abs_tol``.

    The prediction is the parser's number, else the last number of the response's answer region
    (``\\boxed{}``, text after ANSWER/ОТВЕТ, or all of it). ``50%`` may stand for 50 or 0.5.
    """
    if rel_tol < 0 or abs_tol < 0:
        raise MetricError(f"metric 'numeric_match': tolerances must be >= 0, got {rel_tol=}, {abs_tol=}")
    if not inp.targets:
        raise MetricError("metric 'numeric_match': the sample has no gold targets to compare against")
    predicted = _predicted_values(inp)
    for target in inp.targets:
        for gold in _gold_values(target):
            if any(math.isclose(p, gold, rel_tol=rel_tol, abs_tol=abs_tol) for p in predicted):
                return 1.0
    return 0.0
