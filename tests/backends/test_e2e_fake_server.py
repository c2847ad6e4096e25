"""End to end through ``omnieval run``: injected faults lose nothing; ``kill -9`` then resume changes
nothing."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from omnieval.testing.fake_openai import FakeOpenAI
from tests.backends.e2e_helpers import omnieval_cmd, outcome, read_samples, run_args, run_cli, write_task

pytestmark = pytest.mark.network_server

N = 150


def test_faults_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    task = write_task(tmp_path / "qa.jsonl", N)
    faults = "429:0.1,500:0.1,timeout:0.02,garbage:0.06,reset:0.03"
    with FakeOpenAI(faults=faults, seed=11, answer_pattern=r"\[(\d+)\]", hang_s=6).in_thread() as server:
        out = tmp_path / "out"
        run_cli(
            run_args(task, server.url, out, "--concurrency", "16", "--timeout", "3", "--max-attempts", "12")
        )
        stats = server.stats()
    rows = read_samples(out)
    ids = [r["sample_id"] for r in rows]
    assert sorted(ids) == sorted(f"q{i}" for i in range(N)), "every sample exactly once in samples.jsonl"
    assert all(r["state"] == "ok" for r in rows), [r["reason"] for r in rows if r["state"] != "ok"][:3]
    assert {k: v for k, v in stats["successes"].items() if v != 1} == {}, "no sample answered twice"
    assert len(stats["successes"]) == N
    assert set(stats["faults"]) == {"429", "500", "timeout", "garbage", "reset"}
    assert stats["requests"] == N + sum(stats["faults"].values()), "each fault retried exactly once more"
    score = sum(r["score"] for r in rows) / N
    assert score == pytest.approx(0.4), "two in five answers are right"
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["tasks"]["qa"]["states"]["ok"] == N and results["tasks"]["qa"]["n"] == N


def _wait_for_lines(path: Path, n: int, proc: subprocess.Popen[bytes], deadline_s: float) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if path.is_file() and path.read_bytes().count(b"\n") >= n:
            return
        assert proc.poll() is None, "the run finished before it could be killed"
        time.sleep(0.02)
    raise AssertionError(f"{path} never reached {n} lines")


def test_kill_9_then_resume_equals_uninterrupted_run(tmp_path: Path) -> None:
    n = 300
    task = write_task(tmp_path / "qa.jsonl", n)
    with FakeOpenAI(
        latency_ms=25, faults="500:0.05", seed=5, answer_pattern=r"\[(\d+)\]"
    ).in_thread() as server:
        ref_out = tmp_path / "reference"
        run_cli(run_args(task, server.url, ref_out, "--concurrency", "8"))
        reference = outcome(read_samples(ref_out))

        out = tmp_path / "killed"
        before = sum(server.successes.values())
        proc = subprocess.Popen(
            run_args(task, server.url, out, "--concurrency", "8"), stdout=subprocess.DEVNULL
        )
        _wait_for_lines(out / "samples.jsonl", 60, proc, deadline_s=60)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        done_at_kill = len(read_samples(out))
        assert 60 <= done_at_kill < n

        run_cli(run_args(task, server.url, out, "--concurrency", "8"))
        answered = sum(server.successes.values()) - before
    rows = read_samples(out)
    assert len(rows) == n and len({r["sample_id"] for r in rows}) == n, "no sample written twice"
    assert outcome(rows) == reference
    assert answered <= n + 8, "finished samples are not re-requested (at most the in-flight ones)"
    ref_results = json.loads((ref_out / "results.json").read_text(encoding="utf-8"))["tasks"]["qa"]
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))["tasks"]["qa"]
    assert (results["score"], results["states"]) == (ref_results["score"], ref_results["states"])


LL_TASK = """name: ll_task
source:
  type: jsonl
  path: qa.jsonl
prompt:
  format: completion
  request_kind: loglikelihood
  template: "{{ input }}\\nОтвет:"
parser: mc_letter
metrics: [exact_match]
"""


def test_loglikelihood_task_through_echoed_logprobs(tmp_path: Path) -> None:
    rows = []
    for i in range(30):
        favoured = i % 3 if i % 2 == 0 else (i + 1) % 3  # the fake server favours the bracketed option
        rows.append(
            {
                "id": f"q{i}",
                "question": f"Вопрос {i}: [{favoured}]",
                "answer": str(i % 3),
                "choices": ["0", "1", "2"],
            }
        )
    (tmp_path / "qa.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    (tmp_path / "ll.yaml").write_text(LL_TASK, encoding="utf-8")
    with FakeOpenAI(answer_pattern=r"\[(\d+)\]").in_thread() as server:
        args = [*omnieval_cmd(), "run", "--tasks", str(tmp_path / "ll.yaml"), "--model", "openai/fake"]
        run_cli([*args, "--base-url", server.url, "--output", str(tmp_path / "out"), "--quiet"])
    samples = {r["sample_id"]: r for r in read_samples(tmp_path / "out")}
    assert len(samples) == 30 and all(r["state"] == "ok" for r in samples.values())
    assert samples["q0"]["response"] == "A" and samples["q1"]["response"] == "C"
    assert sum(r["score"] for r in samples.values()) / 30 == pytest.approx(0.5), "the even half is right"
