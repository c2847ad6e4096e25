"""``omnieval run`` against dead or misconfigured endpoints: stop fast, exit non-zero, resume later."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from omnieval.testing.fake_openai import FakeOpenAI
from tests.backends.e2e_helpers import read_samples, run_args, write_task

pytestmark = pytest.mark.network_server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(args: list[str], timeout: float = 60) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    proc = subprocess.run(
        args, capture_output=True, text=True, timeout=timeout, env={**os.environ, "COLUMNS": "200"}
    )
    return proc, time.monotonic() - start


def test_closed_port_gives_up_within_seconds_even_one_request_at_a_time(tmp_path: Path) -> None:
    task = write_task(tmp_path / "qa.jsonl", 2000)
    url = f"http://127.0.0.1:{_free_port()}/v1"
    out = tmp_path / "out"
    proc, elapsed = _run(run_args(task, url, out, "--concurrency", "1"))
    assert proc.returncode != 0
    # without the breaker: 2000 samples × 6 attempts with backoff, hours; the ≤ 10 s target itself is
    # measured by benchmarks/harness_overhead.py --only breaker (timed tests flake on loaded machines)
    assert elapsed < 30, f"took {elapsed:.1f} s"
    assert url in proc.stderr and "connection refused" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (out / "samples.jsonl").exists() or read_samples(out) == [], "nothing recorded: all resumable"


def test_unknown_model_stops_names_the_server_message_and_resumes_once_fixed(tmp_path: Path) -> None:
    n = 300
    task = write_task(tmp_path / "qa.jsonl", n)
    port = _free_port()
    out = tmp_path / "out"
    # a server without /v1/models (one that lists its models refuses the name before any request:
    # tests/backends/test_server_dialects.py): the requests' own 404s trip the breaker
    fake = FakeOpenAI(port=port, models=("llama",), answer_pattern=r"\[(\d+)\]", list_models=False)
    with fake.in_thread() as server:
        proc, _ = _run(run_args(task, server.url, out, "--concurrency", "8"))
        sent = server.stats()["requests"]
    assert proc.returncode != 0
    assert "model 'fake' not found" in proc.stderr and "404" in proc.stderr
    assert f"http://127.0.0.1:{port}/v1" in proc.stderr
    assert sent <= 8 + 4, f"{sent} requests: the breaker should stop after the first wave"
    first = read_samples(out)
    assert len(first) < 4, "at most the failures before the trip are recorded (as error, retried on resume)"

    with FakeOpenAI(port=port, answer_pattern=r"\[(\d+)\]").in_thread() as fixed:  # same URL, now serving
        again, _ = _run(run_args(task, fixed.url, out, "--concurrency", "8"))
        assert again.returncode == 0, again.stderr
        assert sum(fixed.successes.values()) == n
    rows = read_samples(out)
    assert sorted(r["sample_id"] for r in rows) == sorted(f"q{i}" for i in range(n))
    assert all(r["state"] == "ok" for r in rows)


def test_wrong_api_key_stops(tmp_path: Path) -> None:
    task = write_task(tmp_path / "qa.jsonl", 50)
    with FakeOpenAI(api_key="right").in_thread() as server:
        proc, _ = _run(run_args(task, server.url, tmp_path / "out", "--api-key", "wrong"))
    assert proc.returncode != 0 and "401" in proc.stderr and "invalid API key" in proc.stderr


def test_all_error_run_exits_non_zero_without_max_error_rate(tmp_path: Path) -> None:
    task = write_task(tmp_path / "qa.jsonl", 20)
    with FakeOpenAI(faults="500:1.0").in_thread() as server:  # transient: retried, never trips the breaker
        proc, _ = _run(run_args(task, server.url, tmp_path / "out", "--max-attempts", "1"))
    assert proc.returncode == 3, proc.stderr
    assert "every one of the 20 samples ended in error" in proc.stderr
    assert (tmp_path / "out" / "results.json").exists(), "results are still written"


def test_partly_failed_run_still_exits_zero(tmp_path: Path) -> None:
    task = write_task(tmp_path / "qa.jsonl", 40)
    with FakeOpenAI(faults="500:0.5", seed=3).in_thread() as server:
        proc, _ = _run(run_args(task, server.url, tmp_path / "out", "--max-attempts", "1"))
    states = [r["state"] for r in read_samples(tmp_path / "out")]
    assert 0 < states.count("error") < len(states)
    assert proc.returncode == 0, proc.stderr


def test_help_states_the_default_error_threshold() -> None:
    from typer.testing import CliRunner

    from omnieval.cli.app import app

    result = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "300"}, terminal_width=300)
    text = " ".join(result.output.replace("│", " ").split())
    assert "Default: exit 3 only when every sample ended in error (rate 1.0)" in text, text


def _judged_task(tmp_path: Path) -> Path:
    """A generative-judge task whose model answers come from a replay file (no model server needed)."""
    ids = range(8)  # more than the breaker's threshold of identical failures
    (tmp_path / "qa.jsonl").write_text(
        "".join(f'{{"id": "{i}", "question": "{i}+0?", "answer": "{i}"}}\n' for i in ids), encoding="utf-8"
    )
    (tmp_path / "ans.jsonl").write_text(
        "".join(f'{{"task": "jq", "sample_id": "{i}", "response": "{i}"}}\n' for i in ids), encoding="utf-8"
    )
    task = tmp_path / "task.yaml"
    task.write_text(
        "name: jq\nsource: {type: jsonl, path: qa.jsonl}\nmetrics: [{name: exact_match}]\n"
        "judge: {protocol: {name: direct}, template: binary_equivalence}\n",
        encoding="utf-8",
    )
    return task


def test_a_misconfigured_judge_endpoint_names_the_judge_options_and_its_url(tmp_path: Path) -> None:
    task = _judged_task(tmp_path)
    with FakeOpenAI(models=("other-judge",)).in_thread() as judge_server:
        args = [*run_args(task, "http://unused.invalid/v1", tmp_path / "out")]
        args[args.index("--tasks") + 1] = str(task)
        args[args.index("--model") + 1] = f"replay/{tmp_path / 'ans.jsonl'}"
        del args[args.index("--base-url") : args.index("--base-url") + 2]
        proc, _ = _run(
            [
                *args,
                "--judge",
                "openai/my-judge",
                "--judge-base-url",
                judge_server.url,
                "--judge-api-key",
                "k",
            ]
        )
    assert proc.returncode != 0
    assert "model 'my-judge' not found" in proc.stderr and judge_server.url in proc.stderr, proc.stderr
    assert "check --judge-base-url" in proc.stderr, proc.stderr  # the judge's option, not the model's
    assert "check --base-url" not in proc.stderr, proc.stderr
