"""A worker's tasks, each task's selected samples read once, so a shard's set-up costs O(shard).

Without this, each shard's runner streams the whole task to find its samples (and again to check
ids): a task of N samples cut into S shards costs S passes over the data per worker. The worker
reads a task's selection (the run's ``--limit`` / ``--sample-ids``) once into memory and hands each
shard a :meth:`~omnieval.sources.Task.view` over just its samples, positions kept, so the records
are the same. Shards come in plan order (task by task), so only the current task is held; a task
too big to hold (embedded media) is streamed per shard as before.
"""

from __future__ import annotations

import dataclasses
import operator

from omnieval.errors import ConfigError
from omnieval.executors.shards import ShardPlan
from omnieval.runner import RunConfig, resolve_tasks
from omnieval.runner.run import selected_samples
from omnieval.sources import Task
from omnieval.types import Sample

__all__ = ["HELD_BYTES", "ShardViews"]

HELD_BYTES = 512 * 2**20
"""Rough bytes of one task's samples a worker keeps in memory; a bigger task is streamed per shard."""

_OVERHEAD = 2048
"""Python objects of one sample beyond its text and media bytes (measured: ~2 KB for a short QA row)."""


def _weight(sample: Sample) -> int:
    text = len(sample.input) + sum(len(v) for v in sample.fields.values() if isinstance(v, str))
    return _OVERHEAD + text + sum(len(m.data or b"") for m in sample.media)


@dataclasses.dataclass
class _Held:
    """One task's selected samples by id, and the task with its few-shot pool read once."""

    task: Task
    by_id: dict[str, tuple[int, Sample]]


class ShardViews:
    """The tasks of ``config`` (resolved once per worker) and each shard's view over its samples."""

    def __init__(self, config: RunConfig, *, held_bytes: int = HELD_BYTES) -> None:
        self.config = config
        self.held_bytes = held_bytes
        self._tasks: dict[str, Task] | None = None
        self._held: dict[str, _Held] = {}
        self._streamed: set[str] = set()
        self.reads = 0
        """Passes over task data made to hold a selection (tests check it is one per task)."""

    def task(self, name: str) -> Task:
        if self._tasks is None:
            tasks = resolve_tasks(self.config.tasks, strict_metrics=self.config.strict_metrics)
            self._tasks = {t.name: t for t in tasks}
        if name not in self._tasks:
            raise ConfigError(f"task {name!r} is not among {self.config.tasks}")
        return self._tasks[name]

    def for_shard(self, plan: ShardPlan) -> Task:
        """A task over exactly the shard's samples (the whole task when it is too big to hold)."""
        task = self.task(plan.task)
        held = self._hold(task)
        if held is None:
            return task
        missing = [s for s in plan.sample_ids if s not in held.by_id]
        if missing:
            raise ConfigError(f"task {task.name!r} ({task.origin}): shard {plan.key} names sample {missing[0]!r}, "
                              "which the task's data no longer has (changed since the run was planned?)")  # fmt: skip
        return held.task.view(sorted((held.by_id[s] for s in plan.sample_ids), key=operator.itemgetter(0)))

    def _hold(self, task: Task) -> _Held | None:
        if task.name in self._streamed:
            return None
        if task.name not in self._held:
            self._held.clear()  # shards arrive task by task: keep only the current one
            held = self._read(task)
            if held is None:
                self._streamed.add(task.name)
                return None
            self._held[task.name] = held
        return self._held[task.name]

    def _read(self, task: Task) -> _Held | None:
        self.reads += 1
        by_id: dict[str, tuple[int, Sample]] = {}
        total = 0
        for position, sample in selected_samples(task, self.config):
            total += _weight(sample)
            if total > self.held_bytes:
                return None
            by_id[sample.id] = (position, sample)
        if task.iter_demos is not None and task.spec.prompt.fewshot.n:
            demos = list(task.iter_demos())
            task = dataclasses.replace(task, iter_demos=lambda: iter(demos))
        return _Held(task, by_id)
