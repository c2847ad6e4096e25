"""``omnieval sweep`` with several models at once: the cluster split among them, their runs concurrent
and each equal to its local run, one endpoint's limit shared, a failed model reported and resumed."""

from __future__ import annotations

import datetime as dt
import json
import pickle
import socket
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from omnieval.backends import BackendOptions
from omnieval.cli.app import app
from omnieval.errors import ConfigError
from omnieval.executors import ExecutorOptions
from omnieval.executors.sweep import load_sweep, sweep_shape
from omnieval.executors.sweep_runner import ModelRow, SweepStopped, plan_runs
from omnieval.runner import RunConfig
from omnieval.runner.progress import Progress
from omnieval.runs.evaluation import evaluate_config
from tests.executors.helpers import CountingServer, qa_task, record_set, results


def shape(
    local: list[bool], *, cpus: float, gpus: float = 0, at_once: int | None = None, **kw: Any
) -> tuple[int, tuple[int, ...]]:
    got = sweep_shape(
        local=local, cpus=cpus, gpus=gpus, options=ExecutorOptions(kind="ray", **kw), models_at_once=at_once
    )
    assert got.models_at_once * max(got.workers) <= got.slots, "never more workers than the cluster has slots"
    return got.models_at_once, got.workers


def test_sweep_shape_splits_the_cluster_among_models() -> None:
    assert shape([False] * 3, cpus=8) == (3, (2, 2, 2)), "API models: all at once, the CPUs split evenly"
    assert shape([False] * 10, cpus=4) == (4, (1,) * 10), "no more models at once than worker slots"
    assert shape([False] * 5, cpus=8, workers=3) == (2, (3,) * 5), "--workers is per model"
    assert shape([True] * 3, cpus=64, gpus=8) == (3, (2, 2, 2)), "local: the GPUs split, one replica per GPU"
    assert shape([True] * 20, cpus=64, gpus=8) == (8, (1,) * 20), (
        "many checkpoints: one replica each, 8 at once"
    )
    assert shape([True] * 2, cpus=64, gpus=8, gpus_per_replica=2) == (2, (2, 2))
    assert shape([True, False], cpus=8) == (2, (1, 4)), "a local model without GPUs gets one replica"
    assert shape([False] * 4, cpus=8, at_once=2) == (2, (4,) * 4)
    with pytest.raises(
        ConfigError, match="3 models at once × 3 workers each need 9 worker slots, but the cluster has 8"
    ):
        shape([False] * 4, cpus=8, at_once=3, workers=3)
    with pytest.raises(ConfigError, match="no room for one worker"):
        shape([True], cpus=8, gpus=1, gpus_per_replica=2)


