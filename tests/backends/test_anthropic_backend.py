"""``anthropic/`` against a local fake of the Messages API (the official SDK pointed at 127.0.0.1):
messages, system prompt, stop sequences, base64 images, thinking budget → reasoning, the provider's
error bodies, 429 with retry-after and 529 overloaded retried by the runner."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from omnieval.cli.app import app
from omnieval.testing.fake_anthropic import FakeAnthropic


def _task(tmp_path: Path, *, system: bool = False) -> Path:
    data = tmp_path / "t.jsonl"
    data.write_text(
        "".join(json.dumps({"id": str(i), "question": f"{i}", "answer": str(i)}) + "\n" for i in range(3))
    )
    return data


def _run(tmp_path: Path, server: FakeAnthropic, *extra: str) -> tuple[int, str, list[dict]]:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--tasks",
            f"jsonl:{_task(tmp_path)}",
            "--model",
            "anthropic/claude-test",
            "--base-url",
            server.url,
            "--output",
            str(out),
            "-q",
            *extra,
        ],
    )
    records = (
        [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
        if (out / "samples.jsonl").exists()
        else []
    )
    return result.exit_code, result.output, records


def test_messages_are_answered_and_scored(tmp_path: Path) -> None:
    with FakeAnthropic().in_thread() as server:
        code, output, records = _run(tmp_path, server, "--stop", "###", "--max-tokens", "20")
    assert code == 0, output
    assert {r["state"] for r in records} == {"ok"} and {r["score"] for r in records} == {1.0}
    body = server.bodies[0]
    assert body["model"] == "claude-test" and body["max_tokens"] == 20 and body["stop_sequences"] == ["###"]
    assert body["messages"][-1]["role"] == "user" and body["messages"][-1]["content"][0]["type"] == "text"
    assert records[0]["usage"] == {
        "prompt_tokens": 12,
        "completion_tokens": 5,
        "cached_tokens": 2,
        "reasoning_tokens": None,
    }


def test_thinking_budget_is_sent_and_the_thinking_kept_as_reasoning(tmp_path: Path) -> None:
    with FakeAnthropic().in_thread() as server:
        code, output, records = _run(tmp_path, server, "--reasoning-budget", "2000", "--max-tokens", "20")
    assert code == 0, output
    body = server.bodies[0]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2000} and body["max_tokens"] == 2020
    assert "temperature" not in body
    assert records[0]["reasoning"] == "Let me think step by step." and records[0]["score"] == 1.0
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["backend"]["reasoning"]["sent"] == {
        "thinking": {"type": "enabled", "budget_tokens": 2000}
    }


def test_429_with_retry_after_and_529_overloaded_are_retried(tmp_path: Path) -> None:
    with FakeAnthropic(faults=[429, 529, 529], retry_after=0.01).in_thread() as server:
        code, output, records = _run(tmp_path, server, "--concurrency", "1")
    assert code == 0, output
    assert {r["state"] for r in records} == {"ok"} and len(server.bodies) == 3 + 3


def test_a_provider_error_body_is_shown_as_written(tmp_path: Path) -> None:
    with FakeAnthropic(faults=[400] * 3).in_thread() as server:
        _, output, records = _run(tmp_path, server, "--concurrency", "1", "--breaker-threshold", "0")
    errors = [r for r in records if r["state"] == "error"]
    assert errors, output
    assert (
        'HTTP 400: {"type": "error", "error": {"type": "invalid_request_error", "message": "fake '
        'invalid_request_error (400)"}}' in errors[0]["reason"]
    )


def test_images_go_as_base64_blocks_and_the_system_prompt_apart(tmp_path: Path) -> None:
    import base64
    import io

    from PIL import Image

    from omnieval.backends import BackendOptions
    from omnieval.backends.anthropic_backend import AnthropicBackend
    from omnieval.types import ImagePart, MediaRef, Message, Request, TextPart

    buffer = io.BytesIO()
    Image.new("RGB", (8, 6), "red").save(buffer, format="PNG")
    ref = MediaRef(kind="image", name="red.png", data=buffer.getvalue())
    request = Request(
        task="t",
        sample_id="1",
        messages=(
            Message(role="system", content="Отвечай кратко."),
            Message(role="user", content=(TextPart(text="Какой цвет?"), ImagePart(media=ref))),
        ),
    )
    backend = AnthropicBackend(
        "claude-test", options=BackendOptions(base_url="http://127.0.0.1:9", media_cache_dir=str(tmp_path))
    )
    kwargs, applied = backend.body(request)
    assert kwargs["system"] == "Отвечай кратко." and [m["role"] for m in kwargs["messages"]] == ["user"]
    text, image = kwargs["messages"][0]["content"]
    assert text == {"type": "text", "text": "Какой цвет?"}
    assert image["type"] == "image" and image["source"]["type"] == "base64"
    decoded = Image.open(io.BytesIO(base64.b64decode(image["source"]["data"])))
    assert decoded.size == (8, 6) and image["source"]["media_type"] == f"image/{str(decoded.format).lower()}"
    assert "red.png" in applied


def test_message_batches_answer_every_sample_and_expired_requests_fall_back(tmp_path: Path) -> None:
    with FakeAnthropic(batch_outcomes=["expired"]).in_thread() as server:
        code, output, records = _run(tmp_path, server, "--batch", "--batch-poll", "0.05")
        assert code == 0, output
        assert {r["state"] for r in records} == {"ok"} and len(records) == 3
        assert max(server.batch_lines.values()) == 1 and sum(server.batch_lines.values()) == 3
        first = len(
            server.batches["msgbatch_1"]["lines"]
        )  # how the 3 requests were grouped depends on timing
        assert (
            server.messages_calls == first - first // 2
        )  # the expired second half of the first batch, on its own


def test_message_batches_complete_without_single_calls(tmp_path: Path) -> None:
    with FakeAnthropic().in_thread() as server:
        code, output, records = _run(tmp_path, server, "--batch", "--batch-poll", "0.05")
        assert code == 0, output
        assert {r["state"] for r in records} == {"ok"} and server.messages_calls == 0


def test_the_manifest_says_what_thinking_budget_was_sent_and_how_it_was_chosen() -> None:
    from omnieval.backends import BackendOptions
    from omnieval.backends.anthropic_backend import AnthropicBackend
    from omnieval.types.request import Reasoning

    backend = AnthropicBackend("c", options=BackendOptions(base_url="http://127.0.0.1:9"))
    assert backend.reasoning_mapping(None) == {} and backend.thinking_budget(None) is None
    mapping = backend.reasoning_mapping(Reasoning(effort="low"))
    assert mapping["sent"] == {"thinking": {"type": "enabled", "budget_tokens": 1024}}
    assert mapping["how"] == "effort → budget {'low': 1024, 'medium': 4096, 'high': 16384}"
    assert "max_tokens is raised" in mapping["note"]
    assert backend.reasoning_mapping(Reasoning(budget_tokens=3000))["how"] == "--reasoning-budget"


def test_a_refused_connection_is_named_so_and_a_reset_is_not() -> None:
    import asyncio
    import socket
    from typing import Any, cast

    import anthropic
    import httpx
    import pytest

    from omnieval.backends import BackendOptions
    from omnieval.backends.anthropic_backend import AnthropicBackend
    from omnieval.errors import BackendError
    from omnieval.types import Message, Request

    request = Request(task="t", sample_id="1", messages=(Message(role="user", content="?"),))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
    backend = AnthropicBackend("c", options=BackendOptions(base_url=dead))
    with pytest.raises(BackendError) as refused:
        asyncio.run(backend.generate(request))
    assert refused.value.transport == "refused" and refused.value.retryable

    async def reset(**_: object) -> None:
        try:
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        except httpx.RemoteProtocolError as exc:
            raise anthropic.APIConnectionError(request=cast(Any, httpx.Request("POST", dead))) from exc

    backend.client.messages.create = reset  # type: ignore[method-assign,assignment]
    with pytest.raises(BackendError) as dropped:
        asyncio.run(backend.generate(request))
    assert dropped.value.transport == "connection" and dropped.value.retryable, "retried, no breaker trip"
