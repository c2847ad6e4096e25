"""The documented ``--ray-runtime-env`` path on a local two-node cluster whose nodes cannot import omnieval:
without it the run stops with a message giving the workers' import error; with ``{"py_modules": [...]}`` (Ray
ships the package to every node) it gives a local run's records."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import omnieval
from tests.executors.helpers import CountingServer, qa_task, record_set

pytestmark = [pytest.mark.network_server, pytest.mark.timeout(300)]


MISSING = "omnieval is not installed on this node"


@pytest.fixture
def bare_nodes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Two nodes (1 CPU each) whose processes cannot import omnieval: a stand-in package first on their
    PYTHONPATH refuses to import (the environment may hold an installed omnieval, of another version)."""
    pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    shadow = tmp_path / "shadow" / "omnieval"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(f"raise ImportError({MISSING!r})\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(shadow.parent))
    monkeypatch.chdir(tmp_path)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        yield cluster.address
    finally:
        cluster.shutdown()


def test_runtime_env_brings_omnieval_to_every_node(
    tmp_path: Path, bare_nodes: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from omnieval.cli.app import app
    from omnieval.executors import worker_pool

    monkeypatch.setattr(worker_pool, "STALL_S", 5.0)
    task = qa_task(tmp_path, 12)
    package = str(Path(omnieval.__file__).parent)
    with CountingServer(latency_ms=5).in_thread() as server:
        common = [
            "run",
            "--tasks",
            f"jsonl:{task}",
            "--model",
            "openai/fake",
            "--base-url",
            server.url,
            "--quiet",
        ]
        assert CliRunner().invoke(app, [*common, "--output", str(tmp_path / "local")]).exit_code == 0
        ray_args = ["--executor", "ray", "--ray-address", bare_nodes, "--workers", "2"]
        bare = CliRunner().invoke(app, [*common, "--output", str(tmp_path / "bare"), *ray_args])
        env = json.dumps({"py_modules": [package]})
        shipped = CliRunner().invoke(
            app, [*common, "--output", str(tmp_path / "ray"), *ray_args, "--ray-runtime-env", env]
        )
    assert bare.exit_code == 2, bare.output
    assert MISSING in bare.output and "--ray-runtime-env" in bare.output
    assert shipped.exit_code == 0, shipped.output
    assert record_set(tmp_path / "ray") == record_set(tmp_path / "local")
