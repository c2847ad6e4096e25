"""Comma-separated list options may also be repeated: every value counts (click alone keeps only the last)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.cli._common import comma_joined
from omnieval.cli.app import app
from omnieval.testing.runs import write_synthetic_run


def _task(folder: Path, name: str, n: int = 3) -> Path:
    path = folder / f"{name}.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": f"s{i}", "question": f"{name} {i}?", "answer": str(i)}) + "\n" for i in range(n)
        ),
        encoding="utf-8",
    )
    return path


def test_comma_joined_keeps_a_single_value_as_given() -> None:
    assert comma_joined(["a, b"]) == "a, b"  # one use: unchanged (the manifest's config stays the same)
    assert comma_joined(["a,b", "c"]) == "a,b,c"
    assert comma_joined(None) == "" and comma_joined([]) == ""


@pytest.mark.parametrize(
    "spelling",
    [
        ["--tasks", "{a},{b},{c}"],
        ["--tasks", "{a}", "--tasks", "{b}", "--tasks", "{c}"],
        ["-t", "{a},{b}", "-t", "{c}"],
    ],
)
def test_run_takes_every_task_whether_comma_separated_or_repeated(
    tmp_path: Path, spelling: list[str]
) -> None:
    paths = {k: f"jsonl:{_task(tmp_path, k)}" for k in "abc"}
    args = [s.format(**paths) for s in spelling]
    result = CliRunner().invoke(
        app, ["run", *args, "-m", "baseline/oracle", "-o", str(tmp_path / "out"), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    tasks = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))["tasks"]
    assert sorted(tasks) == ["a", "b", "c"] and all(t["n"] == 3 for t in tasks.values())


def test_dry_run_sample_ids_accumulate_across_repeats(tmp_path: Path) -> None:
    task = f"jsonl:{_task(tmp_path, 'q', n=6)}"
    base = ["run", "-t", task, "-m", "baseline/oracle", "-o", str(tmp_path / "out"), "--dry-run"]
    result = CliRunner().invoke(app, [*base, "--sample-ids", "s1,s2", "--sample-ids", "s4"])
    assert result.exit_code == 0, result.output
    shown = {f"s{i}" for i in range(6) if f"q · s{i} " in result.output}
    assert shown == {"s1", "s2", "s4"}, result.output


def test_sweep_takes_every_model_and_task_whether_comma_separated_or_repeated(tmp_path: Path) -> None:
    a, b = (f"jsonl:{_task(tmp_path, k)}" for k in "ab")
    out = tmp_path / "sweep"
    result = CliRunner().invoke(
        app,
        [
            "sweep",
            "--models",
            "baseline/oracle",
            "--models",
            "baseline/first-option",
            "-t",
            a,
            "-t",
            b,
            "-o",
            str(out),
            "--quiet",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    board = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    rows = board["rows"] if isinstance(board, dict) and "rows" in board else board
    assert len(rows) == 2
    for run_dir in ("baseline_oracle", "baseline_first-option"):
        assert sorted(json.loads((out / run_dir / "results.json").read_text(encoding="utf-8"))["tasks"]) == [
            "a",
            "b",
        ]


def test_analyze_stability_sizes_accumulate(tmp_path: Path) -> None:
    run = write_synthetic_run(tmp_path / "r", n_samples=60, model="hf/tiny", skill=0.4, seed=1)
    out = tmp_path / "analysis"
    result = CliRunner().invoke(
        app,
        [
            "analyze",
            "stability",
            str(run),
            "--sizes",
            "3",
            "--sizes",
            "5,7",
            "--resamples",
            "50",
            "--output",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    curve = json.loads((out / "stability.json").read_text(encoding="utf-8"))["curves"]["r"]
    assert [point["n_per_task"] for point in curve] == [3, 5, 7]
