"""A ``judge_failed`` sample of a task whose score metric is a plain one (not judge-derived) keeps that
metric's
value: its record score, the task score, the CI and the per-variant scores all count it the same way. Before,
the task score counted it while its record said 0.0 and the CI and variants left it out (CI 0.000–0.000)."""

from __future__ import annotations

import json
from pathlib import Path

from omnieval.aggregate.results import bootstrap_ci
from omnieval.runner import JudgeConfig, RunConfig
from omnieval.runs.evaluation import evaluate_config


def test_plain_score_of_a_judge_failed_sample_counts_everywhere_alike(tmp_path: Path) -> None:
    out = tmp_path / "run"
    judge = JudgeConfig(model="baseline/random", retries=0)  # random verdicts: most fall outside {0, 1}
    evaluate_config(
        RunConfig(tasks=("demo_text",), model="baseline/random", output=out, quiet=True, judge=judge)
    )
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    task = json.loads((out / "results.json").read_text())["tasks"]["demo_text"]
    assert task["score_metric"] == "numeric_match"
    failed = [r for r in records if r["state"] == "judge_failed"]
    assert any(r["metrics"]["numeric_match"] == 1.0 for r in failed), "the case must occur"
    for r in failed:
        assert r["score"] == r["metrics"]["numeric_match"], r["sample_id"]
    scores = sorted(r["score"] for r in records)
    assert task["score"] == sum(scores) / len(scores)
    assert task["ci95"] == list(bootstrap_ci(scores)), "CI over the same samples as the score"
    assert sum(v["n"] for v in task["by_variant"].values()) == len(records)
