"""``--tasks tau_bench:PATH``: tau-bench-style task files, run as agent episodes graded on their actions.

``PATH`` is a JSON list or JSONL of tasks, or a folder holding ``tasks.json`` (or ``tasks.jsonl``) and
``tools.json``; ``tools.json`` (beside the task file) lists the domain's tools as OpenAI function specs
(``{"type": "function", "function": {name, description, parameters}}``) or plain ``{name, description,
parameters}``. A task gives:

* ``id`` (else its position), ``instruction`` — or τ²-bench's ``user_scenario.instructions`` (its
  ``task_instructions``/``reason_for_call``, or the whole block as text);
* ``actions``: the reference tool calls ``[{"name", "kwargs"|"arguments"}]`` (τ²:
  ``evaluation_criteria.actions``);
* ``outputs``: strings the final answer must contain (τ²: ``evaluation_criteria.communicate_info``);
* ``tool_results`` (optional): ``{tool name: text}`` each call of that tool returns (default ``ok``).

The episode runs in the ``recorded_actions`` environment: every call is checked against the tool's
schema and logged; the grader wants each reference action, with equal arguments, in order in the log and
each output in the submitted answer — tau-bench's action and output checks. The domain database and the
simulated user are not run: the instruction is the one user turn. The gold answer is the reference
solution (its tool calls and a submit), so ``baseline/oracle`` scores 1.0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from omnieval.agent.environment import Environment, register_environment
from omnieval.agent.tools import Tool, ToolResult
from omnieval.errors import SourceError
from omnieval.sources.importers import register_importer
from omnieval.sources.task import Task
from omnieval.types import MetricRef, PromptSpec, Sample, TaskSpec
from omnieval.types.agent import AgentSpec
from omnieval.types.tools import ToolSpec

__all__ = ["RecordedActions", "import_tau_bench"]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


@register_environment("recorded_actions")
class RecordedActions(Environment):
    """The task's tools, each logging its call (``state["actions"]``) and returning its canned result."""

    def __init__(
        self, sample: Sample, *, tools: list[dict[str, Any]] | tuple[dict[str, Any], ...] = (), **options: Any
    ) -> None:
        super().__init__(sample, **options)
        self.specs = [ToolSpec.model_validate(t) for t in tools]
        self.results: dict[str, str] = dict(sample.metadata.get("tool_results") or {})
        self.state["actions"] = []

    def tools(self) -> list[Tool]:
        return [Tool(s.name, s.description, None, self._logger(s.name), schema=s) for s in self.specs]

    def _logger(self, name: str) -> Any:
        def call(**arguments: Any) -> ToolResult:
            self.state["actions"].append({"name": name, "arguments": arguments})
            return ToolResult(str(self.results.get(name, "ok")))

        return call

    @classmethod
    def grade(cls, final_state: dict[str, Any], metadata: dict[str, Any]) -> float:
        """1 when the reference actions appear in order (equal arguments) and every output is in the
        answer."""
        goal = metadata.get("goal", {})
        done = iter(_canonical(a) for a in final_state.get("actions") or ())
        for action in goal.get("actions") or ():
            wanted = _canonical({"name": action["name"], "arguments": action.get("arguments", {})})
            if not any(step == wanted for step in done):
                return 0.0
        answer = str(final_state.get("answer") or "").casefold()
        return float(all(str(o).casefold() in answer for o in goal.get("outputs") or ()))


def _files(path: Path) -> tuple[Path, Path]:
    if path.is_dir():
        tasks = next((path / n for n in ("tasks.json", "tasks.jsonl") if (path / n).is_file()), None)
        if tasks is None:
            raise SourceError("a tau-bench folder needs tasks.json or tasks.jsonl", path=str(path))
        return tasks, path / "tools.json"
    if not path.is_file():
        raise SourceError("no such tau-bench task file or folder", path=str(path))
    return path, path.with_name("tools.json")


