"""Chance-corrected reliability: Krippendorff's α (the ``krippendorff`` package) and Dawid–Skene
label aggregation (EM over per-rater confusion matrices). POLLUX reports neither (it prefers Verdict
Confidence for interpretability); they are extras for readers who want them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from omnieval.errors import ConfigError

__all__ = ["dawid_skene", "krippendorff_alpha"]

Units = Mapping[Any, Mapping[str, float]]
"""unit → rater → value."""


def krippendorff_alpha(
    units: Units, *, level: Literal["nominal", "ordinal", "interval", "ratio"] = "ordinal"
) -> float | None:
    """α over units rated by two or more raters; ``None`` when no unit has two ratings or all agree
    trivially."""
    import numpy as np

    rated = {u: r for u, r in units.items() if len(r) >= 2}
    if not rated:
        return None
    raters = sorted({a for r in rated.values() for a in r})
    index = {a: i for i, a in enumerate(raters)}
    data = np.full((len(raters), len(rated)), np.nan)
    for column, scores in enumerate(rated.values()):
        for rater, value in scores.items():
            data[index[rater], column] = float(value)
    values = np.unique(data[~np.isnan(data)])
    if len(values) < 2:
        return None
    try:
        import krippendorff
    except ImportError:
        raise ConfigError(
            "Krippendorff's alpha needs `pip install omnieval[analysis]` (the krippendorff package)"
        ) from None
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=values))


def dawid_skene(
    units: Units, *, labels: Sequence[int], iterations: int = 50, tolerance: float = 1e-6
) -> dict[str, Any]:
    """Dawid & Skene (1979): each rater has a confusion matrix; EM estimates class priors, the matrices
    and each unit's posterior. Initialised from per-unit vote shares (majority voting)."""
    import numpy as np

    unit_ids = list(units)
    raters = sorted({a for r in units.values() for a in r})
    k = len(labels)
    li = {label: i for i, label in enumerate(labels)}
    ri = {a: i for i, a in enumerate(raters)}
    counts = np.zeros((len(unit_ids), len(raters), k))
    for u, unit in enumerate(unit_ids):
        for rater, value in units[unit].items():
            counts[u, ri[rater], li[int(value)]] += 1
    post = counts.sum(axis=1) + 1e-9
    post /= post.sum(axis=1, keepdims=True)
    for _ in range(iterations):
        prior = post.mean(axis=0)
        confusion = np.einsum("uc,urk->rck", post, counts) + 1e-6
        confusion /= confusion.sum(axis=2, keepdims=True)
        log_post = np.log(prior)[None, :] + np.einsum("urk,rck->uc", counts, np.log(confusion))
        log_post -= log_post.max(axis=1, keepdims=True)
        new = np.exp(log_post)
        new /= new.sum(axis=1, keepdims=True)
        done = np.abs(new - post).max() < tolerance
        post = new
        if done:
            break
    return {
        "labels": list(labels),
        "prior": post.mean(axis=0).tolist(),
        "posterior": {unit: post[u].tolist() for u, unit in enumerate(unit_ids)},
        "estimate": {unit: labels[int(post[u].argmax())] for u, unit in enumerate(unit_ids)},
        "rater_accuracy": {r: float(np.trace(confusion[ri[r]]) / k) for r in raters},
    }
