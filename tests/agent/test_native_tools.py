"""Anthropic's and Gemini's native tool formats, against their fakes: the tools go out as each provider
declares them, the model's calls come back as tool calls, the results go back as each provider wants
them (tool_result blocks / function responses), and the episode is graded on its final state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from omnieval.cli import app
from omnieval.testing.fake_anthropic import FakeAnthropic
from omnieval.testing.fake_gemini import FakeGemini
from tests.agent.test_agent_demo import _goals


def _question(texts: list[str], goals: dict[str, Any]) -> str:
    return next(goals[t.strip()]["answer"] for t in texts if t.strip() in goals)


def _run(out: Path, model: str, url: str) -> dict[str, Any]:
    argv = ["run", "--tasks", "agent_demo_chart_zoom", "--limit", "1", "--model", model, "--base-url", url]
    result = CliRunner().invoke(app, [*argv, "--output", str(out), "--api-key", "k", "-q"])
    assert result.exit_code == 0, result.output
    return json.loads((out / "samples.jsonl").read_text())


def test_anthropic_tool_use_blocks_round_trip(tmp_path: Path) -> None:
    goals = _goals(tmp_path / "data")

    def script(body: dict[str, Any]) -> list[dict[str, Any]]:
        texts = [b["text"] for m in body["messages"] for b in m["content"] if b.get("type") == "text"]
        if len(body["messages"]) == 1:
            return [
                {
                    "type": "tool_use",
                    "id": "tu_1",
                    "name": "zoom",
                    "input": {"x0": 0, "y0": 0, "x1": 50, "y1": 50},
                }
            ]
        return [
            {"type": "tool_use", "id": "tu_2", "name": "submit", "input": {"answer": _question(texts, goals)}}
        ]

    server = FakeAnthropic(tool_script=script)
    with server.in_thread():
        record = _run(tmp_path / "out", "anthropic/claude-x", server.url)
    assert record["state"] == "ok" and record["score"] == 1.0
    first, second = server.bodies
    assert {t["name"] for t in first["tools"]} >= {"zoom", "crop", "submit"}
    assert "input_schema" in first["tools"][0]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assert second["messages"][1]["content"] == [
        {"type": "tool_use", "id": "tu_1", "name": "zoom", "input": {"x0": 0, "y0": 0, "x1": 50, "y1": 50}}
    ]
    answer = second["messages"][2]["content"]  # the tool's result and the zoomed picture: one user turn
    assert answer[0]["type"] == "tool_result" and answer[0]["tool_use_id"] == "tu_1"
    assert any(b["type"] == "image" for b in answer)


def test_gemini_function_calls_round_trip(tmp_path: Path) -> None:
    goals = _goals(tmp_path / "data")
    bodies: list[dict[str, Any]] = []

    def script(body: dict[str, Any]) -> list[dict[str, Any]]:
        bodies.append(body)
        texts = [p["text"] for c in body["contents"] for p in c["parts"] if "text" in p]
        if len(body["contents"]) == 1:
            return [
                {"functionCall": {"id": "f1", "name": "zoom", "args": {"x0": 0, "y0": 0, "x1": 50, "y1": 50}}}
            ]
        return [{"functionCall": {"id": "f2", "name": "submit", "args": {"answer": _question(texts, goals)}}}]

    with FakeGemini(tool_script=script).in_thread() as server:
        record = _run(tmp_path / "out", "gemini/gemini-x", server.url)
    assert record["state"] == "ok" and record["score"] == 1.0, record
    declared = bodies[0]["tools"][0]["functionDeclarations"]
    assert {d["name"] for d in declared} >= {"zoom", "submit"}
    roles = [c["role"] for c in bodies[1]["contents"]]
    assert roles == ["user", "model", "user"]
    assert bodies[1]["contents"][1]["parts"][0]["functionCall"]["name"] == "zoom"
    response = bodies[1]["contents"][2]["parts"][0]["functionResponse"]
    assert response["name"] == "zoom" and response["id"] == "f1" and "zoom" in response["response"]["result"]
