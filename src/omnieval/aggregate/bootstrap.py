"""Percentile bootstrap of a mean, in bounded memory (the CIs of results.json and of the live tail)."""

from __future__ import annotations

from typing import Any

__all__ = ["bootstrap_ci", "resampled_means"]


_RESAMPLE_CHUNK = 250_000
"""Indices drawn at once: 4 MB of indices and gathered values, not 32 MB (the run's peak RSS). The draws
do not depend on the chunk (the generator keeps its state between calls), so neither do the CIs."""


def resampled_means(data: Any, *, rng: Any, n_resamples: int) -> Any:
    """The means of ``n_resamples`` resamples of ``data`` (a numpy array) with replacement, drawn with
    ``rng`` in chunks of at most ``_RESAMPLE_CHUNK`` indices so memory stays bounded on large tasks."""
    import numpy as np

    means = np.empty(n_resamples)
    chunk = max(1, _RESAMPLE_CHUNK // len(data))
    for start in range(0, n_resamples, chunk):
        stop = min(n_resamples, start + chunk)
        means[start:stop] = data[rng.integers(0, len(data), size=(stop - start, len(data)))].mean(axis=1)
    return means


def bootstrap_ci(
    values: list[float], *, n_resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float] | None:
    """Percentile bootstrap CI of the mean; ``None`` for fewer than two values."""
    if len(values) < 2:
        return None
    import numpy as np

    means = resampled_means(
        np.asarray(values, dtype=float), rng=np.random.default_rng(seed), n_resamples=n_resamples
    )
    alpha = (1 - level) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))
