"""``--executor ray``: shards over worker actors, lost workers replaced, records merged in plan order.

The driver plans shards (model × task × sample range), gives each idle worker the next unfinished
shard, keeps the shard's returned records, and rebuilds ``samples.jsonl`` from the shards at the end.
A shard that is already complete on disk is never sent again. A worker that dies is replaced and its
shard run again, resuming from whatever of it was already written.

The parts, each behind :class:`~omnieval.executors.ray_port.RayPort` (Ray, or a fake in the tests):
the worker actors (:mod:`~omnieval.executors.worker_pool`), the run's share of the concurrency gates
(:mod:`~omnieval.executors.gate_leases`), the shards to run (:mod:`~omnieval.executors.shard_queue`)
and the driver's state machine over them (:mod:`~omnieval.executors.ray_driver`). This module connects
to Ray, plans the run and writes its manifest.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import errno
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from omnieval.backends import Backend, create_backend
from omnieval.errors import StoreError
from omnieval.executors.actors import driver_node
from omnieval.executors.errors import ExecutorError
from omnieval.executors.gate_leases import GATES, LONE, GateLeases, endpoint_gate, gate_name
from omnieval.executors.judge_cluster import JudgesOnCluster, is_local, plan_judges, start_judges
from omnieval.executors.options import ExecutorOptions
from omnieval.executors.ray_driver import Driver
from omnieval.executors.ray_port import RealRay, connect, import_ray
from omnieval.executors.ray_sizing import actor_options, cache_seeds, on_driver, replica_gpus, worker_count
from omnieval.executors.shard_queue import ShardQueue, Tally
from omnieval.executors.shards import (
    ShardPlan,
    is_finished,
    merge_shards,
    plan_shards,
    remember_plan,
    remembered_shard_size,
    seed_shards,
    unplanned_sample_ids,
)
from omnieval.executors.views import MediaStore, ShardViews
from omnieval.executors.worker import run_caches
from omnieval.executors.worker_pool import WorkerPool
from omnieval.runner import RunConfig, RunOutcome, resolve_tasks
from omnieval.runner.progress import Progress
from omnieval.runner.resume import check_resumable
from omnieval.runner.run import manifest
from omnieval.sources import Task, check_unique_ids
from omnieval.store import RecordKey, write_json
from omnieval.types.files import ManifestFile, load_file

__all__ = [
    "LONE",
    "DriverNodeLost",
    "ExecutorError",
    "asked_model",
    "connect",
    "describe_model",
    "endpoint_gate",
    "lost_connection",
    "run_on_ray",
]


def asked_model(config: RunConfig) -> Backend:
    """The run's backend on the driver, its server asked once (``preflight``) as a local run asks it: a
    model the server does not serve is refused before any worker starts, the manifest and results record
    what the server said, and its warnings reach the user once."""
    backend = describe_model(config)
    for notice in asyncio.run(backend.preflight()):
        print(f"[omnieval] warning: {notice}", file=sys.stderr)
    return backend


def describe_model(config: RunConfig) -> Backend:
    """The backend as the driver sees it (never loaded here): kind of model and the manifest entry."""
    return create_backend(config.model, options=config.backend)


def _start_progress(
    progress: Progress, tasks: list[Task], plans: list[ShardPlan], current: dict[str, list[RecordKey]]
) -> None:
    """One bar per task over all its shards, starting from what the shard files already hold."""
    done: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for plan in plans:
        done[plan.task] += len({(k.sample_id, k.repeat) for k in current[plan.key]})
        totals[plan.task] += plan.records  # records: samples × repeats
    for task in tasks:
        progress.add(task.name, totals[task.name], done=done[task.name])


def _executor_block(
    options: ExecutorOptions,
    *,
    workers: int,
    shard_size: int,
    gpus: float,
    tally: Tally,
    old: dict[str, Any],
) -> dict[str, Any]:
    shards = {k: {**v, "status": "done earlier"} for k, v in (old.get("shards") or {}).items()}
    shards.update(tally.shards)
    return {
        "kind": "ray",
        "address": options.ray_address or "local",
        "workers": workers,
        "shard_size": shard_size,
        "gpus_per_replica": gpus,
        "shards": shards,
    }


def _previous(config: RunConfig, key: Literal["executor", "judges"]) -> dict[str, Any]:
    """A block of the directory's earlier manifest (``executor``, ``judges``), or an empty one."""
    path = config.output / "manifest.json"
    try:
        manifest: ManifestFile | None = load_file(path, ManifestFile) if path.exists() else None
    except StoreError:  # unreadable, or not a manifest: nothing to carry over
        manifest = None
    block = None if manifest is None else manifest.judges if key == "judges" else manifest.executor
    return block if isinstance(block, dict) else {}


