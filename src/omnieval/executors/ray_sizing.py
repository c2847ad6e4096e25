"""What a Ray run asks of the cluster before it starts: how many workers, what each needs, and what they
start from (the driver's absolute paths, its response caches)."""

from __future__ import annotations

import math
import os
from typing import Any

from omnieval.errors import ConfigError
from omnieval.executors.actors import most_on_one_node
from omnieval.executors.options import ExecutorOptions
from omnieval.executors.ray_port import live_nodes
from omnieval.executors.worker import run_caches
from omnieval.runner import RunConfig
from omnieval.store import read_entries

__all__ = ["SLOTS_PER_WORKER", "actor_options", "cache_seeds", "on_driver", "replica_gpus", "worker_count"]

SLOTS_PER_WORKER = 64
"""An API model's default: one worker per this many of the endpoint's ``--concurrency`` slots. One
process keeps 64 requests in flight with CPU to spare at any real endpoint's latency (hundreds of ms
and up: ~100 requests/s, where a worker handles several hundred), and each extra worker is one more
process to start (Python, Ray, omnieval: ~1 s of CPU) and to feed; more workers pay only where one
process's CPU is the bottleneck (ask for them with ``--workers``)."""


def worker_count(
    options: ExecutorOptions,
    ray: Any,
    *,
    local_model: bool,
    gpus: float,
    reserved: dict[str, float],
    concurrency: int = SLOTS_PER_WORKER,
) -> int:
    """``--workers``, else: a local model one replica per ``gpus`` GPUs (1 without); an API model one
    worker per :data:`SLOTS_PER_WORKER` slots of its ``concurrency``, at most the cluster's CPUs allow."""
    if options.workers is not None:
        if options.workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {options.workers}")
        return options.workers
    resources = {
        k: v - reserved.get(k, 0.0) for k, v in ray.cluster_resources().items()
    }  # judge replicas' share
    if local_model:
        return max(1, int(resources.get("GPU", 0) // gpus)) if gpus else 1
    room = max(1, int(resources.get("CPU", 1) // max(options.cpus_per_worker, 1e-9)))
    return min(room, math.ceil(max(1, concurrency) / SLOTS_PER_WORKER))


def replica_gpus(ray: Any, options: ExecutorOptions, *, local_model: bool) -> float:
    """GPUs per replica (default: 1 for a local model on a cluster with GPUs, else 0), checked to fit."""
    gpus = options.gpus_per_replica
    if gpus is None:
        gpus = 1.0 if local_model and ray.cluster_resources().get("GPU", 0) >= 1 else 0.0
    _check_fits(ray, options, gpus=gpus)
    return gpus


def _check_fits(ray: Any, options: ExecutorOptions, *, gpus: float) -> None:
    """Refuse a replica that no node of the cluster could hold: Ray would leave it pending for ever."""
    if gpus < 0:
        raise ConfigError(f"--gpus-per-replica must be 0 or more, got {gpus:g}")
    most = most_on_one_node(ray, {"GPU": gpus, "CPU": options.cpus_per_worker})
    if most is None:
        return
    raise ConfigError(
        f"each replica asks for {gpus:g} GPU(s) (--gpus-per-replica) and {options.cpus_per_worker:g} CPU(s), "
        f"but no node of the cluster has that much (at most {most['GPU']:g} GPU(s) and {most['CPU']:g} "
        "CPU(s) on one node); use --gpus-per-replica 0 to run on CPUs"
    )


def actor_options(options: ExecutorOptions, *, gpus: float) -> dict[str, Any]:
    """A worker actor's Ray options."""
    return {"num_cpus": options.cpus_per_worker, "num_gpus": gpus, "max_restarts": 0, "max_concurrency": 8}


def cache_seeds(ray: Any, config: RunConfig, *, driver: str | None) -> dict[str, Any]:
    """The run's caches' entries (default or explicit files) as they are before it starts, one object per
    cache: workers off the driver's node start their own caches from them, as a worker on its node reads
    the files. None on a cluster of the driver's node alone (a local Ray), where no worker would fetch
    them."""
    if not config.use_cache or (driver is not None and live_nodes(ray) == {driver}):
        return {}
    seeds = {}
    for name, path in run_caches(config).items():
        rows, _ = read_entries(path)
        if rows:
            seeds[name] = ray.put(rows)
    return seeds


def on_driver(config: RunConfig) -> RunConfig:
    """The run's paths made absolute against the driver's working directory before anything is planned,
    so no worker reads them against its own (the task data itself travels with the shards)."""
    options = config.backend
    if options.media_cache_dir is not None:
        options = options.model_copy(update={"media_cache_dir": os.path.abspath(options.media_cache_dir)})
    return config.model_copy(
        update={
            "output": config.output.absolute(),
            "cache_path": config.cache_path.absolute() if config.cache_path else None,
            "judge_cache_path": config.judge_cache_path.absolute() if config.judge_cache_path else None,
            "backend": options,
        }
    )
