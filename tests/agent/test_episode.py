"""The agent loop's bad input, each a counted state naming the step and the cause, the episode kept:
an unknown tool, arguments failing the schema or not JSON, a tool that raises or hangs, a model that
never stops, a failed model call; and a backend that cannot pass tools refuses the task before the run."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from omnieval.agent import Environment, Tool, environments, run_episode, tool
from omnieval.agent.workbench import Workbench, calculate
from omnieval.types import Message, Request, Response, Sample
from omnieval.types.agent import AgentSpec, Episode
from omnieval.types.tools import ToolCall


class Slow(Environment):
    """A counter, a tool that raises and one that hangs."""

    name = "slow-test"

    def __init__(self, sample: Sample, **options: Any) -> None:
        super().__init__(sample, **options)
        self.state["count"] = 0

    def tools(self) -> list[Tool]:
        return [tool(self.add), tool(self.boom), tool(self.hang)]

    def add(self, n: int) -> str:
        """Add n to the counter."""
        self.state["count"] += n
        return str(self.state["count"])

    def boom(self) -> str:
        """Always fails."""
        raise RuntimeError("disk on fire")

    def hang(self) -> str:
        """Never answers in time."""
        time.sleep(0.6)
        return "late"


def _calls(*calls: tuple[str, str]) -> Response:
    return Response(
        tool_calls=tuple(ToolCall(id=f"c{i}", name=n, arguments=a) for i, (n, a) in enumerate(calls))
    )


async def _episode(turns: list[Response], tmp_path: Path, **limits: Any) -> tuple[Episode, list[Request]]:
    seen: list[Request] = []

    async def call(request: Request) -> Response:
        seen.append(request)
        return turns[min(len(seen) - 1, len(turns) - 1)]

    spec = AgentSpec(environment="slow-test", tool_timeout_s=0.2, **limits)
    request = Request(task="t", sample_id="s1", messages=(Message(role="user", content="count"),))
    env = Slow(Sample(id="s1", input="count"))
    response = await run_episode(call, request, env, spec, media_dir=tmp_path, stem="t-s1")
    return response.extra["episode"], seen


async def test_each_bad_call_is_a_counted_state_with_its_step_and_cause(tmp_path: Path) -> None:
    turns = [
        _calls(("add", '{"n": 2}'), ("nope", "{}"), ("add", '{"n": "two"}'), ("add", "{n: 1")),
        _calls(("boom", "{}"), ("hang", "{}"), ("add", '{"n": 3, "extra": 1}')),
        _calls(("submit", '{"answer": "5"}')),
    ]
    episode, seen = await _episode(turns, tmp_path)
    assert episode.end == "submitted" and episode.answer == "5"
    states = [(o.name, o.state) for o in episode.calls]
    assert states == [
        ("add", "ok"),
        ("nope", "unknown_tool"),
        ("add", "bad_arguments"),
        ("add", "bad_arguments"),
        ("boom", "tool_error"),
        ("hang", "tool_timeout"),
        ("add", "bad_arguments"),
        ("submit", "ok"),
    ]
    causes = [o.cause for o in episode.calls]
    assert causes[1] is not None and causes[1].startswith("step 0: unknown tool 'nope'")
    assert causes[2] is not None and "n:" in causes[2]  # the schema names the failing argument
    assert causes[3] is not None and "not JSON" in causes[3]
    assert causes[4] == "step 1: tool 'boom' raised RuntimeError: disk on fire"
    assert causes[5] is not None and causes[5].startswith("step 1: tool 'hang' gave no result within 0.2 s")
    assert episode.final_state["count"] == 2  # only the valid call changed the state
    # the model was told each outcome, one tool message per call id
    told = [(m.tool_call_id, m.text) for m in seen[1].messages if m.role == "tool"]
    assert [t[0] for t in told] == ["c0", "c1", "c2", "c3"] and told[0][1] == "2"
    assert told[1][1].startswith("error: unknown tool")


async def test_a_model_that_never_stops_ends_at_the_step_limit(tmp_path: Path) -> None:
    episode, seen = await _episode([_calls(("add", '{"n": 1}'))], tmp_path, max_steps=3)
    assert episode.end == "step_limit" and episode.end_reason == "step 2: step limit 3 reached"
    assert len(episode.steps) == 3 == len(seen) and episode.final_state["count"] == 3


async def test_token_limit_and_model_error_end_the_episode_with_their_cause(tmp_path: Path) -> None:
    from omnieval.types import Usage

    costly = _calls(("add", '{"n": 1}')).model_copy(
        update={"usage": Usage(prompt_tokens=60, completion_tokens=5)}
    )
    episode, _ = await _episode([costly], tmp_path, max_tokens=100)
    assert episode.end == "token_limit" and episode.end_reason.startswith("step 2: token limit 100")
    episode, _ = await _episode([_calls(("add", '{"n": 1}')), Response.from_error("HTTP 500")], tmp_path)
    assert (
        episode.end == "model_error" and "step 1" in episode.end_reason and "HTTP 500" in episode.end_reason
    )
    assert len(episode.steps) == 2  # the failed turn is kept


def test_workbench_tools_are_deterministic_and_calculator_never_evals(tmp_path: Path) -> None:
    from PIL import Image

    picture = tmp_path / "p.png"
    Image.new("RGB", (100, 50), "white").save(picture)
    from omnieval.types import MediaRef

    sample = Sample(
        id="x",
        input="q",
        media=(MediaRef(kind="image", name="image", path=str(picture)),),
        metadata={"regions": [[10, 10, 30, 20, "42"]], "goal": {"answer": "42", "table": {"A": {"b": "7"}}}},
    )
    bench = Workbench(sample, tools=("image", "calculator", "table", "files"))
    names = {t.name for t in bench.tools()}
    assert {"crop", "zoom", "rotate", "read_region", "calculator", "set_cell", "write_file"} <= names
    assert bench.zoom(0, 0, 20, 10, factor=3).images[0].size == (60, 30)
    assert bench.rotate(90).images[0].size == (50, 100)
    assert bench.read_region(0, 0, 50, 50) == "42" and "no text" in bench.read_region(40, 0, 50, 10)
    with pytest.raises(ValueError, match="not inside"):
        bench.crop(0, 0, 200, 10)
    assert bench.calculator("3 * (2 + 5) / 7") == "3" and calculate("1/4") == 0.25
    with pytest.raises(ValueError, match="not arithmetic"):
        calculate("__import__('os')")
    bench.set_cell("A", "b", "7")
    bench.submit("42.0")
    assert Workbench.grade(bench.snapshot(), sample.metadata) == 1.0
    bench.set_cell("A", "b", "8")
    assert Workbench.grade(bench.snapshot(), sample.metadata) == 0.0


def test_a_backend_without_tool_calling_refuses_the_task_before_the_run(tmp_path: Path) -> None:
    import omnieval
    from omnieval.backends.base import Backend, BackendOptions
    from omnieval.errors import ConfigError

    class TextOnly(Backend):
        provider = "textonly"
        modalities = frozenset({"text", "image"})
        calls = 0

        async def generate(self, request: Request) -> Response:
            TextOnly.calls += 1
            return Response(text="4")

    out = tmp_path / "out"
    model = TextOnly("m", options=BackendOptions())
    with pytest.raises(ConfigError, match="cannot pass tools") as refused:
        omnieval.evaluate(model=model, tasks="agent_demo_chart_zoom", output=out, limit=1, quiet=True)
    assert "agent_demo_chart_zoom" in str(refused.value)
    assert TextOnly.calls == 0 and not (out / "samples.jsonl").exists()  # refused before the first request


def test_an_episode_line_names_the_file_line_and_field(tmp_path: Path) -> None:
    from omnieval.backends.replay import load_replay
    from omnieval.errors import ConfigError

    bad = tmp_path / "e.jsonl"
    bad.write_text(
        json.dumps({"task": "t", "sample_id": "1", "episode": {"steps": [{"tool_calls": 3}]}}) + "\n"
    )
    with pytest.raises(ConfigError, match=r"e.jsonl, line 1: field 'episode.steps\[0\]'"):
        load_replay(bad)


environments.add("slow-test", Slow, replace=True)


def test_a_hand_written_episode_file_replays_in_openai_shape_too(tmp_path: Path) -> None:
    from omnieval.backends.replay import load_replay

    steps = [
        {"tool_calls": [{"type": "function", "function": {"name": "zoom", "arguments": {"x0": 1}}}]},
        {"text": "", "tool_calls": [{"id": "s", "name": "submit", "arguments": '{"answer": "7"}'}]},
    ]
    file = tmp_path / "e.jsonl"
    file.write_text(
        json.dumps({"task": "t", "sample_id": "1", "repeat": 0, "episode": {"steps": steps}}) + "\n"
    )
    turns = load_replay(file)["t", "1", 0].extra["turns"]
    assert [(c.id, c.name, json.loads(c.arguments)) for t in turns for c in t.tool_calls] == [
        ("call_0_0", "zoom", {"x0": 1}),
        ("s", "submit", {"answer": "7"}),
    ]


def test_a_hung_in_process_tool_is_abandoned_and_the_run_still_exits_promptly(tmp_path: Path) -> None:
    """A whole run (its own process) whose tool never returns: the call is ``tool_timeout`` naming the
    step, the episode goes on to its submit, and the process exits at once with the tool's daemon
    thread still blocked (an in-process tool cannot be killed; it must not hold the run)."""
    import os
    import subprocess
    import sys

    script = Path(__file__).with_name("stuck_tool_run.py")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)},
        check=False,
    )
    took = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    seconds, threads = done.stdout.strip().splitlines()
    assert float(seconds) < 15 and took < 60  # a 0.3 s timeout; never the tool's (endless) wait
    assert json.loads(threads) == [["omnieval-tool", True]]  # abandoned, still blocked, a daemon
    record = json.loads((tmp_path / "run" / "samples.jsonl").read_text())
    assert record["state"] == "ok" and record["episode"]["end"] == "submitted"
    outcome = record["episode"]["steps"][0]["outcomes"][0]
    assert outcome["state"] == "tool_timeout"
    assert outcome["cause"] == "step 0: tool 'wait' gave no result within 0.3 s"
    agent = json.loads((tmp_path / "run" / "results.json").read_text())["tasks"]["stuck"]["agent"]
    assert agent["call_states"] == {"ok": 1, "tool_timeout": 1}
