"""Re-judging and re-scoring an agent run from its recorded episodes: neither the model under test nor
a tool runs again (the model server counts its requests; the environment's tool counts its calls)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

import omnieval
from omnieval.agent import Environment, Tool, environments, tool
from omnieval.cli import app
from omnieval.testing.fake_openai import FakeOpenAI
from omnieval.types import Sample


class Adder(Environment):
    """One tool, ``add``, that counts its calls across every episode (a re-judge must make none)."""

    name = "adder-test"
    calls: ClassVar[int] = 0

    def __init__(self, sample: Sample, **options: Any) -> None:
        super().__init__(sample, **options)
        self.state["sum"] = None

    def tools(self) -> list[Tool]:
        return [tool(self.add)]

    def add(self, a: int, b: int) -> str:
        """Add two integers."""
        type(self).calls += 1
        self.state["sum"] = a + b
        return str(a + b)

    @classmethod
    def grade(cls, final_state: dict[str, Any], metadata: dict[str, Any]) -> float:
        """Success when the tool's sum is the question's (a + 3), whatever the answer text says."""
        return float(final_state.get("sum") == metadata["a"] + 3)


environments.add("adder-test", Adder, replace=True)

ROWS = [{"id": str(i), "question": f"{i} + 3?", "a": i, "answer": str(i + 3)} for i in range(3)]


def _task(tmp_path: Path, metrics: str = "[{name: exact_match}]") -> Path:
    (tmp_path / "sums.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    task = tmp_path / "task.yaml"
    task.write_text(
        "name: sums\n"
        "source: {type: jsonl, path: sums.jsonl, fields: {metadata: [a]}}\n"
        f"metrics: {metrics}\n"
        "judge: {protocol: {name: direct}, template: binary_equivalence}\n"
        "agent: {environment: adder-test, max_steps: 4, tool_timeout_s: 5}\n"
    )
    return task


def _solver(body: dict[str, Any]) -> dict[str, Any]:
    """Step 0 calls ``add``, step 1 submits what the tool said."""
    tool_messages = [m for m in body["messages"] if m["role"] == "tool"]
    if not tool_messages:
        first = next(m for m in body["messages"] if m["role"] == "user")
        text = first["content"] if isinstance(first["content"], str) else first["content"][0]["text"]
        a = int(text.strip().split(" ")[0])
        arguments = json.dumps({"a": a, "b": 3})
        return {"content": None, "tool_calls": [_call("c0", "add", arguments)]}
    answer = json.dumps({"answer": tool_messages[-1]["content"]})
    return {"content": "", "tool_calls": [_call("c1", "submit", answer)]}


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def _judge(url: str, model: str) -> list[str]:
    return ["--judge", f"openai/{model}", "--judge-base-url", url, "--judge-api-key", "x"]


def test_an_agent_run_is_rejudged_and_rescored_from_its_traces_without_the_model_or_tools(
    tmp_path: Path,
) -> None:
    task, out = _task(tmp_path), tmp_path / "run"
    calls_before = Adder.calls
    with (
        FakeOpenAI(tool_script=_solver).in_thread() as model,
        FakeOpenAI(default_answer="Оценка: 1").in_thread() as yes,
        FakeOpenAI(default_answer="Оценка: 0").in_thread() as no,
    ):
        argv = ["run", "--tasks", str(task), "--model", "openai/M", "--base-url", model.url]
        result = CliRunner().invoke(app, [*argv, "--output", str(out), "-q", *_judge(yes.url, "yes")])
        assert result.exit_code == 0, result.output
        served, tool_calls = model.stats()["requests"], Adder.calls
        assert served == 2 * len(ROWS) and tool_calls - calls_before == len(ROWS)
        first = _records(out)
        assert [r["response"] for r in first] == [r["answer"] for r in ROWS]
        assert all(r["judge"]["judge"] == "openai/yes" and r["metrics"]["js"] == 1.0 for r in first)
        assert all(len(r["episode"]["steps"]) == 2 for r in first)

        rejudged = CliRunner().invoke(app, ["rejudge", str(out), *_judge(no.url, "no")])
        assert rejudged.exit_code == 0, rejudged.output
        assert no.stats()["requests"] == len(ROWS)  # each episode's answer judged once more
        after = _records(out)
        assert all(r["judge"]["judge"] == "openai/no" and r["metrics"]["js"] == 0.0 for r in after)
        assert [r["judge"]["question"] for r in after] == [r["question"] for r in ROWS]
        assert [r["episode"] for r in after] == [r["episode"] for r in first]  # the traces kept
        assert [r["metrics"]["exact_match"] for r in after] == [1.0] * len(ROWS)  # plain metrics kept
        results = json.loads((out / "results.json").read_text())
        assert results["rejudged"] is True and results["tasks"]["sums"]["metrics"]["js"] == 0.0

        again = omnieval.rejudge(out, judge={"model": "openai/yes", "backend": {"base_url": yes.url}})
        assert again.tasks["sums"].metrics["js"] == pytest.approx(1.0)
        assert all(r["judge"]["judge"] == "openai/yes" and r["score"] == 1.0 for r in _records(out))

        # a metric added to the task: re-scoring grades the recorded final states
        _task(tmp_path, metrics="[{name: exact_match}, {name: final_state}]")
        rescored = omnieval.score(out)
        assert rescored.tasks["sums"].metrics["final_state"] == pytest.approx(1.0)
        assert [r["metrics"]["final_state"] for r in _records(out)] == [1.0] * len(ROWS)
        # nothing above ran the model under test or a tool
        assert model.stats()["requests"] == served and Adder.calls == tool_calls
