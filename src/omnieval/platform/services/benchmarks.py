"""Benchmarks are data: tasks with their answers, copied into the data dir, plus a format and a scheme.

The answers live only under ``DATA_DIR/benchmarks/<name>/`` (one JSONL of samples per task and the task
spec); nothing reads them except the scoring worker.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from omnieval.platform.errors import BenchmarkError
from omnieval.platform.services.publication import bump_board_version
from omnieval.platform.settings import Settings
from omnieval.platform.storage.files import private_dir
from omnieval.platform.storage.models import Benchmark
from omnieval.sources import Task
from omnieval.types import Sample, TaskSpec

__all__ = ["add_benchmark", "load_tasks"]

NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass(frozen=True)
class _Loaded:
    fmt: str
    tasks: list[Task]


def _load(tasks_spec: str) -> _Loaded:
    from omnieval.aggregate import schemes
    from omnieval.runner import resolve_tasks
    from omnieval.submission.base import readers

    fmt, sep, _ = tasks_spec.partition(":")
    if not sep:
        raise BenchmarkError(f"--tasks must be FORMAT:PATH (e.g. mera:ROOT), got {tasks_spec!r}")
    tasks = resolve_tasks([tasks_spec])
    if fmt not in readers or fmt not in schemes:
        raise BenchmarkError(f"format {fmt!r} has no submission reader or leaderboard scheme on the platform")
    return _Loaded(fmt, tasks)


def _write_task(task: Task, folder: Path) -> int:
    n = 0
    with (folder / f"{task.name}.jsonl").open("w", encoding="utf-8") as fh:
        for sample in task.iter_samples():
            if not sample.has_targets:
                raise BenchmarkError(
                    f"task {task.name!r} sample {sample.id!r} has no answer: the platform needs the hidden "
                    "answers"
                )
            fh.write(sample.model_dump_json() + "\n")
            n += 1
    (folder / f"{task.name}.spec.json").write_text(task.spec.model_dump_json(), encoding="utf-8")
    return n


def add_benchmark(session: Session, settings: Settings, *, name: str, tasks_spec: str) -> dict[str, int]:
    """Register (or replace the answers of) benchmark ``name``; returns the number of samples per task."""
    if not NAME.match(name):
        raise BenchmarkError("name: 1-64 letters, digits, '_' or '-'")
    loaded = _load(tasks_spec)
    folder = private_dir(settings.answers / name)
    counts = {task.name: _write_task(task, folder) for task in loaded.tasks}
    row = session.scalar(select(Benchmark).where(Benchmark.name == name))
    if row is None:
        row = Benchmark(name=name, format=loaded.fmt, scheme=loaded.fmt, tasks=sorted(counts))
        session.add(row)
    else:
        row.format, row.scheme, row.tasks = loaded.fmt, loaded.fmt, sorted(counts)
        bump_board_version(session, row.id)  # the scheme may have changed: cached boards are stale everywhere
    return counts


def load_tasks(settings: Settings, benchmark: Benchmark) -> list[Task]:
    """The stored tasks of ``benchmark``, answers included (scoring only)."""
    folder = settings.answers / benchmark.name
    tasks = []
    for name in benchmark.tasks:
        spec = TaskSpec.model_validate_json((folder / f"{name}.spec.json").read_text(encoding="utf-8"))
        with (folder / f"{name}.jsonl").open(encoding="utf-8") as fh:
            samples = [Sample.model_validate(json.loads(line)) for line in fh if line.strip()]
        tasks.append(Task.from_samples(spec, samples))
    return tasks
