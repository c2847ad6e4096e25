"""Judge-versus-expert statistics over aggregated triples (note §4.4), grouped as the paper's tables:
overall, per evaluated model, task type, criterion, macrogroup and split; confusion matrices per
macrogroup; mean bias and self-family bias; Krippendorff's α among experts.

Ground truth: the expert mode (triples without a unique mode are excluded from MAE) for generative
judges, the expert mean for regression judges. Spearman ρ pools (judge, mean expert) pairs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from omnieval.analysis import confusion_matrix
from omnieval.analysis.judge_agreement import AgreementInput, judge_agreement
from omnieval.analysis.reliability import krippendorff_alpha
from omnieval.benchmarks.pollux.annotations import AggregatedSample
from omnieval.errors import ConfigError

__all__ = ["GROUPINGS", "judge_report", "self_family_bias"]

Triple = tuple[str, str, str]
GROUPINGS: dict[str, Callable[[AggregatedSample], str]] = {
    "overall": lambda s: "all",
    "model": lambda s: s.model,
    "task_type": lambda s: s.task_type,
    "criterion": lambda s: s.criterion_name,
    "macrogroup": lambda s: s.macrogroup,
    "split": lambda s: s.split,
}


def _input(samples: Sequence[AggregatedSample], judge: Mapping[Triple, float]) -> AgreementInput:
    data = AgreementInput()
    for s in samples:
        key = (f"{s.item_id}|{s.model}", s.criterion)
        data.human[key] = {str(i): score for i, score in enumerate(s.scores)}
        triple = (s.item_id, s.model, s.criterion)
        if triple in judge:
            data.judge[key] = judge[triple]
    return data


def _block(
    samples: Sequence[AggregatedSample],
    judge: Mapping[Triple, float],
    *,
    seed: int,
    trials: int,
    reference: Literal["mode", "mean"],
) -> dict[str, Any]:
    stats = judge_agreement(_input(samples, judge), seed=seed, trials=trials, reference=reference)
    stats["n_not_judged"] = stats.pop("n_human_only")
    for key in ("n_judge_only", "n_human_na", "n_judge_na", "seed", "trials", "reference"):
        stats.pop(key)
    return stats


def judge_report(
    samples: Sequence[AggregatedSample],
    judge: Mapping[Triple, float],
    *,
    seed: int = 0,
    trials: int = 100,
    reference: Literal["mode", "mean"] = "mode",
    groupings: Sequence[str] = tuple(GROUPINGS),
) -> dict[str, Any]:
    """Every grouping's MAE / VC / ρ / bias block plus confusion matrices per macrogroup."""
    out: dict[str, Any] = {"reference": reference, "seed": seed, "trials": trials}
    for name in groupings:
        buckets: dict[str, list[AggregatedSample]] = defaultdict(list)
        for s in samples:
            buckets[GROUPINGS[name](s)].append(s)
        out[name] = {
            key: _block(rows, judge, seed=seed, trials=trials, reference=reference)
            for key, rows in sorted(buckets.items())
        }
    out["confusion"] = _confusions(samples, judge)
    try:
        out["expert_alpha"] = krippendorff_alpha(
            {(s.item_id, s.model, s.criterion): {str(i): v for i, v in enumerate(s.scores)} for s in samples}
        )
    except ConfigError as exc:  # an extra: the report stands without it, and says why
        out["expert_alpha"], out["expert_alpha_note"] = None, str(exc)
    return out


def _confusions(samples: Sequence[AggregatedSample], judge: Mapping[Triple, float]) -> dict[str, Any]:
    per: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    top = 0
    for s in samples:
        triple = (s.item_id, s.model, s.criterion)
        if s.mode is None or triple not in judge:
            continue
        refs, preds = per[s.macrogroup]
        refs.append(s.mode)
        preds.append(judge[triple])
        top = max(top, int(s.mode))
    labels = list(range(0, max(top, 2) + 1))
    return {
        group: confusion_matrix(refs, preds, labels=labels) for group, (refs, preds) in sorted(per.items())
    }


def self_family_bias(report: Mapping[str, Any], *, family_models: Sequence[str]) -> dict[str, Any]:
    """Mean bias (judge − experts) on the judge's own family of evaluated models minus on the others;
    a positive gap means the judge favours its own family (GPT-4o rating o1/GPT-4o higher)."""
    own: list[tuple[float, int]] = []
    other: list[tuple[float, int]] = []
    for model, block in report["model"].items():
        if block["mean_bias"] is None:
            continue
        (own if model in family_models else other).append((block["mean_bias"], block["n_items"]))

    def weighted(rows: list[tuple[float, int]]) -> float | None:
        n = sum(w for _, w in rows)
        return sum(b * w for b, w in rows) / n if n else None

    own_bias, other_bias = weighted(own), weighted(other)
    gap = None if own_bias is None or other_bias is None else own_bias - other_bias
    return {"own_family_bias": own_bias, "other_bias": other_bias, "self_family_gap": gap}
