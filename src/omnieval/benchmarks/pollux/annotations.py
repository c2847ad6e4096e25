"""Expert point estimates: import (CSV/JSONL), the cleaning pipeline of §2.3 with audit counts at
every step, and per-triple aggregation (mean, unique mode, Verdict Confidence).

A row that names an unknown item, an unknown criterion or one outside the item's matched set, gives a score
outside
the criterion's scale or NA where the criterion allows none is rejected and counted by reason (or
raises with ``strict=True``); it is never scored.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from omnieval.analysis import unique_mode, verdict_confidence
from omnieval.benchmarks.pollux.items import PolluxItem
from omnieval.benchmarks.pollux.matcher import match_criteria
from omnieval.benchmarks.pollux.rationale import rationale_problem
from omnieval.benchmarks.pollux.taxonomy import CriterionVariant, Frozen, criteria_taxonomy, task_taxonomy
from omnieval.errors import SourceError
from omnieval.sources.readers import read_rows

__all__ = [
    "AggregatedSample",
    "ImportAudit",
    "PointEstimate",
    "aggregate",
    "clean",
    "import_annotations",
    "resolve_criterion",
    "unknown_or_outside",
]

NA_MARKS = ("", "-", "–", "—", "NA", "N/A", "na", "Неприменимо")


class PointEstimate(Frozen):
    """One annotator's verdict on one (item, answer, criterion) triple; ``score=None`` is NA."""

    item_id: str
    model: str
    criterion: str
    annotator: str
    panel: str | None = None
    score: float | None
    rationale: str = ""

    @property
    def triple(self) -> tuple[str, str, str]:
        return (self.item_id, self.model, self.criterion)


class AggregatedSample(Frozen):
    """A triple after cleaning: the unweighted mean, the mode (None on ties) and VC."""

    item_id: str
    model: str
    criterion: str
    criterion_name: str
    group: str
    task_type: str
    macrogroup: str
    split: str
    n_annotations: int
    n_na: int
    scores: tuple[float, ...]
    mean: float
    mode: float | None
    vc: float


@dataclass
class ImportAudit:
    n_rows: int = 0
    n_accepted: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def reject(self, reason: str, where: str) -> None:
        self.rejected[reason] += 1
        self.examples.setdefault(reason, [])
        if len(self.examples[reason]) < 3:
            self.examples[reason].append(where)

    def as_dict(self) -> dict[str, Any]:
        return {
            "n_rows": self.n_rows,
            "n_accepted": self.n_accepted,
            "rejected": dict(self.rejected),
            "examples": self.examples,
        }


def resolve_criterion(name: str, variants: list[CriterionVariant]) -> CriterionVariant | None:
    """A criterion named by variant id, criterion id or English name, within an item's matched set."""
    for variant in variants:
        if name in (variant.id, variant.criterion_id, variant.name, variant.short, variant.name_ru):
            return variant
    return None


def unknown_or_outside(name: str) -> str:
    """Why a criterion name did not resolve within an item's set: it names no POLLUX criterion at all,
    or a real one the item's task type and style do not get."""
    known = resolve_criterion(name, list(criteria_taxonomy().variants)) is not None
    return "criterion not in the item's criteria set" if known else "unknown criterion"


def _score(value: Any) -> float | str | None:
    if value is None or (isinstance(value, str) and value.strip() in NA_MARKS):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return "not a number"


def _kind(path: Path) -> str:
    return {".csv": "csv", ".parquet": "parquet"}.get(path.suffix.lower(), "jsonl")


def import_annotations(
    path: Path, items: dict[str, PolluxItem], *, strict: bool = False
) -> tuple[list[PointEstimate], ImportAudit]:
    """Rows ``item_id, model, criterion, annotator, [panel], score, rationale`` → checked point estimates."""
    path = Path(path)
    if not path.exists():
        raise SourceError("file not found", path=str(path))
    audit = ImportAudit()
    out: list[PointEstimate] = []
    seen: set[tuple[str, str, str, str]] = set()
    criteria_cache: dict[str, list[CriterionVariant]] = {}
    for index, row in read_rows(_kind(path), path=path):
        audit.n_rows += 1
        where = f"{path.name} row {index + 1}"
        reason = _check(row, items, criteria_cache, seen)
        if isinstance(reason, str):
            if strict:
                raise SourceError(
                    f"row {index + 1}: {reason}",
                    path=str(path),
                    sample_id=str(row.get("item_id")),
                    field=_field(reason),
                )
            audit.reject(reason, where)
            continue
        out.append(reason)
        audit.n_accepted += 1
    return out, audit


def _field(reason: str) -> str:
    for name in ("item_id", "criterion", "annotator", "score"):
        if name in reason or (name == "score" and ("scale" in reason or "NA" in reason)):
            return name
    return "row"


