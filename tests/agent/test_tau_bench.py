"""tau-bench-style task files: imported as agent tasks graded on their reference actions and outputs;
the oracle plays the reference solution; a model's calls are checked against the tools' schemas; a bad
file is refused naming the file, the sample and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import omnieval
from omnieval.cli import app
from omnieval.errors import SourceError
from omnieval.testing.fake_openai import FakeOpenAI

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "cancel_order",
            "description": "Cancel an order.",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}, "reason": {"type": "string"}},
                "required": ["order_id", "reason"],
            },
        },
    },
    {
        "name": "find_user",
        "description": "Find a user id.",
        "parameters": {"type": "object", "properties": {}},
    },
]
TASKS = [
    {
        "user_id": "mia_1",
        "instruction": "You are Mia. Cancel order #W1 because you no longer need it.",
        "actions": [
            {"name": "find_user", "kwargs": {}},
            {"name": "cancel_order", "kwargs": {"order_id": "#W1", "reason": "no longer needed"}},
        ],
        "outputs": ["cancelled"],
        "tool_results": {"find_user": "mia_1"},
    },
    {
        "id": "t2",
        "user_scenario": {
            "instructions": {"reason_for_call": "Cancel order #W2.", "task_instructions": "Be brief."}
        },
        "evaluation_criteria": {
            "actions": [
                {"name": "cancel_order", "arguments": {"order_id": "#W2", "reason": "ordered by mistake"}}
            ],
            "communicate_info": [],
        },
    },
]


def _write(tmp_path: Path, tasks: list[dict[str, Any]] = TASKS) -> Path:
    folder = tmp_path / "retail"
    folder.mkdir()
    (folder / "tasks.json").write_text(json.dumps(tasks))
    (folder / "tools.json").write_text(json.dumps(TOOLS))
    return folder


def test_the_oracle_plays_the_reference_actions_and_scores_one(tmp_path: Path) -> None:
    folder = _write(tmp_path)
    result = omnieval.evaluate(
        model="baseline/oracle", tasks=f"tau_bench:{folder}", output=tmp_path / "o", quiet=True
    )
    task = result.results.tasks["tau_bench_retail"]
    assert task.n == 2 and task.score == 1.0 and task.agent is not None and task.agent.valid_call_rate == 1.0


def test_a_model_is_graded_on_the_order_and_arguments_of_its_calls(tmp_path: Path) -> None:
    folder = _write(tmp_path)

    def script(body: dict[str, Any]) -> dict[str, Any]:
        first = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if any(m["role"] == "assistant" for m in body["messages"]):
            return {"content": "", "tool_calls": [_call("s", "submit", answer="Your order is cancelled.")]}
        if "#W1" in first:  # right calls, in order, and one the schema refuses
            calls = [
                _call("a", "find_user"),
                _call("b", "cancel_order", order_id="#W1"),
                _call("c", "cancel_order", order_id="#W1", reason="no longer needed"),
            ]
        else:  # the wrong reason: the action does not match
            calls = [_call("d", "cancel_order", order_id="#W2", reason="changed my mind")]
        return {"content": None, "tool_calls": calls}

    out = tmp_path / "run"
    with FakeOpenAI(tool_script=script).in_thread() as server:
        argv = ["run", "--tasks", f"tau_bench:{folder}", "--model", "openai/M", "--base-url", server.url]
        result = CliRunner().invoke(app, [*argv, "--output", str(out), "-q"])
    assert result.exit_code == 0, result.output
    records = {r["sample_id"]: r for r in map(json.loads, (out / "samples.jsonl").read_text().splitlines())}
    assert records["0"]["score"] == 1.0 and records["t2"]["score"] == 0.0
    states = [o["state"] for s in records["0"]["episode"]["steps"] for o in s["outcomes"]]
    assert states[:3] == ["ok", "bad_arguments", "ok"]
    assert "missing argument(s) reason" in records["0"]["episode"]["steps"][0]["outcomes"][1]["cause"]


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_a_bad_task_file_names_the_file_sample_and_field(tmp_path: Path) -> None:
    from omnieval.agent.taubench import import_tau_bench

    folder = _write(
        tmp_path, [{"id": "x", "instruction": "hi", "actions": [{"name": "refund", "kwargs": {}}]}]
    )
    with pytest.raises(SourceError, match=r"tasks.json, sample 'x', field 'actions\[0\].name'.*'refund'"):
        import_tau_bench(str(folder))
