"""``openai/`` against servers as they really answer (llama.cpp, vLLM, Ollama, and ones that answer
oddly), through ``omnieval run``: the server asked first, both endpoints, chat-template leakage, streaming."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from omnieval.cli import app
from omnieval.testing.fake_openai import FakeOpenAI
from tests.backends.e2e_helpers import read_samples

pytestmark = pytest.mark.network_server

GGUF = "/models/gemma-3-270m-q4_k_m.gguf"
"""llama.cpp serves its ``-m`` path as the model id."""


def run(server: FakeOpenAI, out: Path, *args: str, model: str = "gemma-3-270m-q4_k_m") -> Result:
    argv = ["run", "--model", f"openai/{model}", "--base-url", server.url, "--output", str(out), *args]
    return CliRunner().invoke(app, argv)


def results(out: Path) -> dict[str, Any]:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def test_a_text_only_llamacpp_server_refuses_an_image_task_before_any_request(tmp_path: Path) -> None:
    fake = FakeOpenAI(server="llama.cpp", models=(GGUF,), vision=False, audio=False, default_answer="5")
    with fake.in_thread() as server:
        refused = run(server, tmp_path / "a", "--tasks", "demo_image_text", "--limit", "3")
        sent = server.stats()["requests"]
        blind = run(server, tmp_path / "b", "--tasks", "demo_image_text", "--limit", "3", "--blind", "-q")
    assert refused.exit_code != 0 and "Traceback" not in refused.output
    assert "does not take image (the samples carry images" in refused.output
    assert '/props says "modalities": {"vision": false}' in refused.output  # the server's own words
    assert sent == 0 and not (tmp_path / "a" / "samples.jsonl").exists(), "no request, no sample"
    assert blind.exit_code == 0, blind.output
    assert [r["state"] for r in read_samples(tmp_path / "b")] == ["ok"] * 3


def test_ollama_capabilities_and_a_generic_servers_unsupported_answer(tmp_path: Path) -> None:
    """Ollama says it in /api/show; a server that says nothing first answers HTTP 500 "not supported":
    never retried, the breaker stops the run after four samples instead of 6 tries each."""
    with FakeOpenAI(server="ollama", models=("gemma3:latest",), vision=False).in_thread() as server:
        refused = run(server, tmp_path / "a", "--tasks", "demo_image_text", model="gemma3")
    assert refused.exit_code != 0 and "/api/show capabilities are [completion, audio]" in refused.output
    with FakeOpenAI(vision=False).in_thread() as server:
        stopped = run(server, tmp_path / "b", "--tasks", "demo_image_text", "--concurrency", "1")
        counts = server.stats()["counts"]
    assert stopped.exit_code != 0 and "image input is not supported" in stopped.output
    assert "cannot do what was asked" in stopped.output
    assert set(counts.values()) == {1} and len(counts) == 4, counts


def test_a_model_the_server_does_not_serve_is_refused_naming_what_it_serves(tmp_path: Path) -> None:
    with FakeOpenAI(server="llama.cpp", models=(GGUF,), default_answer="7").in_thread() as server:
        refused = run(server, tmp_path / "a", "--tasks", "demo_text", model="no-such-model")
        sent = server.stats()["requests"]
        sent_anyway = run(
            server, tmp_path / "b", "--tasks", "demo_text", "--limit", "2", "-q",
            "--backend-opt", "check_model=false", model="no-such-model",
        )  # fmt: skip
    assert refused.exit_code != 0 and GGUF in refused.output and "no-such-model" in refused.output
    assert "check_model=false" in refused.output and sent == 0
    assert sent_anyway.exit_code == 0, sent_anyway.output
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["backend"]["server"]["kind"] == "llama.cpp"
    assert manifest["backend"]["server"]["models"] == [GGUF]


def test_completions_endpoint_sends_the_tasks_own_prompt_and_chat_leakage_is_warned(tmp_path: Path) -> None:
    """A GGUF without a chat template behind llama.cpp: chat answers end in ChatML tokens (counted,
    warned with the fix, in the report); /completions gets the task's prompt as plain text."""
    fake = FakeOpenAI(
        server="llama.cpp", models=(GGUF,), chat_template=False, default_answer="7", leak="<|im_end|>"
    )
    with fake.in_thread() as server:
        chat = run(server, tmp_path / "chat", "--tasks", "demo_text", "--limit", "4")
        plain = run(
            server, tmp_path / "plain", "--tasks", "demo_text", "--limit", "4",
            "--backend-opt", "endpoint=completions",
        )  # fmt: skip
        prompts = [k for k in server.stats()["counts"] if k.endswith("Ответ:") or k.endswith("Answer:")]
    assert chat.exit_code == 0 and plain.exit_code == 0, chat.output + plain.output
    assert "no chat template of its own" in chat.output  # said before the run, from /props
    assert "4 of 4 answers of demo_text hold chat template tokens (<|im_end|>)" in chat.output
    assert "endpoint=completions" in chat.output
    assert results(tmp_path / "chat")["tasks"]["demo_text"]["template_leaks"] == 4
    report = (tmp_path / "chat" / "report.html").read_text(encoding="utf-8")
    assert "hold chat template tokens" in report
    assert "chat template" not in plain.output
    assert len(prompts) == 4 and all(p.startswith(("Реши пример", "Solve and")) for p in prompts)
    assert "template_leaks" not in results(tmp_path / "plain")["tasks"]["demo_text"]
    samples = read_samples(tmp_path / "plain")
    assert all(r["response"] and "<|" not in r["response"] for r in samples)


