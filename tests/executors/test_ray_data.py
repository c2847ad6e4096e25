"""Task data and media that exist only on the driver: ``omnieval run --executor ray --ray-address ADDR`` with
a
relative ``--tasks jsonl:FILE``, a relative YAML task with a media folder and a relative ``--output``, run
from a driver directory that is not the cluster's; the files are moved away once the shards are handed out,
so a worker that read them from disk (its own, or the driver's) would fail."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from omnieval.executors import ray_executor
from omnieval.executors.worker import NODE_TEMP
from tests.executors.helpers import CountingServer, record_set, results

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
    give = ray_executor._Fleet.give

    def give_then_hide(self: Any, *args: Any) -> None:
        give(self, *args)
        given.append(self.session)
        if len(given) == shards:
            (driver / "data").rename(driver.parent / "moved")

    monkeypatch.setattr(ray_executor._Fleet, "give", give_then_hide)
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
    """Every worker ran off the driver's node: each shard folder holds only what the driver wrote (the
    records, sent back through Ray, and the attempt naming the worker's node; a worker's own attempt
    would name its pid), and the workers' per-node temp folder is gone."""
    for folder in (out / "shards").iterdir():
        if folder.is_dir():
            attempt = json.loads((folder / "attempt.json").read_text())
            assert "pid" not in attempt and attempt["node_id"] != driver_node, attempt
            assert sorted(f.name for f in folder.iterdir()) == ["attempt.json", "samples.jsonl"]
            assert folder.joinpath("samples.jsonl").read_bytes().count(b"\n") > 0
    assert not (Path(tempfile.gettempdir()) / NODE_TEMP / session).exists(), "the temp folder was removed"
