"""ART's descriptive protocol end to end: free-form answers judged Relevant/Correct through the judge
stage."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from omnieval.cli.app import app

VERDICTS = ("banana", "Relevant\nIncorrect", "Irrelevant\nThe answer talks about something else.")


def _run(args: list[str]) -> None:
    result = CliRunner().invoke(app, ["run", *args, "--quiet"])
    assert result.exit_code == 0, result.output


def test_descriptive_tasks_are_scored_by_the_judge_and_count_failures(
    tiny_set: Path, tiny_rows: list, tmp_path: Path
) -> None:
    aa = [r for r in tiny_rows if r["task"] == "AA"]
    judge = tmp_path / "judge.jsonl"
    judge.write_text(
        "".join(
            json.dumps(
                {
                    "task": "art.AA.descriptive",
                    "sample_id": r["id"],
                    "response": VERDICTS[i] if i < len(VERDICTS) else "**Relevant**\nCorrect",
                }
            )
            + "\n"
            for i, r in enumerate(aa)
        ),
        encoding="utf-8",
    )
    _run(
        [
            "--tasks",
            f"art:{tiny_set}?protocol=descriptive&tasks=AA",
            "--model",
            "baseline/oracle",
            "--judge",
            f"replay/{judge}",
            "--output",
            str(tmp_path / "judged"),
        ]
    )
    block = json.loads((tmp_path / "judged" / "results.json").read_text(encoding="utf-8"))["tasks"][
        "art.AA.descriptive"
    ]
    judged = len(aa) - 1  # "banana" is no verdict: judge_failed, never a score
    assert block["states"]["judge_failed"] == 1
    assert abs(block["metrics"]["art.absolute_accuracy"] - (judged - 2) / judged) < 1e-9
    assert block["metadata"]["protocol"] == "descriptive"
    records = [
        json.loads(x)
        for x in (tmp_path / "judged" / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    from omnieval.benchmarks.art.judge import descriptive_summary

    summary = descriptive_summary(records)
    assert summary["judged"] == judged and summary["judge_failed"] == 1
    assert abs(summary["relevant"] - (judged - 1) / judged) < 1e-9
    assert abs(summary["relative_accuracy"] - (judged - 2) / (judged - 1)) < 1e-9


def test_descriptive_without_a_judge_falls_back_to_the_literal_rules(tiny_set: Path, tmp_path: Path) -> None:
    _run(
        [
            "--tasks",
            f"art:{tiny_set}?protocol=descriptive&tasks=AA",
            "--model",
            "baseline/oracle",
            "--output",
            str(tmp_path / "plain"),
        ]
    )
    block = json.loads((tmp_path / "plain" / "results.json").read_text(encoding="utf-8"))["tasks"][
        "art.AA.descriptive"
    ]
    assert block["score"] == 1.0 and block["states"].get("judge_failed", 0) == 0


def test_unknown_protocol_is_refused(tiny_set: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--tasks",
            f"art:{tiny_set}?protocol=essay",
            "--model",
            "baseline/oracle",
            "--output",
            "/tmp/never",
        ],
    )
    assert result.exit_code != 0 and "protocol must be" in result.output
