"""Judge-versus-human agreement over (item_id, criterion) items, the ``omnieval judge-agreement`` core.

Input lines: human ``{"item_id", "criterion", "annotator", "score"}``, judge ``{"item_id", "criterion",
"score"}``. A score of ``null``/``"NA"``/``"-"`` is a not-applicable mark: counted, never scored.
Every line that cannot be read raises a :class:`SourceError` naming the file, line and field; items
present in only one file are counted in the output, never silently scored.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from omnieval.analysis.agreement import (
    judge_substitution_vc,
    judge_substitution_vc_exact,
    unique_mode,
    verdict_confidence,
)
from omnieval.analysis.correlation import mean_absolute_error, mean_bias, round_half_up, spearman
from omnieval.errors import SourceError

__all__ = ["AgreementInput", "judge_agreement", "load_agreement_files"]

Item = tuple[str, str]
NA_MARKS = (None, "NA", "N/A", "na", "-", "–")


@dataclass
class AgreementInput:
    """Scores keyed by item, plus what was set aside while reading."""

    human: dict[Item, dict[str, float]] = field(default_factory=dict)
    judge: dict[Item, float] = field(default_factory=dict)
    n_human_na: int = 0
    n_judge_na: int = 0


def _number(value: Any, *, path: Path, line: int, item: str) -> float | None:
    if value in NA_MARKS:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        try:
            value = float(str(value).strip())
        except ValueError:
            raise SourceError(
                f"row {line}: score {value!r} is not a number or NA",
                path=str(path),
                sample_id=item,
                field="score",
            ) from None
    if not math.isfinite(float(value)):
        raise SourceError(
            f"row {line}: score {value!r} is not finite", path=str(path), sample_id=item, field="score"
        )
    return float(value)


def _rows(path: Path, fields: tuple[str, ...]) -> Iterable[tuple[int, dict[str, Any]]]:
    """(row number, row) with every required field present; bad JSON is an error naming the line."""
    from omnieval.sources.readers import read_rows

    for index, row in read_rows("jsonl", path=path):
        for name in fields:
            if name not in row or (name != "score" and row[name] in (None, "")):
                raise SourceError(f"row {index + 1}: missing field", path=str(path), field=name)
        yield index + 1, row


def load_agreement_files(human_path: Path, judge_path: Path) -> AgreementInput:
    """Read both files; duplicates (same annotator twice, or two judge scores for an item) are errors."""
    data = AgreementInput()
    for lineno, row in _rows(human_path, ("item_id", "criterion", "annotator", "score")):
        item = (str(row["item_id"]), str(row["criterion"]))
        score = _number(row["score"], path=human_path, line=lineno, item=f"{item[0]}/{item[1]}")
        annotator = str(row["annotator"])
        if annotator in data.human.get(item, {}):
            raise SourceError(
                f"row {lineno}: annotator {annotator!r} scored this item twice",
                path=str(human_path),
                sample_id=f"{item[0]}/{item[1]}",
                field="annotator",
            )
        if score is None:
            data.n_human_na += 1
            continue
        data.human.setdefault(item, {})[annotator] = score
    seen: set[Item] = set()
    for lineno, row in _rows(judge_path, ("item_id", "criterion", "score")):
        item = (str(row["item_id"]), str(row["criterion"]))
        if item in seen:
            raise SourceError(
                f"row {lineno}: a second judge score for this item",
                path=str(judge_path),
                sample_id=f"{item[0]}/{item[1]}",
                field="score",
            )
        seen.add(item)
        score = _number(row["score"], path=judge_path, line=lineno, item=f"{item[0]}/{item[1]}")
        if score is None:
            data.n_judge_na += 1
            continue
        data.judge[item] = score
    return data


def _label(value: float) -> float | int:
    """Integral floats become ints so 2 and 2.0 are the same label."""
    return int(value) if float(value).is_integer() else value


def judge_agreement(
    data: AgreementInput,
    *,
    seed: int = 0,
    trials: int = 100,
    reference: Literal["mode", "mean"] = "mode",
) -> dict[str, Any]:
    """MAE, Verdict Confidence (experts and judge-substituted) and pooled Spearman ρ.

    ``reference="mean"`` is for regression judges (MAE against the mean expert score, all items).
    A real-valued judge score enters VC rounded half-up, as POLLUX rounds regression outputs.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    items = sorted(set(data.human) & set(data.judge))
    maes_pred: list[float] = []
    maes_ref: list[float] = []
    expert_vc: list[float] = []
    judge_vc: list[float] = []
    judge_vc_exact: list[float] = []
    means: list[float] = []
    judged: list[float] = []
    no_mode = 0
    for item in items:
        labels = [_label(data.human[item][a]) for a in sorted(data.human[item])]
        judge = data.judge[item]
        mean = sum(labels) / len(labels)
        means.append(mean)
        judged.append(judge)
        mode = unique_mode(labels)
        if reference == "mean":
            maes_pred.append(judge)
            maes_ref.append(mean)
        elif mode is None:
            no_mode += 1
        else:
            maes_pred.append(judge)
            maes_ref.append(float(mode))
        as_label = _label(judge) if float(judge).is_integer() else round_half_up(judge)
        expert_vc.append(verdict_confidence(labels))
        judge_vc.append(judge_substitution_vc(labels, as_label, trials=trials, rng=rng))
        judge_vc_exact.append(judge_substitution_vc_exact(labels, as_label))

    def mean_of(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    return {
        "mae": mean_absolute_error(maes_pred, maes_ref),
        "n_items": len(items),
        "n_excluded_no_mode": no_mode,
        "n_mae_items": len(maes_pred),
        "expert_vc": mean_of(expert_vc),
        "judge_vc": mean_of(judge_vc),
        "judge_vc_expected": mean_of(judge_vc_exact),
        "spearman": spearman(judged, means),
        "mean_bias": mean_bias(judged, means),
        "mean_judge": mean_of(judged),
        "mean_expert": mean_of(means),
        "reference": reference,
        "seed": seed,
        "trials": trials,
        "n_human_only": len(set(data.human) - set(data.judge)),
        "n_judge_only": len(set(data.judge) - set(data.human)),
        "n_human_na": data.n_human_na,
        "n_judge_na": data.n_judge_na,
        "n_annotations": sum(len(data.human[i]) for i in items),
    }
