"""POLLUX benchmark items (note §8 ``BenchmarkItem``) from JSONL, CSV or Parquet, their composition
check, and ``--tasks pollux:ITEMS`` so ``omnieval run`` generates the answers to be judged.

Every row is checked against the task taxonomy: an unknown task type, subtype, style or complexity
level is an error naming the file, the item and the field, never a silently skipped row.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs

from pydantic import ValidationError

from omnieval.benchmarks.pollux.matcher import match_criteria, mean_set_size
from omnieval.benchmarks.pollux.taxonomy import Frozen, Style, criteria_taxonomy, task_taxonomy
from omnieval.errors import SourceError, TaskFileError
from omnieval.sources.importers import register_importer
from omnieval.sources.readers import read_rows
from omnieval.sources.task import Task
from omnieval.types import MetricRef, PluginRef, PromptSpec, Sample, TaskSpec

__all__ = ["PolluxItem", "composition", "expected_levels", "load_items"]

ALIASES = {
    "problem_type": "task_type",
    "problem_subtype": "task_subtype",
    "problem_subtype2": "task_subsubtype",
    "domain": "functional_style",
    "problem_complexity": "complexity",
    "ethics": "ethics_flag",
}


class PolluxItem(Frozen):
    """One benchmark instruction."""

    id: str
    instruction: str
    reference_answer: str | None = None
    task_type: str
    task_subtype: str | None = None
    task_subsubtype: str | None = None
    functional_style: Style | None = None
    complexity: Literal["easy", "medium", "hard", "high_school", "college"]
    ethics_flag: bool = False
    stylistic_devices: tuple[str, ...] = ()
    author_panel: int | None = None
    split: Literal["zero_shot", "standard"] | None = None


def _clean(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in row.items():
        key = ALIASES.get(key, key)
        if value == "" or value is None:
            continue
        if key == "ethics_flag" and isinstance(value, str):
            value = value.strip().lower() in ("1", "true", "yes")
        if key == "stylistic_devices" and isinstance(value, str):
            value = [v.strip() for v in value.split(";") if v.strip()]
        out[key] = value
    if "id" in out:
        out["id"] = str(out["id"])
    return out


def _kind(path: Path) -> str:
    kind = {".jsonl": "jsonl", ".csv": "csv", ".parquet": "parquet", ".json": "json"}.get(path.suffix.lower())
    if kind is None:
        raise SourceError("POLLUX items must be .jsonl, .csv, .json or .parquet", path=str(path))
    return kind


def load_items(path: Path) -> list[PolluxItem]:
    """Read and check every item; the split defaults to the task type's (Zero-Shot or Standard)."""
    path = Path(path)
    if not path.exists():
        raise SourceError("file not found", path=str(path))
    tax = task_taxonomy()
    items: list[PolluxItem] = []
    seen: set[str] = set()
    for index, row in read_rows(_kind(path), path=path):
        data = _clean(row)
        sample_id = str(data.get("id", f"row {index}"))
        try:
            item = PolluxItem.model_validate(data)
            task = tax.get(item.task_type)
            match_criteria(
                task_type=task.name,
                subtype=item.task_subtype,
                style=item.functional_style,
                ethics=item.ethics_flag,
            )  # unknown subtype/style, or a task type with no criteria
        except ValidationError as exc:
            err = exc.errors()[0]
            raise SourceError(
                err["msg"], path=str(path), sample_id=sample_id, field=".".join(map(str, err["loc"]))
            ) from None
        except TaskFileError as exc:
            raise SourceError(str(exc), path=str(path), sample_id=sample_id, field="task_type") from None
        if item.complexity not in task.levels:
            raise SourceError(
                f"{task.name!r} has levels {list(task.levels)}",
                path=str(path),
                sample_id=sample_id,
                field="complexity",
            )
        if item.id in seen:
            raise SourceError("duplicate item id", path=str(path), sample_id=item.id, field="id")
        seen.add(item.id)
        split = "zero_shot" if task.zero_shot else "standard"
        items.append(item.model_copy(update={"task_type": task.name, "split": item.split or split}))
    return items


