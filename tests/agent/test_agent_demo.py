"""Agent tasks end to end against the fake OpenAI server scripted to call tools, then by replay: pass@k
and pass^k per task, the episode recorded step by step, re-scoring from the trace with no model or tool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from omnieval.benchmarks.agent_demo import generate
from omnieval.cli import app
from omnieval.testing.fake_openai import FakeOpenAI

LIMIT = 2
SEED = 0


def _goals(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """Each question's goal, from the generators themselves (what a model that solved it would do)."""
    goals: dict[str, dict[str, Any]] = {}
    for name in ("chart_zoom", "forms_table", "count_crops", "timetable_plan"):
        path = getattr(generate, name)(tmp_path / name, n=LIMIT, seed=SEED)
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            goals[row["question"]] = row["goal"]
    return goals


def _call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def _question(body: dict[str, Any]) -> str:
    first = next(m for m in body["messages"] if m["role"] == "user")
    return next(p["text"] for p in first["content"] if p["type"] == "text").strip()


class Solver:
    """Step 0: a zoom and a read_region in one turn (parallel calls); step 1: the table's cells (forms);
    then submit. The first episode of each question submits a wrong answer (its tool-call ids say
    so, so later steps of that episode know): each sample is right in 3 of its 4 repeats."""

    def __init__(self, goals: dict[str, dict[str, Any]]) -> None:
        self.goals = goals
        self.started: set[str] = set()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        question = _question(body)
        goal = self.goals[question]
        turns = [m for m in body["messages"] if m["role"] == "assistant"]
        if not turns:
            tag = "wrong" if question not in self.started else "right"
            self.started.add(question)
            calls = [_call(f"{tag}-0", "zoom", x0=0, y0=0, x1=40, y1=40, factor=2)]
            calls.append(_call(f"{tag}-1", "read_region", x0=0, y0=0, x1=100, y1=100))
            return {"content": None, "tool_calls": calls}
        tag = turns[0]["tool_calls"][0]["id"].split("-")[0]
        if "table" in goal and len(turns) == 1:  # the wrong episode writes a wrong amount
            calls = [
                _call(
                    f"{tag}-cell-{i}", "set_cell", row=row, column=col, value="0" if tag == "wrong" else value
                )
                for i, (row, cells) in enumerate(goal["table"].items())
                for col, value in cells.items()
            ]
            return {"content": "", "tool_calls": calls}
        answer = "готово" if "table" in goal else "-1" if tag == "wrong" else goal["answer"]
        return {"content": "", "tool_calls": [_call(f"{tag}-submit", "submit", answer=answer)]}


def _run(out: Path, model: str, *extra: str) -> Any:
    argv = ["run", "--tasks", "agent_demo", "--model", model, "--output", str(out), "--limit", str(LIMIT)]
    return CliRunner().invoke(app, [*argv, "-q", *extra])


def _tasks(out: Path) -> dict[str, Any]:
    return json.loads((out / "results.json").read_text())["tasks"]


