"""The driver's tasks, each task's selected samples read once, and each shard's piece of them.

The driver reads a task's selection (the run's ``--limit`` / ``--sample-ids``) once into memory and
gives each shard a :meth:`~omnieval.sources.Task.view` over just its samples, positions kept, so the
records are the same as a local run's. The view travels to the worker with the shard (through Ray's
object store) and its media files as :class:`MediaStore` references: each distinct content is read once
on the driver and put in Ray's object store once (by sha256), so a node fetches it once however many
shards, samples or paths use it; the worker embeds the bytes (:func:`with_media_bytes`) and needs
neither the task file nor the media folder: they may exist on the driver only. Shards come in plan order
(task by task), so only the current task is held; a task too big to hold is read again for each shard.
"""

from __future__ import annotations

import dataclasses
import hashlib
import operator
from pathlib import Path
from typing import Any

from omnieval.errors import ConfigError, MediaError
from omnieval.executors.shards import ShardPlan
from omnieval.media.hashing import read_media
from omnieval.runner import RunConfig, resolve_tasks
from omnieval.runner.run import selected_samples
from omnieval.sources import Task
from omnieval.types import MediaRef, Sample

__all__ = ["HELD_BYTES", "MediaStore", "ShardViews", "with_media_bytes"]

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
        """A task over exactly the shard's samples (a task too big to hold is read again to find them)."""
        task = self.task(plan.task)
        held = self._hold(task)
        if held is None:
            wanted = set(plan.sample_ids)
            held = _Held(
                task, {s.id: (p, s) for p, s in selected_samples(task, self.config) if s.id in wanted}
            )
        missing = [s for s in plan.sample_ids if s not in held.by_id]
        if missing:
            raise ConfigError(
                f"task {task.name!r} ({task.origin}): shard {plan.key} names sample {missing[0]!r}, "
                "which the task's data no longer has (changed since the run was planned?)"
            )
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


def with_media_bytes(task: Task, *, memo: dict[str, bytes] | None = None) -> Task:
    """A shard's view with every media file's bytes embedded (the path kept: records and hashes are
    unchanged), so the worker reads nothing from disk; ``memo`` reads each file once per run."""
    memo = {} if memo is None else memo
    pairs = [(p, _embedded(s, memo)) for p, s in task.positioned()]
    return task.view(pairs)


def _embedded(sample: Sample, memo: dict[str, bytes]) -> Sample:
    if not any(m.path and m.data is None for m in sample.media):
        return sample
    return sample.model_copy(update={"media": tuple(_load(m, memo) for m in sample.media)})


def _load(ref: MediaRef, memo: dict[str, bytes]) -> MediaRef:
    if not ref.path or ref.data is not None or "://" in ref.path:  # a URL is refused later, as in a local run
        return ref
    key = str(Path(ref.path))
    if key not in memo:
        try:
            memo[key] = read_media(ref)
        except (
            MediaError
        ):  # missing or unreadable: the worker records the sample's error, as a local run does
            return ref
    return ref.model_copy(update={"data": memo[key]})


@dataclasses.dataclass
class MediaStore:
    """The driver's media, one object-store entry per distinct content (sha256), whatever its paths.

    ``put`` stores bytes and returns a handle (``ray.put``); :meth:`refs` gives a shard's media as
    ``{path: handle}``. Handles live as long as the store (the run), so Ray keeps each object while
    shards may need it and a node's workers read it from their node's store after the first fetch."""

    put: Any
    by_path: dict[str, Any] = dataclasses.field(default_factory=dict)
    by_content: dict[str, Any] = dataclasses.field(default_factory=dict)
    unreadable: set[str] = dataclasses.field(default_factory=set)

    def refs(self, task: Task) -> dict[str, Any]:
        """Handles for every local media file of ``task``'s samples (unreadable ones are left to the
        worker, which records the sample's error as a local run does)."""
        out: dict[str, Any] = {}
        for _, sample in task.positioned():
            for ref in sample.media:
                if not ref.path or ref.data is not None or "://" in ref.path:
                    continue
                key = str(Path(ref.path))
                handle = self._handle(key, ref)
                if handle is not None:
                    out[key] = handle
        return out

    def _handle(self, key: str, ref: MediaRef) -> Any:
        if key not in self.by_path and key not in self.unreadable:
            try:
                data = read_media(ref)
            except MediaError:
                self.unreadable.add(key)
                return None
            digest = hashlib.sha256(data).hexdigest()
            if digest not in self.by_content:
                self.by_content[digest] = self.put(data)
            self.by_path[key] = self.by_content[digest]
        return self.by_path.get(key)
