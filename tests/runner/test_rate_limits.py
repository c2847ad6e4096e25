"""HTTP 429 handling seen from the server's side: concurrency drops after a burst, then recovers;
a Retry-After delay is waited out."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from omnieval.backends import BackendOptions
from omnieval.runner import RetryPolicy, RunConfig, run
from omnieval.testing.fake_openai import FakeOpenAI
from tests.backends.e2e_helpers import read_samples, write_task

pytestmark = pytest.mark.network_server


def _run(task: Path, url: str, out: Path, *, concurrency: int) -> None:
    config = RunConfig(
        tasks=(f"jsonl:{task}",),
        model="openai/fake",
        output=out,
        quiet=True,
        backend=BackendOptions(base_url=url, concurrency=concurrency, timeout_s=10),
        retry=RetryPolicy(max_attempts=8),
    )
    run(config)
    rows = read_samples(out)
    assert len(rows) >= 1 and all(r["state"] == "ok" for r in rows), [r["reason"] for r in rows][:3]


def test_concurrency_drops_after_a_429_burst_then_recovers(tmp_path: Path) -> None:
    n, concurrency = 360, 16
    task = write_task(tmp_path / "qa.jsonl", n)
    with FakeOpenAI(latency_ms=50, burst_429=concurrency, answer_pattern=r"\[(\d+)\]").in_thread() as server:
        _run(task, server.url, tmp_path / "out", concurrency=concurrency)
        arrivals = list(server.arrivals)
    assert len(arrivals) == n + concurrency, "every 429 retried once, nothing else repeated"
    burst, after = arrivals[:concurrency], arrivals[concurrency:]
    assert max(a.in_flight for a in burst) >= concurrency // 2, "the burst arrived concurrently"
    # the limit went 16 → 1 and climbs one step per `limit` successes: 1+2+...+5 > 16 requests to pass 5
    # (without halving these 16 arrivals reach 16 in flight)
    right_after = [a.in_flight for a in after[:concurrency]]
    assert max(right_after) <= concurrency // 2, f"in flight right after the burst: {right_after}"
    tail = [a.in_flight for a in after[-80:]]
    assert max(tail) >= concurrency * 3 // 4 and statistics.median(tail) >= concurrency // 3, (
        f"concurrency never recovered: {tail}"
    )


def test_retry_after_is_waited_out_measured_on_the_server(tmp_path: Path) -> None:
    wait_s = 1.5  # three times the default first backoff (0.5 s ± 50 %), so honouring it is visible
    task = write_task(tmp_path / "qa.jsonl", 4)
    with FakeOpenAI(burst_429=4, retry_after=wait_s, answer_pattern=r"\[(\d+)\]").in_thread() as server:
        _run(task, server.url, tmp_path / "out", concurrency=4)
        arrivals = list(server.arrivals)
    first = {a.key: a.t for a in arrivals if a.attempt == 0}
    gaps = [a.t - first[a.key] for a in arrivals if a.attempt == 1]
    assert len(gaps) == 4
    assert min(gaps) >= wait_s - 0.05, f"retried before Retry-After: {gaps}"
    assert max(gaps) < wait_s + 1.0, f"waited far longer than asked: {gaps}"
