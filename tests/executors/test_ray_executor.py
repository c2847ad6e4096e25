"""``--executor ray`` on a local Ray cluster: same records and results as a local run, lost workers,
the per-endpoint concurrency limit, resume. One cluster for the module (Ray starts slowly)."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from omnieval.executors import ExecutorOptions
from omnieval.runs.evaluation import evaluate_config
from tests.executors.helpers import CountingServer, config, dialog_task, qa_task, record_set, records, results

pytestmark = [pytest.mark.network_server, pytest.mark.timeout(240)]


def on_ray(**kw: Any) -> ExecutorOptions:
    return ExecutorOptions(kind="ray", **kw)


def test_ray_run_equals_local_run(tmp_path: Path, cluster: Any) -> None:
    tasks = [f"jsonl:{qa_task(tmp_path, 40)}", str(dialog_task(tmp_path))]
    with CountingServer(latency_ms=10).in_thread() as server:
        evaluate_config(config(tasks, server.url, tmp_path / "local"))
        outcome, _ = evaluate_config(
            config(tasks, server.url, tmp_path / "ray"), executor=on_ray(workers=3, shard_size=8)
        )
        successes = server.stats()["successes"]
    assert record_set(tmp_path / "ray") == record_set(tmp_path / "local")
    assert results(tmp_path / "ray") == results(tmp_path / "local")
    assert set(successes.values()) == {2}, "each run asked each prompt exactly once"
    assert outcome.states == {"qa": {"ok": 40}, "dlg": {"ok": 9}}
    ids = [r["sample_id"] for r in records(tmp_path / "ray") if r["task"] == "qa"]
    assert ids == [f"q{i}" for i in range(40)], "merged in plan order, whatever order workers finished in"
    dialog = [r for r in records(tmp_path / "ray") if r["task"] == "dlg"]
    assert all(r["response"] == str(r["chain_index"]) for r in dialog)
    shards = json.loads((tmp_path / "ray" / "manifest.json").read_text())["executor"]["shards"]
    assert len(shards) == 5 + 2, "40 samples in 8s; 3 dialogs of 3 turns never split (two fit in 8)"
    assert all(
        s["attempts"] == 1 and s["wall_s"] > 0 and s["pid"] and s["status"] == "ran" for s in shards.values()
    )
    assert sum(s["samples"] for s in shards.values()) == 49


def _kill_when_started(out: Path, *, min_lines: int, deadline_s: float) -> tuple[str, set[str]]:
    """SIGKILL the worker of the first shard that has written ``min_lines`` records (a worker actor: the
    driver's seat runs in this process)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        for attempt in sorted((out / "shards").glob("*/attempt.json")):
            lines = attempt.parent / "samples.jsonl"
            try:
                pid = json.loads(attempt.read_text()).get("pid")
            except ValueError:  # being written
                continue
            if (
                pid not in (None, os.getpid())
                and lines.exists()
                and lines.read_bytes().count(b"\n") >= min_lines
            ):
                os.kill(pid, signal.SIGKILL)
                done = {json.loads(x)["sample_id"] for x in lines.read_text().splitlines() if x.strip()}
                return attempt.parent.name, done
        time.sleep(0.02)
    raise AssertionError("no shard started in time")


def test_killed_worker_loses_and_duplicates_nothing(tmp_path: Path, cluster: Any) -> None:
    n = 64
    task = qa_task(tmp_path, n)
    out = tmp_path / "ray"
    failure: list[BaseException] = []
    with CountingServer(latency_ms=60).in_thread() as server:
        cfg = config([f"jsonl:{task}"], server.url, out, concurrency=2)

        def run() -> None:
            try:
                evaluate_config(cfg, executor=on_ray(workers=2, shard_size=16))
            except BaseException as exc:
                failure.append(exc)

        thread = threading.Thread(target=run)
        thread.start()
        killed, recorded_before = _kill_when_started(out, min_lines=3, deadline_s=120)
        thread.join(180)
        successes = server.stats()["successes"]
    assert not thread.is_alive() and not failure, failure
    ids = [r["sample_id"] for r in records(out)]
    assert sorted(ids) == sorted(f"q{i}" for i in range(n)), "every sample exactly once"
    assert all(r["state"] == "ok" for r in records(out))
    assert sum(successes.values()) <= n + 2, "only the requests in flight at the kill were asked again"
    shard = json.loads((out / "manifest.json").read_text())["executor"]["shards"][killed]
    assert shard["attempts"] == 2, "the lost worker's shard ran again on a new worker"
    assert recorded_before and shard["new_samples"] == 16, "the lost worker's records count as this run's too"


def test_one_concurrency_limit_for_all_workers(tmp_path: Path, cluster: Any) -> None:
    task = qa_task(tmp_path, 48)
    with CountingServer(latency_ms=60).in_thread() as server:
        evaluate_config(
            config([f"jsonl:{task}"], server.url, tmp_path / "ray", concurrency=3),
            executor=on_ray(workers=3, shard_size=8),
        )
        peak = server.peak
    assert results(tmp_path / "ray")["states"]["ok"] == 48
    assert 2 <= peak <= 3, f"3 workers each allowed 3 requests, but the server saw {peak} at once"


def test_resume_never_recomputes_finished_work(tmp_path: Path, cluster: Any) -> None:
    task = f"jsonl:{qa_task(tmp_path, 40)}"
    out = tmp_path / "run"
    with CountingServer(latency_ms=5).in_thread() as server:
        evaluate_config(config([task], server.url, out, limit=16))  # a local run, stopped early
        outcome, _ = evaluate_config(config([task], server.url, out, limit=None), executor=on_ray(workers=2))
        assert outcome.states == {"qa": {"ok": 24}} and server.stats()["requests"] == 40
        evaluate_config(config([task], server.url, tmp_path / "fresh"))
        assert record_set(out) == record_set(tmp_path / "fresh")
        assert results(out) == results(tmp_path / "fresh")
        requests = server.stats()["requests"]
        again, _ = evaluate_config(config([task], server.url, out), executor=on_ray(workers=2))
        assert again.states == {"qa": {}} and server.stats()["requests"] == requests
        before = record_set(out)
        (out / "samples.jsonl").unlink()  # finished shards alone are enough to rebuild the run
        (out / "results.json").unlink()
        rebuilt, _ = evaluate_config(config([task], server.url, out), executor=on_ray(workers=2))
        assert rebuilt.states == {"qa": {}} and server.stats()["requests"] == requests
    assert record_set(out) == before
    assert all(
        s["status"] == "done earlier"
        for s in json.loads((out / "manifest.json").read_text())["executor"]["shards"].values()
    )


def test_sweep_runs_every_model_and_resumes_as_a_whole(tmp_path: Path, cluster: Any) -> None:
    from typer.testing import CliRunner

    from omnieval.cli.app import app

    task = f"jsonl:{qa_task(tmp_path, 20)}"
    sweep = tmp_path / "sweep.yaml"
    with CountingServer(latency_ms=5).in_thread() as server:
        sweep.write_text(
            f"models: [baseline/oracle, {{model: openai/fake, name: fake, base_url: '{server.url}'}}]\n"
            f"tasks: ['{task}']\n",
            encoding="utf-8",
        )
        args = [
            "sweep",
            "--config",
            str(sweep),
            "--output",
            str(tmp_path / "out"),
            "--executor",
            "ray",
            "--workers",
            "2",
            "--quiet",
            "--json",
        ]
        first = CliRunner().invoke(app, args)
        assert first.exit_code == 0, first.output
        requests = server.stats()["requests"]
        second = CliRunner().invoke(app, args)
        assert second.exit_code == 0, second.output
        assert server.stats()["requests"] == requests == 20, "the second sweep computed nothing"
    board = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    assert [(r["model"], r["mean"], r["qa"]) for r in board["rows"]] == [
        ("baseline_oracle", 1.0, 1.0),
        ("fake", 0.4, 0.4),
    ]
    assert results(tmp_path / "out" / "fake")["tasks"]["qa"]["n"] == 20
    assert json.loads((tmp_path / "out" / "fake" / "manifest.json").read_text())["executor"]["kind"] == "ray"


def test_repeated_prompts_give_the_same_records_as_a_local_run(tmp_path: Path, cluster: Any) -> None:
    """Five questions asked eight times each: whichever shard answers one first, no record of this run is a
    cache hit of its own (a hit would flip ``cached`` depending on shard order)."""
    rows = [
        {"id": f"r{i}", "question": f"Сколько будет {i % 5}? [{i % 5}]", "answer": str(i % 5)}
        for i in range(40)
    ]
    task = tmp_path / "rep.jsonl"
    task.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    with CountingServer(latency_ms=5).in_thread() as server:
        evaluate_config(config([f"jsonl:{task}"], server.url, tmp_path / "local"))
        evaluate_config(
            config([f"jsonl:{task}"], server.url, tmp_path / "ray"), executor=on_ray(workers=2, shard_size=8)
        )
    assert record_set(tmp_path / "ray") == record_set(tmp_path / "local")
    assert not any(r["cached"] for r in records(tmp_path / "ray"))
    assert results(tmp_path / "ray") == results(tmp_path / "local")


def test_repeats_on_ray_give_a_local_run_s_records_and_resume_by_repeat(tmp_path: Path, cluster: Any) -> None:
    """Shards carry their samples with every repeat: the records (each repeat with its own seed) equal a
    local run's, and a shard missing one repeat of its samples answers exactly that repeat again."""
    task = f"jsonl:{qa_task(tmp_path, 12)}"
    out = tmp_path / "ray"
    with CountingServer(latency_ms=5).in_thread() as server:
        evaluate_config(config([task], server.url, tmp_path / "local", repeats=3))
        evaluate_config(config([task], server.url, out, repeats=3, limit=5))  # a local run, stopped early
        outcome, _ = evaluate_config(config([task], server.url, out, repeats=3), executor=on_ray(workers=2))
        assert outcome.states == {"qa": {"ok": 21}}, "7 samples × 3 repeats were left"
        assert record_set(out) == record_set(tmp_path / "local")
        assert results(out) == results(tmp_path / "local")
        for path in [out / "samples.jsonl", *(out / "shards").glob("*/samples.jsonl")]:
            kept = [x for x in path.read_text().splitlines(keepends=True) if json.loads(x)["repeat"] != 1]
            path.write_text("".join(kept))
        requests = server.stats()["requests"]
        again, _ = evaluate_config(config([task], server.url, out, repeats=3), executor=on_ray(workers=2))
        assert server.stats()["requests"] == requests, "repeat 1 comes back from the run's response cache"
    assert again.states == {"qa": {"ok": 12}}, "only repeat 1 of each sample was missing"

    def uncached(run: Path) -> list[str]:
        fields = {"cached": None, "latency_s": None, "cost_usd": None}  # a cache hit costs 0
        return sorted(json.dumps(r | fields, sort_keys=True) for r in records(run))

    assert uncached(out) == uncached(tmp_path / "local")
    assert sorted((r["sample_id"], r["repeat"]) for r in records(out)) == sorted(
        (f"q{i}", r) for i in range(12) for r in range(3)
    )