def expected_levels(task_name: str) -> dict[str, int]:
    """The paper's per-level counts: 10/15/25 of 50; per discipline/language 12/13 or 8/9/8 of 25."""
    task = task_taxonomy().get(task_name)
    n_sub = max(1, len(task.subtypes))
    if task.instructions == 50:
        return dict(zip(task.levels, (10, 15, 25), strict=True))
    if task.instructions == 125 and len(task.levels) == 2:
        return {"high_school": 12 * n_sub, "college": 13 * n_sub}
    if task.instructions == 125:
        return dict(zip(task.levels, (8 * n_sub, 9 * n_sub, 8 * n_sub), strict=True))
    half = task.instructions // len(task.levels)
    return dict.fromkeys(task.levels, half)


def composition(items: list[PolluxItem], *, compare: bool = True) -> dict[str, Any]:
    """Counts per task type and complexity level (and per subtype), with deviations from the paper's plan."""
    per_task: dict[str, Counter[str]] = {}
    per_subtype: dict[str, Counter[str]] = {}
    for item in items:
        per_task.setdefault(item.task_type, Counter())[item.complexity] += 1
        per_subtype.setdefault(item.task_type, Counter())[item.task_subtype or "—"] += 1
    deviations = []
    if compare:
        for task in task_taxonomy().task_types:
            got = per_task.get(task.name, Counter())
            for level, want in expected_levels(task.name).items():
                if got[level] != want:
                    deviations.append(
                        {"task_type": task.name, "complexity": level, "expected": want, "got": got[level]}
                    )
    return {
        "n_items": len(items),
        "per_task": {t: dict(c) for t, c in sorted(per_task.items())},
        "per_subtype": {t: dict(c) for t, c in sorted(per_subtype.items())},
        "n_ethics": sum(i.ethics_flag for i in items),
        "n_with_reference": sum(i.reference_answer is not None for i in items),
        "missing_task_types": [t.name for t in task_taxonomy().task_types if t.name not in per_task],
        "mean_criteria": mean_set_size(
            (i.task_type, i.task_subtype, i.functional_style, i.ethics_flag) for i in items
        ),
        "deviations": deviations,
    }


def _sample(item: PolluxItem) -> Sample:
    from omnieval.benchmarks.pollux.judging import NO_GOLD

    meta = item.model_dump(exclude={"instruction", "reference_answer", "id"})
    return Sample(
        id=item.id,
        input=item.instruction,
        fields={"reference_answer": item.reference_answer},
        targets=(NO_GOLD,),
        metadata={"pollux": meta},
    )


@register_importer("pollux")
def import_pollux(spec_text: str) -> list[Task]:
    """``--tasks
    pollux:ITEMS[?template=ru|en&missing_reference=omit|placeholder&regression=1&models=all|seven]``:
    one generative task whose samples are the instructions; answers are recorded (metric ``pollux_answered``)
    and judged criterion by criterion when the run names ``--judge``. ``models=seven`` leaves out the QA and
    Technical task types the paper ran on three models only (the per-task model subsets)."""
    from omnieval.benchmarks.pollux.judging import pollux_judge_spec

    path, _, query = spec_text.partition("?")
    options = {k: v[-1] for k, v in parse_qs(query).items()}
    if (
        set(options) - {"template", "missing_reference", "regression", "models"}
        or options.get("models", "all") not in ("all", "seven")
        or options.get("template", "ru") not in ("ru", "en")
        or options.get("missing_reference", "omit") not in ("omit", "placeholder")
    ):
        raise TaskFileError(
            "pollux: options are template=ru|en, missing_reference=omit|placeholder, regression=1, "
            "models=all|seven",
            path=path,
        )
    file = Path(path).expanduser().resolve()
    items = load_items(file)
    if options.get("models") == "seven":  # a model outside the paper's three: skip the 3-model task types
        items = [i for i in items if task_taxonomy().get(i.task_type).models != 3]
    judge = pollux_judge_spec(
        template=options.get("template", "ru"),  # type: ignore[arg-type]
        missing_reference=options.get("missing_reference", "omit"),
        regression=options.get("regression") == "1",
    )
    spec = TaskSpec(
        name="pollux",
        description=f"POLLUX instructions from {file.name}",
        prompt=PromptSpec(template="{{ input }}"),
        parser=PluginRef(name="strip"),
        judge=judge,
        metrics=(MetricRef(name="pollux_answered"),),
        metadata={
            "suite": "pollux",
            "taxonomy": task_taxonomy().version,
            "criteria": criteria_taxonomy().version,
        },
    )
    samples = [_sample(i) for i in items]
    return [
        Task(
            spec=spec,
            iter_samples=lambda: iter(samples),
            base_dir=file.parent,
            size=len(samples),
            origin=f"pollux:{file}",
        )
    ]
