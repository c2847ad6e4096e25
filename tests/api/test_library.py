"""omnieval as a library: ``omnieval.evaluate`` is ``omnieval run``; keywords come from RunConfig."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import omnieval
from omnieval.backends import Backend, BackendOptions
from omnieval.errors import TaskFileError
from omnieval.types import Request, Response


def _stem(tmp_path: Path, n: int = 5) -> Path:
    rows = [{"id": str(i), "question": f"{i}+{i}?", "answer": str(2 * i)} for i in range(n)]
    path = tmp_path / "STEM.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "omnieval", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_the_one_liner_prints_the_score(tmp_path: Path) -> None:
    code = (
        "import omnieval; r = omnieval.evaluate(model='baseline/oracle', "
        f"tasks=['jsonl:{_stem(tmp_path)}']); print(r.tasks['STEM'].score)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "1.0\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["STEM.jsonl"]  # in memory: no run folder left


def test_evaluate_writes_the_same_results_json_as_the_cli(tmp_path: Path) -> None:
    data = _stem(tmp_path, n=8)
    answers = tmp_path / "answers.jsonl"  # half right, one missing: states and scores that differ by sample
    rows = [
        {"task": "STEM", "sample_id": str(i), "response": str(2 * i if i % 2 else i + 1)} for i in range(7)
    ]
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    model = f"replay/{answers}"
    proc = _cli(
        "run",
        "--tasks",
        f"jsonl:{data}",
        "--model",
        model,
        "-o",
        "cli",
        "--limit",
        "8",
        "--quiet",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    result = omnieval.evaluate(
        model=model, tasks=[f"jsonl:{data}"], output=tmp_path / "api", limit=8, quiet=True
    )
    cli = json.loads((tmp_path / "cli" / "results.json").read_text(encoding="utf-8"))
    api = json.loads((tmp_path / "api" / "results.json").read_text(encoding="utf-8"))
    assert api == cli
    config = {k: json.loads((tmp_path / k / "manifest.json").read_text())["config"] for k in ("cli", "api")}
    assert config["api"]["tasks"] == config["cli"]["tasks"]  # either can resume the other's run
    assert result.to_dict() == api and result.run_dir == tmp_path / "api"
    assert result.tasks["STEM"].states["error"] == 1 and result.failure is None


def test_the_error_rate_policy_is_the_clis(tmp_path: Path) -> None:
    data = _stem(tmp_path, n=4)
    answers = tmp_path / "a.jsonl"
    answers.write_text(
        json.dumps({"task": "STEM", "sample_id": "0", "response": "0"}) + "\n", encoding="utf-8"
    )
    args = ("--tasks", f"jsonl:{data}", "--model", f"replay/{answers}", "--quiet", "--max-error-rate", "0.5")
    proc = _cli("run", *args, "-o", "cli", cwd=tmp_path)
    result = omnieval.evaluate(
        model=f"replay/{answers}", tasks=[f"jsonl:{data}"], max_error_rate=0.5, quiet=True
    )
    assert proc.returncode == 3 and result.failure is not None
    assert result.failure in proc.stderr and "error rate 0.750" in result.failure


def test_an_unknown_keyword_is_a_type_error_naming_it_and_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(TypeError) as err:
        omnieval.evaluate(model="baseline/oracle", tasks=[f"jsonl:{_stem(tmp_path)}"], colour="red")
    assert "colour" in str(err.value) and "limit" in str(err.value) and "concurrency" in str(err.value)
    assert str(err.value).startswith("evaluate() ")
    with pytest.raises(TypeError) as err:
        omnieval.sweep(models=["baseline/oracle"], tasks=["x"], output=tmp_path, colour="red")
    assert str(err.value).startswith("sweep() got unexpected keyword argument(s) ['colour']")
    assert "models_at_once" in str(err.value) and "warm_up" not in str(err.value)


def test_every_run_config_field_is_set_by_the_keywords() -> None:
    """Each field a user may set is reached from the options (the model, tasks and output are arguments;
    the media cache folder is the runner's)."""
    from omnieval.executors import ExecutorOptions
    from omnieval.options.build import backend_options, executor_options, run_config, run_options
    from omnieval.runner import RunConfig

    built = run_options({})
    config = run_config(built, tasks=("t",), model="baseline/oracle", output=Path("o"))
    assert set(RunConfig.model_fields) == config.model_fields_set
    assert set(BackendOptions.model_fields) - {"media_cache_dir"} == backend_options(built).model_fields_set
    assert set(ExecutorOptions.model_fields) == executor_options(built).model_fields_set


def test_an_unknown_task_is_the_clis_error(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match="no_such_task"):
        omnieval.evaluate(model="baseline/oracle", tasks=["no_such_task"])
    proc = _cli("run", "--tasks", "no_such_task", "--model", "baseline/oracle", "-o", "o", cwd=tmp_path)
    assert proc.returncode == 2 and "no_such_task" in proc.stderr


def test_an_unknown_model_is_the_clis_error(tmp_path: Path) -> None:
    from omnieval.errors import RegistryError

    task = f"jsonl:{_stem(tmp_path)}"
    with pytest.raises(RegistryError) as err:
        omnieval.evaluate(model="nosuch/x", tasks=[task])
    proc = _cli("run", "--tasks", task, "--model", "nosuch/x", "-o", "o", cwd=tmp_path)
    # the known names after "(known: " differ where earlier tests registered their own backends
    message = str(err.value).split(" (known: ")[0]
    assert proc.returncode == 2 and f"omnieval: error: {message} (known: " in proc.stderr
    assert message == "unknown backend 'nosuch'" and "baseline" in str(err.value)


def test_evaluate_resumes_a_folder_the_cli_started(tmp_path: Path) -> None:
    """Resume: the CLI ran 3 samples; the same call with more samples runs only the new ones (the earlier
    records stay as written) and ends with the results a single CLI run of all of them writes."""
    task = f"jsonl:{_stem(tmp_path, n=6)}"
    started = _cli(
        "run", "--tasks", task, "--model", "baseline/random", "-o", "run", "--limit", "3", cwd=tmp_path
    )
    assert started.returncode == 0, started.stderr
    first = (tmp_path / "run" / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(first) == 3
    result = omnieval.evaluate(
        model="baseline/random", tasks=[task], output=tmp_path / "run", limit=6, quiet=True
    )
    lines = (tmp_path / "run" / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6 and lines[:3] == first
    whole = _cli(
        "run", "--tasks", task, "--model", "baseline/random", "-o", "whole", "--limit", "6", cwd=tmp_path
    )
    assert whole.returncode == 0, whole.stderr
    assert result.tasks["STEM"].n == 6
    cli = json.loads((tmp_path / "whole" / "results.json").read_text(encoding="utf-8"))
    assert result.tasks["STEM"].score == cli["tasks"]["STEM"]["score"]


class Doubler(Backend):
    """Any object implementing the backend protocol: answers twice the number in the question."""

    provider = "doubler"

    async def generate(self, request: Request) -> Response:
        text = str(request.messages[-1].content)
        number = int(text.split("+", 1)[0].split()[-1])
        return Response(text=str(2 * number if number != 3 else 0))


def test_a_backend_object_is_a_model(tmp_path: Path) -> None:
    backend = Doubler("x2", options=BackendOptions())
    result = omnieval.evaluate(model=backend, tasks=[f"jsonl:{_stem(tmp_path)}"], quiet=True)
    assert result.model == "doubler/x2"
    assert result.tasks["STEM"].score == pytest.approx(0.8) and result.tasks["STEM"].n == 5


def test_an_executor_option_reaches_the_executor(tmp_path: Path) -> None:
    """``executor=`` is an ExecutorOptions field: a model object cannot be shipped to Ray, which is said."""
    with pytest.raises(TypeError, match="local executor only"):
        omnieval.evaluate(
            model=Doubler("x2", options=BackendOptions()), tasks=[f"jsonl:{_stem(tmp_path)}"], executor="ray"
        )


def test_score_report_and_load_results_read_a_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = omnieval.evaluate(
        model="baseline/oracle", tasks=[f"jsonl:{_stem(tmp_path)}"], output=out, quiet=True
    )
    assert omnieval.load_results(out).to_dict() == first.to_dict()
    assert omnieval.score(out).tasks["STEM"].score == 1.0
    report = omnieval.report(out)
    assert report.is_file() and report.stat().st_size > 0


def test_a_killed_report_loses_no_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report is rendered after results.json is written: killing it loses nothing."""
    import omnieval.reports.html

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(omnieval.reports.html, "write_report", killed)
    with pytest.raises(KeyboardInterrupt):
        omnieval.evaluate(
            model="baseline/oracle", tasks=[f"jsonl:{_stem(tmp_path)}"], output=tmp_path / "run", quiet=True
        )
    monkeypatch.undo()
    assert json.loads((tmp_path / "run" / "results.json").read_text())["tasks"]["STEM"]["score"] == 1.0
    assert not (tmp_path / "run" / "report.html").exists()
    assert omnieval.report(tmp_path / "run").is_file()


def test_dry_run_is_refused_rather_than_calling_the_model(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="plan_requests"):
        omnieval.evaluate(model="openai/none", tasks=[f"jsonl:{_stem(tmp_path)}"], dry_run=True)


def _recording_warm_up(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Replace the tail warm-up by a recorder of the thread it ran on."""
    import threading

    import omnieval.reports.tail

    calls: list[str] = []
    monkeypatch.setattr(
        omnieval.reports.tail, "load_tail_modules", lambda: calls.append(threading.current_thread().name)
    )
    return calls


def test_a_library_run_starts_no_warm_up_thread_unless_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omnieval.reports.tail import WARM_UP_THREAD

    calls = _recording_warm_up(monkeypatch)
    task = f"jsonl:{_stem(tmp_path)}"
    omnieval.evaluate(model="baseline/oracle", tasks=[task], quiet=True)
    omnieval.evaluate(model=Doubler("x2", options=BackendOptions()), tasks=[task], quiet=True)
    assert calls == []
    omnieval.evaluate(model="baseline/oracle", tasks=[task], quiet=True, warm_up=True)
    omnieval.evaluate(model=Doubler("x2", options=BackendOptions()), tasks=[task], quiet=True, warm_up=True)
    assert calls == [WARM_UP_THREAD, WARM_UP_THREAD]


def test_the_cli_run_warms_up_the_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from omnieval.cli.app import app
    from omnieval.reports.tail import WARM_UP_THREAD

    calls = _recording_warm_up(monkeypatch)
    args = ["run", "--tasks", f"jsonl:{_stem(tmp_path)}", "--model", "baseline/oracle", "--quiet"]
    result = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert calls == [WARM_UP_THREAD]


def test_sweep_writes_the_same_leaderboard_and_runs_as_the_cli(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Sweep orchestration and leaderboard.json live below the CLI: the same models and tasks give the same
    board (its run paths aside) and the same results.json per model."""
    task, models = f"jsonl:{_stem(tmp_path)}", ["baseline/oracle", "baseline/random"]
    proc = _cli(
        "sweep", "--models", ",".join(models), "--tasks", task, "--output", "cli", "--quiet", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    board = omnieval.sweep(models=models, tasks=[task], output=tmp_path / "api", quiet=True)
    assert "[omnieval] sweep:" not in capfd.readouterr().err, "quiet=True prints no plan"
    cli = json.loads((tmp_path / "cli" / "leaderboard.json").read_text(encoding="utf-8"))
    document = board.model_dump(mode="json")
    assert {k: v for k, v in document.items() if k != "runs"} == {k: v for k, v in cli.items() if k != "runs"}
    assert sorted(board.runs) == sorted(cli["runs"]) == ["baseline_oracle", "baseline_random"]
    assert board.rows[0]["mean"] == 1.0
    for name in board.runs:
        api_results, cli_results = (
            json.loads((tmp_path / side / name / "results.json").read_text(encoding="utf-8"))
            for side in ("api", "cli")
        )
        assert api_results == cli_results
