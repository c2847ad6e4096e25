"""Metric stage: per-sample metrics and task-level aggregations, one registry each."""

from omnieval.metrics.base import (
    Aggregation,
    BoundMetric,
    MetricDef,
    aggregations,
    bind_metric,
    metrics,
    register_aggregation,
    register_metric,
)

__all__ = [
    "Aggregation",
    "BoundMetric",
    "MetricDef",
    "aggregations",
    "bind_metric",
    "metrics",
    "register_aggregation",
    "register_metric",
]
