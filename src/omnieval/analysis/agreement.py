"""Agreement within one item's labels: the unique mode, Verdict Confidence (the largest share of
raters giving the same label), its chance level, and the judge-substitution procedure that asks
whether a judge could stand in for one of the raters (POLLUX, App. D.2.2)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

__all__ = [
    "judge_substitution_vc",
    "judge_substitution_vc_exact",
    "unique_mode",
    "vc_band",
    "vc_random_baseline",
    "verdict_confidence",
]

Label = int | float | str


def _counts(labels: Sequence[Label]) -> Counter[Label]:
    if not labels:
        raise ValueError("an item needs at least one label")
    return Counter(labels)


def unique_mode(labels: Sequence[Label]) -> Label | None:
    """The most frequent label, or ``None`` when two or more labels tie for first ([1, 2] has no mode)."""
    ranked = _counts(labels).most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]


def verdict_confidence(labels: Sequence[Label]) -> float:
    """max over labels of the share of raters choosing it: [0, 1, 2, 2, 2] → 3/5."""
    return max(_counts(labels).values()) / len(labels)


def vc_random_baseline(*, n_raters: int, n_labels: int) -> float:
    """Expected Verdict Confidence when every rater picks one of ``n_labels`` uniformly at random.

    Exact: sums over label-count compositions (multinomial weights), so 3 raters × 3 labels gives 17/27.
    """
    if n_raters < 1 or n_labels < 1:
        raise ValueError("n_raters and n_labels must be positive")
    total = 0.0
    for counts in _compositions(n_raters, n_labels):
        ways = math.factorial(n_raters)
        for c in counts:
            ways //= math.factorial(c)
        total += ways * max(counts)
    return total / (n_labels**n_raters) / n_raters


def _compositions(n: int, k: int) -> list[tuple[int, ...]]:
    """All k-tuples of non-negative integers summing to n."""
    if k == 1:
        return [(n,)]
    return [(first, *rest) for first in range(n + 1) for rest in _compositions(n - first, k - 1)]


_BANDS = ((0.60, "poor"), (0.75, "moderate"), (0.85, "good"))


def vc_band(vc: float) -> str:
    """POLLUX's reading of a VC value: <0.60 poor, 0.60–0.75 moderate, 0.75–0.85 good, ≥0.85 excellent."""
    for upper, name in _BANDS:
        if vc < upper:
            return name
    return "excellent"


def _vc_by_replaced_rater(labels: Sequence[Label], judge: Label) -> list[float]:
    """VC after replacing rater i by the judge, for every i: one count update each, no re-counting."""
    counts = _counts(labels)
    n = len(labels)
    out = []
    for label in labels:
        counts[label] -= 1
        counts[judge] += 1
        out.append(max(counts.values()) / n)
        counts[judge] -= 1
        counts[label] += 1
    return out


def judge_substitution_vc(labels: Sequence[Label], judge: Label, *, trials: int, rng: object) -> float:
    """Mean VC after replacing one randomly chosen rater's label with the judge's, over ``trials`` draws.

    ``rng`` is a ``numpy.random.Generator`` (seeded by the caller so results repeat).
    """
    if trials < 1:
        raise ValueError("trials must be at least 1")
    picks = rng.integers(0, len(labels), size=trials)  # type: ignore[attr-defined]
    by_rater = _vc_by_replaced_rater(labels, judge)
    return sum(by_rater[int(i)] for i in picks) / trials


def judge_substitution_vc_exact(labels: Sequence[Label], judge: Label) -> float:
    """The expectation the random trials estimate: the mean over every choice of replaced rater."""
    by_rater = _vc_by_replaced_rater(labels, judge)
    return sum(by_rater) / len(by_rater)
