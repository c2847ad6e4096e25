"""What a new user tripped over: each rough edge of the command line, as they met it (in-process CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.cli.app import app


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())


def _task(tmp_path: Path, rows: list[dict[str, object]], name: str = "t") -> Path:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(
    tmp_path: Path, task: Path, *extra: str, model: str = "baseline/oracle", out: str = "run"
) -> tuple[int, str]:
    return _cli("run", "-t", f"jsonl:{task}", "-m", model, "-o", str(tmp_path / out), "--quiet", *extra)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    task = _task(tmp_path, [{"id": str(i), "question": f"q{i}", "answer": str(i)} for i in range(3)])
    assert _run(tmp_path, task)[0] == 0
    return tmp_path / "run"


COMMANDS = [
    ["diff", "RUN", "BAD"],
    ["diff", "BAD", "RUN"],
    ["score", "BAD"],
    ["report", "BAD"],
    ["compare", "RUN", "BAD"],
    ["rejudge", "BAD", "--judge", "baseline/oracle"],
    ["pack", "BAD"],
    ["protect", "impact", "RUN", "BAD"],
    ["analyze", "subsets", "BAD"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c))
@pytest.mark.parametrize(("kind", "says"), [("missing", "does not exist"), ("file", "is a file, not a run folder"),
                                            ("empty", "is not an omnieval run folder: no ")])  # fmt: skip
def test_commands_taking_a_run_folder_check_it_first(
    run_dir: Path, tmp_path: Path, command: list[str], kind: str, says: str
) -> None:
    bad = {"missing": tmp_path / "nowhere", "file": run_dir / "samples.jsonl", "empty": tmp_path / "empty"}[
        kind
    ]
    (tmp_path / "empty").mkdir()
    code, out = _cli(*(str(run_dir) if a == "RUN" else str(bad) if a == "BAD" else a for a in command))
    assert code == 2, out
    assert "Traceback" not in out and f"{bad} {says}" in out.replace(f"run folder {bad} does", f"{bad} does")


@pytest.mark.parametrize("limit", ["-3", "0"])
def test_zero_or_negative_limit_is_refused_before_anything_is_written(tmp_path: Path, limit: str) -> None:
    task = _task(tmp_path, [{"id": "1", "question": "q", "answer": "a"}])
    code, out = _run(tmp_path, task, "--limit", limit)
    assert code == 2 and "--limit" in out
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("typed", "suggested"), [("demo_txt", "'demo_text'"), ("demo_imgae", "'demo_image'"), ("dem", "'demo'")])
def test_unknown_task_name_suggests_close_matches(tmp_path: Path, typed: str, suggested: str) -> None:
    code, out = _cli("run", "-t", typed, "-m", "baseline/oracle", "-o", str(tmp_path / "run"))
    assert code == 2 and f"unknown task {typed!r}" in out and "did you mean" in out and suggested in out


def test_unknown_task_name_without_a_close_match_suggests_nothing(tmp_path: Path) -> None:
    code, out = _cli("run", "-t", "zzzqqq", "-m", "baseline/oracle", "-o", str(tmp_path / "run"))
    assert code == 2 and "unknown task 'zzzqqq'" in out and "did you mean" not in out


def test_diff_lists_changed_samples_in_natural_id_order(tmp_path: Path) -> None:
    rows = [{"id": str(i), "question": f"q{i}", "answer": str(i)} for i in (1, 2, 10, 11, 3)]
    task = _task(tmp_path, rows)
    assert _run(tmp_path, task, out="a")[0] == 0
    assert _run(tmp_path, task, model="baseline/random", out="b")[0] == 0  # random answers: every sample may change
    code, out = _cli("diff", str(tmp_path / "a"), str(tmp_path / "b"), "--json")
    ids = [f["sample_id"] for f in json.loads(out)["flips"]]
    assert code == 0 and len(ids) >= 3
    assert ids == sorted(ids, key=int)  # 1, 2, 3, 10, 11 — never 1, 10, 11, 2, 3
