"""Metrics of the generated suites that the library has no equivalent for: clock times."""

from __future__ import annotations

import re

from omnieval.errors import MetricError
from omnieval.metrics import register_metric
from omnieval.types import ScoringInput

__all__ = ["clock_time_match", "read_time"]

_TIME = re.compile(r"(?<!\d)(\d{1,2})\s*[:.hч]\s*(\d{2})(?!\d)")


def read_time(text: str) -> tuple[int, int] | None:
    """The first ``H:MM`` (also ``H.MM``, ``Hh MM``, ``Hч MM``) in ``text`` as (hour, minute), or None."""
    found = _TIME.search(text)
    if found is None:
        return None
    hour, minute = int(found.group(1)), int(found.group(2))
    return (hour, minute) if hour <= 24 and minute < 60 else None


@register_metric("clock_time_match")
def clock_time_match(inp: ScoringInput, /, *, twelve_hour: bool = True) -> float:
    """1 if the answer's first ``H:MM`` is the gold time (hours modulo 12: an analogue clock has no AM/PM)."""
    text = inp.response if inp.prediction is None else str(inp.prediction)
    predicted = read_time(text)
    if predicted is None:
        return 0.0
    for target in inp.targets:
        gold = read_time(str(target))
        if gold is None:
            raise MetricError(f"metric 'clock_time_match': gold target {target!r} is not a H:MM time")
        mod = 12 if twelve_hour else 24
        if predicted[1] == gold[1] and predicted[0] % mod == gold[0] % mod:
            return 1.0
    return 0.0
