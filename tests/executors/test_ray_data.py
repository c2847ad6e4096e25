"""Task data and media that exist only on the driver: ``omnieval run --executor ray --ray-address ADDR`` with
a
relative ``--tasks jsonl:FILE``, a relative YAML task with a media folder and a relative ``--output``, run
from a driver directory that is not the cluster's; the files are moved away once the shards are handed out,
so a worker that read them from disk (its own, or the driver's) would fail."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from omnieval.executors import ExecutorOptions
from omnieval.executors.worker import NODE_TEMP
from omnieval.executors.worker_pool import WorkerPool
from omnieval.runs.evaluation import evaluate_config
from omnieval.runs.stored import rejudge_run
from tests.executors.helpers import CountingServer, config, record_set, records, results
from tests.executors.judge_helpers import api_judge, judge_calls, judged_record_set, judged_task

pytestmark = [pytest.mark.network_server, pytest.mark.timeout(300)]

MEDIA_TASK = """\
name: pics
modalities: [image]
source: {type: jsonl, path: data/pics.jsonl, fields: {media: [{field: image, kind: image}]}}
"""


@pytest.fixture
def two_nodes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path, str]]:
    """A two-node cluster whose processes start in their own empty directory: the head (the driver's node)
    without CPUs, so every worker runs on the other node (2 CPUs); also the head's node id."""
    pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    cluster_cwd = tmp_path / "cluster_cwd"
    cluster_cwd.mkdir()
    monkeypatch.chdir(cluster_cwd)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=2)
        yield cluster.address, cluster_cwd, cluster.head_node.node_id
    finally:
        cluster.shutdown()