def test_models_at_once_from_yaml_flag_and_executor(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text("models: [a/x, b/y]\ntasks: [t]\nmodels_at_once: 2\n", encoding="utf-8")
    assert load_sweep(sweep, models=None, tasks=None).models_at_once == 2
    assert load_sweep(sweep, models=None, tasks=None, models_at_once=1).models_at_once == 1, "the flag wins"
    sweep.write_text("models: [a/x]\ntasks: [t]\nmodels_at_once: 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"sweep.yaml: field 'models_at_once'"):
        load_sweep(sweep, models=None, tasks=None)
    config = RunConfig(tasks=("t",), model="baseline/oracle", output=tmp_path / "x")
    with pytest.raises(ConfigError, match="--models-at-once needs --executor ray"):
        plan_runs([("x", config)], ExecutorOptions(), models_at_once=2, resources=None)


class Recorder(Progress):
    def __init__(self) -> None:
        super().__init__(quiet=True)
        self.calls: list[tuple[Any, ...]] = []

    def add(self, name: str, total: int | None, *, done: int = 0) -> None:
        self.calls.append(("add", name, total, done))

    def update(self, name: str, *, done: int, states: dict[str, int], retries: int = 0) -> None:
        self.calls.append(("update", name, done, states))

    def finish(self, name: str, *, states: dict[str, int]) -> None:
        self.calls.append(("finish", name, states))


def test_endpoint_down_survives_pickling() -> None:
    """A worker's tripped breaker reaches the driver through pickle (Ray), intact."""
    from omnieval.backends.breaker import Cause, EndpointDown

    down = EndpointDown("http://h/v1", Cause("connection refused", url="http://h/v1"), 4)
    again = pickle.loads(pickle.dumps(down))
    assert (type(again), str(again), again.endpoint, again.cause, again.count) == (
        EndpointDown,
        str(down),
        "http://h/v1",
        down.cause,
        4,
    )


def test_model_row_folds_a_runs_tasks_into_one_row() -> None:
    display = Recorder()
    row = ModelRow(display, "m1")
    row.add("qa", 10, done=2)
    row.add("dlg", 5)
    row.update("qa", done=6, states={"ok": 3, "error": 1})
    row.update("dlg", done=1, states={"ok": 1})
    row.finish("qa", states={"ok": 7, "error": 1})
    assert display.calls[-1] == ("update", "m1", 7, {"ok": 4, "error": 1}), "no finish before every task is"
    row.finish("dlg", states={"ok": 5})
    assert display.calls == [
        ("add", "m1", 15, 2),
        ("update", "m1", 6, {"ok": 3, "error": 1}),
        ("update", "m1", 7, {"ok": 4, "error": 1}),
        ("update", "m1", 7, {"ok": 12, "error": 1}),
        ("finish", "m1", {"ok": 12, "error": 1}),
    ]
    row.stop.set()  # an interrupted sweep: the run stops at its next report
    with pytest.raises(SweepStopped, match="m1: the sweep was interrupted"):
        row.update("qa", done=8, states={"ok": 8})


def sweep_args(out: Path, *extra: str) -> list[str]:
    return [
        "sweep",
        "--output",
        str(out),
        "--executor",
        "ray",
        "--quiet",
        "--json",
        "--concurrency",
        "3",
        *extra,
    ]


def as_local(model: str, url: str, task: str, out: Path) -> RunConfig:
    """The configuration the sweep builds for ``model`` (its CLI defaults), run here instead."""
    backend = BackendOptions(base_url=url, concurrency=3, timeout_s=120.0)
    return RunConfig(tasks=(task,), model=model, output=out, seed=1234, quiet=True, backend=backend)


def shard_spans(run_dir: Path) -> list[tuple[float, float]]:
    shards = json.loads((run_dir / "manifest.json").read_text())["executor"]["shards"].values()
    spans = []
    for shard in shards:
        start = dt.datetime.fromisoformat(shard["started"]).timestamp()
        spans.append((start, start + shard["wall_s"]))
    return spans


@pytest.mark.network_server
@pytest.mark.timeout(240)
def test_two_models_at_once_share_the_endpoint_limit_and_equal_local_runs(
    tmp_path: Path, cluster: Any
) -> None:
    task = f"jsonl:{qa_task(tmp_path, 48)}"
    out = tmp_path / "sweep"
    with CountingServer(latency_ms=50).in_thread() as server:
        args = sweep_args(
            out,
            "--models",
            "openai/fake-a,openai/fake-b",
            "--tasks",
            task,
            "--base-url",
            server.url,
            "--models-at-once",
            "2",
            "--shard-size",
            "8",
        )
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 0, done.output
        peak = server.peak
        for model in ("openai/fake-a", "openai/fake-b"):
            evaluate_config(as_local(model, server.url, task, tmp_path / "local" / model.split("/")[1]))
        successes = server.stats()["successes"]
    assert 2 <= peak <= 3, (
        f"two models of 2 workers each, one endpoint limited to 3: the server saw {peak} at once"
    )
    a, b = shard_spans(out / "openai_fake-a"), shard_spans(out / "openai_fake-b")
    assert any(sa < eb and sb < ea for sa, ea in a for sb, eb in b), (
        "a shard of each model ran at the same time"
    )
    for name in ("fake-a", "fake-b"):
        assert record_set(out / f"openai_{name}") == record_set(tmp_path / "local" / name)
        assert results(out / f"openai_{name}") == results(tmp_path / "local" / name)
        assert json.loads((out / f"openai_{name}" / "manifest.json").read_text())["executor"]["workers"] == 2
    assert set(successes.values()) == {4}, (
        "each prompt asked once by each of the two sweep runs and two local runs"
    )
    board = json.loads((out / "leaderboard.json").read_text())
    assert [(r["model"], r["status"], r["n"]) for r in sorted(board["rows"], key=lambda r: r["model"])] == [
        ("openai_fake-a", "finished", 48),
        ("openai_fake-b", "finished", 48),
    ]
    assert board["failed"] == {}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.network_server
@pytest.mark.timeout(240)
def test_a_failed_model_keeps_the_others_and_a_rerun_resumes_it(tmp_path: Path, cluster: Any) -> None:
    task = f"jsonl:{qa_task(tmp_path, 20)}"
    port = free_port()
    sweep = tmp_path / "sweep.yaml"
    out = tmp_path / "sweep"
    with CountingServer(latency_ms=20).in_thread() as live:
        sweep.write_text(
            f"models: [{{model: openai/fake, name: live, base_url: '{live.url}'}},\n"
            f"         {{model: openai/fake, name: down, base_url: 'http://127.0.0.1:{port}/v1'}}]\n"
            f"tasks: ['{task}']\n",
            encoding="utf-8",
        )
        first = CliRunner().invoke(app, sweep_args(out, "--config", str(sweep)))
        assert first.exit_code != 0
        assert "1 of 2 models failed: down (stopped: 4 requests in a row" in first.output, first.output
        assert "connection refused" in first.output and "Traceback" not in first.output, (
            "the breaker's own message"
        )
        board = json.loads((out / "leaderboard.json").read_text())
        assert {r["model"]: (r["status"], r["n"]) for r in board["rows"]} == {
            "live": ("finished", 20),
            "down": ("failed", 0),
        }
        assert "connection refused" in board["failed"]["down"] and set(board["failed"]) == {"down"}
        assert results(out / "live")["states"]["ok"] == 20
        asked = live.stats()["requests"]
        with CountingServer(latency_ms=20, port=port).in_thread() as revived:
            again = CliRunner().invoke(app, sweep_args(out, "--config", str(sweep)))
            assert again.exit_code == 0, again.output
            assert revived.stats()["requests"] == 20, "the failed model's samples, each asked once"
        assert live.stats()["requests"] == asked, "the finished model was not recomputed"
    board = json.loads((out / "leaderboard.json").read_text())
    assert {r["model"]: (r["status"], r["n"]) for r in board["rows"]} == {
        "live": ("finished", 20),
        "down": ("finished", 20),
    }
    assert board["failed"] == {}
    shards = json.loads((out / "live" / "manifest.json").read_text())["executor"]["shards"].values()
    assert all(s["status"] == "done earlier" for s in shards)
