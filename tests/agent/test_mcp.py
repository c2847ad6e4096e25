"""The second tier: tools served by a separate MCP process over stdio, with time and memory limits;
each failure a counted state with its cause, the server's state graded at the end."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from omnieval.agent import run_episode
from omnieval.agent.mcp import McpEnvironment
from omnieval.types import Message, Request, Response, Sample
from omnieval.types.agent import AgentSpec
from omnieval.types.tools import ToolCall

SERVER = [sys.executable, str(Path(__file__).with_name("mcp_counter_server.py"))]


def _calls(*calls: tuple[str, str]) -> Response:
    return Response(
        tool_calls=tuple(ToolCall(id=f"c{i}", name=n, arguments=a) for i, (n, a) in enumerate(calls))
    )


async def _episode(turns: list[Response], tmp_path: Path, **options: Any) -> Any:
    seen: list[Request] = []

    async def call(request: Request) -> Response:
        seen.append(request)
        return turns[min(len(seen) - 1, len(turns) - 1)]

    sample = Sample(id="s", input="count", metadata={"goal": {"answer": "5"}})
    env = McpEnvironment(sample, command=SERVER, **options)
    spec = AgentSpec(environment="mcp", tool_timeout_s=1.0)
    request = Request(task="t", sample_id="s", messages=(Message(role="user", content="count"),))
    response = await run_episode(call, request, env, spec, media_dir=tmp_path / "episodes", stem="t-s")
    return response.extra["episode"], seen, env


async def test_an_mcp_server_serves_the_tools_and_its_state_is_graded(tmp_path: Path) -> None:
    turns = [
        _calls(
            ("add", '{"n": 2}'), ("add", '{"n": "x"}'), ("boom", "{}"), ("picture", "{}"), ("get_state", "{}")
        ),
        _calls(("hog", '{"mb": 400}'), ("add", '{"n": 3}')),
        _calls(("submit", '{"answer": "5"}')),
    ]
    episode, seen, env = await _episode(turns, tmp_path, memory_mb=200)
    offered = {t.name for t in seen[0].tools}
    assert {"add", "boom", "hog", "nap", "picture", "submit"} <= offered and "get_state" not in offered
    states = [(o.name, o.state) for o in episode.calls]
    assert states == [
        ("add", "ok"),
        ("add", "bad_arguments"),  # the server's schema, checked before the call
        ("boom", "tool_error"),
        ("picture", "ok"),
        ("get_state", "unknown_tool"),  # hidden from the model
        ("hog", "tool_error"),  # the memory limit holds
        ("add", "ok"),
        ("submit", "ok"),
    ]
    causes = [o.cause or "" for o in episode.calls]
    assert "n: expected integer" in causes[1] and "the disk is on fire" in causes[2]
    assert "out of memory" in causes[5]
    assert (tmp_path / episode.calls[3].images[0]).is_file()  # the server's image, shown to the model
    assert episode.final_state == {"count": 5, "answer": "5"}
    assert McpEnvironment.grade(episode.final_state, {"goal": {"answer": "5"}}) == 1.0
    assert env.client.proc.poll() is not None  # the server process ended with the episode


async def test_a_hung_tool_stops_the_server_and_later_calls_fail_counted(tmp_path: Path) -> None:
    turns = [_calls(("nap", '{"s": 30}')), _calls(("add", '{"n": 1}')), _calls(("submit", '{"answer": "1"}'))]
    episode, _, env = await _episode(turns, tmp_path)
    assert [(o.name, o.state) for o in episode.calls] == [
        ("nap", "tool_timeout"),
        ("add", "tool_error"),
        ("submit", "ok"),
    ]
    assert "stopped" in (episode.calls[1].cause or "")
    assert episode.end == "submitted" and env.client.proc.poll() is not None


async def test_the_server_time_limit_ends_it(tmp_path: Path) -> None:
    turns = [
        _calls(("nap", '{"s": 0.6}')),
        _calls(("add", '{"n": 1}')),
        _calls(("submit", '{"answer": "1"}')),
    ]
    episode, _, _ = await _episode(turns, tmp_path, time_limit_s=0.4)
    assert [o.state for o in episode.calls][:2] == ["tool_error", "tool_error"]
