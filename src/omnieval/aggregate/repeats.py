"""Repeated sampling: pass@k, maj@k, avg@k, the spread across repeats and the clustered bootstrap.

Each repeat of a sample is a record of its own (``repeat`` 0..K-1). The task score is the mean over
all records (the mean of the per-sample repeat means when every sample has its K answers); the
bootstrap CI resamples *samples* with their repeats together (clustered), because the K answers to one
question are not independent draws of the benchmark: resampling records would narrow the interval.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import orjson

from omnieval.aggregate.bootstrap import bootstrap_ci

__all__ = [
    "RepeatAccumulator",
    "clustered_bootstrap_ci",
    "fold_all_repeats",
    "fold_repeats",
    "majority_index",
    "pass_at_k",
    "pass_hat_k",
]

TIE_BREAK = "the answer first given in the lowest repeat index wins a tie"


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al. (2021) unbiased estimator ``1 - C(n-c, k) / C(n, k)`` of the chance that at least one
    of ``k`` answers drawn from the ``n`` (``c`` of them correct) is correct, in its stable product form."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 ≤ c ≤ n and 1 ≤ k ≤ n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """``pass^k`` (Yao et al., τ-bench, 2024): the chance that ``k`` answers drawn from the ``n`` (``c``
    of them correct) are *all* correct, ``C(c, k) / C(n, k)`` — reliability, where pass@k is luck."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass^k needs 0 ≤ c ≤ n and 1 ≤ k ≤ n, got n={n}, c={c}, k={k}")
    return math.comb(c, k) / math.comb(n, k)


def majority_index(answers: Sequence[Any]) -> int | None:
    """Index of the majority answer's first occurrence (``None`` entries are no answer); a tie goes to
    the answer given first, i.e. in the lowest repeat index. ``None`` when no repeat has an answer."""
    counts: dict[bytes, list[int]] = {}
    for i, answer in enumerate(answers):
        if answer is not None:
            counts.setdefault(orjson.dumps(answer, option=orjson.OPT_SORT_KEYS), []).append(i)
    if not counts:
        return None
    return min(counts.values(), key=lambda idx: (-len(idx), idx[0]))[0]


def clustered_bootstrap_ci(
    clusters: Sequence[Sequence[float]], *, n_resamples: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float] | None:
    """Percentile bootstrap CI of the mean score, resampling whole clusters (samples with all their
    repeats)."""
    return bootstrap_ci(
        sorted(math.fsum(c) / len(c) for c in clusters if c), n_resamples=n_resamples, seed=seed, level=level
    )


class RepeatAccumulator:
    """Per sample: each repeat's score and extracted answer (small tuples, not whole records)."""

    def __init__(self) -> None:
        self.samples: dict[str, list[tuple[int, float, Any]]] = defaultdict(list)
        self.n_repeats = 0

    def add(self, sample_id: str, repeat: int, score: float, extracted: Any) -> None:
        self.samples[sample_id].append((repeat, score, extracted))
        self.n_repeats = max(self.n_repeats, repeat + 1)

    def __bool__(self) -> bool:
        return bool(self.samples)

    def clusters(self) -> list[list[float]]:
        return [[score for _, score, _ in rows] for rows in self.samples.values()]

    def metrics(self, *, pass_k: Sequence[int], threshold: float) -> dict[str, float]:
        """``pass@k`` and ``pass^k`` for each k (default 1 and K), ``maj@K`` and ``avg@K``, each a mean
        over samples."""
        big_k = self.n_repeats
        ks = sorted(set(pass_k or (1, big_k)))
        passes: dict[int, list[float]] = {k: [] for k in ks}
        all_pass: dict[int, list[float]] = {k: [] for k in ks}
        majority, means = [], []
        for rows in self.samples.values():
            rows = sorted(rows, key=lambda r: r[0])
            n, c = len(rows), sum(score >= threshold for _, score, _ in rows)
            for k in ks:
                if k <= n:  # a sample still missing answers cannot give pass@k for a larger k
                    passes[k].append(pass_at_k(n, c, k))
                    all_pass[k].append(pass_hat_k(n, c, k))
            winner = majority_index([extracted for _, _, extracted in rows])
            majority.append(rows[winner][1] if winner is not None else 0.0)
            means.append(math.fsum(score for _, score, _ in rows) / n)
        out = {f"pass@{k}": math.fsum(v) / len(v) for k, v in passes.items() if v}
        out |= {f"pass^{k}": math.fsum(v) / len(v) for k, v in all_pass.items() if v}
        out[f"maj@{big_k}"] = math.fsum(majority) / len(majority)
        out[f"avg@{big_k}"] = math.fsum(means) / len(means)
        return out

    def block(self, *, pass_k: Sequence[int], threshold: float) -> dict[str, Any]:
        """The ``repeats`` block of a task's results: K, the spread across repeats, the within-sample
        variance."""
        per_repeat: dict[int, list[float]] = defaultdict(list)
        variances = []
        for rows in self.samples.values():
            scores = [score for _, score, _ in rows]
            mean = math.fsum(scores) / len(scores)
            variances.append(math.fsum((s - mean) ** 2 for s in scores) / len(scores))
            for repeat, score, _ in rows:
                per_repeat[repeat].append(score)
        repeat_means = [math.fsum(v) / len(v) for _, v in sorted(per_repeat.items())]
        grand = math.fsum(repeat_means) / len(repeat_means)
        sd = (
            math.sqrt(math.fsum((m - grand) ** 2 for m in repeat_means) / (len(repeat_means) - 1))
            if len(repeat_means) > 1
            else 0.0
        )
        return {
            "k": self.n_repeats,
            "pass_k": sorted(set(pass_k or (1, self.n_repeats))),
            "pass_threshold": threshold,
            "samples": len(self.samples),
            "per_repeat_scores": repeat_means,
            "per_repeat_sd": sd,
            "per_repeat_range": [min(repeat_means), max(repeat_means)],
            "within_sample_variance": math.fsum(variances) / len(variances),
            "majority_tie_break": TIE_BREAK,
            "ci": "clustered bootstrap: samples resampled with all their repeats",
        }


def fold_repeats(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One sample's repeats as one record whose score is their mean (``compare`` pairs samples by it)."""
    if records[-1].get("repeat") is None:  # no repeats: the sample's one record (the last, as before)
        return records[-1]
    scores = [float(r.get("score") or 0.0) for r in records]
    states = {str(r.get("state")) for r in records}
    state = (
        "judge_failed"
        if states == {"judge_failed"}
        else next(s for s in ("ok", *sorted(states)) if s in states)
    )
    return {**records[0], "score": math.fsum(scores) / len(scores), "state": state, "repeats": len(records)}


def fold_all_repeats(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records with each sample's repeats folded into one (:func:`fold_repeats`); records without repeats
    unchanged."""
    if not any(r.get("repeat") is not None for r in records):
        return list(records)
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    plain = []
    for record in records:
        if record.get("repeat") is None:
            plain.append(record)
        else:
            grouped[(str(record["task"]), str(record["sample_id"]))].append(record)
    return plain + [fold_repeats(rs) for rs in grouped.values()]
