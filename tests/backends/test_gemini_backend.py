"""``gemini/`` against a local fake of generateContent (the google-genai SDK pointed at 127.0.0.1): text,
system instruction, stop sequences, inline image / audio / video parts, thinking budget → reasoning and
reasoning tokens, Google's error bodies, 429 with retry-after and 503 retried by the runner."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.backends import BackendOptions
from omnieval.cli.app import app
from omnieval.testing.fake_gemini import FakeGemini


def _run(tmp_path: Path, server: FakeGemini, *extra: str) -> tuple[int, str, list[dict]]:
    data, out = tmp_path / "t.jsonl", tmp_path / "out"
    tmp_path.mkdir(parents=True, exist_ok=True)
    data.write_text(
        "".join(json.dumps({"id": str(i), "question": f"{i}", "answer": str(i)}) + "\n" for i in range(3))
    )
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--tasks",
            f"jsonl:{data}",
            "--model",
            "gemini/gemini-test",
            "--base-url",
            server.url,
            "--output",
            str(out),
            "-q",
            *extra,
        ],
    )
    path = out / "samples.jsonl"
    return (
        result.exit_code,
        result.output,
        [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else [],
    )


def test_text_is_answered_with_stop_sequences_and_the_seed(tmp_path: Path) -> None:
    with FakeGemini().in_thread() as server:
        code, output, records = _run(tmp_path, server, "--stop", "###", "--max-tokens", "12")
    assert code == 0, output
    assert {r["state"] for r in records} == {"ok"} and {r["score"] for r in records} == {1.0}
    path, body = server.requests[0]
    assert path.endswith("models/gemini-test:generateContent")
    config = body["generationConfig"]
    assert config["maxOutputTokens"] == 12 and config["stopSequences"] == ["###"] and config["seed"] == 1234


def test_thinking_budget_is_sent_and_thoughts_kept_as_reasoning(tmp_path: Path) -> None:
    with FakeGemini().in_thread() as server:
        code, output, records = _run(tmp_path, server, "--reasoning-effort", "low")
    assert code == 0, output
    thinking = server.requests[0][1]["generationConfig"]["thinkingConfig"]
    assert thinking.get("thinking_budget", thinking.get("thinkingBudget")) == 1024
    assert records[0]["reasoning"] == "Thinking it over." and records[0]["score"] == 1.0
    assert records[0]["usage"]["reasoning_tokens"] == 4 and records[0]["usage"]["completion_tokens"] == 7


def test_429_with_retry_after_and_503_are_retried_and_400_keeps_googles_body(tmp_path: Path) -> None:
    with FakeGemini(faults=[429, 503], retry_after=0.01).in_thread() as server:
        code, output, records = _run(tmp_path, server, "--concurrency", "1")
    assert code == 0, output
    assert {r["state"] for r in records} == {"ok"} and len(server.requests) == 5
    with FakeGemini(faults=[400] * 3).in_thread() as server:
        _, output, records = _run(tmp_path / "b", server, "--concurrency", "1", "--breaker-threshold", "0")
    errors = [r for r in records if r["state"] == "error"]
    assert (
        errors and "HTTP 400" in errors[0]["reason"] and '"status": "INVALID_ARGUMENT"' in errors[0]["reason"]
    ), output


def test_system_instruction_and_inline_media_parts(tmp_path: Path) -> None:
    import numpy as np
    import soundfile
    from PIL import Image

    from omnieval.backends.gemini_backend import GeminiBackend
    from omnieval.types import AudioPart, ImagePart, MediaRef, Message, Request, TextPart

    png, wav = io.BytesIO(), io.BytesIO()
    Image.new("RGB", (8, 6), "blue").save(png, format="PNG")
    soundfile.write(wav, np.zeros(1600, dtype="float32"), 16000, format="WAV")
    parts = (
        TextPart(text="Что это?"),
        ImagePart(media=MediaRef(kind="image", name="b.png", data=png.getvalue())),
        AudioPart(media=MediaRef(kind="audio", name="s.wav", data=wav.getvalue())),
    )
    request = Request(
        task="t",
        sample_id="1",
        messages=(Message(role="system", content="Кратко."), Message(role="user", content=parts)),
    )
    backend = GeminiBackend(
        "g", options=BackendOptions(base_url="http://127.0.0.1:9", media_cache_dir=str(tmp_path))
    )
    contents, config, applied = backend.body(request)
    assert config.system_instruction == "Кратко." and [c.role for c in contents] == ["user"]
    text, image, audio = contents[0].parts
    assert text.text == "Что это?"
    assert image.inline_data.mime_type.startswith("image/") and Image.open(
        io.BytesIO(image.inline_data.data)
    ).size == (8, 6)
    assert (
        audio.inline_data.mime_type == "audio/wav"
        and soundfile.info(io.BytesIO(audio.inline_data.data)).frames > 0
    )
    assert set(applied) == {"b.png", "s.wav"}
    assert base64  # the SDK encodes inline data as base64 on the wire


def test_a_refused_connection_trips_the_breaker_and_an_sdk_fault_is_not_called_a_connection(
    tmp_path: Path,
) -> None:
    import asyncio
    import socket

    from omnieval.backends.breaker import classify
    from omnieval.backends.gemini_backend import GeminiBackend
    from omnieval.errors import BackendError
    from omnieval.types import Message, Request

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = FakeGemini()
        dead.port = sock.getsockname()[1]
    code, output, records = _run(tmp_path, dead, "--concurrency", "1", "--breaker-threshold", "2")
    assert code != 0 and "connection refused" in output and not records, output

    async def fails(error: Exception) -> None:
        raise error

    backend = GeminiBackend("g", options=BackendOptions(base_url=dead.url))
    request = Request(task="t", sample_id="1", messages=(Message(role="user", content="?"),))
    with pytest.raises(BackendError) as refused:
        asyncio.run(backend.generate(request))
    assert refused.value.transport == "refused" and refused.value.retryable
    with pytest.raises(BackendError) as sdk:
        asyncio.run(backend._guard(fails(ValueError("Upload status is not finalized.")), where="w"))
    assert sdk.value.transport is None and classify(sdk.value) is None, "a retry may cure it: no trip"
    assert "the SDK failed: ValueError: Upload status is not finalized." in str(sdk.value)


def test_the_manifest_says_what_thinking_budget_was_sent_and_how_it_was_chosen() -> None:
    from omnieval.backends.gemini_backend import GeminiBackend
    from omnieval.types.request import Reasoning

    backend = GeminiBackend("g", options=BackendOptions(base_url="http://127.0.0.1:9"))
    assert backend.reasoning_mapping(None) == {} and backend.thinking_budget(None) is None
    assert backend.reasoning_mapping(Reasoning(effort="medium")) == {
        "sent": {"thinkingConfig": {"thinkingBudget": 8192, "includeThoughts": True}},
        "how": "effort → budget {'low': 1024, 'medium': 8192, 'high': 24576}",
    }
    by_budget = backend.reasoning_mapping(Reasoning(effort="high", budget_tokens=500))
    assert (
        by_budget["how"] == "--reasoning-budget"
        and by_budget["sent"]["thinkingConfig"]["thinkingBudget"] == 500
    )


def test_googles_retry_delay_in_the_429_body_is_honoured_and_503_overloaded_is_retryable() -> None:
    import asyncio

    from omnieval.backends.gemini_backend import GeminiBackend
    from omnieval.errors import BackendError
    from omnieval.types import Message, Request

    request = Request(task="t", sample_id="1", messages=(Message(role="user", content="?"),))
    with FakeGemini(faults=[429, 503], retry_after=37, retry_delay_only=True).in_thread() as server:
        backend = GeminiBackend("g", options=BackendOptions(base_url=server.url))
        with pytest.raises(BackendError) as limited:
            asyncio.run(backend.generate(request))
        with pytest.raises(BackendError) as overloaded:
            asyncio.run(backend.generate(request))
    assert limited.value.rate_limited and limited.value.retry_after == 37.0, (
        "no header: the body's retryDelay"
    )
    assert '"retryDelay": "37s"' in str(limited.value), "Google's body as written"
    assert overloaded.value.retryable and overloaded.value.status == 503 and not overloaded.value.rate_limited
    assert "The model is overloaded" in str(overloaded.value)


def test_a_blocked_prompt_is_a_content_filter_finish_with_googles_reason(tmp_path: Path) -> None:
    import asyncio

    from omnieval.backends.gemini_backend import GeminiBackend
    from omnieval.types import Message, Request

    request = Request(task="t", sample_id="1", messages=(Message(role="user", content="?"),))
    with FakeGemini(block_reason="PROHIBITED_CONTENT").in_thread() as server:
        code, output, records = _run(tmp_path, server)
        backend = GeminiBackend("g", options=BackendOptions(base_url=server.url))
        response = asyncio.run(backend.generate(request))
    assert code == 0, output
    assert {r["finish_reason"] for r in records} == {"content_filter"} and {r["score"] for r in records} == {
        0.0
    }
    assert response.extra == {"block_reason": "PROHIBITED_CONTENT"} and response.text == ""
