"""How a run is executed: here (the runner as it is) or sharded over a Ray cluster."""

from __future__ import annotations

from typing import Any, Literal

from omnieval.types._base import Frozen

__all__ = ["ExecutorOptions"]


class ExecutorOptions(Frozen):
    """Executor settings; kept out of :class:`~omnieval.runner.RunConfig` because they never change
    what a finished sample means (a local run may be resumed on Ray and the other way round)."""

    kind: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    """``ray://HOST:10001`` or ``HOST:6379`` of a running cluster; ``None`` starts a local Ray."""
    runtime_env: dict[str, Any] | None = None
    """Ray ``runtime_env`` for the run's job (every worker and judge replica): how omnieval reaches
    nodes that do not have it, e.g. ``{"pip": ["omnieval[ray]==VERSION"]}``
    or ``{"py_modules": [".../omnieval"]}``."""
    workers: int | None = None
    """Worker actors (model replicas). Default: for API models one per 64 slots of the endpoint's
    ``--concurrency``, at most the cluster's CPUs over ``cpus_per_worker`` (each worker is a process to
    start, and one keeps 64 requests in flight); for local models the cluster's GPUs divided by
    ``gpus_per_replica`` (at least 1)."""
    gpus_per_replica: float | None = None
    """GPUs each local-model replica requests. Default: 1 when the cluster has GPUs, else 0."""
    cpus_per_worker: float = 1.0
    shard_size: int | None = None
    """Samples per shard. Default: about two shards per worker per task (at least 8)."""
    max_shard_attempts: int = 3
    """A shard whose worker was lost is run again on a new worker up to this many times in all."""
    judge_replicas: int = 1
    """Actors of a local judge (``hf/``, ``vllm/``, ``hf_classifier/``), each loading it once; the workers'
    judge calls go to the least busy. API judges need none: they share a gate of ``--judge-concurrency``."""
    judge_gpus_per_replica: float | None = None
    """GPUs each local-judge replica requests. Default: 1 when the cluster has GPUs, else 0."""
    driver_seat: bool = True
    """An API model's first shards run in the driver process while the worker actors start (each a new
    process: 1-2 s before its first request); it stops taking shards once they are up. ``False``: the
    actors alone run shards (no model request leaves the driver's process)."""
    local_cpus: int | None = None
    """CPUs of a Ray instance started here (no ``ray_address``). Default: the machine's cores."""