def _driver_files(driver: Path) -> None:
    """``data/qa.jsonl`` (text) and ``pics.yaml`` over ``data/pics.jsonl`` with images in ``data/img``."""
    from PIL import Image

    data = driver / "data"
    (data / "img").mkdir(parents=True)
    rows = [
        {"id": f"q{i}", "question": f"Вопрос {i}: ответ [{i % 3}]", "answer": str(i % 3)} for i in range(6)
    ]
    (data / "qa.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    pics = []
    for i in range(4):
        Image.new("RGB", (8, 8), (60 * i, 0, 0)).save(data / "img" / f"{i}.png")
        pics.append(
            {"id": f"p{i}", "question": f"<image> какой? [{i}]", "answer": str(i), "image": f"img/{i}.png"}
        )
    (data / "pics.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in pics), encoding="utf-8"
    )
    (driver / "pics.yaml").write_text(MEDIA_TASK, encoding="utf-8")


def _hide_after_handing_out(monkeypatch: pytest.MonkeyPatch, driver: Path, *, shards: int) -> list[str]:
    """Move the driver's data away once every shard was handed out (all at once: as many workers as
    shards); the list gets the run's session once per shard."""
    given: list[str] = []
    give = WorkerPool.give

    def give_then_hide(self: Any, *args: Any) -> None:
        give(self, *args)
        given.append(self.session)
        if len(given) == shards:
            (driver / "data").rename(driver.parent / "moved")

    monkeypatch.setattr(WorkerPool, "give", give_then_hide)
    return given


def test_driver_only_files_and_relative_paths(
    tmp_path: Path, two_nodes: tuple[str, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from omnieval.cli.app import app

    address, cluster_cwd, head = two_nodes
    driver = tmp_path / "driver"
    driver.mkdir()
    _driver_files(driver)
    monkeypatch.chdir(driver)
    with CountingServer(latency_ms=5).in_thread() as server:
        common = [
            "run",
            "--tasks",
            "jsonl:data/qa.jsonl,pics.yaml",
            "--model",
            "openai/fake",
            "--base-url",
            server.url,
            "--quiet",
        ]
        local = CliRunner().invoke(app, [*common, "--output", "local"])
        assert local.exit_code == 0, local.output
        given = _hide_after_handing_out(monkeypatch, driver, shards=2)
        ray = CliRunner().invoke(
            app,
            [
                *common,
                "--output",
                "out",
                "--executor",
                "ray",
                "--ray-address",
                address,
                "--workers",
                "2",
                "--shard-size",
                "8",
            ],
        )
    assert ray.exit_code == 0, ray.output
    assert len(given) == 2 and not (driver / "data").exists(), "the data was gone while the workers ran"
    assert record_set(driver / "out") == record_set(driver / "local")
    assert results(driver / "out") == results(driver / "local")
    assert results(driver / "out")["states"]["ok"] == 10, "every text and image sample answered"
    assert list(cluster_cwd.iterdir()) == [], "the workers wrote nothing in their own directory"
    _check_off_node_writes(driver / "out", session=given[0], driver_node=head)


def _check_off_node_writes(out: Path, *, session: str, driver_node: str) -> None:
    """Every worker actor ran off the driver's node: each shard folder holds only what the driver wrote
    (the records, sent back through Ray, and the attempt naming the worker's node; a worker's own attempt
    would name its pid), and the workers' per-node temp folder is gone. A shard the driver's seat ran (in
    this process) is the driver's own."""
    for folder in (out / "shards").iterdir():
        if folder.is_dir():
            attempt = json.loads((folder / "attempt.json").read_text())
            if attempt.get("pid") == os.getpid():
                assert attempt["node_id"] == driver_node, attempt
                continue
            assert "pid" not in attempt and attempt["node_id"] != driver_node, attempt
            assert sorted(f.name for f in folder.iterdir()) == ["attempt.json", "samples.jsonl"]
            assert folder.joinpath("samples.jsonl").read_bytes().count(b"\n") > 0
    assert not (Path(tempfile.gettempdir()) / NODE_TEMP / session).exists(), "the temp folder was removed"


def _asked(*servers: CountingServer) -> list[int]:
    return [server.stats()["requests"] for server in servers]


def test_off_node_workers_cache_entries_come_back_to_the_driver(
    tmp_path: Path, two_nodes: tuple[str, Path, str]
) -> None:
    """Every worker runs off the driver's node: their model and judge responses reach the run's
    ``cache.sqlite`` and ``judge_cache.sqlite`` on the driver, so ``rejudge`` asks the judge nothing, and a
    rerun of the output whose records are gone asks neither server anything (its workers, off the driver's
    node again, start from the driver's entries), as a local run's rerun does."""
    address = two_nodes[0]
    task = str(judged_task(tmp_path, 16))
    out = tmp_path / "ray"
    executor = ExecutorOptions(kind="ray", ray_address=address, workers=2, shard_size=8)
    with (
        CountingServer(latency_ms=5).in_thread() as model,
        CountingServer(latency_ms=5).in_thread() as judge_server,
    ):
        judge = api_judge(judge_server, concurrency=4)
        cfg = config([task], model.url, out, judge=judge)
        evaluate_config(cfg, executor=executor)
        asked = _asked(model, judge_server)
        first = _without_cache_flags(out)
        rejudge_run(out, judge)
        assert _asked(model, judge_server) == asked, "re-judging with the same judge asked it nothing"
        (out / "samples.jsonl").unlink()
        shutil.rmtree(out / "shards")
        evaluate_config(cfg, executor=executor)
        assert _asked(model, judge_server) == asked, "the rerun found every answer in the driver's caches"
    executor = json.loads((out / "manifest.json").read_text())["executor"]
    head = two_nodes[2]  # no CPU there: a soft affinity let Ray put the gates on the worker node
    assert executor["driver_node"] == head
    assert executor["gate"]["node"] == head, "the model's gate ran on the driver's node"
    assert {j["node"] for j in executor["judges"].values()} == {head}, "so did the judge's gate"
    shards = executor["shards"]
    assert {s["node"] for s in shards.values()} and all(s["status"] == "ran" for s in shards.values())
    assert asked == [16, judge_calls(out)] and asked[1] >= 16
    again = records(out)
    assert len(again) == 16 and all(r["cached"] for r in again), "every model answer came from the cache"
    assert all(a["cached"] for r in again for c in r["judge"]["calls"] for a in c["attempts"]), (
        "every verdict"
    )
    assert _without_cache_flags(out) == first, "the same records as the first run, served from the caches"


def _without_cache_flags(out: Path) -> set[str]:
    """Records without timings and without what a cache hit changes (``cached``, a call's cost)."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("cached", "cost_usd")}
        return [strip(v) for v in value] if isinstance(value, list) else value

    return {json.dumps(strip(json.loads(r)), sort_keys=True) for r in judged_record_set(out)}