def _rows(file: Path) -> list[dict[str, Any]]:
    text = file.read_text(encoding="utf-8")
    try:
        rows = (
            [json.loads(line) for line in text.splitlines() if line.strip()]
            if file.suffix == ".jsonl"
            else json.loads(text)
        )
    except ValueError as exc:
        raise SourceError(f"not valid JSON: {exc}", path=str(file)) from None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise SourceError("expected a list of task objects", path=str(file))
    return rows


def _tools(file: Path) -> list[dict[str, Any]]:
    if not file.is_file():
        raise SourceError("tau-bench tasks need the domain's tools.json beside them", path=str(file))
    listed = json.loads(file.read_text(encoding="utf-8"))
    if not isinstance(listed, list):
        raise SourceError("expected a list of tool specs", path=str(file))
    specs = []
    for i, item in enumerate(listed):
        spec = item.get("function", item) if isinstance(item, dict) else None
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise SourceError("a tool needs a 'name'", path=str(file), field=f"[{i}].name")
        specs.append({k: spec[k] for k in ("name", "description", "parameters") if k in spec})
    return specs


def _instruction(row: dict[str, Any]) -> Any:
    if row.get("instruction"):
        return row["instruction"]
    block = (row.get("user_scenario") or {}).get("instructions")
    if isinstance(block, dict):
        parts = [block.get(k) for k in ("reason_for_call", "known_info", "task_instructions") if block.get(k)]
        return "\n".join(map(str, parts)) or json.dumps(block, ensure_ascii=False)
    return block


def _sample(row: dict[str, Any], index: int, *, file: Path, tools: set[str]) -> Sample:
    sid = str(row.get("id", index))
    where: dict[str, Any] = {"path": str(file), "sample_id": sid}
    instruction = _instruction(row)
    if not isinstance(instruction, str) or not instruction.strip():
        raise SourceError("the task has no instruction", field="instruction", **where)
    criteria = row.get("evaluation_criteria") or {}
    actions = []
    for i, action in enumerate(row.get("actions", criteria.get("actions")) or ()):
        name = action.get("name") if isinstance(action, dict) else None
        if name not in tools:
            raise SourceError(
                f"action {name!r} names no tool of tools.json", field=f"actions[{i}].name", **where
            )
        args = action.get("kwargs", action.get("arguments", {}))
        actions.append({"name": name, "arguments": args})
    outputs = [str(o) for o in row.get("outputs", criteria.get("communicate_info")) or ()]
    solution = [*actions, {"name": "submit", "arguments": {"answer": "; ".join(outputs) or "done"}}]
    return Sample(
        id=sid,
        input=instruction,
        targets=(json.dumps(solution, ensure_ascii=False),),
        metadata={
            "goal": {"actions": actions, "outputs": outputs},
            "tool_results": row.get("tool_results") or {},
            "user_id": row.get("user_id"),
        },
    )


@register_importer("tau_bench")
def import_tau_bench(path: str) -> list[Task]:
    """One task (``tau_bench_<name>``) over the file's tasks, every task checked before it is returned."""
    tasks_file, tools_file = _files(Path(path).expanduser())
    tools = _tools(tools_file)
    names = {t["name"] for t in tools}
    samples = [_sample(r, i, file=tasks_file, tools=names) for i, r in enumerate(_rows(tasks_file))]
    stem = tasks_file.parent.name if tasks_file.stem == "tasks" else tasks_file.stem
    spec = TaskSpec(
        name=f"tau_bench_{stem}".replace("-", "_"),
        description=f"tau-bench-style tasks from {tasks_file}: graded on their reference actions and outputs",
        language="en",
        tags=("agent", "tools", "tau-bench"),
        prompt=PromptSpec(template="{{ input }}"),
        metrics=(MetricRef(name="final_state"),),
        agent=AgentSpec(environment="recorded_actions", options={"tools": tools}, max_steps=30),
        metadata={"source": str(tasks_file)},
    )
    return [Task.from_samples(spec, samples, origin=str(tasks_file))]
