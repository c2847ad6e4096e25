"""Task-level aggregations: plain mean and all-or-nothing groups (CircularEval, ruHHH Group EM)."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from omnieval.errors import MetricError
from omnieval.metrics.base import register_aggregation
from omnieval.types import SampleResult

__all__ = ["group_all", "group_counts", "mean"]

_ONE = 1.0 - 1e-9


@register_aggregation("mean")
def mean(values: Sequence[float], results: Sequence[SampleResult], /) -> float:
    """Mean of the per-sample values; 0.0 for a task with no scored samples."""
    return float(sum(values) / len(values)) if values else 0.0


def _groups(
    values: Sequence[float], results: Sequence[SampleResult], key: str | None
) -> tuple[dict[Hashable, bool], set[Hashable]]:
    """Each group's all-1 verdict and the undecided groups (those holding a NaN value)."""
    if not key:
        raise MetricError(
            "aggregation 'group_all' needs option 'key' (the metadata key naming each sample's group)"
        )
    if len(values) != len(results):
        raise MetricError(f"aggregation 'group_all': {len(values)} values but {len(results)} results")
    groups: dict[Hashable, bool] = {}
    undecided: set[Hashable] = set()
    for i, (value, result) in enumerate(zip(values, results, strict=True)):
        raw = result.metadata.get(key)
        group: Hashable = ("__single__", i) if raw is None else _hashable(raw)
        groups[group] = groups.get(group, True) and value >= _ONE
        if math.isnan(value):
            undecided.add(group)
    return groups, undecided


def group_counts(
    values: Sequence[float], results: Sequence[SampleResult], /, *, key: str | None = None
) -> tuple[int, int]:
    """(groups counted, groups left out as undecided) of :func:`group_all` over the same input."""
    groups, undecided = _groups(values, results, key)
    return len(groups) - len(undecided), len(undecided)


@register_aggregation("group_all", groups=group_counts)
def group_all(
    values: Sequence[float], results: Sequence[SampleResult], /, *, key: str | None = None
) -> float:
    """Mean over groups, where a group scores 1 only if every one of its samples scored 1.

    Groups are ``results[i].metadata[key]``; a sample without that key is a group of its own. A NaN value
    is a sample with no value (a ``judge_failed`` sample's judge value): its group is undecided and left
    out, never credited; NaN when every group is undecided.
    """
    groups, undecided = _groups(values, results, key)
    decided = [ok for group, ok in groups.items() if group not in undecided]
    if groups and not decided:
        return math.nan
    return sum(decided) / len(decided) if decided else 0.0


def _hashable(value: object) -> Hashable:
    return value if isinstance(value, Hashable) else repr(value)
