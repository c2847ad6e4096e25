"""``--batch`` against the fake OpenAI Batch API: every sample ok with no /chat/completions request, groups
of the configured size, expired / cancelled batches and failed lines fall back to single requests, a run
killed with SIGKILL resumes by polling its recorded batches (no request resubmitted), and a backend
without a batch API is refused before any request."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from omnieval.cli.app import app
from omnieval.testing.fake_openai import FakeOpenAI

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _task(tmp_path: Path, n: int) -> Path:
    data = tmp_path / "t.jsonl"
    data.write_text(
        "".join(json.dumps({"id": str(i), "question": f"[{i}]", "answer": str(i)}) + "\n" for i in range(n))
    )
    return data


def _args(data: Path, out: Path, url: str, size: int = 10) -> list[str]:
    return [
        "run",
        "--tasks",
        f"jsonl:{data}",
        "--model",
        "openai/fake",
        "--base-url",
        url,
        "--batch",
        "--batch-size-requests",
        str(size),
        "--batch-poll",
        "0.05",
        "--output",
        str(out),
        "-q",
    ]


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def test_batch_mode_answers_every_sample_without_chat_requests(tmp_path: Path) -> None:
    data, out = _task(tmp_path, 25), tmp_path / "out"
    with FakeOpenAI(answer_pattern=r"\[(\d+)\]", batch_polls=2).in_thread() as server:
        result = CliRunner().invoke(app, _args(data, out, server.url), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        assert server.stats()["requests"] == 0  # no /v1/chat/completions at all
        assert len(server.batches.created) == 3  # groups of at most 10
        assert max(server.batches.lines.values()) == 1 and sum(server.batches.lines.values()) == 25
    records = _records(out)
    assert (
        len(records) == 25
        and {r["state"] for r in records} == {"ok"}
        and {r["score"] for r in records} == {1.0}
    )
    ledger = [json.loads(line) for line in (out / "batches.jsonl").read_text().splitlines()]
    assert sorted(e["batch_id"] for e in ledger) == sorted(server.batches.created)
    assert sorted(len(e["ids"]) for e in ledger) == [5, 10, 10]


def test_expired_and_cancelled_batches_and_failed_lines_fall_back_to_single_requests(tmp_path: Path) -> None:
    data, out = _task(tmp_path, 30), tmp_path / "out"
    with FakeOpenAI(
        answer_pattern=r"\[(\d+)\]", batch_outcomes=["expired", "cancelled"], batch_fail_every=4
    ).in_thread() as server:
        result = CliRunner().invoke(app, _args(data, out, server.url), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        ledger = [json.loads(line) for line in (out / "batches.jsonl").read_text().splitlines()]
        assert [e["batch_id"] for e in ledger] == server.batches.created
        assert server.stats()["requests"] == _expected_fallbacks([len(e["ids"]) for e in ledger])
        assert max(server.batches.lines.values()) == 1  # nothing resubmitted to a batch
        assert max(server.successes.values()) == 1 and sum(server.successes.values()) == 30
    records = _records(out)
    assert len(records) == 30 and {r["state"] for r in records} == {"ok"}


def test_a_killed_batch_run_resumes_by_polling_without_resubmitting(tmp_path: Path) -> None:
    data, out = _task(tmp_path, 40), tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": SRC}
    with FakeOpenAI(answer_pattern=r"\[(\d+)\]", batch_polls=10_000).in_thread() as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "omnieval", *_args(data, out, server.url)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        ledger = out / "batches.jsonl"
        deadline = time.monotonic() + 60
        while (
            time.monotonic() < deadline and _submitted(ledger) < 40
        ):  # every request is in a batch, none answered
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        created = list(server.batches.created)
        assert _submitted(ledger) == 40 and not (out / "samples.jsonl").read_text().strip()
        server.batches.polls = 0  # the provider finishes the batches while no one is polling
        result = CliRunner().invoke(app, _args(data, out, server.url), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        assert server.batches.created == created  # the same batches, polled again; none created
        assert max(server.batches.lines.values()) == 1 and server.stats()["requests"] == 0
    records = _records(out)
    assert sorted(int(r["sample_id"]) for r in records) == list(range(40)) and {
        r["state"] for r in records
    } == {"ok"}


def _expected_fallbacks(sizes: list[int]) -> int:
    """Requests sent on their own: the first batch expired (its first half answered, every 4th answered line
    failed), the second was cancelled (none answered), the rest completed with every 4th line failed."""
    total = 0
    for i, n in enumerate(sizes):
        answered = n // 2 if i == 0 else 0 if i == 1 else n
        total += (n - answered) + answered // 4
    return total


def _submitted(ledger: Path) -> int:
    if not ledger.exists():
        return 0
    return sum(len(json.loads(line)["ids"]) for line in ledger.read_text().splitlines() if line.strip())


def test_batch_for_a_backend_without_a_batch_api_fails_before_any_request(tmp_path: Path) -> None:
    data, out = _task(tmp_path, 3), tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["run", "--tasks", f"jsonl:{data}", "--model", "baseline/random", "--batch", "--output", str(out)],
    )
    assert result.exit_code == 2
    assert "--batch-api: backend 'baseline' (baseline/random) has no provider batch API" in result.output
    assert not (out / "samples.jsonl").exists()