def _start_workers(
    pool: WorkerPool, leases: GateLeases, *, workers: int, local_model: bool, seat: bool = False
) -> None:
    """Start the workers; no worker waits for a coordinator to send its first requests (see
    :class:`~omnieval.executors.gate_leases.GateStage`): with ``seat``, the driver's seat
    (:mod:`~omnieval.executors.seat`) sends them at once, and the actors are started once it has its
    first shard (each start is a Ray call the seat's first request need not wait for); the first actor is
    placed on the driver's node (where Ray has a process ready); the gate's first answer is checked as
    the run goes."""
    with GATES:
        lease = leases.begin(local_model=local_model, workers=workers + seat)
        if seat:
            pool.spawn(lease=lease, in_driver=True)
        for n in range(workers):
            (pool.defer if seat else pool.spawn)(lease=lease, near_driver=n == 0)
    leases.since = time.monotonic()


def run_on_ray(
    config: RunConfig,
    options: ExecutorOptions,
    *,
    progress: Progress | None = None,
    judges: JudgesOnCluster | None = None,
) -> RunOutcome:
    """Run (or resume) ``config`` on Ray; same directory layout and records as a local run.

    ``progress``: a display the caller owns (a sweep's row for this model); default: the run's own bars.
    ``judges``: judge gates and pools the caller started and keeps (a sweep's, shared by its models);
    default: the run starts its own and stops them at its end.
    """
    ray = import_ray()
    config = on_driver(config)
    tasks = resolve_tasks(config.tasks, strict_metrics=config.strict_metrics)
    backend = asked_model(config)
    config.output.mkdir(parents=True, exist_ok=True)
    check_resumable(config, tasks)
    check_unique_ids(tasks)
    local_model = is_local(backend)
    started_here = connect(options)
    try:
        return _run(
            ray, config, options, tasks, backend, local_model=local_model, progress=progress, judges=judges
        )
    except OSError as exc:
        if not lost_connection(exc):
            raise
        raise DriverNodeLost(config.output, exc) from None
    finally:
        if started_here:
            with contextlib.suppress(Exception):  # a node already gone has nothing left to stop
                ray.shutdown()


class DriverNodeLost(ExecutorError):
    """The driver's own Ray node went (its raylet, the object store the driver talks to): the run cannot
    go on from this process. One line, not Ray's traceback; the run folder resumes."""

    def __init__(self, output: Path, exc: OSError) -> None:
        super().__init__(
            f"stopped: lost the driver's Ray node ({type(exc).__name__}: {exc.strerror or exc}); the samples "
            f"finished so far are saved in {output}: run the same command again to resume"
        )


_LOST = frozenset({errno.EPIPE, errno.ECONNRESET, errno.ECONNREFUSED, errno.ECONNABORTED, errno.ENOTCONN})


def lost_connection(exc: OSError) -> bool:
    """Whether ``exc`` is a closed connection (the local raylet or its socket gone), not a file error."""
    return isinstance(exc, (BrokenPipeError, ConnectionError)) or exc.errno in _LOST