def test_agent_demo_scripted_tools_give_pass_hat_k_and_replay_rescores_without_a_model(
    tmp_path: Path,
) -> None:
    solver = Solver(_goals(tmp_path / "data"))
    out = tmp_path / "run"
    with FakeOpenAI(tool_script=solver).in_thread() as server:
        result = _run(out, "openai/M", "--base-url", server.url, "--repeats", "4")
        assert result.exit_code == 0, result.output
        served = server.stats()["requests"]
    tasks = _tasks(out)
    assert len(tasks) == 4
    for name, task in tasks.items():
        # 3 of 4 repeats right for every sample: pass@4 = 1, pass^4 = C(3,4)/C(4,4) = 0, pass^2 = 3/6
        assert task["metrics"]["pass@4"] == pytest.approx(1.0), name
        assert task["metrics"]["pass^4"] == pytest.approx(0.0), name
        assert task["metrics"]["pass^1"] == pytest.approx(0.75), name
        assert task["score"] == pytest.approx(0.75), name
        agent = task["agent"]
        assert agent["episodes"] == 4 * LIMIT and agent["success_rate"] == pytest.approx(0.75), name
        assert agent["ends"] == {"submitted": 4 * LIMIT} and agent["valid_call_rate"] == 1.0, name
        steps = 3 if name == "agent_demo_forms_table" else 2  # tools, (the table's cells,) submit
        assert agent["steps_to_success"] == steps and agent["mean_steps"] == steps, name
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(records) == 4 * LIMIT * 4
    for name, task in tasks.items():  # tokens to success: recomputed from the episodes' steps
        won = [r["episode"] for r in records if r["task"] == name and r["score"] == 1.0]
        tokens = [
            sum(s["usage"]["prompt_tokens"] + s["usage"]["completion_tokens"] for s in e["steps"])
            for e in won
        ]
        assert task["agent"]["tokens_to_success"] == pytest.approx(sum(tokens) / len(tokens)), name
    chart = next(r for r in records if r["task"] == "agent_demo_chart_zoom" and r["score"] == 1.0)
    episode = chart["episode"]
    assert episode["end"] == "submitted" and len(episode["steps"]) == 2
    first = episode["steps"][0]
    assert [c["name"] for c in first["tool_calls"]] == ["zoom", "read_region"]  # parallel calls, in order
    assert [o["state"] for o in first["outcomes"]] == ["ok", "ok"]
    shown = out / first["outcomes"][0]["images"][0]
    assert shown.is_file() and shown.read_bytes()[:4] == b"\x89PNG"  # the zoomed picture shown to the model
    from omnieval.reports.sidecar import part_records, read_part

    page = (out / "report.html").read_text(encoding="utf-8")
    assert "agent_demo_chart_zoom: agent episodes" in page and "ended: submitted 8" in page

    shown_in_report = [
        r["episode"]
        for part in sorted((out / "report_samples").glob("c*.js"))
        for r in part_records(read_part(part))
        if "episode" in r
    ]
    assert len(shown_in_report) == len(records)  # the viewer gets every episode, step by step
    forms = [r for r in records if r["task"] == "agent_demo_forms_table"]
    assert {r["score"] for r in forms} == {0.0, 1.0}  # graded on the table, not on the answer text
    assert {r["response"] for r in forms} == {"готово"}  # the same answer text, right and wrong tables

    # replay: the recorded turns are played back (tools run again in process), no model call at all
    again = tmp_path / "replayed"
    replayed = _run(again, f"replay/{out / 'samples.jsonl'}")
    assert replayed.exit_code == 0, replayed.output
    for name, task in _tasks(again).items():
        for key in ("pass@4", "pass^4", "pass^1"):
            assert task["metrics"][key] == pytest.approx(tasks[name]["metrics"][key]), (name, key)
    assert served == len([s for r in records for s in r["episode"]["steps"]])  # one request per turn

    # re-scoring reads the final state from the trace: the same numbers, nothing called
    rescored = CliRunner().invoke(app, ["score", str(out)])
    assert rescored.exit_code == 0, rescored.output
    for name, task in _tasks(out).items():
        assert task["metrics"]["pass^1"] == pytest.approx(tasks[name]["metrics"]["pass^1"]), name


