"""MARKER multiple-choice metrics: strict and lenient accuracy kept apart, plus format compliance.

They read the raw response themselves, so one run reports both protocols side by side.
"""

from __future__ import annotations

from omnieval.errors import MetricError
from omnieval.metrics.base import register_metric
from omnieval.textkit import find_choice, gold_label
from omnieval.types import ScoringInput

__all__ = ["format_compliance", "mc_lenient_accuracy", "mc_strict_accuracy"]

DEFAULT_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _gold(inp: ScoringInput, labels: str, metric: str) -> set[str]:
    golds = {g for t in inp.targets if (g := gold_label(t, labels=labels, choices=inp.choices)) is not None}
    if not golds:
        raise MetricError(
            f"metric {metric!r}: no gold target {list(inp.targets)!r} names an option "
            f"(expected a label from {labels[: len(inp.choices or labels)]!r}, an index or an option text)"
        )
    return golds


def _accuracy(inp: ScoringInput, labels: str, *, strict: bool, metric: str) -> float:
    golds = _gold(inp, labels, metric)
    hit = find_choice(inp.response, labels=labels, choices=inp.choices, strict=strict)
    return 1.0 if hit.label in golds else 0.0


@register_metric("mc_strict_accuracy")
def mc_strict_accuracy(inp: ScoringInput, /, *, labels: str = DEFAULT_LABELS) -> float:
    """1 if the response is exactly the right option letter (MARKER's strict protocol)."""
    return _accuracy(inp, labels, strict=True, metric="mc_strict_accuracy")


@register_metric("mc_lenient_accuracy")
def mc_lenient_accuracy(inp: ScoringInput, /, *, labels: str = DEFAULT_LABELS) -> float:
    """1 if the lenient extractor finds the right option letter anywhere a reader would."""
    return _accuracy(inp, labels, strict=False, metric="mc_lenient_accuracy")


@register_metric("format_compliance")
def format_compliance(inp: ScoringInput, /, *, labels: str = DEFAULT_LABELS) -> float:
    """1 if the response is a bare option letter, right or wrong (instruction following)."""
    hit = find_choice(inp.response, labels=labels, choices=inp.choices, strict=True)
    return 1.0 if hit.label is not None else 0.0
