"""Typed reasoning controls: the OpenAI field, budget read off as effort, enable_thinking for chat templates
that read it, reasoning tokens in usage, reasoning_content kept and never scored, the manifest's mapping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from omnieval.backends import BackendOptions
from omnieval.backends._openai_parse import usage_of
from omnieval.backends.hf.prompting import build_prompt
from omnieval.backends.openai_compat import OpenAIBackend
from omnieval.cli.app import app
from omnieval.testing.fake_openai import FakeOpenAI
from omnieval.types import Message, Request
from omnieval.types.request import Reasoning


def _request(reasoning: Reasoning | None) -> Request:
    return Request(
        task="t", sample_id="1", messages=(Message(role="user", content="2+2?"),), reasoning=reasoning
    )


def test_openai_payload_carries_reasoning_effort() -> None:
    backend = OpenAIBackend("m", options=BackendOptions(base_url="http://127.0.0.1:9/v1"))
    assert "reasoning_effort" not in backend._payload(_request(None), "messages", [])
    assert backend._payload(_request(Reasoning(effort="high")), "messages", [])["reasoning_effort"] == "high"
    for budget, effort in ((1024, "low"), (2048, "low"), (4096, "medium"), (32000, "high")):
        assert (
            backend._payload(_request(Reasoning(budget_tokens=budget)), "messages", [])["reasoning_effort"]
            == effort
        )


def test_reasoning_is_part_of_the_fingerprint_only_when_set() -> None:
    plain = Request(task="t", sample_id="1", messages=(Message(role="user", content="x"),))
    assert _request(None).fingerprint(backend="b", model="m") != _request(
        Reasoning(effort="low")
    ).fingerprint(backend="b", model="m")
    assert plain.model_copy(update={"reasoning": None}).fingerprint(
        backend="b", model="m"
    ) == plain.fingerprint(backend="b", model="m")


class _Tokenizer:
    def __init__(self, template: str) -> None:
        self.chat_template = template
        self.kwargs: dict[str, Any] = {}

    def apply_chat_template(self, msgs: Any, **kwargs: Any) -> str:
        self.kwargs = kwargs
        return "rendered"


def test_enable_thinking_goes_to_templates_that_read_it() -> None:
    qwen = _Tokenizer(
        "{% if enable_thinking is defined and enable_thinking is false %}<think></think>{% endif %}"
    )
    build_prompt(_request(Reasoning(effort="low")), processor=None, tokenizer=qwen)
    assert qwen.kwargs.get("enable_thinking") is True
    other = _Tokenizer("{{ messages }}")
    build_prompt(_request(Reasoning(effort="low")), processor=None, tokenizer=other)
    assert "enable_thinking" not in other.kwargs
    build_prompt(_request(None), processor=None, tokenizer=qwen)
    assert "enable_thinking" not in qwen.kwargs


def test_usage_counts_reasoning_and_cached_tokens_separately() -> None:
    usage = usage_of(
        {
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": 50,
                "prompt_tokens_details": {"cached_tokens": 4},
                "completion_tokens_details": {"reasoning_tokens": 30},
            }
        }
    )
    assert (usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens, usage.reasoning_tokens) == (
        10,
        50,
        4,
        30,
    )


def test_reasoning_content_is_kept_never_scored_and_the_manifest_records_the_mapping(tmp_path: Path) -> None:
    data, out = tmp_path / "t.jsonl", tmp_path / "out"
    data.write_text(json.dumps({"id": "1", "question": "[7]", "answer": "7"}) + "\n")
    with FakeOpenAI(answer_pattern=r"\[(\d+)\]", reasoning="the answer is 5, not 7").in_thread() as server:
        result = CliRunner().invoke(
            app,
            [
                "run",
                "--tasks",
                f"jsonl:{data}",
                "--model",
                "openai/fake",
                "--base-url",
                server.url,
                "--reasoning-effort",
                "medium",
                "--output",
                str(out),
                "-q",
            ],
        )
    assert result.exit_code == 0, result.output
    record = json.loads((out / "samples.jsonl").read_text())
    assert (
        record["reasoning"] == "the answer is 5, not 7"
        and record["response"] == "7"
        and record["score"] == 1.0
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["backend"]["reasoning"]["sent"] == {"reasoning_effort": "medium"}
    assert manifest["config"]["reasoning_effort"] == "medium"
