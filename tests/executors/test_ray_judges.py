"""Judged runs on Ray: an API judge under one concurrency limit for all workers, a local judge served by
an actor pool (one construction per replica), the run-level judge cache, and equality with local runs."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from omnieval.backends import BackendOptions
from omnieval.executors import ExecutorOptions
from omnieval.runner import JudgeConfig
from omnieval.runs.evaluation import evaluate_config
from omnieval.runs.stored import rejudge_run
from tests.executors.helpers import CountingServer, config, results
from tests.executors.judge_helpers import (
    api_judge,
    constructions,
    counting_judge_env,
    judge_calls,
    judged_record_set,
    judged_task,
    states,
)

pytestmark = [pytest.mark.network_server, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(
        address="local",
        num_cpus=4,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env=counting_judge_env(),
    )  # workers know the counting judge
    yield ray
    ray.shutdown()


def _manifest(out: Path) -> dict[str, Any]:
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def test_api_judge_keeps_one_limit_for_all_workers(tmp_path: Path, cluster: Any) -> None:
    task = str(judged_task(tmp_path, 40))
    with (
        CountingServer(latency_ms=5).in_thread() as model,
        CountingServer(latency_ms=40).in_thread() as judge_server,
    ):
        judge = api_judge(judge_server, concurrency=3)
        evaluate_config(config([task], model.url, tmp_path / "local", judge=judge))
        judge_server.peak = 0
        evaluate_config(
            config([task], model.url, tmp_path / "ray", judge=judge),
            executor=ExecutorOptions(kind="ray", workers=3, shard_size=8),
        )
        peak, asked = judge_server.peak, judge_server.stats()["requests"]
        assert judged_record_set(tmp_path / "ray") == judged_record_set(tmp_path / "local")
        assert results(tmp_path / "ray") == results(tmp_path / "local")
        manifest = _manifest(tmp_path / "ray")
        rejudged = rejudge_run(tmp_path / "ray", judge)  # the run-level judge cache holds every verdict
        assert judge_server.stats()["requests"] == asked, "re-judging with the same judge asked it nothing"
    assert 1 <= peak <= 3, (
        f"3 workers, each allowed 3 judge requests, but the judge server saw {peak} at once"
    )
    assert states(tmp_path / "ray") == {"ok": 8, "judge_failed": 32}, "numbers ending in 0 or 1 get a verdict"
    assert rejudged.states == results(tmp_path / "ray")["states"]
    assert asked == 2 * judge_calls(tmp_path / "local"), "each run asked each judge prompt once"
    assert (tmp_path / "ray" / "judge_cache.sqlite").exists() and not list(
        (tmp_path / "ray" / "shards").glob("*/judge_cache.sqlite")
    )
    gate = manifest["executor"]["judges"]["openai/judge"]
    assert gate["kind"] == "gate" and gate["limit"] == 3 and 1 <= gate["peak"] <= 3
    assert manifest["judges"]["qaj"]["cluster"] == {"kind": "gate", "limit": 3}


def test_local_judge_is_an_actor_pool_built_once_per_replica(tmp_path: Path, cluster: Any) -> None:
    task = str(judged_task(tmp_path, 40))
    loads = tmp_path / "judge-constructions.txt"
    judge = JudgeConfig(model=f"counting-judge/{loads}", backend=BackendOptions(batch_size=4), retries=1)
    with CountingServer(latency_ms=5).in_thread() as model:
        evaluate_config(config([task], model.url, tmp_path / "local", judge=judge))
        outcome, _ = evaluate_config(
            config([task], model.url, tmp_path / "ray", judge=judge),
            executor=ExecutorOptions(kind="ray", workers=2, shard_size=8, judge_replicas=2),
        )
    elsewhere = [pid for pid in constructions(loads) if pid != os.getpid()]
    manifest = _manifest(tmp_path / "ray")
    workers = {s["pid"] for s in manifest["executor"]["shards"].values()}
    assert len(elsewhere) == len(set(elsewhere)) == 2, "built once in each of the 2 replicas, nowhere else"
    assert not workers & set(elsewhere), "the workers never built the judge"
    assert judged_record_set(tmp_path / "ray") == judged_record_set(tmp_path / "local")
    assert results(tmp_path / "ray") == results(tmp_path / "local")
    assert outcome.states == {"qaj": {"ok": 8, "judge_failed": 32}}
    pool = manifest["executor"]["judges"][f"counting-judge/{loads}"]
    assert pool["kind"] == "pool" and pool["replicas"] == 2 and pool["gpus_per_replica"] == 0
    served = [r["requests"] for r in pool["replica_stats"]]
    assert sum(served) == judge_calls(tmp_path / "ray") and min(served) > 0, f"both replicas judged: {served}"
    assert manifest["judges"]["qaj"]["cluster"]["replicas"] == 2


def _kill_a_replica(
    ray: Any, loads: Path, shards: Path, failure: list[BaseException], *, deadline_s: float
) -> int:
    """``ray.kill`` one judge replica (found through the run's named pool) once both are up and judged
    records are being written; returns its process id."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end and not failure:
        pids = [pid for pid in constructions(loads) if pid != os.getpid()]
        judged = sum(f.read_text(encoding="utf-8").count('"judge":{') for f in shards.glob("*/samples.jsonl"))
        pools = [n for n in ray.util.list_named_actors() if n.startswith("omnieval-judge-pool-")]
        if len(pids) == 2 and judged >= 4 and pools:
            (pool,) = pools
            _, replica = ray.get(ray.get_actor(pool).state.remote())["slots"][0]
            pid = int(ray.get(replica.stats.remote())["pid"])
            ray.kill(replica)
            return pid
        time.sleep(0.02)
    raise AssertionError(f"the judge pool never got to work: {failure}")


def test_a_lost_judge_replica_is_replaced_and_loses_no_verdict(tmp_path: Path, cluster: Any) -> None:
    task = str(judged_task(tmp_path, 40))
    loads = tmp_path / "judge-constructions.txt"
    judge = JudgeConfig(
        model=f"counting-judge/{loads}",
        backend=BackendOptions(batch_size=2, extra={"delay_s": 0.1}),
        retries=0,
    )
    failure: list[BaseException] = []
    with CountingServer(latency_ms=5).in_thread() as model:
        evaluate_config(config([task], model.url, tmp_path / "local", judge=judge))

        def run() -> None:
            try:
                evaluate_config(
                    config([task], model.url, tmp_path / "ray", judge=judge),
                    executor=ExecutorOptions(kind="ray", workers=2, shard_size=8, judge_replicas=2),
                )
            except BaseException as exc:
                failure.append(exc)

        thread = threading.Thread(target=run)
        thread.start()
        killed = _kill_a_replica(cluster, loads, tmp_path / "ray" / "shards", failure, deadline_s=120)
        thread.join(180)
    assert not thread.is_alive() and not failure, failure
    assert judged_record_set(tmp_path / "ray") == judged_record_set(tmp_path / "local"), (
        "the lost batches were judged again"
    )
    ray_results, local_results = results(tmp_path / "ray"), results(tmp_path / "local")
    assert ray_results.pop("retries") >= 1, "a batch sent to the lost replica was retried"
    assert ray_results == {k: v for k, v in local_results.items() if k != "retries"}
    pool = _manifest(tmp_path / "ray")["executor"]["judges"][f"counting-judge/{loads}"]
    pids = [r.get("pid") for r in pool["replica_stats"]]
    assert pool["replicas"] == 2 and pool["replaced"] == 1 and len(set(pids)) == 2, pool
    assert killed not in pids and None not in pids, (
        f"the pool is back at full size, the killed replica replaced: {pool}"
    )
    built = [pid for pid in constructions(loads) if pid != os.getpid()]
    assert len(built) == len(set(built)) == 3, "two replicas and one replacement, each built once"
    assert not [n for n in cluster.util.list_named_actors() if n.startswith("omnieval-judge-pool-")], (
        "the pool stopped with the run"
    )


def test_a_judge_pool_replaces_each_loss_once_and_at_most_its_bound(tmp_path: Path, cluster: Any) -> None:
    from omnieval.executors.judge_cluster import JudgePool, replica_actor

    loads = tmp_path / "judge-constructions.txt"
    model, options = f"counting-judge/{loads}", BackendOptions()
    first = replica_actor(cluster, 0).remote(model, options)
    pool = cluster.remote(JudgePool).options(num_cpus=0).remote(model, options, [first], gpus=0, most=1)
    cluster.get(first.info.remote())  # started, then lost
    cluster.kill(first)
    once, twice = cluster.get([pool.replace.remote(0, 0), pool.replace.remote(0, 0)])  # two workers, one loss
    assert once[0] == twice[0] == 1 and once[1] == twice[1], "the same loss reported twice: one replacement"
    assert cluster.get(once[1].info.remote())["model"] == str(loads)
    assert cluster.get(pool.replace.remote(0, 1)) == once, "a replica that still answers keeps its slot"
    cluster.kill(once[1])
    beyond = cluster.get(pool.replace.remote(0, 1))
    assert isinstance(beyond, str) and "the most per run" in beyond
    state = cluster.get(pool.state.remote())
    assert state == {"slots": [beyond], "replaced": 1, "node": state["node"]}
    assert state["node"] in {n["NodeID"] for n in cluster.nodes()}, "the pool says where it runs"
    assert len(constructions(loads)) == 2, "the first replica and one replacement"
    cluster.kill(pool)


def test_a_replacement_that_dies_while_starting_is_followed_by_another(tmp_path: Path, cluster: Any) -> None:
    """The node-loss failure: a replacement placed on a node that was leaving died before it started, and
    the pool left the slot empty for good (every later judge call then failed). Another is started, within
    the pool's bound."""
    from omnieval.executors.judge_cluster import JudgePool, replica_actor

    loads = tmp_path / "judge-constructions.txt"
    model, options = f"counting-judge/{loads}", BackendOptions()
    first = replica_actor(cluster, 0).remote(model, options)
    cluster.get(first.info.remote())
    Path(f"{loads}.fail").write_text("1")  # the next construction dies
    pool = cluster.remote(JudgePool).options(num_cpus=0).remote(model, options, [first], gpus=0, most=2)
    cluster.kill(first)
    generation, replica = cluster.get(pool.replace.remote(0, 0))
    assert generation == 1 and cluster.get(replica.info.remote())["model"] == str(loads)
    assert cluster.get(pool.state.remote())["replaced"] == 2, "the one that died, then the one that runs"
    cluster.kill(replica)
    beyond = cluster.get(pool.replace.remote(0, 1))
    assert isinstance(beyond, str) and "the most per run" in beyond
    cluster.kill(pool)


def test_a_replacement_no_live_node_can_hold_leaves_its_slot_empty_with_why(
    tmp_path: Path, cluster: Any
) -> None:
    """A replica asking for a GPU on a cluster with none: the pool says so after ``stall_s`` rather than
    wait 10 minutes for a node that cannot come."""
    from omnieval.executors.judge_cluster import JudgePool, replica_actor

    loads = tmp_path / "judge-constructions.txt"
    model, options = f"counting-judge/{loads}", BackendOptions()
    first = replica_actor(cluster, 0).remote(model, options)
    cluster.get(first.info.remote())
    cluster.kill(first)
    pool = (
        cluster.remote(JudgePool)
        .options(num_cpus=0)
        .remote(model, options, [first], gpus=1, most=3, stall_s=2.0)
    )
    began = time.monotonic()
    slot = cluster.get(pool.replace.remote(0, 0), timeout=60)
    assert isinstance(slot, str) and "no live node of the cluster can hold a replica" in slot, slot
    assert "1 GPU(s) each" in slot and "4 CPU(s), 0 GPU(s) each" in slot
    assert time.monotonic() - began < 30, "the pool gave up after stall_s, not READY_TIMEOUT_S"
    assert cluster.get(pool.state.remote())["replaced"] == 1, "one try: no node can hold any"
    cluster.kill(pool)


def test_a_judge_replica_no_node_can_hold_is_refused_at_once(tmp_path: Path, cluster: Any) -> None:
    """Before, the run waited 10 minutes (``READY_TIMEOUT_S``) for a replica asking for a GPU on a
    cluster without one, then failed."""
    from omnieval.errors import ConfigError

    task = str(judged_task(tmp_path, 4))
    judge = JudgeConfig(model=f"counting-judge/{tmp_path / 'loads.txt'}")
    executor = ExecutorOptions(kind="ray", workers=1, judge_gpus_per_replica=1)
    began = time.monotonic()
    with CountingServer(latency_ms=5).in_thread() as model, pytest.raises(ConfigError) as refused:
        evaluate_config(config([task], model.url, tmp_path / "ray", judge=judge), executor=executor)
    assert "1 GPU(s) (--judge-gpus-per-replica), but no node of the cluster has that much" in str(
        refused.value
    )
    assert "0 GPU(s) on one node" in str(refused.value) and time.monotonic() - began < 60


def test_a_sweep_shares_one_local_judge_pool_among_its_models(tmp_path: Path, cluster: Any) -> None:
    from typer.testing import CliRunner

    from omnieval.cli.app import app
    from omnieval.options import JudgeOptions
    from omnieval.options.build import judge_config
    from omnieval.runner import RunConfig

    task = str(judged_task(tmp_path, 24))
    loads = tmp_path / "judge-constructions.txt"
    out = tmp_path / "sweep"
    with CountingServer(latency_ms=5).in_thread() as model:
        args = [
            "sweep",
            "--output",
            str(out),
            "--executor",
            "ray",
            "--quiet",
            "--json",
            "--concurrency",
            "3",
            "--models",
            "openai/fake-a,openai/fake-b",
            "--tasks",
            task,
            "--base-url",
            model.url,
            "--models-at-once",
            "2",
            "--workers",
            "1",
            "--shard-size",
            "8",
            "--judge",
            f"counting-judge/{loads}",
            "--judge-batch-size",
            "4",
            "--judge-retries",
            "1",
        ]
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 0, done.output
        in_sweep = [pid for pid in constructions(loads) if pid != os.getpid()]
        judge = judge_config(
            JudgeOptions(judge=f"counting-judge/{loads}", judge_batch_size=4, judge_retries=1)
        )
        for name in ("fake-a", "fake-b"):
            backend = BackendOptions(base_url=model.url, concurrency=3, timeout_s=120.0)
            evaluate_config(
                RunConfig(
                    tasks=(task,),
                    model=f"openai/{name}",
                    output=tmp_path / "local" / name,
                    seed=1234,
                    quiet=True,
                    backend=backend,
                    judge=judge,
                )
            )
    assert len(in_sweep) == 1, f"one replica built the judge once for both models: {in_sweep}"
    for name in ("fake-a", "fake-b"):
        run = out / f"openai_{name}"
        assert judged_record_set(run) == judged_record_set(tmp_path / "local" / name)
        assert results(run) == results(tmp_path / "local" / name)
        pool = _manifest(run)["executor"]["judges"][f"counting-judge/{loads}"]
        assert pool["kind"] == "pool" and pool["replicas"] == 1
        assert {s["pid"] for s in _manifest(run)["executor"]["shards"].values()}.isdisjoint(in_sweep)
