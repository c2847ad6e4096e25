"""The placement that keeps coordinators on the driver's node (the per-endpoint concurrency gate is in
:mod:`omnieval.executors.gate`, the judges' pools in :mod:`omnieval.executors.judge_cluster`).

Ray is imported by the caller, so this module imports without Ray.
"""

from __future__ import annotations

from typing import Any

__all__ = ["driver_node", "most_on_one_node", "pinned"]


def driver_node(ray: Any) -> str | None:
    """The driver's Ray node (``None`` for a Ray Client driver, which has none of its own)."""
    if ray.util.client.ray.is_connected():
        return None
    try:
        return str(ray.get_runtime_context().get_node_id()) or None
    except Exception:  # not connected the usual way
        return None


def most_on_one_node(ray: Any, need: dict[str, float]) -> dict[str, float] | None:
    """``None`` when some live node of the cluster has (in all) what an actor ``need``s; else the most of
    each resource one live node has, for the message that says the actor can never be placed."""
    nodes = [node.get("Resources", {}) for node in ray.nodes() if node.get("Alive")]
    if any(all(res.get(k, 0.0) >= v for k, v in need.items() if v > 0) for res in nodes):
        return None
    return {k: max((res.get(k, 0.0) for res in nodes), default=0.0) for k in need}


def pinned(ray: Any) -> dict[str, Any]:
    """Actor options that keep a coordinator (gate, judge pool) on the driver's node: it
    lives as long as the driver, whatever worker node leaves the cluster. The affinity is soft (a node
    that is alive and asks no CPU always takes it), so a stale node id never leaves it unplaced. Should
    its node go all the same (a driver attached to a worker node's raylet), Ray restarts it elsewhere
    and retries the calls in flight; each coordinator rebuilds its state (the gate from its clients'
    leases at their next tick, a judge pool from its replicas' handles)."""
    # no CPU asked, wherever it goes: a coordinator is started together with the workers, which may take
    # every CPU first (Ray's default, 1 CPU to place an actor, would then leave it pending)
    restart = {"num_cpus": 0, "max_restarts": -1, "max_task_retries": -1}
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    node = driver_node(ray)
    if node is None:  # a Ray Client driver: Ray places the actor
        return restart
    return {"scheduling_strategy": NodeAffinitySchedulingStrategy(node_id=node, soft=True), **restart}
