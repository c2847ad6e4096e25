"""The placement that keeps coordinators on the driver's node (the per-endpoint concurrency gate is in
:mod:`omnieval.executors.gate`, the judges' pools in :mod:`omnieval.executors.judge_cluster`).

Ray is imported by the caller, so this module imports without Ray.
"""

from __future__ import annotations

from typing import Any

__all__ = ["HEAD_RESOURCE", "coordinator_node", "driver_node", "most_on_one_node", "node_id", "pinned"]


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


HEAD_RESOURCE = "node:__internal_head__"
"""The resource Ray gives the head node alone."""


def coordinator_node(ray: Any) -> str | None:
    """Where the run's coordinators go: the driver's node; for a Ray Client driver (``ray://``), which has
    no node of its own, the head's, where the Ray Client server that holds the driver's session runs
    (losing the head ends the cluster anyway). ``None`` when neither can be told."""
    node = driver_node(ray)
    if node is not None:
        return node
    try:
        heads = [
            n["NodeID"] for n in ray.nodes() if n.get("Alive") and HEAD_RESOURCE in n.get("Resources", {})
        ]
    except Exception:  # not connected: Ray places them
        return None
    return str(heads[0]) if heads else None


def pinned(ray: Any) -> dict[str, Any]:
    """Actor options that keep a coordinator (gate, judge pool) on the driver's node
    (:func:`coordinator_node`), hard-pinned: it lives as long as the driver, whatever worker node leaves
    the cluster. A soft affinity let Ray place it on a worker node whenever the driver's node had no CPU
    (a head started with ``--num-cpus 0``: 16 of 20 gates on worker nodes), where a lost node took it
    along. Hard-pinned, a coordinator never restarts elsewhere: its node is the driver's, and when that
    goes the run goes with it (resumably). The restart options stay for a node that is only slow to
    answer (Ray restarts the actor in place) and for a Ray Client driver's coordinators (on the head)."""
    # no CPU asked, wherever it goes: a coordinator is started together with the workers, which may take
    # every CPU first (Ray's default, 1 CPU to place an actor, would then leave it pending)
    restart = {"num_cpus": 0, "max_restarts": -1, "max_task_retries": -1}
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    node = coordinator_node(ray)
    if node is None:  # nothing to pin it to: Ray places the actor
        return restart
    return {"scheduling_strategy": NodeAffinitySchedulingStrategy(node_id=node, soft=False), **restart}


def node_id() -> str | None:
    """The Ray node this process runs on (``None`` outside Ray: the actors' classes are tested without it)."""
    try:
        import ray

        return str(ray.get_runtime_context().get_node_id()) if ray.is_initialized() else None
    except Exception:  # no Ray, or not in a Ray worker
        return None
