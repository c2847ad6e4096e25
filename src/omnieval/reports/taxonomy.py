"""Capability breakdowns from whatever taxonomy the tasks and samples carry, found generically.

Nothing here knows a benchmark. A *dimension* is any metadata key (nested keys are dotted) whose values
are short labels (strings, booleans, small integers, or lists of them, where a list means the item
belongs to several groups, as MERA skills or MEGA-Bench keywords do). Task-level dimensions come from
each task's ``metadata`` and ``modalities`` and average task scores (macro, as MEGA-Bench does);
sample-level ones come from record ``metadata`` and the prompt ``variant`` and average sample scores.
Judge-level ones group each task's judge calls by their label (POLLUX's criteria are one call each) and
average the verdicts on the judge's own scale (criteria scales differ, so nothing is rescaled).
A key is kept when it actually groups: at least two groups, one of them with several items (and, for
samples, at most one group per two samples, which leaves ids and free text out).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omnieval.types.files import TaskResults

__all__ = [
    "Dimension",
    "JudgeDimensions",
    "SampleDimensions",
    "judge_dimensions",
    "sample_dimensions",
    "task_dimensions",
]

Dimension = dict[str, Any]
"""``{"name", "level": "task" | "sample" | "judge", "groups": [{"value", "score", "n"}]}``."""

MAX_LABEL = 60
MAX_GROUPS = 60
MAX_JUDGE_GROUPS = 150
"""Judge call labels come from a protocol, never free text: POLLUX alone has 114 criterion variants."""
_SKIP = {"circular_group", "parse_fallback", "human_baseline"}


def _labels(value: Any) -> list[str] | None:
    """The group labels of one value, or None when the value is not a categorical label."""
    if isinstance(value, bool):
        return [str(value).lower()]
    if isinstance(value, int):
        return [str(value)] if abs(value) < 100 else None
    if isinstance(value, str):
        return [value] if 0 < len(value) <= MAX_LABEL and "/" not in value and "\n" not in value else None
    if isinstance(value, list | tuple) and value:
        labels = [_labels(v) for v in value if not isinstance(v, list | tuple | dict)]
        if not labels or any(lab is None for lab in labels):
            return None
        return sorted({x for lab in labels if lab for x in lab})
    return None


def _flatten(meta: dict[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    for key, value in meta.items():
        if key in _SKIP or key.startswith("_"):
            continue
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict):
            yield from _flatten(value, name)
        else:
            yield name, value


class _Groups:
    """Running sum and count per (key, label); a key seen once with a non-label value is rejected."""

    def __init__(self, *, max_groups: int = MAX_GROUPS) -> None:
        self.max_groups = max_groups
        self.sums: dict[str, dict[str, list[float]]] = defaultdict(dict)
        self.rejected: set[str] = set()
        self.items = 0
        self._memo: dict[Any, list[str] | None] = {}

    def labels(self, value: Any) -> list[str] | None:
        key = (type(value), value) if isinstance(value, str | int | float | bool) or value is None else None
        if key is None:
            return _labels(value)
        found = self._memo.get(key, _MISSING)
        if found is _MISSING:
            found = self._memo[key] = _labels(value)
        return found  # type: ignore[return-value]

    def add(self, pairs: Iterable[tuple[str, Any]], score: float) -> None:
        self.items += 1
        for key, value in pairs:
            if key in self.rejected:
                continue
            if value is None or value == "" or value == [] or value == ():  # absent here, not a non-label
                continue
            labels = self.labels(value)
            if labels is None:
                self.rejected.add(key)
                continue
            groups = self.sums[key]
            for label in labels:
                acc = groups.get(label)
                if acc is None:
                    groups[label] = [score, 1.0]
                else:
                    acc[0] += score
                    acc[1] += 1
            if len(groups) > self.max_groups:  # never a dimension (groups only grow): stop labelling it
                self.rejected.add(key)
                del self.sums[key]

    def dimensions(self, level: str) -> list[Dimension]:
        out = []
        for key, groups in self.sums.items():
            if (
                key in self.rejected
                or not 2 <= len(groups) <= self.max_groups
                or max(n for _, n in groups.values()) < 2
            ):
                continue
            if (
                level == "sample" and len(groups) > self.items / 2
            ):  # nearly one value per sample: an id or free text
                continue
            rows = [
                {"value": v, "score": total / n, "n": int(n)}
                for v, (total, n) in sorted(groups.items(), key=_order)
            ]
            out.append({"name": key, "level": level, "groups": rows})
        return sorted(out, key=lambda d: d["name"])


_MISSING = object()


def _order(item: tuple[str, Any]) -> tuple[int, float, str]:
    """Numeric labels in numeric order (2 before 10), then the rest alphabetically."""
    try:
        return (0, float(item[0]), item[0])
    except ValueError:
        return (1, 0.0, item[0])


def task_dimensions(tasks: dict[str, TaskResults]) -> list[Dimension]:
    """Dimensions over tasks (macro mean of task scores per group) from task metadata and modalities."""
    groups = _Groups()
    for block in tasks.values():
        if not block.scored or block.score is None:
            continue
        pairs = list(_flatten(block.metadata))
        if block.modalities:
            pairs.append(("modalities", list(block.modalities)))
        if block.language:
            pairs.append(("language", block.language))
        groups.add(pairs, block.score)
    return groups.dimensions("task")


class SampleDimensions:
    """Dimensions over scored samples (mean sample score per group) from record metadata and variant,
    fed one record at a time (a report reads a large run in one pass)."""

    def __init__(self) -> None:
        self.groups = _Groups()

    def add(self, record: dict[str, Any]) -> None:
        if not record.get("scored", True):
            return
        pairs = list(_flatten(record.get("metadata") or {}))
        if record.get("variant") is not None:
            pairs.append(("prompt variant", str(record["variant"])))
        self.groups.add(pairs, float(record.get("score") or 0.0))

    def dimensions(self) -> list[Dimension]:
        return self.groups.dimensions("sample")


class JudgeDimensions:
    """Per task, the mean verdict of each judge call label (e.g. a POLLUX criterion), on the judge's scale.

    A call without a verdict (failed, unparseable, out of range) is left out here; its sample is
    ``judge_failed`` and counted in the states. A task whose calls carry one label (a single judged
    answer) has nothing to break down.
    """

    def __init__(self) -> None:
        self.per_task: dict[str, _Groups] = defaultdict(lambda: _Groups(max_groups=MAX_JUDGE_GROUPS))

    def add(self, record: dict[str, Any]) -> None:
        judge = record.get("judge")
        if not isinstance(judge, dict) or not record.get("scored", True):
            return
        for call in judge.get("calls") or []:
            verdict = call.get("verdict") if isinstance(call, dict) else None
            if isinstance(verdict, int | float) and not isinstance(verdict, bool):
                self.per_task[str(record.get("task"))].add([("label", call.get("label"))], float(verdict))

    def dimensions(self) -> list[Dimension]:
        return [
            {**dim, "name": f"judge verdict per call · {task}"}
            for task, groups in sorted(self.per_task.items())
            for dim in groups.dimensions("judge")
        ]


def sample_dimensions(records: Iterable[dict[str, Any]]) -> list[Dimension]:
    """:class:`SampleDimensions` over ``records``."""
    acc = SampleDimensions()
    for record in records:
        acc.add(record)
    return acc.dimensions()


def judge_dimensions(records: Iterable[dict[str, Any]]) -> list[Dimension]:
    """:class:`JudgeDimensions` over ``records``."""
    acc = JudgeDimensions()
    for record in records:
        acc.add(record)
    return acc.dimensions()
