"""How stable a benchmark score is under resampling of its items.

* :func:`bootstrap_by_task_size` — MEGA-Bench §4.3 (Fig. 7 left): for each n, resample n items per
  task with replacement, take each task's mean and the macro mean over tasks; the spread of that macro
  mean over many repetitions shows how many items per task a stable score needs.
* :func:`macro_bootstrap_ci` — the CI of a macro (unweighted over tasks) mean: every task resampled at
  its own size, tasks independently (a stratified bootstrap), as each task's own CI resamples it.
* :func:`subset_draws` — ART §8.2: draw a fixed-size subset without replacement many times (100 in the
  paper) and report the score's mean ± std, min and max over draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["bootstrap_by_task_size", "macro_bootstrap_ci", "subset_draws"]

FEW_VALUES = 64
"""Up to this many distinct scores a resample is drawn as multinomial counts (exact, and cheap on 100,000
samples)."""


def bootstrap_by_task_size(
    per_task: Mapping[str, Sequence[float]],
    *,
    sizes: Sequence[int] = (3, 5, 7, 9, 11, 13, 15),
    n_resamples: int = 10_000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """One row per n: std and 95 % interval of the macro mean, and the mean per-task std."""
    import numpy as np

    tasks = {name: np.asarray(values, dtype=float) for name, values in per_task.items() if len(values)}
    if not tasks:
        raise ValueError("stability needs at least one task with scored samples")
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        task_means = np.empty((n_resamples, len(tasks)))
        for column, values in enumerate(tasks.values()):
            idx = rng.integers(0, len(values), size=(n_resamples, n))
            task_means[:, column] = values[idx].mean(axis=1)
        macro = task_means.mean(axis=1)
        rows.append(
            {
                "n_per_task": int(n),
                "macro_mean": float(macro.mean()),
                "macro_std": float(macro.std(ddof=1)),
                "ci95": [float(np.quantile(macro, 0.025)), float(np.quantile(macro, 0.975))],
                "mean_task_std": float(task_means.std(axis=0, ddof=1).mean()),
            }
        )
    return rows


def subset_draws(values: Sequence[float], *, size: int, draws: int = 100, seed: int = 0) -> dict[str, Any]:
    """Mean score over ``draws`` random subsets of ``size`` items (without replacement)."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    if not 0 < size <= len(data):
        raise ValueError(f"subset size {size} must be between 1 and the number of items ({len(data)})")
    rng = np.random.default_rng(seed)
    means = np.array([data[rng.choice(len(data), size=size, replace=False)].mean() for _ in range(draws)])
    return {
        "size": size,
        "draws": draws,
        "full_mean": float(data.mean()),
        "mean": float(means.mean()),
        "std": float(means.std(ddof=1)) if draws > 1 else 0.0,
        "min": float(means.min()),
        "max": float(means.max()),
    }


def macro_bootstrap_ci(
    per_task: Sequence[Sequence[float]], *, n_resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float] | None:
    """Percentile CI of the unweighted mean of task means, resampling each task's items with replacement.

    Resampling n items from a task is the same as drawing how often each distinct score occurs
    (multinomial over the distinct values), which costs O(distinct values) per resample instead of O(n).
    ``None`` when a task has fewer than two items (no spread to resample).
    """
    import numpy as np

    from omnieval.aggregate import resampled_means

    if not per_task or any(len(values) < 2 for values in per_task):
        return None
    rng = np.random.default_rng(seed)
    total = np.zeros(n_resamples)
    for values in per_task:
        data = np.asarray(values, dtype=float)
        distinct, counts = np.unique(data, return_counts=True)
        if len(distinct) <= FEW_VALUES:
            total += rng.multinomial(len(data), counts / len(data), size=n_resamples) @ distinct / len(data)
            continue
        total += resampled_means(data, rng=rng, n_resamples=n_resamples)
    macro = total / len(per_task)
    alpha = (1 - level) / 2
    return float(np.quantile(macro, alpha)), float(np.quantile(macro, 1 - alpha))
