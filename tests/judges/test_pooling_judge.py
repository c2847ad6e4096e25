"""The classification-endpoint judge (vLLM pooling protocol) against a local fake server, and a dead
endpoint."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from omnieval.backends import BackendOptions
from omnieval.runner import JudgeConfig, RetryPolicy, RunConfig
from omnieval.runs.evaluation import evaluate_config

SEEN: list[dict[str, object]] = []


class _Classify(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        SEEN.append(body)
        _question, gold, answer = str(body["input"]).split("[SEP]")
        probs = [0.2, 0.8] if gold.strip().lower() == answer.strip().lower() else [0.7, 0.3]
        data = json.dumps({"data": [{"probs": probs}]}).encode() if self.path == "/classify" else b"{}"
        self.send_response(200 if self.path == "/classify" else 404)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Classify)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _task(tmp_path: Path) -> Path:
    qa = [
        ("1", "Столица Франции?", "Париж", "париж"),
        ("2", "2+2?", "4", "пять ОТВЕТ 4"),
        ("3", "Небо?", "синее", "зелёное"),
    ]
    (tmp_path / "qa.jsonl").write_text(
        "".join(
            json.dumps({"id": i, "question": q, "answer": g}, ensure_ascii=False) + "\n" for i, q, g, _ in qa
        ),
        encoding="utf-8",
    )
    (tmp_path / "ans.jsonl").write_text(
        "".join(
            json.dumps({"task": "pq", "sample_id": i, "response": a}, ensure_ascii=False) + "\n"
            for i, _, _, a in qa
        ),
        encoding="utf-8",
    )
    task = tmp_path / "task.yaml"
    task.write_text(
        "name: pq\nsource: {type: jsonl, path: qa.jsonl}\nmetrics: [{name: exact_match, alias: em}]\n"
        "judge: {protocol: {name: reference_match}, derived: {fs: [em, js]}}\n",
        encoding="utf-8",
    )
    return task


def _config(tmp_path: Path, url: str) -> RunConfig:
    judge = JudgeConfig(model="pooling/mera-judge", backend=BackendOptions(base_url=url, timeout_s=5))
    return RunConfig(
        tasks=(str(_task(tmp_path)),),
        model=f"replay/{tmp_path / 'ans.jsonl'}",
        output=tmp_path / "run",
        quiet=True,
        judge=judge,
        retry=RetryPolicy(max_attempts=2, base_delay_s=0.01),
    )


def test_pooling_judge_takes_the_argmax_and_the_max_over_candidates(server: str, tmp_path: Path) -> None:
    SEEN.clear()
    _, results = evaluate_config(_config(tmp_path, server))
    block = results.tasks["pq"]
    assert block.metrics["js"] == pytest.approx(
        2 / 3
    )  # sample 2 is right only after ОТВЕТ: max over candidates
    assert block.states["ok"] == 3
    inputs = {str(b["input"]) for b in SEEN}
    assert "2+2?[SEP]4[SEP]пять ОТВЕТ 4" in inputs and "2+2?[SEP]4[SEP]4" in inputs
    assert all(b["model"] == "mera-judge" and b["truncate_prompt_tokens"] == 8192 for b in SEEN)


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    return f"http://127.0.0.1:{port}"


def test_a_dead_judge_endpoint_trips_the_breaker_and_the_run_resumes(server: str, tmp_path: Path) -> None:
    from omnieval.backends import EndpointDown

    dead = _dead_url()
    with pytest.raises(EndpointDown, match=f"judge {dead}.*connection refused"):
        evaluate_config(_config(tmp_path, dead))
    out = tmp_path / "run"
    records = (out / "samples.jsonl").read_text(encoding="utf-8") if (out / "samples.jsonl").exists() else ""
    assert records.strip() == ""  # no sample recorded unjudged: all of them stay resumable
    judge = JudgeConfig(model="pooling/mera-judge", backend=BackendOptions(base_url=server, timeout_s=5))
    _, results = evaluate_config(_config(tmp_path, server).model_copy(update={"judge": judge}))
    assert results.tasks["pq"].states["ok"] == 3 and results.tasks["pq"].metrics["js"] == pytest.approx(2 / 3)


def test_without_the_breaker_a_dead_judge_endpoint_is_judge_failed_and_counted(tmp_path: Path) -> None:
    dead = _dead_url()
    _, results = evaluate_config(_config(tmp_path, dead).model_copy(update={"breaker_threshold": 0}))
    block = results.tasks["pq"]
    assert block.states["judge_failed"] == 3 and "js" not in block.metrics
    assert block.metrics["em"] == pytest.approx(1 / 3)
    reason = block.example_reasons["judge_failed"][0]
    assert "unreachable" in reason and dead.rsplit(":", 1)[1] in reason


def test_an_openai_judge_is_cached_so_rejudging_with_it_is_free(tmp_path: Path) -> None:
    from omnieval.runs.stored import rejudge_run
    from omnieval.testing.fake_openai import FakeOpenAI

    task = _task(tmp_path)
    task.write_text(
        task.read_text(encoding="utf-8").replace("reference_match}", "direct}, template: binary_equivalence"),
        encoding="utf-8",
    )
    with FakeOpenAI(default_answer="Оценка: 1").in_thread() as server:
        judge = JudgeConfig(model="openai/judge", backend=BackendOptions(base_url=server.url, api_key="x"))
        config = RunConfig(
            tasks=(str(task),),
            model=f"replay/{tmp_path / 'ans.jsonl'}",
            output=tmp_path / "run",
            quiet=True,
            judge=judge,
        )
        _, first = evaluate_config(config)
        calls = sum(server.counts.values())
        again = rejudge_run(tmp_path / "run", judge)
        assert sum(server.counts.values()) == calls == 3  # one call per sample, none for the re-judge
    assert first.tasks["pq"].metrics == again.tasks["pq"].metrics
    assert again.tasks["pq"].metrics["js"] == 1.0
