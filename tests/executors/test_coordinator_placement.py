"""Coordinators (gates, judge pools) are hard-pinned to the driver's node; under a Ray Client driver
(``ray://``), which has no node, to the head's (where the Ray Client server holds the driver's session).
The real-cluster check is in tests/executors/test_ray_data.py (a head without CPUs: the gates' node is
recorded in the manifest and must be the head's)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from omnieval.executors.actors import HEAD_RESOURCE, coordinator_node, pinned

DRIVER, HEAD, WORKER, OLD_HEAD = ("ab" * 28, "cd" * 28, "ef" * 28, "01" * 28)  # Ray's node ids: hex


def _ray(*, client: bool, node: str = DRIVER, nodes: list[dict[str, Any]] | None = None) -> Any:
    return SimpleNamespace(
        util=SimpleNamespace(client=SimpleNamespace(ray=SimpleNamespace(is_connected=lambda: client))),
        get_runtime_context=lambda: SimpleNamespace(get_node_id=lambda: node),
        nodes=lambda: nodes or [],
    )


def test_a_coordinator_is_hard_pinned_to_the_driver_s_node() -> None:
    pytest.importorskip("ray")
    options = pinned(_ray(client=False))
    strategy = options["scheduling_strategy"]
    assert strategy.node_id == DRIVER and strategy.soft is False
    assert options["num_cpus"] == 0


def test_a_ray_client_driver_s_coordinators_go_to_the_live_head() -> None:
    pytest.importorskip("ray")
    nodes = [
        {"NodeID": WORKER, "Alive": True, "Resources": {"CPU": 4.0}},
        {"NodeID": OLD_HEAD, "Alive": False, "Resources": {HEAD_RESOURCE: 1.0}},
        {"NodeID": HEAD, "Alive": True, "Resources": {HEAD_RESOURCE: 1.0, "CPU": 0.0}},
    ]
    ray = _ray(client=True, nodes=nodes)
    assert coordinator_node(ray) == HEAD
    strategy = pinned(ray)["scheduling_strategy"]
    assert strategy.node_id == HEAD and strategy.soft is False


def test_with_no_node_to_name_ray_places_them() -> None:
    pytest.importorskip("ray")
    assert "scheduling_strategy" not in pinned(_ray(client=True, nodes=[]))
