"""Aggregation: results from stored records only (never a model call)."""

from omnieval.aggregate.results import (
    bootstrap_ci,
    compute_results,
    resampled_means,
    sample_has_score,
    task_results,
)
from omnieval.aggregate.schemes import labelled, register_scheme, schemes
from omnieval.aggregate.settle import settle_file, settle_records

__all__ = [
    "bootstrap_ci",
    "compute_results",
    "labelled",
    "register_scheme",
    "resampled_means",
    "sample_has_score",
    "schemes",
    "settle_file",
    "settle_records",
    "task_results",
]
