"""Task-level settle steps: a parser's answers that depend on the task's other samples, decided once
over the stored records before they are aggregated (MMMU's random guesses, drawn from one stream in the
authors' order). The engine knows no benchmark: a parser registers its step
(:func:`omnieval.parsers.register_parser`'s ``settle``) and the records carry what it reads back."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from omnieval.parsers import TaskSettler, settler_of
from omnieval.sources import Task
from omnieval.store import iter_records, patch_records

__all__ = ["settle_file", "settle_records"]


def _settlers(tasks: Iterable[Task]) -> dict[str, TaskSettler]:
    return {t.name: s for t in tasks if (s := settler_of(t.spec.parser)) is not None}


def _task_rows(
    records: Iterable[dict[str, Any]], name: str, positions: list[int]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The task's records numbered within the task; ``positions`` collects each one's index overall."""
    local = 0
    for index, record in enumerate(records):
        if record.get("task") == name:
            positions.append(index)
            yield local, record
            local += 1


def settle_records(tasks: Iterable[Task], records: Iterable[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The fields each settle step replaces, by the record's index in ``records`` (re-iterated once per
    task that has a step; nothing is read when no task has one)."""
    changes: dict[int, dict[str, Any]] = {}
    for name, settle in _settlers(tasks).items():
        positions: list[int] = []
        for local, fields in settle(_task_rows(records, name, positions)).items():
            changes[positions[local]] = fields
    return changes


class _Reread:
    """``samples.jsonl`` streamed again on each iteration (memory stays flat in the number of records)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter_records(self.path)


def settle_file(path: Path, tasks: Iterable[Task]) -> int:
    """Run the tasks' settle steps over a run's ``samples.jsonl`` and patch it in place (only when a
    record changes); the number of records changed."""
    tasks = list(tasks)
    if not path.exists() or not _settlers(tasks):
        return 0
    changes = settle_records(tasks, _Reread(path))
    if changes:
        patch_records(path, changes)
    return len(changes)
