"""The shard worker: one backend (one model load) reused for every shard it is given.

A shard runs through the ordinary runner (:func:`omnieval.runner.run_async`) with the shard's sample
ids and its own output directory, so retries, caching, chains and crash-safe records are the
runner's own. The worker only adds what a cluster needs: the shared backend, progress reports and
the shard's records sent back to the driver.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omnieval.backends import Backend, create_backend
from omnieval.backends.shared import SharedBackend, share
from omnieval.executors.actors import node_id
from omnieval.executors.gate import GateClient
from omnieval.executors.judge_cluster import JudgeRoute, WorkerJudges
from omnieval.executors.shards import ShardPlan, shard_file
from omnieval.executors.views import with_media_bytes
from omnieval.runner import RunConfig, run_async
from omnieval.sources import Task
from omnieval.store import ResponseCache, read_entries, rewrite_lines, scan_keys, write_json

__all__ = ["NODE_TEMP", "ShardWorker", "run_caches", "shard_config"]

NODE_TEMP = "omnieval-ray"
"""A worker off the driver's node works in ``$TMPDIR/omnieval-ray/<run session>/`` on its own node (shard
files, response caches, converted media); its records go back through Ray and the folder is removed when
the run stops its workers."""


def _node_id() -> str | None:
    """The Ray node this process runs on (``None`` outside Ray: the class is tested without it)."""
    return node_id()


TICK_S = 0.5
"""How often a worker asks the gate for its fair share (and the judges' gates for theirs)."""


@dataclass
class _Running:
    """A shard being run: its record file, the states it held before, and how many of its records the
    driver has (``None`` on the driver's node, where the file is the driver's own)."""

    plan: ShardPlan
    path: Path
    before: Counter[str]
    sent: int | None

    def counts(self) -> dict[str, Any]:
        keys = list(scan_keys(self.path))
        states: Counter[str] = Counter(k.state for k in keys)
        new = {k: v - self.before.get(k, 0) for k, v in states.items() if v > self.before.get(k, 0)}
        counts: dict[str, Any] = {"task": self.plan.task, "done": len(keys), "new": new}
        if self.sent is not None and len(keys) > self.sent:
            counts["lines"] = [k.line for k in keys[self.sent :]]
            self.sent = len(keys)
        return counts


def run_caches(config: RunConfig) -> dict[str, Path]:
    """Where the run's response caches are (as a shard uses them): ``--cache-path`` and
    ``--judge-cache-path``, else ``OUTPUT/cache.sqlite`` and ``OUTPUT/judge_cache.sqlite``."""
    return {
        "cache_path": config.cache_path or config.output / "cache.sqlite",
        "judge_cache_path": config.judge_cache_path or config.output / "judge_cache.sqlite",
    }


def shard_config(config: RunConfig, plan: ShardPlan) -> RunConfig:
    """The run configuration of one shard: its ids, its own directory, the run's shared caches."""
    options = config.backend
    if options.media_cache_dir is None:
        options = options.model_copy(update={"media_cache_dir": str(config.output / "media_cache")})
    return config.model_copy(
        update={
            "output": shard_file(config.output, plan).parent,
            "sample_ids": plan.sample_ids,
            "limit": None,
            "shard": None,  # the plan holds the run's --shard share already (the view has no others)
            "quiet": True,
            **run_caches(config),
            "backend": options,
        }
    )


def _counts(path: Path) -> tuple[int, Counter[str]]:
    states: Counter[str] = Counter(k.state for k in scan_keys(path))
    return sum(states.values()), states


async def _fetched(media: dict[str, Any]) -> dict[str, bytes]:
    """The bytes behind each handle, from this node's object store (Ray fetches an object once a node)."""
    paths = list(media)
    blobs = await asyncio.gather(*(media[p] for p in paths))
    return dict(zip(paths, blobs, strict=True))


class ShardWorker:
    """Runs shards one at a time (a Ray actor; plain class so it can be tested without Ray)."""

    def __init__(
        self,
        config: RunConfig,
        *,
        owner: str,
        gate: Any = None,
        judges: dict[str, JudgeRoute] | None = None,
        session: str | None = None,
        driver_node: str | None = None,
        lease: int | None = None,
        caches: dict[str, Any] | None = None,
    ) -> None:
        """``lease``: the endpoint's slots this worker holds without a gate (``--concurrency`` for a lone
        worker; 0 for one whose gate comes later, through :meth:`attach`); ``None`` when ``gate`` is
        given, or the model has no endpoint."""
        self.config = config
        self.output = config.output
        """Where this worker writes: the driver's output on the driver's node, else a per-node temp folder."""
        if _node_id() != driver_node:  # (a Ray Client driver has no node: its workers use the temp folder)
            self.output = Path(tempfile.gettempdir()) / NODE_TEMP / (session or owner)
        self.streams = self.output != config.output
        """Records go to the driver as they are written (see :meth:`progress`), not only when a shard ends."""
        self.caches: dict[str, Path] = {}
        """Off the driver's node: this worker's own copies of the run's response caches (the default ones or
        an explicit ``--cache-path``/``--judge-cache-path``, which need not exist on this node), started from
        the driver's entries and sent back to it, so the driver's file gets every worker's answers."""
        if self.streams:
            mine = self.output / "caches" / owner
            self.caches = {field: mine / f"{field}.sqlite" for field in run_caches(config)}
        self._seeds = dict(caches or {})
        """The driver's cache entries at the run's start (object-store handles), by cache; copied once."""
        self._sent = dict.fromkeys(self.caches, 0)
        """Per cache: the last row this worker sent to the driver."""
        self.owner = owner
        self.session = session
        """The run invocation's cache session, shared by all its shards (see ``ResponseCache``)."""
        self.gate = (
            GateClient(gate, owner, cap=config.backend.concurrency, lease=lease or 0)
            if gate is not None or lease is not None
            else None
        )
        self._running: dict[str, _Running] = {}
        self._granted = False
        """The slots the gate was created holding for this worker were taken (they come with every shard)."""
        self.judges = WorkerJudges(judges or {}, owner=owner)
        """The judges' backends, kept across shards (under their gates, or their replica pools)."""
        self._backend: SharedBackend | None = None

    def attach(self, gate: Any) -> None:
        """The endpoint's gate, created after this worker was started."""
        if self.gate is not None:
            self.gate.attach(gate)

    def rest(self) -> None:
        """Nothing more to run for now: free slots go back to the gate."""
        if self.gate is not None:
            self.gate.give_back()

    async def reshare(self) -> None:
        """Another worker went idle: learn the larger share of the endpoint's slots now, not at the next
        tick (the run's last shards then go at the whole limit at once)."""
        if self.gate is not None and self._running:
            with contextlib.suppress(Exception):  # a gate restarting: the next tick asks again
                await self.gate.reshare()

    def where(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "node": socket.gethostname(), "node_id": _node_id()}

    def _shared_backend(self, config: RunConfig) -> Backend:
        if self._backend is None:
            self._backend = share(create_backend(config.model, options=config.backend), gate=self.gate)
        return self._backend

    async def _tick(self) -> None:
        """Tick the gates every ``TICK_S`` for as long as a shard runs. A tick that fails (a gate
        restarting on a live node after its own left) is skipped, not the shard's end: before, the
        watcher died with it and the shard, its samples all answered, failed as a lost worker."""
        while True:
            # the next tick asks again; a gate gone for good fails its own calls (its clients' waiters)
            with contextlib.suppress(Exception):
                if self.gate is not None:
                    await self.gate.tick()
                await self.judges.tick()
            await asyncio.sleep(TICK_S)

    def progress(self) -> dict[str, dict[str, Any]]:
        """Each running shard's counts, asked for by the driver about every half second; off the driver's
        node also the records written since the last answer, so a node that leaves takes none of them
        along, and the new entries of this worker's own response caches (with the first shard's counts,
        as ``caches``; none while no shard runs: they then come with the shard's result). The driver
        polls its workers: no progress-board actor, one process fewer to start."""
        answer = {key: shard.counts() for key, shard in self._running.items()}
        if answer and (entries := self._new_entries()):
            answer[next(iter(answer))]["caches"] = entries
        return answer

    def _new_entries(self) -> dict[str, list[Any]]:
        """This run's entries in the worker's own caches not yet sent to the driver, by cache."""
        new = {}
        for field, path in self.caches.items():
            rows, self._sent[field] = read_entries(path, session=self.session, after=self._sent[field])
            if rows:
                new[field] = rows
        return new

    async def _seed(self) -> None:
        """Start this worker's own caches from the driver's entries (what a resume or rerun reuses)."""
        seeds, self._seeds = self._seeds, {}
        for field, ref in seeds.items():
            if field in self.caches:
                cache = ResponseCache(self.caches[field])
                cache.add(await ref)
                cache.close()

    async def run_shard(
        self,
        plan: ShardPlan,
        lines: list[bytes],
        task: Task,
        media: dict[str, Any] | None = None,
        grant: int = 0,
    ) -> dict[str, Any]:
        """Run (or resume) one shard; returns its records and timing.

        ``task`` is the driver's view over the shard's samples and ``media`` its media files' object-store
        handles by path (:class:`~omnieval.executors.views.MediaStore`): the worker reads no task file and
        no media folder of its own (none need exist on its node). ``grant``: endpoint slots the gate was
        created holding for this worker, its own from now on (taken once)."""
        if grant and self.gate is not None and not self._granted:
            self.gate.grant(grant)
            self._granted = True
        if media:
            task = with_media_bytes(task, memo=await _fetched(media))
        if self._seeds:
            await self._seed()
        here = self.config.model_copy(update={"output": self.output, **self.caches})
        config = shard_config(here, plan)
        path = shard_file(self.output, plan)
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not path.exists()
        if fresh and lines:  # no shared filesystem: start from the driver's copy
            rewrite_lines(path, lines)
        started, clock = time.time(), time.perf_counter()
        write_json(path.parent / "attempt.json", {**self.where(), "started": started, "owner": self.owner})
        _, before = _counts(path)
        sent = len(lines) if fresh else 0  # a lost worker's file on this node: the driver may lack some
        self._running[plan.key] = _Running(plan, path, before, sent if self.streams else None)
        watcher = asyncio.create_task(self._tick())
        try:
            outcome = await run_async(
                config,
                tasks=[task],
                backend=self._shared_backend(config),
                judge_backend=self.judges.backend,
                cache_session=self.session,
            )
        finally:
            if self.gate is not None:
                self.gate.give_back()
            self.judges.give_back()
            self._running.pop(plan.key, None)
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
        return {
            "key": plan.key,
            "lines": [k.line for k in scan_keys(path)],
            "new": dict(outcome.states.get(plan.task, {})),
            "retries": outcome.retries,
            "judges": outcome.judges,
            "caches": self._new_entries(),  # entries off the driver's node: the driver keeps them
            "started": started,
            "wall_s": round(time.perf_counter() - clock, 3),
            **self.where(),
        }

    async def close(self) -> None:
        if self._backend is not None:
            await self._backend.inner.aclose()
            self._backend = None
        await self.judges.aclose()
        if self.streams:  # the per-node temp folder: every shard's records are with the driver now
            shutil.rmtree(self.output, ignore_errors=True)