@pytest.mark.parametrize("endpoint", ["chat", "completions"])
def test_stream_times_every_answer_beside_the_score(tmp_path: Path, endpoint: str) -> None:
    with FakeOpenAI(server="vllm", models=("m",), default_answer="7 is the answer").in_thread() as server:
        done = run(
            server, tmp_path / "out", "--tasks", "demo_text", "--limit", "6", "--stream",
            "--concurrency", "3", "--backend-opt", f"endpoint={endpoint}", model="m",
        )  # fmt: skip
    assert done.exit_code == 0, done.output
    rows = read_samples(tmp_path / "out")
    assert [r["response"] for r in rows] == ["7 is the answer"] * 6
    for row in rows:
        timing = row["stream"]
        assert 0 < timing["ttft_s"] <= row["latency_s"] and timing["output_tokens"] == 4
        assert timing["tokens_per_s"] > 0
    latency = results(tmp_path / "out")["tasks"]["demo_text"]["latency"]
    assert latency["n"] == 6 and 0 < latency["ttft_p50_s"] <= latency["ttft_p95_s"]
    assert latency["tokens_per_s_p50"] > 0 and latency["latency_p50_s"] >= latency["ttft_p50_s"]
    backend = results(tmp_path / "out")["backend"]
    assert backend["concurrency"] == 3 and backend["stream"] is True and backend["server"]["kind"] == "vllm"
    assert backend["server"]["max_model_len"] == 2048 and backend["endpoint"] == endpoint
    assert "TTFT" in done.output and "tok/s" in done.output  # columns beside the score


def test_a_stream_cut_midway_and_zero_tokens_end_in_counted_states(tmp_path: Path) -> None:
    """One-word answers arrive whole; then longer ones are cut after their first piece: each is retried,
    then recorded in error naming the cut, and the answers already recorded stay. An answer of zero
    tokens is a sample like any other (parse_failed, timed)."""
    out = tmp_path / "out"
    fake = FakeOpenAI(default_answer="7", cut_stream_after=1, list_models=False)
    with fake.in_thread() as server:
        first = run(server, out, "--tasks", "demo_text", "--limit", "3", "--stream", "-q", model="any")
        server.default_answer = "eleven and more"
        cut = run(
            server, out, "--tasks", "demo_text", "--limit", "6", "--stream", "--max-attempts", "2", "-q",
            model="any",
        )  # fmt: skip
        counts = server.stats()["counts"]
        server.default_answer = ""
        empty = run(server, tmp_path / "empty", "--tasks", "demo_text", "--limit", "2", "--stream", "-q")
    assert first.exit_code == 0, first.output
    rows = {r["sample_id"]: r for r in read_samples(out)}
    assert len(rows) == 6 and [r["state"] for r in rows.values()][:3] == ["ok"] * 3
    broken = [r for r in rows.values() if r["state"] == "error"]
    assert len(broken) == 3 and all("the stream was cut after 1 piece(s)" in r["reason"] for r in broken)
    assert sorted(counts.values()) == [1, 1, 1, 2, 2, 2], "each cut answer asked twice (--max-attempts 2)"
    assert cut.exit_code != 0 or "error" in cut.output
    assert empty.exit_code == 0, empty.output
    zero = read_samples(tmp_path / "empty")
    assert [(r["state"], r["response"], r["stream"]["output_tokens"]) for r in zero] == [
        ("parse_failed", "", 0)
    ] * 2


def test_html_error_pages_are_named_by_their_title(tmp_path: Path) -> None:
    with FakeOpenAI(html_errors=True, api_key="secret", list_models=False).in_thread() as server:
        done = run(server, tmp_path / "out", "--tasks", "demo_text", "--concurrency", "1", model="x")
    assert done.exit_code != 0 and "HTML page: 401 invalid API key" in done.output
    assert "Traceback" not in done.output