def test_resume_continues_an_unfinished_episode_from_its_recorded_turns(tmp_path: Path) -> None:
    """The second step's model call fails (a garbled reply, one attempt): the sample ends in ``error``
    with its episode kept. ``--retry-errors`` runs the episode again: its first turn comes from the
    response cache (the server never sees it again) and the tools replay it to the same state, then the
    episode goes on where it failed."""
    goals = _goals(tmp_path / "data")
    out = tmp_path / "run"

    def first_turn(body: dict[str, Any]) -> dict[str, Any] | None:
        if not any(m["role"] == "assistant" for m in body["messages"]):
            return {"content": None, "tool_calls": [_call("a", "zoom", x0=0, y0=0, x1=40, y1=40)]}
        return None

    def broken(body: dict[str, Any]) -> dict[str, Any]:
        return first_turn(body) or {"content": None, "tool_calls": "garbled"}

    def fixed(body: dict[str, Any]) -> dict[str, Any]:
        return first_turn(body) or {
            "content": "",
            "tool_calls": [_call("b", "submit", answer=goals[_question(body)]["answer"])],
        }

    def run(url: str, *extra: str) -> Any:
        argv = ["run", "--tasks", "agent_demo_chart_zoom", "--max-attempts", "1", "--limit", "1", "-q"]
        return CliRunner().invoke(
            app, [*argv, "--model", "openai/M", "--base-url", url, "--output", str(out), *extra]
        )

    with FakeOpenAI(tool_script=broken).in_thread() as server:
        result = run(server.url)
    failed = json.loads((out / "samples.jsonl").read_text())
    assert failed["state"] == "error" and "step 1: the model call failed" in failed["reason"]
    assert [s["error"] is None for s in failed["episode"]["steps"]] == [True, False]
    with FakeOpenAI(tool_script=fixed).in_thread() as server:
        again = run(server.url, "--retry-errors")
        assert again.exit_code == 0, again.output
        assert server.stats()["requests"] == 1  # only the step that failed; step 0 came from the cache
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    done = [r for r in records if r["state"] == "ok"]
    assert len(done) == 1 and done[0]["score"] == 1.0 and len(done[0]["episode"]["steps"]) == 2
    assert result.exit_code in (0, 3), result.output


def test_a_scripted_model_that_never_stops_and_calls_badly_is_counted_and_kept(tmp_path: Path) -> None:
    """Against the fake server: every turn names an unknown tool and writes malformed arguments, and the
    model never submits. The episode ends at the step limit (``truncated``), every step kept, every bad
    call counted by its state in the task's agent block."""

    def endless(body: dict[str, Any]) -> dict[str, Any]:
        bad = {"id": "m", "type": "function", "function": {"name": "zoom", "arguments": '{"x0": 1,'}}
        return {"content": "", "tool_calls": [_call("u", "fly", to="moon"), bad]}

    out = tmp_path / "run"
    with FakeOpenAI(tool_script=endless).in_thread() as server:
        argv = ["run", "--tasks", "agent_demo_chart_zoom", "--limit", "1", "--model", "openai/M"]
        result = CliRunner().invoke(app, [*argv, "--base-url", server.url, "--output", str(out), "-q"])
    assert result.exit_code == 0, result.output
    record = json.loads((out / "samples.jsonl").read_text())
    assert record["state"] == "truncated" and record["reason"] == "step 7: step limit 8 reached"
    assert len(record["episode"]["steps"]) == 8
    task = _tasks(out)["agent_demo_chart_zoom"]
    assert task["states"]["truncated"] == 1 and task["score"] == 0.0
    agent = task["agent"]
    assert agent["ends"] == {"step_limit": 1} and agent["valid_call_rate"] == 0.0
    assert agent["call_states"] == {"bad_arguments": 8, "unknown_tool": 8}
    assert agent["steps_to_success"] is None


def test_a_blind_control_gives_the_tools_no_picture_either(tmp_path: Path) -> None:
    def peek(body: dict[str, Any]) -> dict[str, Any]:
        if any(m["role"] == "assistant" for m in body["messages"]):
            return {"content": "", "tool_calls": [_call("s", "submit", answer="1")]}
        return {"content": "", "tool_calls": [_call("r", "read_region", x0=0, y0=0, x1=700, y1=350)]}

    out = tmp_path / "run"
    with FakeOpenAI(tool_script=peek).in_thread() as server:
        argv = ["run", "--tasks", "agent_demo_chart_zoom", "--limit", "1", "--blind", "--model", "openai/M"]
        result = CliRunner().invoke(app, [*argv, "--base-url", server.url, "--output", str(out), "-q"])
    assert result.exit_code == 0, result.output
    outcome = json.loads((out / "samples.jsonl").read_text())["episode"]["steps"][0]["outcomes"][0]
    assert outcome["state"] == "tool_error" and "no picture" in outcome["cause"]  # nothing read off the image