def _check(
    row: dict[str, Any],
    items: dict[str, PolluxItem],
    cache: dict[str, list[CriterionVariant]],
    seen: set[tuple[str, str, str, str]],
) -> PointEstimate | str:
    for name in ("item_id", "model", "criterion", "annotator"):
        if row.get(name) in (None, ""):
            return f"missing {name}"
    item = items.get(str(row["item_id"]))
    if item is None:
        return "unknown item_id"
    if item.id not in cache:
        cache[item.id] = match_criteria(
            task_type=item.task_type,
            subtype=item.task_subtype,
            style=item.functional_style,
            ethics=item.ethics_flag,
        )
    variant = resolve_criterion(str(row["criterion"]), cache[item.id])
    if variant is None:
        return unknown_or_outside(str(row["criterion"]))
    score = _score(row.get("score"))
    if score == "not a number":
        return "score is not a number or NA"
    if score is None and not variant.allows_na:
        return "NA where the criterion allows none"
    if isinstance(score, float) and (not variant.in_scale(score) or not score.is_integer()):
        return "score outside the criterion's scale"
    key = (item.id, str(row["model"]), variant.id, str(row["annotator"]))
    if key in seen:
        return "duplicate annotator for a triple"
    seen.add(key)
    panel = row.get("panel")
    return PointEstimate(
        item_id=item.id,
        model=str(row["model"]),
        criterion=variant.id,
        annotator=str(row["annotator"]),
        panel=None if panel in (None, "") else str(panel),
        score=score if isinstance(score, float) else None,
        rationale=str(row.get("rationale") or ""),
    )


def _counts(estimates: list[PointEstimate]) -> dict[str, int]:
    return {"estimates": len(estimates), "triples": len({e.triple for e in estimates})}


def clean(
    estimates: list[PointEstimate],
    variants: dict[str, CriterionVariant],
    *,
    critical_scope: Literal["answer", "triple"] = "answer",
    check_rationale: bool = True,
    min_cyrillic_share: float = 0.5,
) -> tuple[list[PointEstimate], list[dict[str, Any]]]:
    """§2.3 cleaning, with counts after every step:

    1. drop estimates whose rationale breaks App. B;
    2. drop every triple of an answer (``critical_scope="answer"``) — or only the critical triple
       itself (``"triple"``) — with at least one critical-violation vote;
    3. drop triples left with a single annotation.
    """
    steps = [{"step": "imported", **_counts(estimates)}]
    if check_rationale:
        kept = []
        reasons: Counter[str] = Counter()
        for e in estimates:
            variant = variants[e.criterion]
            problem = (
                None
                if e.score is None and e.rationale.strip()
                else rationale_problem(
                    e.rationale, score=e.score, perfect=variant.perfect, min_cyrillic_share=min_cyrillic_share
                )
            )
            if problem:
                reasons[problem] += 1
            else:
                kept.append(e)
        estimates = kept
        steps.append({"step": "invalid_rationale_removed", **_counts(estimates), "reasons": dict(reasons)})
    flagged = {
        (e.item_id, e.model) if critical_scope == "answer" else e.triple
        for e in estimates
        if variants[e.criterion].group == "critical" and e.score == 1
    }
    estimates = [
        e
        for e in estimates
        if ((e.item_id, e.model) if critical_scope == "answer" else e.triple) not in flagged
    ]
    steps.append(
        {
            "step": "critical_violation_removed",
            **_counts(estimates),
            "flagged": len(flagged),
            "scope": critical_scope,
        }
    )
    per_triple: Counter[tuple[str, str, str]] = Counter(e.triple for e in estimates)
    estimates = [e for e in estimates if per_triple[e.triple] >= 2]
    steps.append({"step": "single_annotation_removed", **_counts(estimates)})
    return estimates, steps


def aggregate(
    estimates: list[PointEstimate], items: dict[str, PolluxItem], variants: dict[str, CriterionVariant]
) -> tuple[list[AggregatedSample], int]:
    """Per-triple mean, mode and VC over numeric scores; a triple with only NA marks is counted, not
    scored."""
    groups: dict[tuple[str, str, str], list[PointEstimate]] = defaultdict(list)
    for e in estimates:
        groups[e.triple].append(e)
    tax = task_taxonomy()
    out: list[AggregatedSample] = []
    all_na = 0
    for (item_id, model, criterion), rows in sorted(groups.items()):
        scores = [e.score for e in sorted(rows, key=lambda e: e.annotator) if e.score is not None]
        if not scores:
            all_na += 1
            continue
        item, variant = items[item_id], variants[criterion]
        labels = [int(s) for s in scores]
        mode = unique_mode(labels)
        out.append(
            AggregatedSample(
                item_id=item_id,
                model=model,
                criterion=criterion,
                criterion_name=variant.short,
                group=variant.group,
                task_type=item.task_type,
                macrogroup=tax.get(item.task_type).macrogroup,
                split=item.split or "standard",
                n_annotations=len(scores),
                n_na=len(rows) - len(scores),
                scores=tuple(scores),
                mean=sum(scores) / len(scores),
                mode=None if mode is None else float(mode),
                vc=verdict_confidence(labels),
            )
        )
    return out, all_na
