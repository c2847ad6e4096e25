"""The POLLUX task and criteria taxonomies, loaded from the versioned data files in ``data/``.

Each criterion variant is flattened into one :class:`CriterionVariant` that carries everything a judge
prompt, a score check or a report needs: rubric per score, scale bounds, polarity, NA rule and
whether a reference answer is required. Loading checks the files against each other, so a scope
naming an unknown task type or a rubric that misses a scale point fails here, not mid-run.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict

from omnieval.errors import TaskFileError

__all__ = [
    "GROUPS",
    "CriteriaTaxonomy",
    "CriterionVariant",
    "Subtype",
    "TaskTaxonomy",
    "TaskType",
    "criteria_taxonomy",
    "task_taxonomy",
]

DATA = Path(__file__).with_name("data")
Group = Literal["critical", "general", "subjective", "domain", "task"]
GROUPS: tuple[Group, ...] = ("critical", "general", "subjective", "domain", "task")
Style = Literal["Literature", "Journalism", "Science", "Law", "Conversational"]


class Frozen(BaseModel):
    """Immutable and strict, like the engine's types: an unknown field in a data file is an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Subtype(Frozen):
    name: str
    style: Style | None = None
    subsubtypes: tuple[str, ...] = ()


class TaskType(Frozen):
    name: str
    macrogroup: str
    results_macrogroup: str
    description: str
    subtypes: tuple[Subtype, ...]
    levels: tuple[str, ...]
    complexity: dict[str, str]
    style: Style | None = None
    panels: tuple[int, ...] = ()
    zero_shot: bool = False
    models: int = 7
    instructions: int = 50
    aliases: tuple[str, ...] = ()

    def subtype(self, name: str | None) -> Subtype | None:
        return next((s for s in self.subtypes if s.name == name), None) if name else None


