"""What a new user tripped over: each rough edge of the command line, as they met it (in-process CLI)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from omnieval.aggregate.causes import error_cause
from omnieval.cli.app import app
from omnieval.errors import BackendError
from omnieval.runner.progress import Progress, status_line
from omnieval.types import Request

from .conftest import ScriptedBackend


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
    # not --quiet: its output is the test's (stderr is no terminal here: a line per task, no bars)
    return _cli("run", "-t", f"jsonl:{task}", "-m", model, "-o", str(tmp_path / out), *extra)


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
@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("missing", "does not exist"),
        ("file", "is a file, not a run folder"),
        ("empty", "is not an omnieval run folder: no "),
    ],
)
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


@pytest.mark.parametrize(
    ("typed", "suggested"), [("demo_txt", "'demo_text'"), ("demo_imgae", "'demo_image'"), ("dem", "'demo'")]
)
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
    assert (
        _run(tmp_path, task, model="baseline/random", out="b")[0] == 0
    )  # random answers: every sample may change
    code, out = _cli("diff", str(tmp_path / "a"), str(tmp_path / "b"), "--json")
    ids = [f["sample_id"] for f in json.loads(out)["flips"]]
    assert code == 0 and len(ids) >= 3
    assert ids == sorted(ids, key=int)  # 1, 2, 3, 10, 11 — never 1, 10, 11, 2, 3


def test_rows_without_an_answer_are_counted_and_named_by_validate_run_and_the_table(tmp_path: Path) -> None:
    task = _task(tmp_path, [{"id": "1", "question": "q", "answer": "a"}, {"id": "2", "question": "q2"}])
    code, out = _cli("validate", f"jsonl:{task}")
    assert (
        code == 0
        and "warn" in out
        and "1 of 2 samples have no gold answer and will not be scored: '2'" in out
    )
    for model, states in (
        ("baseline/random", "2 │ 2 │"),
        ("baseline/oracle", "2 │ 1 │"),
    ):  # n=2; ok=2 / ok=1 + error 1
        code, out = _run(tmp_path, task, model=model, out=model.replace("/", "_"))
        assert code == 0, out
        assert "1 of 2 samples of t have no gold answer and are not scored (ids '2')" in out
        assert (
            "unscored ┃" in out
            and states in out
            and out.split("│ t ")[1].split("└")[0].rstrip(" │").endswith("1")
        )


def test_hidden_answer_task_is_a_note_not_a_warning(tmp_path: Path) -> None:
    task = _task(tmp_path, [{"id": "1", "question": "q"}, {"id": "2", "question": "q2"}])
    code, out = _cli("validate", f"jsonl:{task}")
    assert code == 0 and out.startswith("ok") and "no sample has a gold answer" in out
    code, out = _run(tmp_path, task, model="baseline/random")
    assert code == 0 and "note: no sample of t has a gold answer" in out and "warning" not in out


def _flaky(request: Request) -> str:
    """Sample 1: HTTP 404 (not retried); 2: times out on every attempt; 3: one timeout, then the answer."""
    calls = ScriptedBackend.calls[f"{request.task}/{request.sample_id}"]
    if request.sample_id == "1":
        raise BackendError("scripted/m: HTTP 404: no such model", status=404)
    if request.sample_id == "2" or (request.sample_id == "3" and calls == 1):
        raise BackendError(
            "scripted/m: no answer within 1 s (ReadTimeout)", retryable=True, transport="timeout"
        )
    return str(request.targets[0])


def test_any_error_gives_a_warning_with_causes_and_retries_are_shown(
    tmp_path: Path, scripted: type[ScriptedBackend]
) -> None:
    scripted.answer = staticmethod(_flaky)
    task = _task(tmp_path, [{"id": str(i), "question": f"q{i}", "answer": str(i)} for i in range(10)])
    code, out = _run(tmp_path, task, "--max-attempts", "2", model="scripted/m")
    assert code == 0, out  # 20 % errors: a warning, not a failure
    assert (
        "warning: 2 of 10 samples of t ended in error (HTTP 404 ×1, timeout ×1), e.g.: scripted/m: HTTP 404"
        in out
    )
    assert (
        "2 retries so far in the run" in out
    )  # sample 2's and sample 3's second attempts (quiet progress line)
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    causes = results["tasks"]["t"]["error_causes"]
    assert causes == {
        "HTTP 404": {"n": 1, "example": "scripted/m: HTTP 404: no such model"},
        "timeout": {
            "n": 1,
            "example": "gave up after 2 attempts: scripted/m: no answer within 1 s (ReadTimeout)",
        },
    }
    page = html.unescape((tmp_path / "run" / "report.html").read_text(encoding="utf-8"))
    assert '<td class="l">HTTP 404</td><td>1</td>' in page and "2 backend calls retried" in page
    code, out = _run(
        tmp_path, task, "--max-attempts", "2", "--max-error-rate", "0.1", model="scripted/m", out="run2"
    )
    assert code == 3 and "exceeds --max-error-rate" in out


@pytest.mark.parametrize(
    ("reason", "cause"),
    [
        ("openai/m task 't' sample '1' (http://h/v1/chat/completions): HTTP 503: overloaded", "HTTP 503"),
        ("x: rate limited (HTTP 429): slow down", "HTTP 429"),
        ("x: no answer within 120 s (ReadTimeout)", "timeout"),
        ("x: connection failed: [Errno 111] Connection refused", "connection"),
        ("x: response body is not valid JSON: '<html>'", "bad JSON"),
        ("x: response field 'choices' is missing or empty", "bad response"),
        ("baseline/oracle: sample '2' has no gold answer", "other"),
    ],
)
def test_error_causes(reason: str, cause: str) -> None:
    assert error_cause(reason) == cause


def test_live_progress_line_shows_retries() -> None:
    assert status_line({"error": 2}, retries=0) == "err 2 · parse✗ 0 · trunc 0 · skip 0"
    assert status_line({"error": 2}, retries=390).endswith(" · retries 390")


def test_summary_labels_wall_time_and_per_task_busy_time(tmp_path: Path) -> None:
    tasks = [_task(tmp_path, [{"id": "1", "question": "q", "answer": "a"}], name=n) for n in ("t1", "t2")]
    code, out = _cli(
        "run",
        "-t",
        f"jsonl:{tasks[0]},jsonl:{tasks[1]}",
        "-m",
        "baseline/oracle",
        "-o",
        str(tmp_path / "r"),
    )
    assert code == 0, out
    assert re.search(r"t1: 1 new samples, task busy \d+\.\ds", out) and re.search(
        r"t2: 1 new samples, task busy \d+\.\ds", out
    )
    assert re.search(r"run wall time \d+\.\ds \(tasks run concurrently; per-task busy times overlap\)", out)


def test_a_sweep_row_labels_its_time_as_the_runs_wall_time(capsys: pytest.CaptureFixture[str]) -> None:
    for label in ("task busy", "run wall time"):
        for quiet in (False, True):  # stderr is no terminal here: a line per row, or nothing when quiet
            progress = Progress(quiet=quiet, elapsed_label=label)
            progress.add("m", 1)
            progress.update("m", done=1, states={"ok": 1}, retries=3)
            progress.finish("m", states={"ok": 1})
            line = capsys.readouterr().err
            if quiet:
                assert line == ""
                continue
            assert re.match(
                rf"\[omnieval\] m: 1 new samples, {label} \d+\.\ds \(ok=1; 3 retries so far in the run\)",
                line,
            ), line
