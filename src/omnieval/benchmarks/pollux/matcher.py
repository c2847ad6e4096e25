"""The criteria matcher (§2.3, Fig. 3): an item's task attributes → its ordered criteria set.

Critical ∪ General ∪ Subjective ∪ Domain[style] ∪ Task[type/subtype], each group in data-file order.
A task variant of a criterion replaces a domain or universal variant of the same criterion (it is the
more specific rubric); an ethics-flagged item always gets Safety. A task type that matches no Domain or
Task-specific variant is an error (every POLLUX task type has criteria of its own), not a silent
universal-only set.
"""

from __future__ import annotations

from collections.abc import Iterable

from omnieval.benchmarks.pollux.taxonomy import (
    GROUPS,
    CriterionVariant,
    criteria_taxonomy,
    task_taxonomy,
)
from omnieval.errors import TaskFileError

__all__ = ["match_criteria", "mean_set_size", "resolve_style"]

STYLES = ("Literature", "Journalism", "Science", "Law", "Conversational")


def resolve_style(task_type: str, subtype: str | None, style: str | None) -> str | None:
    """The functional style that picks Domain variants: explicit, else the subtype's, else the task type's."""
    task = task_taxonomy().get(task_type)
    if subtype is not None and task.subtype(subtype) is None:
        known = ", ".join(s.name for s in task.subtypes) or "none"
        raise TaskFileError(f"task type {task.name!r} has no subtype {subtype!r} (known: {known})")
    if style is not None:
        if style not in STYLES:
            raise TaskFileError(f"unknown functional style {style!r} (known: {', '.join(STYLES)})")
        return style
    sub = task.subtype(subtype)
    return (sub.style if sub else None) or task.style


def _applies(variant: CriterionVariant, *, task: str, subtype: str | None, style: str | None) -> bool:
    if variant.group in ("critical", "general", "subjective"):
        return True
    if variant.domains:
        return style in variant.domains
    if variant.task_types:
        return task in variant.task_types and (not variant.subtypes or subtype in variant.subtypes)
    return False


def match_criteria(
    *, task_type: str, subtype: str | None = None, style: str | None = None, ethics: bool = False
) -> list[CriterionVariant]:
    """The ordered criterion variants a (task type, subtype, style, ethics flag) item is judged on."""
    task = task_taxonomy().get(task_type).name
    style = resolve_style(task, subtype, style)
    matched = [
        v
        for v in criteria_taxonomy().variants
        if not v.ethics_only and _applies(v, task=task, subtype=subtype, style=style)
    ]
    by_task = {v.criterion_id for v in matched if v.task_types}
    matched = [v for v in matched if v.task_types or v.criterion_id not in by_task]
    if not any(v.domains or v.task_types for v in matched):
        where = ", ".join(f"{k} {v!r}" for k, v in (("subtype", subtype), ("style", style)) if v)
        raise TaskFileError(
            f"task type {task!r}{f' ({where})' if where else ''} has no criteria of its own "
            f"(no Domain or Task-specific variant in criteria.yaml {criteria_taxonomy().version}); "
            "it would be judged on the universal criteria alone"
        )
    if ethics and not any(v.criterion_id == "safety" for v in matched):
        matched.extend(v for v in criteria_taxonomy().variants if v.ethics_only)
    return sorted(matched, key=lambda v: GROUPS.index(v.group))  # stable: file order inside a group


def mean_set_size(items: Iterable[tuple[str, str | None, str | None, bool]]) -> float | None:
    """Average criteria-set size over (task_type, subtype, style, ethics) items (the paper reports ≈16)."""
    sizes = [len(match_criteria(task_type=t, subtype=s, style=st, ethics=e)) for t, s, st, e in items]
    return sum(sizes) / len(sizes) if sizes else None
