"""The driver's view of running shards: each busy worker polled one call ahead (never waited on), the
records and response-cache entries that workers off the driver's node stream, and the progress bars."""

from __future__ import annotations

from collections import Counter
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from omnieval.executors.ray_port import RayPort, Ref
from omnieval.executors.shard_queue import ShardQueue
from omnieval.executors.shards import ShardPlan
from omnieval.executors.worker_pool import Worker, WorkerPool
from omnieval.runner.progress import Progress
from omnieval.store import ResponseCache

__all__ = ["Polls", "keep_entries"]


class Polls:
    """The workers' progress (:meth:`ShardWorker.progress`), asked for one poll ahead: the driver never
    waits on a worker, and no answer is dropped (a worker hands each streamed record out once)."""

    def __init__(self, port: RayPort) -> None:
        self.port = port
        self.pending: dict[Ref, str] = {}
        """Poll → the worker asked."""
        self.seen: dict[str, dict[str, Any]] = {}
        """Shard → its latest counts (``done``, ``new``)."""

    def take(
        self, workers: list[Worker], running: AbstractSet[str]
    ) -> tuple[dict[str, list[bytes]], dict[str, list[Any]]]:
        """The answers in by now (the counts kept; the records returned by shard, the response-cache
        entries by cache), and a new poll of each worker not being asked already. A lost worker's poll
        fails: its shard runs again anyway."""
        lines: dict[str, list[bytes]] = {}
        entries: dict[str, list[Any]] = {}
        if self.pending:
            for ref in self.port.wait(list(self.pending), num_returns=len(self.pending), timeout=0):
                del self.pending[ref]
                try:
                    answer = self.port.get(ref)
                except Exception as exc:
                    if self.port.failure(exc) is None:
                        raise
                    continue
                for key, counts in answer.items():
                    for cache, rows in (counts.pop("caches", None) or {}).items():
                        entries.setdefault(cache, []).extend(rows)  # each handed out once: all kept
                    if key in running:  # a finished shard's counts came with its result
                        lines.setdefault(key, []).extend(counts.pop("lines", None) or [])
                        self.seen[key] = counts
        asked = set(self.pending.values())
        for owner, actor in workers:
            if owner not in asked:
                self.pending[self.port.call(actor, "progress")] = owner
        return lines, entries

    def show(
        self,
        progress: Progress,
        pool: WorkerPool,
        queue: ShardQueue,
        plans: list[ShardPlan],
        *,
        caches: dict[str, Path],
    ) -> None:
        """Fold the workers' latest shard counts into the per-task bars (samples done, errors, ETA), add the
        records that workers off the driver's node streamed to the running shards' files, and their
        response cache entries to the run's caches."""
        running = {r.plan.key for r in pool.busy.values()}
        workers = list({r.worker.owner: r.worker for r in pool.busy.values()}.values())
        lines, entries = self.take(workers, running)
        keep_entries(caches, entries)
        for key in running & lines.keys():  # a finished shard's file is already its worker's full copy
            queue.streamed(next(p for p in plans if p.key == key), lines[key])
        done: Counter[str] = Counter()
        new: dict[str, Counter[str]] = {}
        for plan in plans:
            seen = self.seen.get(plan.key)
            done[plan.task] += seen["done"] if seen else len(queue.current[plan.key])
            new.setdefault(plan.task, Counter()).update(seen["new"] if seen else {})
        for task, states in new.items():
            progress.update(task, done=done[task], states=dict(states))


def keep_entries(caches: dict[str, Path], entries: dict[str, list[Any]]) -> None:
    """Response-cache entries of workers off the driver's node, written into the run's caches on the
    driver (with the sessions that wrote them), so a resume or ``omnieval rejudge`` reuses them."""
    for name, rows in entries.items():
        if rows and name in caches:
            cache = ResponseCache(caches[name])
            cache.add(rows)
            cache.close()
