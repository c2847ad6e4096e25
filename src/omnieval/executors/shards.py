"""Shards: a task's selected samples cut into ranges, their record files, and the deterministic merge.

A shard is ``model × task × sample range``. Its records live in ``OUTPUT/shards/KEY/samples.jsonl``
(the runner's own resume works inside it); the run's ``samples.jsonl`` is rebuilt from the shards in
plan order, so the same configuration always gives the same file, whoever ran which shard.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from omnieval.runner import RunConfig
from omnieval.runner.run import selected_samples, task_repeats
from omnieval.sources import Task
from omnieval.store import RecordKey, read_json, rewrite_lines, scan_keys, write_json

__all__ = [
    "ShardPlan",
    "auto_shard_size",
    "is_finished",
    "merge_shards",
    "plan_shards",
    "remember_plan",
    "remembered_shard_size",
    "seed_shards",
    "shard_file",
    "unplanned_sample_ids",
]

MIN_SHARD = 8
"""Smaller shards cost more in per-shard set-up (manifest, id scan) than they gain in balance."""


@dataclass(frozen=True)
class ShardPlan:
    """One unit of work: some samples of one task (a chain is never split)."""

    key: str
    task: str
    sample_ids: tuple[str, ...]
    positions: tuple[int, ...]
    """Each sample's position in the task's data: the merge orders records by it."""
    repeats: tuple[int | None, ...] = (None,)
    """The repeat indices each sample is answered under (``(None,)`` without repeats): a shard holds its
    samples with all their repeats, one record per (sample, repeat)."""

    @property
    def size(self) -> int:
        return len(self.sample_ids)

    @property
    def records(self) -> int:
        """Records the finished shard holds: samples × repeats."""
        return len(self.sample_ids) * len(self.repeats)

    def record_ids(self) -> list[tuple[str, int | None]]:
        """``(sample_id, repeat)`` of every record the shard must hold, in merge order."""
        return [(s, r) for s in self.sample_ids for r in self.repeats]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:60]


def auto_shard_size(n_samples: int, *, workers: int) -> int:
    """About two shards per worker per task: enough to balance, few enough to keep set-up cheap."""
    return max(MIN_SHARD, math.ceil(n_samples / max(1, 2 * workers)))


def _units(task: Task, config: RunConfig) -> list[list[tuple[int, str]]]:
    """Independent samples one by one; a chain's steps together, at its first step's place."""
    units: list[list[tuple[int, str]]] = []
    chains: dict[str, list[tuple[int, str]]] = {}
    for position, sample in selected_samples(task, config):
        if sample.chain is None:
            units.append([(position, sample.id)])
        elif sample.chain in chains:
            chains[sample.chain].append((position, sample.id))
        else:
            chains[sample.chain] = [(position, sample.id)]
            units.append(chains[sample.chain])
    return units


def _repeat_indices(task: Task, config: RunConfig) -> tuple[int | None, ...]:
    n = task_repeats(task, config)
    return (None,) if n is None else tuple(range(n))


def plan_shards(
    tasks: list[Task], config: RunConfig, *, shard_size: int | None, workers: int
) -> tuple[list[ShardPlan], int]:
    """Every task's selection cut into shards of about ``shard_size`` samples; also the size used."""
    per_task = [(task, _units(task, config)) for task in tasks]
    repeats = {task.name: _repeat_indices(task, config) for task in tasks}
    if shard_size is None:
        largest = max((sum(len(u) for u in units) for _, units in per_task), default=0)
        shard_size = auto_shard_size(largest, workers=workers)
    plans: list[ShardPlan] = []
    for t_index, (task, units) in enumerate(per_task):
        current: list[tuple[int, str]] = []
        for unit in [*units, None]:
            if current and (unit is None or len(current) + len(unit) > shard_size):
                ids = tuple(s for _, s in current)
                digest = hashlib.blake2b("\x00".join(ids).encode(), digest_size=4).hexdigest()
                key = f"{t_index:03d}-{_safe(task.name)}-{len(plans):05d}-{digest}"  # other ids, other key
                positions = tuple(p for p, _ in current)
                plans.append(ShardPlan(key, task.name, ids, positions, repeats[task.name]))
                current = []
            if unit is not None:
                current.extend(unit)
    return plans, shard_size


def unplanned_sample_ids(plans: list[ShardPlan], config: RunConfig) -> tuple[str, ...]:
    """``--sample-ids`` that no task has: the plans cover every selected sample, done or not."""
    if not config.sample_ids:
        return ()
    planned = {sample_id for plan in plans for sample_id in plan.sample_ids}
    return tuple(i for i in config.sample_ids if i not in planned)


def shard_file(output: Path, plan: ShardPlan) -> Path:
    return output / "shards" / plan.key / "samples.jsonl"


def is_finished(keys: Iterable[RecordKey], plan: ShardPlan, *, retry_errors: bool) -> bool:
    """Every (sample, repeat) of the shard has a record (an ``error`` record counts only without
    retry_errors)."""
    have = {(k.sample_id, k.repeat) for k in keys if not (retry_errors and k.state == "error")}
    return all(i in have for i in plan.record_ids())


def seed_shards(output: Path, plans: list[ShardPlan]) -> dict[str, list[RecordKey]]:
    """Each shard's current records; records of ``samples.jsonl`` (an earlier run, local or not) that
    a shard file lacks are added to it first, so nothing already answered is asked again."""
    merged = {(k.task, k.sample_id, k.repeat): k for k in scan_keys(output / "samples.jsonl")}
    current: dict[str, list[RecordKey]] = {}
    for plan in plans:
        path = shard_file(output, plan)
        keys = list(scan_keys(path))
        have = {(k.sample_id, k.repeat) for k in keys}
        extra = [
            merged[(plan.task, *i)] for i in plan.record_ids() if i not in have and (plan.task, *i) in merged
        ]
        if extra:
            keys += extra
            path.parent.mkdir(parents=True, exist_ok=True)
            rewrite_lines(path, [k.line for k in keys])
        current[plan.key] = keys
    return current


def merge_shards(output: Path, plans: list[ShardPlan]) -> int:
    """Rebuild ``samples.jsonl``: shard records in plan order (task, then sample position, then repeat),
    then any earlier records no shard covers (other tasks); one record per (sample, repeat), written
    atomically."""
    planned: set[tuple[str, str]] = set()
    out: list[bytes] = []
    for plan in plans:
        order = {i: n for n, i in enumerate(plan.record_ids())}
        latest: dict[tuple[str, int | None], bytes] = {}
        for key in scan_keys(shard_file(output, plan)):
            if (key.sample_id, key.repeat) in order:
                latest[(key.sample_id, key.repeat)] = key.line
        out.extend(latest[i] for i in sorted(latest, key=order.__getitem__))
        planned.update((plan.task, s) for s in plan.sample_ids)
    path = output / "samples.jsonl"
    out.extend(k.line for k in scan_keys(path) if (k.task, k.sample_id) not in planned)
    rewrite_lines(path, out)
    return len(out)


def remembered_shard_size(output: Path) -> int | None:
    """The shard size an earlier run of this directory used (so its shard files keep their keys)."""
    path = output / "shards" / "plan.json"
    if not path.exists():
        return None
    size = read_json(path).get("shard_size")
    return int(size) if isinstance(size, int) else None


def remember_plan(output: Path, plans: list[ShardPlan], shard_size: int) -> None:
    (output / "shards").mkdir(parents=True, exist_ok=True)
    write_json(
        output / "shards" / "plan.json",
        {"shard_size": shard_size, "shards": {p.key: {"task": p.task, "n": p.size} for p in plans}},
    )
