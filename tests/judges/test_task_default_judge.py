"""A task's own default judge model (``judge: {model: ...}``): used without ``--judge``, overridden by it."""

from __future__ import annotations

import json
from pathlib import Path

from omnieval.runner import JudgeConfig, RunConfig
from omnieval.runs.evaluation import evaluate_config


def _replay(path: Path, outputs: list[str]) -> Path:
    rows = [{"task": "qa", "sample_id": str(i), "response": o} for i, o in enumerate(outputs)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _task(tmp_path: Path, judge_model: Path) -> Path:
    rows = [{"id": str(i), "question": f"{i}+{i}?", "answer": str(2 * i)} for i in range(4)]
    (tmp_path / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    task = tmp_path / "qa.yaml"
    task.write_text(
        "name: qa\nsource: {type: jsonl, path: qa.jsonl}\nmetrics: [{name: exact_match, alias: em}]\n"
        f"judge: {{model: 'replay/{judge_model}', template: binary_equivalence}}\n",
        encoding="utf-8",
    )
    return task


def test_the_task_default_judge_runs_without_judge_and_judge_overrides_it(tmp_path: Path) -> None:
    default = _replay(tmp_path / "default.jsonl", ["1", "1", "0", "x"])
    task = _task(tmp_path, default)
    _, results = evaluate_config(
        RunConfig(tasks=(str(task),), model="baseline/oracle", output=tmp_path / "a", quiet=True)
    )
    block = results.tasks["qa"]
    assert block.judge.versions and next(iter(block.judge.versions)).startswith(f"replay/{default}")
    assert block.metrics["js"] == 2 / 3 and block.states["judge_failed"] == 1
    other = _replay(tmp_path / "other.jsonl", ["0", "0", "0", "0"])
    _, results = evaluate_config(
        RunConfig(
            tasks=(str(task),),
            model="baseline/oracle",
            output=tmp_path / "b",
            quiet=True,
            judge=JudgeConfig(model=f"replay/{other}"),
        )
    )
    block = results.tasks["qa"]
    assert next(iter(block.judge.versions)).startswith(f"replay/{other}")
    assert block.metrics["js"] == 0.0 and block.states["judge_failed"] == 0
