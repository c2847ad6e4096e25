"""Judge-versus-reference numbers over paired scores: MAE, mean bias, tie-corrected Spearman ρ and
confusion matrices. Real-valued predictions are rounded half-up for the confusion matrix."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["confusion_matrix", "mean_absolute_error", "mean_bias", "round_half_up", "spearman"]


def _paired(pred: Sequence[float], ref: Sequence[float]) -> None:
    if len(pred) != len(ref):
        raise ValueError(f"paired scores differ in length: {len(pred)} vs {len(ref)}")


def mean_absolute_error(pred: Sequence[float], ref: Sequence[float]) -> float | None:
    """mean |pred − ref|; ``None`` for no pairs (never a silent 0)."""
    _paired(pred, ref)
    if not pred:
        return None
    return sum(abs(float(p) - float(r)) for p, r in zip(pred, ref, strict=True)) / len(pred)


def mean_bias(pred: Sequence[float], ref: Sequence[float]) -> float | None:
    """mean (pred − ref): positive when the judge over-rates."""
    _paired(pred, ref)
    if not pred:
        return None
    return sum(float(p) - float(r) for p, r in zip(pred, ref, strict=True)) / len(pred)


def _average_ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Tie-corrected Spearman ρ (Pearson correlation of average ranks).

    ``None`` when it is undefined: fewer than two pairs or a constant side.
    """
    _paired(x, y)
    if len(x) < 2:
        return None
    rx, ry = _average_ranks([float(v) for v in x]), _average_ranks([float(v) for v in y])
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def round_half_up(value: float) -> int:
    """0.5 → 1, 1.5 → 2 (Python's round() would give 0 and 2)."""
    return math.floor(float(value) + 0.5)


def confusion_matrix(
    ref: Sequence[float], pred: Sequence[float], *, labels: Sequence[int]
) -> dict[str, object]:
    """Rows = reference (expert mode), columns = rounded prediction; out-of-label values counted apart."""
    _paired(pred, ref)
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    outside = 0
    for r, p in zip(ref, pred, strict=True):
        ri, pi = index.get(round_half_up(r)), index.get(round_half_up(p))
        if ri is None or pi is None:
            outside += 1
            continue
        matrix[ri][pi] += 1
    return {"labels": list(labels), "matrix": matrix, "n_outside_labels": outside}
