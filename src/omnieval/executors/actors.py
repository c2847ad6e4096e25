"""The progress board actor, and the placement that keeps coordinators on the driver's node (the
per-endpoint concurrency gate is in :mod:`omnieval.executors.gate`).

Plain classes here; :mod:`omnieval.executors.ray_executor` turns them into Ray actors, so this module
imports without Ray.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ProgressBoard", "pinned"]


class ProgressBoard:
    """Latest counts per shard, pushed by workers and read by the driver's progress display."""

    def __init__(self) -> None:
        self._shards: dict[str, dict[str, Any]] = {}

    def report(self, key: str, counts: dict[str, Any]) -> None:
        self._shards[key] = counts

    def snapshot(self) -> dict[str, dict[str, Any]]:
        return dict(self._shards)


def pinned(ray: Any) -> dict[str, Any]:
    """Actor options that keep a coordinator (gate, judge pool, progress board) on the driver's node: it
    lives as long as the driver, whatever worker node leaves the cluster. The affinity is soft (a node
    that is alive and asks no CPU always takes it), so a stale node id never leaves it unplaced. Should
    its node go all the same (a driver attached to a worker node's raylet), Ray restarts it elsewhere
    and retries the calls in flight; each coordinator rebuilds its state (the gate from its clients'
    leases at their next tick, a judge pool from its replicas' handles)."""
    restart = {"max_restarts": -1, "max_task_retries": -1}
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    if ray.util.client.ray.is_connected():  # a Ray Client driver has no node of its own: Ray places the actor
        return restart
    try:
        node = ray.get_runtime_context().get_node_id()
    except Exception:  # not connected the usual way: Ray places the actor
        return restart
    if not node:
        return restart
    # no CPU asked: Ray's default (1 CPU to place an actor) would leave it pending on a driver node without
    # CPUs
    return {
        "num_cpus": 0,
        "scheduling_strategy": NodeAffinitySchedulingStrategy(node_id=node, soft=True),
        **restart,
    }
