"""Metrics over judge values: a judge value under another key or aggregation (e.g. Group JS)."""

from __future__ import annotations

from omnieval.errors import MetricError
from omnieval.metrics.base import register_metric
from omnieval.types import ScoringInput

__all__ = ["judge_value"]


@register_metric("judge_value")
def judge_value(inp: ScoringInput, /, *, key: str = "js") -> float:
    """The sample's judge value ``key``, e.g. to aggregate JS per group (``judge.metrics`` only)."""
    if key not in inp.judgements:
        raise MetricError(
            f"metric 'judge_value': no judge value {key!r} (judged keys: {sorted(inp.judgements)})"
        )
    value = inp.judgements[key]
    if not 0.0 <= value <= 1.0:
        raise MetricError(f"metric 'judge_value': judge value {key!r} = {value} is outside [0, 1]")
    return value
