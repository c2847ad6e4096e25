"""A whole agent run whose in-process tool never returns (run by test_episode in a subprocess): the
episode records ``tool_timeout`` and the process still exits promptly, the tool's thread abandoned.

Usage: ``python stuck_tool_run.py OUT``; prints the seconds the run took, then each tool thread still
alive with its daemon flag."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

import omnieval
from omnieval.agent import Environment, Tool, environments, tool
from omnieval.testing.fake_openai import FakeOpenAI

NEVER = threading.Event()  # never set: the tool blocks for as long as the process lives


class Stuck(Environment):
    """One tool, ``wait``, that never returns."""

    name = "stuck-test"

    def tools(self) -> list[Tool]:
        return [tool(self.wait)]

    def wait(self) -> str:
        """Wait for something that never happens."""
        NEVER.wait()
        return "never"


def _script(body: dict[str, Any]) -> dict[str, Any]:
    """Step 0 calls the stuck tool, step 1 submits."""
    done = any(m["role"] == "tool" for m in body["messages"])
    name, arguments = ("submit", '{"answer": "1"}') if done else ("wait", "{}")
    return {
        "content": "",
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": name, "arguments": arguments}}],
    }


def main(out: Path) -> None:
    environments.add("stuck-test", Stuck, replace=True)
    (out / "data.jsonl").parent.mkdir(parents=True, exist_ok=True)
    (out / "data.jsonl").write_text(json.dumps({"id": "1", "question": "wait", "answer": "1"}) + "\n")
    task = out / "task.yaml"
    task.write_text(
        "name: stuck\nsource: {type: jsonl, path: data.jsonl}\nmetrics: [{name: exact_match}]\n"
        "agent: {environment: stuck-test, max_steps: 3, tool_timeout_s: 0.3}\n"
    )
    started = time.perf_counter()
    with FakeOpenAI(tool_script=_script).in_thread() as server:
        omnieval.evaluate(
            model="openai/M", tasks=[str(task)], output=out / "run", base_url=server.url, quiet=True
        )
    alive = [[t.name, t.daemon] for t in threading.enumerate() if t.name == "omnieval-tool"]
    print(f"{time.perf_counter() - started:.2f}")
    print(json.dumps(alive))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