class TaskTaxonomy(Frozen):
    version: str
    macrogroups: dict[str, str]
    results_macrogroups: dict[str, str]
    task_types: tuple[TaskType, ...]
    corrections: tuple[str, ...]

    def get(self, name: str) -> TaskType:
        """A task type by name or alias; an unknown name is a :class:`TaskFileError` with close matches."""
        for task in self.task_types:
            if name == task.name or name in task.aliases:
                return task
        import difflib

        close = difflib.get_close_matches(name, [t.name for t in self.task_types], n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise TaskFileError(f"unknown POLLUX task type {name!r}{hint}")


class CriterionVariant(Frozen):
    """One rubric variant of a criterion: the unit a judge scores."""

    id: str
    criterion_id: str
    name: str
    short: str
    name_ru: str | None
    group: Group
    description: str
    min: int
    max: int
    higher_is_better: bool
    allows_na: bool
    requires_reference: bool
    optional: bool
    overlap: int
    zero_shot_only: bool
    domains: tuple[Style, ...] = ()
    task_types: tuple[str, ...] = ()
    subtypes: tuple[str, ...] = ()
    ethics_only: bool = False
    rubrics: dict[int, str]

    @property
    def perfect(self) -> int:
        """The best score: the maximum, or 0 for inverted (Critical) criteria."""
        return self.max if self.higher_is_better else self.min

    def in_scale(self, score: float) -> bool:
        return self.min <= score <= self.max

    def rubric_text(self) -> str:
        """The rubric as the judge prompt's ``criteria.rubrics`` slot: one ``score: text`` line per point."""
        return "\n".join(f"{score}: {text}" for score, text in sorted(self.rubrics.items()))


class CriteriaTaxonomy(Frozen):
    version: str
    variants: tuple[CriterionVariant, ...]
    corrections: tuple[str, ...]

    def get(self, variant_id: str) -> CriterionVariant:
        for variant in self.variants:
            if variant.id == variant_id:
                return variant
        raise TaskFileError(f"unknown POLLUX criterion variant {variant_id!r}")

    def by_name(self) -> dict[str, list[CriterionVariant]]:
        """Variants grouped by criterion id and by English name (annotation files use either)."""
        out: dict[str, list[CriterionVariant]] = {}
        for variant in self.variants:
            out.setdefault(variant.criterion_id, []).append(variant)
            if variant.name != variant.criterion_id:
                out.setdefault(variant.name, []).append(variant)
        return out


def _read(name: str) -> dict[str, Any]:
    path = DATA / name
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise TaskFileError("expected a mapping", path=str(path))
    return data


@cache
def task_taxonomy() -> TaskTaxonomy:
    """The 35 task types of ``data/tasks.yaml``."""
    data = _read("tasks.yaml")
    levels = data["levels"]
    tasks = []
    for raw in data["task_types"]:
        raw = dict(raw)
        raw["levels"] = tuple(levels[raw.pop("levels", "three")])
        raw.setdefault("results_macrogroup", raw["macrogroup"])
        if set(raw["complexity"]) != set(raw["levels"]):
            raise TaskFileError(
                "complexity definitions must match the levels", path=str(DATA / "tasks.yaml"), key=raw["name"]
            )
        tasks.append(TaskType.model_validate(raw))
    return TaskTaxonomy(
        version=data["version"],
        macrogroups={m["id"]: m["name"] for m in data["macrogroups"]},
        results_macrogroups={m["id"]: m["results_name"] for m in data["macrogroups"]},
        task_types=tuple(tasks),
        corrections=tuple(data["corrections"]),
    )


def _variants(
    crit: dict[str, Any], raw: dict[str, Any], index: int, defaults: dict[str, Any]
) -> list[CriterionVariant]:
    scope = raw.get("scope", {})
    if scope.get("domains"):
        return [_variant(crit, raw, domain, defaults, domains=(domain,)) for domain in scope["domains"]]
    key = "ethics" if scope.get("ethics_flag") else f"task{index}" if scope.get("task_types") else "universal"
    return [_variant(crit, raw, key, defaults, domains=())]


def _variant(
    crit: dict[str, Any], raw: dict[str, Any], key: str, defaults: dict[str, Any], *, domains: tuple[str, ...]
) -> CriterionVariant:
    scope = raw.get("scope", {})
    settings: dict[str, Any] = {
        k: raw.get(k, crit.get(k, defaults.get(k)))
        for k in ("min", "max", "higher_is_better", "allows_na", "requires_reference", "optional", "overlap")
    }
    return CriterionVariant(
        id=f"{crit['id']}@{key}",
        criterion_id=crit["id"],
        name=crit["name"],
        short=crit.get("short", crit["name"]),
        name_ru=crit.get("name_ru"),
        group=raw.get("group", crit["group"]),
        description=crit.get("description", ""),
        zero_shot_only=crit.get("zero_shot_only", False),
        domains=domains,  # type: ignore[arg-type]
        task_types=tuple(scope.get("task_types", ())),
        subtypes=tuple(scope.get("subtypes", ())),
        ethics_only=bool(scope.get("ethics_flag", False)),
        rubrics={int(k): str(v) for k, v in raw["rubrics"].items()},
        **settings,
    )


@cache
def criteria_taxonomy() -> CriteriaTaxonomy:
    """Every criterion variant of ``data/criteria.yaml``, checked against the task taxonomy."""
    data = _read("criteria.yaml")
    path = str(DATA / "criteria.yaml")
    known_tasks = {t.name for t in task_taxonomy().task_types}
    variants = []
    for crit in data["criteria"]:
        expanded = [
            v for i, raw in enumerate(crit["variants"], 1) for v in _variants(crit, raw, i, data["defaults"])
        ]
        for variant in expanded:
            if set(variant.rubrics) != set(range(variant.min, variant.max + 1)):
                raise TaskFileError(
                    f"rubric scores {sorted(variant.rubrics)} do not cover the scale "
                    f"{variant.min}..{variant.max}",
                    path=path,
                    key=variant.id,
                )
            unknown = set(variant.task_types) - known_tasks
            if unknown:
                raise TaskFileError(
                    f"scope names unknown task types {sorted(unknown)}", path=path, key=variant.id
                )
            variants.append(variant)
    ids = [v.id for v in variants]
    if len(ids) != len(set(ids)):
        raise TaskFileError("duplicate variant ids", path=path)
    return CriteriaTaxonomy(
        version=data["version"], variants=tuple(variants), corrections=tuple(data["corrections"])
    )
