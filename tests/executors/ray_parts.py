"""A Ray run's parts (gate leases, worker pool, shard queue, driver) assembled over a :class:`FakeRay`,
as :func:`omnieval.executors.ray_executor.run_on_ray` assembles them over Ray."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omnieval.executors.gate_leases import GateLeases
from omnieval.executors.ray_driver import Driver
from omnieval.executors.ray_executor import _start_workers
from omnieval.executors.shard_queue import ShardQueue
from omnieval.executors.shards import ShardPlan
from omnieval.executors.worker_pool import WorkerPool
from omnieval.runner import RunConfig
from omnieval.runner.progress import Progress
from tests.executors.fake_ray import FakeRay

__all__ = ["Judges", "Parts", "assemble", "line", "plan", "report"]


def plan(key: str, *samples: str) -> ShardPlan:
    return ShardPlan(key, "qa", samples, tuple(range(len(samples))))


def line(sample: str, state: str = "ok") -> bytes:
    record = {"task": "qa", "sample_id": sample, "state": state, "chain": None, "repeat": None}
    return json.dumps(record).encode() + b"\n"


def report(shard: ShardPlan, state: str = "ok") -> dict[str, Any]:
    """What a worker returns for a finished shard whose samples all ended in ``state``."""
    return {
        "lines": [line(s, state) for s in shard.sample_ids],
        "new": {state: shard.size},
        "retries": 0,
        "started": 0.0,
        "wall_s": 0.1,
        "node": "host",
        "pid": 1,
    }


class Judges:
    """Stands in for :class:`JudgesOnCluster`: the owners whose judge slots were handed back."""

    def __init__(self) -> None:
        self.routes: dict[str, Any] = {}
        self.forgotten: list[str] = []
        self.stopped: list[str] | None = None

    def forget(self, owner: str) -> None:
        self.forgotten.append(owner)

    def stop(self, *, owners: list[str]) -> None:
        self.stopped = owners


@dataclass
class Parts:
    port: FakeRay
    leases: GateLeases
    pool: WorkerPool
    queue: ShardQueue
    driver: Driver
    judges: Judges


def assemble(
    tmp_path: Path,
    port: FakeRay,
    plans: list[ShardPlan],
    *,
    workers: int = 1,
    max_attempts: int = 3,
    local_model: bool = False,
    limit: int = 4,
    seat: bool = False,
) -> Parts:
    """The parts of a run of ``plans`` (none done yet), its ``workers`` started and, when the fake
    answers ``where``, placed. The driver never sleeps."""
    config = RunConfig(tasks=("qa",), model="baseline/oracle", output=tmp_path, quiet=True)
    config = config.model_copy(update={"backend": config.backend.model_copy(update={"concurrency": limit})})
    judges = Judges()
    leases = GateLeases(port, name="gate-of-endpoint", limit=limit, session="s1", judges=judges)  # type: ignore[arg-type]
    options = {"num_cpus": 1.0, "num_gpus": 0.0, "max_restarts": 0, "max_concurrency": 8}
    pool = WorkerPool(port, config, leases, session="s1", actor_options=options, driver_node="node-a")
    queue = ShardQueue(plans, {p.key: [] for p in plans}, output=tmp_path, max_attempts=max_attempts)
    driver = Driver(
        port,
        pool,
        leases,
        queue,
        task_of=lambda shard: shard.task,  # type: ignore[arg-type,return-value]
        media=lambda task: {},
        progress=Progress(quiet=True),
        plans=plans,
        sleep=lambda seconds: None,
    )
    _start_workers(pool, leases, workers=workers, local_model=local_model, seat=seat)
    return Parts(port, leases, pool, queue, driver, judges)
