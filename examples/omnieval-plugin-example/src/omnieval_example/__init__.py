"""An example omnieval plugin: the task ``example_sums`` and the metric ``example.digit_sum``."""

from __future__ import annotations

from pathlib import Path

from omnieval.metrics import register_metric
from omnieval.sources.catalog import register_task_dir
from omnieval.types import ScoringInput

register_task_dir(Path(__file__).parent / "tasks")


@register_metric("example.digit_sum", version="1")
def digit_sum(inp: ScoringInput, /) -> float:
    """1 when the digits of the answer add up to the digits of the gold answer (order is ignored)."""

    def total(text: object) -> int:
        return sum(int(ch) for ch in str(text) if ch.isdigit())

    return float(any(total(inp.prediction) == total(target) for target in inp.targets))
