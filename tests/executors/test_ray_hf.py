"""``--executor ray`` with a real local model: ``hf/`` replicas as Ray actors, one model load each.

A tiny random-weight LLaVA (built here, never downloaded) answers the generated text and image demo
tasks with greedy decoding, once with the local executor and once on a local Ray cluster with two
replicas. Every Ray worker process logs each hf model load to a file (the cluster's worker set-up
hook wraps the hf loader), so loads are counted across processes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from omnieval.backends import BackendOptions
from omnieval.errors import ConfigError
from omnieval.executors import ExecutorOptions
from omnieval.runner import RunConfig
from omnieval.runs.evaluation import evaluate_config
from tests.executors.helpers import record_set, records, results

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytestmark = [pytest.mark.hf, pytest.mark.timeout(240)]

WORDS = [
    "red",
    "blue",
    "green",
    "circles",
    "Paris",
    "France",
    "capital",
    "number",
    "spoken",
    "answer",
    "Сколько",
    "кругов",
    "картинке",
]


@pytest.fixture(scope="module")
def llava(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.hf.tiny_models import build_llava

    return build_llava(tmp_path_factory.mktemp("llava"))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A CPU-only local cluster (2 replicas); yields the load log."""
    ray = pytest.importorskip("ray")
    log = str(tmp_path_factory.mktemp("loads") / "loads.txt")

    def hook() -> None:
        """Runs in every worker process Ray starts (pickled by value: it imports nothing from tests)."""
        import os

        from omnieval.backends.hf import backend

        original = backend.load_model

        def counted(*args: Any, **kwargs: Any) -> Any:
            loaded = original(*args, **kwargs)
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(f"{os.getpid()}\n")
            return loaded

        backend.load_model = counted

    ray.init(
        address="local",
        num_cpus=3,
        num_gpus=0,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"worker_process_setup_hook": hook},
    )
    yield Path(log)
    ray.shutdown()


def _loads(log: Path) -> list[int]:
    """The pid of the process of every hf model load so far."""
    return [int(x) for x in log.read_text(encoding="utf-8").split()] if log.exists() else []


def _words_task(root: Path) -> str:
    """Short texts ending in different words: a random model's greedy answer differs between them."""
    path = root / "words.jsonl"
    rows = [
        {
            "id": f"w{i}",
            "question": " ".join(WORDS[(i * k + 3) % len(WORDS)] for k in range(1, 5)),
            "answer": "1",
        }
        for i in range(12)
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return f"jsonl:{path}"


def _config(model: Path, out: Path, tasks: tuple[str, ...]) -> RunConfig:
    # batch size 1: a batch's padding changes float sums, and shards batch other samples together
    options = BackendOptions(batch_size=1, concurrency=2)
    return RunConfig(
        tasks=tasks,
        model=f"hf/{model}",
        output=out,
        backend=options,
        limit=10,
        use_cache=False,
        generation={"temperature": 0.0, "max_tokens": 4},
        quiet=True,
    )


def test_hf_replicas_on_ray_equal_a_local_run_with_one_load_each(
    llava: Path, cluster: Path, tmp_path: Path
) -> None:
    tasks = (_words_task(tmp_path), "demo_image")
    evaluate_config(_config(llava, tmp_path / "local", tasks))
    executor = ExecutorOptions(kind="ray", workers=2, shard_size=4, gpus_per_replica=0)
    evaluate_config(_config(llava, tmp_path / "ray", tasks), executor=executor)
    assert record_set(tmp_path / "ray") == record_set(tmp_path / "local")
    assert results(tmp_path / "ray") == results(tmp_path / "local")
    rows = records(tmp_path / "ray")
    assert Counter(r["task"] for r in rows) == {"words": 10, "demo_image": 10}
    assert len({r["response"] for r in rows if r["task"] == "words"}) >= 4, "answers depend on the sample"
    assert all(r["state"] in ("ok", "parse_failed", "truncated") for r in rows), (
        "every sample reached the model"
    )
    assert all(r["media_policy"] for r in rows if r["task"] == "demo_image"), "the images went to the model"
    block = json.loads((tmp_path / "ray" / "manifest.json").read_text())["executor"]
    assert (block["kind"], block["workers"], block["gpus_per_replica"]) == ("ray", 2, 0)
    pids = {s["pid"] for s in block["shards"].values()}
    assert len(block["shards"]) == 6 and len(pids) == 2, "3 shards per task over both replicas"
    assert Counter(_loads(cluster)) == dict.fromkeys(pids, 1), "each replica loaded the model once"


def test_asking_for_gpus_on_a_cluster_without_any_fails_at_once(
    llava: Path, cluster: Path, tmp_path: Path
) -> None:
    executor = ExecutorOptions(kind="ray", workers=1, gpus_per_replica=1)
    with pytest.raises(ConfigError, match=r"1 GPU.*at most 0 GPU"):
        evaluate_config(_config(llava, tmp_path / "gpu", ("demo_image",)), executor=executor)
    assert not (tmp_path / "gpu" / "samples.jsonl").exists()


def test_gpus_per_replica_on_a_cpu_cluster(cluster: Path) -> None:
    import ray

    from omnieval.executors.ray_sizing import replica_gpus

    assert replica_gpus(ray, ExecutorOptions(kind="ray"), local_model=True) == 0, "default without GPUs: 0"
    assert replica_gpus(ray, ExecutorOptions(kind="ray", gpus_per_replica=0), local_model=True) == 0
    with pytest.raises(ConfigError, match=r"0\.5 GPU"):
        replica_gpus(ray, ExecutorOptions(kind="ray", gpus_per_replica=0.5), local_model=True)
    with pytest.raises(ConfigError, match="4 CPU"):
        replica_gpus(
            ray, ExecutorOptions(kind="ray", gpus_per_replica=0, cpus_per_worker=4), local_model=True
        )
    with pytest.raises(ConfigError, match="0 or more"):
        replica_gpus(ray, ExecutorOptions(kind="ray", gpus_per_replica=-1), local_model=True)
