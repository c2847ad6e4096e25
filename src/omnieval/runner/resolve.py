"""``--tasks`` strings → validated tasks (names, YAML paths, groups, ``FORMAT:PATH``)."""

from __future__ import annotations

import dataclasses
import difflib
import sys
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

from omnieval.errors import OmnievalError, TaskFileError
from omnieval.metrics import bind_metric
from omnieval.parsers import bind_parser
from omnieval.prompts import renderers
from omnieval.registry import PLUGINS_GROUP, check_options, load_group
from omnieval.sources import Task, importers, load_task_file, task_dirs
from omnieval.types import JudgeSpec, MetricRef

__all__ = ["catalog", "resolve_tasks", "strict_variant", "validate_task"]


def validate_task(task: Task) -> Task:
    """Resolve every plugin the task names; the error names the file and key."""
    spec = task.spec
    checks: list[tuple[str, Callable[[], object]]] = [("parser", lambda: bind_parser(spec.parser))]
    for i, ref in enumerate(spec.metrics):
        checks.append((f"metrics[{i}]", lambda ref=ref: bind_metric(ref)))  # type: ignore[misc]
    if spec.prompt.renderer is not None:
        name = spec.prompt.renderer.name
        checks.append(("prompt.renderer", lambda: renderers.get(name)))
    if spec.judge is not None:
        checks.extend(_judge_checks(spec.judge))
    for key, check in checks:
        try:
            check()
        except TaskFileError:
            raise
        except OmnievalError as exc:
            raise TaskFileError(str(exc), path=task.origin or spec.name, key=key) from None
    return task


def _judge_checks(judge: JudgeSpec) -> list[tuple[str, Callable[[], object]]]:
    """A task's judge plugins resolve at load time too, not when the first sample is judged."""
    from omnieval.judges import get_judge_template, judge_protocols

    protocol = judge.protocol
    checks: list[tuple[str, Callable[[], object]]] = [
        (
            "judge.protocol",
            lambda: check_options(
                judge_protocols.get(protocol.name),
                protocol.options,
                what=f"judge protocol {protocol.name!r}",
                n_positional=1,
            ),
        ),
        ("judge.parser", lambda: bind_parser(judge.parser)),
    ]
    if judge.template is not None:
        template = judge.template
        checks.append(("judge.template", lambda: get_judge_template(template)))
    for i, ref in enumerate(judge.metrics):
        checks.append((f"judge.metrics[{i}]", lambda ref=ref: bind_metric(ref)))  # type: ignore[misc]
    return checks


@lru_cache(maxsize=1)
def catalog() -> dict[str, Path]:
    """Built-in and registered task files by task name (read lazily, name only)."""
    import yaml  # here: a ``FORMAT:PATH`` task reads no YAML, and yaml is ≈ 10 ms of start-up

    load_group(PLUGINS_GROUP)  # the packages that register task folders; no kind's own plugins
    found: dict[str, Path] = {}
    for directory in task_dirs():
        for file in sorted(directory.rglob("*.yaml")):
            try:
                data = yaml.safe_load(file.read_text(encoding="utf-8"))
            except yaml.YAMLError:
                continue
            if isinstance(data, dict) and isinstance(data.get("name"), str):
                found.setdefault(data["name"], file)
    return found


def _groups() -> dict[str, list[str]]:
    import yaml

    members: dict[str, list[str]] = {}
    for name, file in catalog().items():
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
        for group in dict.fromkeys([*(data.get("groups") or []), *(data.get("tags") or [])]):
            members.setdefault(str(group), []).append(name)
    return members


def _resolve_one(item: str) -> list[Task]:
    fmt, sep, rest = item.partition(":")
    if sep and len(fmt) > 1 and fmt in importers:
        return importers.get(fmt)(rest)
    path = Path(item)
    if (by_extension := _format_of_file(path)) is not None:
        _note_read_as(item, by_extension)
        return importers.get(by_extension)(item)
    if path.suffix in (".yaml", ".yml") or path.is_file():
        return [load_task_file(path)]
    if item in catalog():
        return [load_task_file(catalog()[item])]
    groups = _groups()
    if item in groups:
        return [load_task_file(catalog()[name]) for name in groups[item]]
    if sep and len(fmt) > 1:
        importers.get(fmt)  # raises with close matches
    close = difflib.get_close_matches(item, [*catalog(), *groups], n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    known = ", ".join(sorted(catalog())[:30])
    raise TaskFileError(
        f"unknown task {item!r}: not a registered task, group, YAML file or FORMAT:PATH{hint} (known: "
        f"{known})"
    )


@lru_cache(maxsize=64)
def _note_read_as(item: str, fmt: str) -> None:
    """Said once per process (a run resolves its tasks more than once)."""
    print(f"[omnieval] note: reading {item} as {fmt}:{item} (its extension)", file=sys.stderr)


def _format_of_file(path: Path) -> str | None:
    """The importer a task file without a ``FORMAT:`` prefix is read by: the one its extension names
    (``qa.csv`` → ``csv:``), for files only; YAML (and anything else) is a task file."""
    fmt = path.suffix[1:].lower()
    if not fmt or fmt in ("yaml", "yml") or fmt not in importers:
        return None
    if not path.exists():  # said plainly, not "unknown task 'qa.csv'"
        raise TaskFileError("file not found", path=str(path.resolve()))
    return fmt if path.is_file() else None


def strict_variant(task: Task) -> Task:
    """The task with every metric (and the parser) that has a ``<name>_strict`` variant swapped for it.

    Parity with a benchmark's original scorer is the default; ``--strict-metrics`` opts into the
    fixed behaviour, which is registered under its own name and metric version.
    """
    from omnieval.metrics import metrics as metric_registry
    from omnieval.parsers import parsers as parser_registry

    spec = task.spec

    def swap(refs: tuple[MetricRef, ...]) -> tuple[MetricRef, ...]:
        return tuple(
            m.model_copy(update={"name": f"{m.name}_strict", "alias": m.key})
            if f"{m.name}_strict" in metric_registry
            else m
            for m in refs
        )

    parser = spec.parser
    if f"{parser.name}_strict" in parser_registry:
        parser = parser.model_copy(update={"name": f"{parser.name}_strict"})
    update: dict[str, object] = {"metrics": swap(spec.metrics), "parser": parser}
    if spec.judge is not None:  # the metrics computed after the judge get their fixed variants too
        update["judge"] = spec.judge.model_copy(update={"metrics": swap(spec.judge.metrics)})
    return dataclasses.replace(task, spec=spec.model_copy(update=update))


def resolve_tasks(items: Iterable[str], *, strict_metrics: bool = False) -> list[Task]:
    """Every task named, validated, in order, without duplicates."""
    tasks: dict[str, Task] = {}
    for raw in items:
        for piece in (p.strip() for p in raw.split(",")):
            if not piece:
                continue
            for task in _resolve_one(piece):
                if task.name in tasks:
                    raise TaskFileError(f"task name {task.name!r} appears twice (from {task.origin})")
                tasks[task.name] = validate_task(strict_variant(task) if strict_metrics else task)
    return list(tasks.values())