def _run(
    ray: Any,
    config: RunConfig,
    options: ExecutorOptions,
    tasks: list[Task],
    backend: Backend,
    *,
    local_model: bool,
    progress: Progress | None = None,
    judges: JudgesOnCluster | None = None,
) -> RunOutcome:
    gpus = replica_gpus(ray, options, local_model=local_model)
    judge_plan = plan_judges(config, tasks, options, cluster_gpus=ray.cluster_resources().get("GPU", 0))
    if judges is not None:
        judges.covers(list(judge_plan.judges))
    reserved = judge_plan.reserved() if judges is None else {}  # a caller's pools are accounted by the caller
    workers = worker_count(
        options,
        ray,
        local_model=local_model,
        gpus=gpus,
        reserved=reserved,
        concurrency=config.backend.concurrency,
    )
    size = options.shard_size or remembered_shard_size(config.output)
    plans, shard_size = plan_shards(tasks, config, shard_size=size, workers=workers)
    remember_plan(config.output, plans, shard_size)
    current = seed_shards(config.output, plans)
    queue = ShardQueue(
        (p for p in plans if not is_finished(current[p.key], p, retry_errors=config.retry_errors)),
        current,
        output=config.output,
        max_attempts=options.max_shard_attempts,
    )
    old, tally = _previous(config, "executor"), queue.tally
    old_judges = _previous(config, "judges")
    started = dt.datetime.now(dt.UTC).isoformat()
    judged: dict[str, Any] = {}  # the judges' gates and pools: what they allowed and did
    lost: dict[str, Any] = {}  # nodes that left the cluster and workers lost during the run

    def write_manifest(status: str) -> None:
        block = _executor_block(
            options, workers=workers, shard_size=shard_size, gpus=gpus, tally=tally, old=old
        )
        block["judges"] = judged.get("block") or old.get("judges") or {}
        if judged.get("gate"):
            block["gate"] = judged["gate"]  # the model's: its limit, peak and node (the driver's)
        if judged.get("driver_node"):
            block["driver_node"] = judged["driver_node"]
        if lost.get("workers"):
            block["lost"] = lost
        judges = (
            judge_plan.annotate(tally.judges) or old_judges
        )  # judged in the shards; a resume with nothing to run keeps the last
        document = manifest(config, tasks, backend, started=started, status=status, judges=judges)
        write_json(config.output / "manifest.json", {**document, "executor": block})

    write_manifest("running")
    if progress is None:
        progress = Progress(quiet=config.quiet)
    with progress:
        _start_progress(progress, tasks, plans, current)
        if len(queue):
            if judges is None and judge_plan.judges:
                judges = start_judges(ray, judge_plan)
            port = RealRay(ray)
            session = uuid.uuid4().hex
            leases = GateLeases(
                port,
                name=gate_name(backend, config),
                limit=config.backend.concurrency,
                session=session,
                judges=judges,
            )
            node = driver_node(ray)
            pool = WorkerPool(
                port,
                config,
                leases,
                session=session,
                actor_options=actor_options(options, gpus=gpus),
                driver_node=node,
                seeds=cache_seeds(ray, config, driver=node),
            )
            try:
                _start_workers(
                    pool,
                    leases,
                    workers=min(workers, len(queue)),
                    local_model=local_model,
                    seat=options.driver_seat and not local_model and node is not None and judges is None,
                )
                driver = Driver(
                    port,
                    pool,
                    leases,
                    queue,
                    task_of=ShardViews(config).for_shard,
                    media=MediaStore(put=port.put).refs,
                    progress=progress,
                    plans=plans,
                    caches=run_caches(config),
                )
                driver.run()
                pool.note_left()
                lost.update(workers=pool.workers_lost, on_nodes=pool.suspects, nodes_left=pool.lost_nodes)
                driver.show()
                judged["block"] = judges.block() if judges is not None else {}
                judged["gate"], judged["driver_node"] = leases.stats(), node
            finally:
                pool.stop()
        for task in tasks:
            progress.finish(task.name, states=dict(tally.states.get(task.name, {})))
    merge_shards(config.output, plans)
    write_manifest("finished")
    states = {t.name: dict(tally.states.get(t.name, {})) for t in tasks}
    described = judge_plan.annotate(tally.judges) or old_judges
    return RunOutcome(
        config.output,
        tasks,
        states,
        tally.retries,
        backend.describe(),
        judges=described,
        unknown_sample_ids=unplanned_sample_ids(plans, config),
    )
